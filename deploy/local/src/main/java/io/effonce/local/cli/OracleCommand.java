package io.effonce.local.cli;

import io.effonce.local.LocalCli;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.oracle.LedgerOracle;
import io.effonce.testing.oracle.MerchantDay;
import io.effonce.testing.oracle.Total;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code oracle}: compares merchant_daily_totals with the ledger; exit 1 on any difference. */
@Command(
        name = "oracle",
        mixinStandardHelpOptions = true,
        version = "effonce-local 0.1.0-SNAPSHOT",
        description = {
            "Computes the expected totals per (merchant, day, currency) from the ledger's SUCCEEDED"
                    + " payments and compares them with merchant_daily_totals. Prints every"
                    + " missing, extra and wrong key (up to 20 lines) with both values; exits 1"
                    + " when there is any difference."
        })
public final class OracleCommand implements Callable<Integer> {

    @ParentCommand private LocalCli parent;
    @Spec private CommandSpec spec;

    @Option(
            names = "--zone",
            paramLabel = "ZONE",
            defaultValue = "UTC",
            description =
                    "Zone whose dates are the days, as the job's (default: ${DEFAULT-VALUE}).")
    private ZoneId zone;

    @Option(
            names = "--include-late",
            description =
                    "Add late_events to the sink's totals before comparing (the invariant after a"
                            + " batch recount: sink + late = ledger).")
    private boolean includeLate;

    @Option(
            names = "--show-ledger",
            description = "Also print the ledger's totals, one merchant-day a line.")
    private boolean showLedger;

    @Option(
            names = "--await",
            paramLabel = "DURATION",
            defaultValue = "PT0S",
            description =
                    "Compare again every second until there is no difference or DURATION has"
                            + " passed (e.g. PT2M, a running job catching up), then report the"
                            + " last comparison (default: ${DEFAULT-VALUE}, compare once).")
    private Duration await;

    @Override
    public Integer call() throws InterruptedException {
        LedgerOracle oracle = new LedgerOracle(parent.database(), zone);
        PrintWriter out = spec.commandLine().getOut();
        if (showLedger) {
            oracle.ledgerTotals().forEach((key, total) -> out.println(key + "  " + total));
        }
        Comparison comparison = compare(oracle);
        Instant deadline = Instant.now().plus(await);
        if (!comparison.matches() && Instant.now().isBefore(deadline)) {
            spec.commandLine()
                    .getErr()
                    .printf(
                            "%,d differences now; comparing every second for up to %s%n",
                            comparison.differences().size(), await);
            spec.commandLine().getErr().flush();
        }
        while (!comparison.matches() && Instant.now().isBefore(deadline)) {
            Thread.sleep(1_000);
            comparison = compare(oracle);
        }
        out.println(comparison.summary());
        if (!comparison.matches() && !includeLate) {
            lateHint(oracle, comparison).ifPresent(out::println);
        }
        return comparison.matches() ? 0 : LocalCli.DIFFERENCES;
    }

    private Comparison compare(LedgerOracle oracle) {
        return includeLate ? oracle.compareWithSinkAndLate() : oracle.compareWithSink();
    }

    /**
     * How many of the differing merchant-days have changes in {@code late_events}, and what counts
     * them; empty when none has (or the database has no sink tables).
     */
    static Optional<String> lateHint(LedgerOracle oracle, Comparison comparison) {
        Map<MerchantDay, Total> late;
        try {
            late = oracle.lateTotals();
        } catch (RuntimeException e) {
            return Optional.empty(); // no late_events table: the ledger alone
        }
        List<Comparison.Difference> withLate =
                comparison.differences().stream().filter(d -> late.containsKey(d.key())).toList();
        if (withLate.isEmpty()) {
            return Optional.empty();
        }
        long events = withLate.stream().mapToLong(d -> late.get(d.key()).payments()).sum();
        return Optional.of(
                String.format(
                        "%,d of these %,d merchant-days have changes in late_events (%,d): the job"
                                + " received them after its event time had passed their day, so"
                                + " merchant_daily_totals does not count them. Compare with"
                                + " --include-late; the recount (feed/README.md, --late) puts them"
                                + " into merchant_daily_totals_final.",
                        withLate.size(), comparison.differences().size(), events));
    }
}
