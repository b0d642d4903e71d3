package io.effonce.job.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.job.JobOptions;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * The decoder over generated hostile input: valid envelopes of both schema forms, mutated at random
 * (fields dropped, retyped, emptied, lengthened, duplicated, nested, truncated, bytes flipped, huge
 * numbers, odd Unicode). Whatever comes in, the decoder never throws, and returns either a change
 * that meets every downstream contract or a dead letter with a known reason.
 */
class ChangeDecoderFuzzTest {

    private static final int MAX_RAW = 256;
    private static final ChangeDecoder DECODER =
            new ChangeDecoder(
                    ZoneOffset.UTC, MAX_RAW, JobOptions.EVENT_TIME_TOLERANCE.defaultValue());
    private static final Set<String> CODES =
            Arrays.stream(RejectReason.values())
                    .map(RejectReason::code)
                    .collect(Collectors.toSet());
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

    private static final AtomicLong INPUTS = new AtomicLong();
    private static final AtomicLong CHANGES = new AtomicLong();
    private static final Map<RejectReason, AtomicLong> REASONS = new ConcurrentHashMap<>();

    @Property(tries = 100_000)
    void anyInputIsAValidChangeOrADeadLetterWithAReason(@ForAll("records") byte[] value) {
        INPUTS.incrementAndGet();
        LedgerRecord record = DECODER.decode("payments", 1, 42, ChangeDecoder.NO_TIMESTAMP, value);

        assertThat(record).isNotNull();
        if (record.deadLetter() != null) {
            DeadLetter dead = record.deadLetter();
            assertThat(record.change()).isNull();
            String code = dead.reason().split(":", 2)[0];
            assertThat(CODES).as("reason %s", dead.reason()).contains(code);
            assertThat(dead.reason()).doesNotContain("\u0000").hasSizeLessThan(400);
            assertThat(dead.rawValue()).doesNotContain("\u0000").hasSizeLessThanOrEqualTo(MAX_RAW);
            assertThat(dead.offset()).isEqualTo(42);
            REASONS.computeIfAbsent(reasonOf(code), r -> new AtomicLong()).incrementAndGet();
        } else if (record.change() != null) {
            assertMeetsTheContract(record.change());
            CHANGES.incrementAndGet();
        } else {
            assertThat(record.isHeartbeat())
                    .as("neither change, dead letter nor heartbeat")
                    .isTrue();
        }
    }

    /** What the sink's columns, the dedup keys and the totals rely on. */
    private static void assertMeetsTheContract(PaymentChange c) {
        assertThat(FieldRules.identifierProblem(c.paymentId())).isNull();
        assertThat(ChangeDecoder.STATES).contains(c.state());
        assertThat(Instant.ofEpochMilli(c.eventTimeMillis()))
                .isBetween(ChangeDecoder.MIN_EVENT_TIME, ChangeDecoder.MAX_EVENT_TIME);
        assertThat(c.day())
                .isEqualTo(
                        LocalDate.ofInstant(
                                Instant.ofEpochMilli(c.eventTimeMillis()), ZoneOffset.UTC));
        if (!c.state().equals("VOID")) {
            assertThat(FieldRules.identifierProblem(c.merchantId())).isNull();
            assertThat(c.amount()).isBetween(0L, ChangeDecoder.MAX_AMOUNT);
            assertThat(c.currency()).matches(CURRENCY);
        }
    }

    @AfterContainer
    static void report() {
        System.out.printf(
                "Decoder fuzz: %,d inputs, %,d valid changes, dead letters by reason %s%n",
                INPUTS.get(), CHANGES.get(), REASONS);
        // The generator must reach most of the decoder's rules, or the property proves little.
        EnumSet<RejectReason> seen = EnumSet.noneOf(RejectReason.class);
        seen.addAll(REASONS.keySet());
        assertThat(seen.size()).as("distinct reasons seen: %s", seen).isGreaterThanOrEqualTo(12);
        assertThat(CHANGES.get()).as("valid changes among the inputs").isPositive();
    }

    private static RejectReason reasonOf(String code) {
        for (RejectReason r : RejectReason.values()) {
            if (r.code().equals(code)) {
                return r;
            }
        }
        throw new AssertionError("unknown reason code " + code);
    }

    @Provide
    Arbitrary<byte[]> records() {
        return HostileArbitraries.records(4);
    }
}
