package io.effonce.job;

import io.effonce.dedup.LateCopy;
import io.effonce.dedup.Lateness;
import io.effonce.job.backlog.BacklogReportingSource;
import io.effonce.job.decode.DeadLetter;
import io.effonce.job.decode.LedgerRecord;
import io.effonce.job.decode.PaymentChange;
import io.effonce.job.sidetables.LateEvent;
import io.effonce.sink.FlushableSink;
import io.effonce.sink.SinkChange;
import io.effonce.sink.SinkStoreFactory;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Set;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.CheckpointConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.OutputTag;

/**
 * The job's graph, with its endpoints injected: {@code LedgerTotalsJob} passes the real Kafka
 * source and PostgreSQL sinks, tests pass their own. Changes are routed, then counted by one stage
 * keyed by merchant ({@link MerchantTotalsOperator}: dedup by the rules of {@link Lateness} and the
 * daily totals), whose totals the flushable sink writes keyed by merchant-day; late changes and
 * dead letters go to their side tables. Every operator has a stable uid.
 */
public final class LedgerPipeline {

    /** Operator uids: savepoints map state by these, so they never change. */
    public static final String SOURCE_UID = "ledger-changes-source";

    public static final String ROUTE_UID = "route-changes";
    public static final String MERCHANT_TOTALS_UID = "merchant-totals";
    public static final String SINK_UID = "merchant-daily-totals-sink";
    public static final String LATE_SINK_UID = "late-events-sink";
    public static final String DEAD_LETTER_SINK_UID = "dead-letters-sink";

    private static final TypeInformation<SinkChange<MerchantDayKey, DailyTotal>> SINK_CHANGES =
            TypeInformation.of(new TypeHint<SinkChange<MerchantDayKey, DailyTotal>>() {});

    static final OutputTag<DeadLetter> DEAD_LETTERS =
            new OutputTag<>("dead-letters", TypeInformation.of(DeadLetter.class));

    /** Where the job reads and writes. */
    public record Endpoints(
            Source<LedgerRecord, ?, ?> source,
            SinkStoreFactory<MerchantDayKey, DailyTotal> totals,
            Sink<LateEvent> lateEvents,
            Sink<DeadLetter> deadLetters) {}

    private LedgerPipeline() {}

    /** Adds the whole job to {@code env}. */
    public static void build(StreamExecutionEnvironment env, ReadableConfig config, Endpoints io) {
        requireExactlyOnceCheckpoints(env.getCheckpointConfig());
        env.setMaxParallelism(config.get(JobOptions.MAX_PARALLELISM));
        env.setBufferTimeout(config.get(JobOptions.BUFFER_TIMEOUT).toMillis());
        // Every type has a serializer of its own; a Kryo fallback, which a later release may not
        // read back from a savepoint, fails here at graph build instead.
        Configuration noKryo = new Configuration();
        noKryo.set(PipelineOptions.GENERIC_TYPES, false);
        env.configure(noKryo);
        // Every record type is immutable, so chained operators may hand objects on uncopied.
        env.getConfig().enableObjectReuse();
        ZoneId zone = ZoneId.of(config.get(JobOptions.ZONE));
        Set<String> counted = Set.copyOf(config.get(JobOptions.COUNTED_STATES));

        WatermarkStrategy<LedgerRecord> watermarks =
                LedgerWatermarks.strategy(
                        config.get(JobOptions.OUT_OF_ORDERNESS),
                        config.get(JobOptions.HOLD_DURING_SNAPSHOT),
                        config.get(JobOptions.IDLENESS),
                        config.get(JobOptions.START_HOLD));
        Source<LedgerRecord, ?, ?> source = io.source();
        Duration backlogThreshold = config.get(JobOptions.BACKLOG_THRESHOLD);
        if (!backlogThreshold.isZero()) {
            source = BacklogReportingSource.wrap(source, backlogThreshold);
        }
        DataStream<LedgerRecord> records =
                env.fromSource(source, watermarks, "Ledger changes").uid(SOURCE_UID);

        SingleOutputStreamOperator<PaymentChange> changes =
                records.process(new RouteChanges(counted, DEAD_LETTERS))
                        .uid(ROUTE_UID)
                        .name("Route changes");

        Lateness lateness = Lateness.from(config);
        DayFinality finality = new DayFinality(zone, lateness.horizon());
        FlushableSink<MerchantDayKey, DailyTotal> sink =
                FlushableSink.<MerchantDayKey, DailyTotal>builder()
                        .store(io.totals())
                        .valueType(TypeInformation.of(DailyTotal.class))
                        .options(config)
                        .progress(finality)
                        .build();
        OutputTag<LateCopy<PaymentChange>> lateTag = LateCopy.tag(changes.getType());

        SingleOutputStreamOperator<SinkChange<MerchantDayKey, DailyTotal>> totals =
                changes.keyBy(PaymentChange::merchantId, Types.STRING)
                        .transform(
                                "Merchant totals",
                                SINK_CHANGES,
                                new MerchantTotalsOperator(
                                        finality,
                                        lateness,
                                        config.get(JobOptions.BUNDLE_SIZE),
                                        config.get(JobOptions.BUNDLE_DELAY).toMillis(),
                                        lateTag,
                                        DEAD_LETTERS,
                                        config.get(JobOptions.ALLOW_EMPTY_MERCHANT_STAGE)))
                        .uid(MERCHANT_TOTALS_UID);
        // The sink is keyed by merchant-day: one shuffle of the bundles' totals.
        sink.writeFrom(totals, TypeInformation.of(MerchantDayKey.class), SINK_UID);

        totals.getSideOutput(lateTag)
                .map(LateEvent::of)
                .uid("late-events-map")
                .name("Late events")
                .sinkTo(io.lateEvents())
                .uid(LATE_SINK_UID)
                .name("late_events");
        changes.getSideOutput(DEAD_LETTERS)
                .union(totals.getSideOutput(DEAD_LETTERS))
                .sinkTo(io.deadLetters())
                .uid(DEAD_LETTER_SINK_UID)
                .name("dead_letters");
    }

    /**
     * Refuses a job without exactly-once checkpoints. Under at-least-once a replay after a failover
     * can count a change twice (a barrier does not wait for the dedup state of the records behind
     * it); without checkpoints every failover flushes the range from the start and the committed
     * table never moves.
     */
    static void requireExactlyOnceCheckpoints(CheckpointConfig checkpoints) {
        if (!checkpoints.isCheckpointingEnabled()) {
            throw new IllegalConfigurationException(
                    "The job needs checkpoints: set execution.checkpointing.interval (for example"
                            + " 10s, as deploy/flink-conf/config.yaml does). Its state, the sink's"
                            + " barrier tags and the committed totals all move with them.");
        }
        if (checkpoints.getCheckpointingConsistencyMode() != CheckpointingMode.EXACTLY_ONCE) {
            throw new IllegalConfigurationException(
                    "execution.checkpointing.mode is "
                            + checkpoints.getCheckpointingConsistencyMode()
                            + "; the job needs EXACTLY_ONCE: under at-least-once a change replayed"
                            + " after a failover can be counted twice. Set"
                            + " execution.checkpointing.mode: EXACTLY_ONCE.");
        }
    }
}
