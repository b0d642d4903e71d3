package io.effonce.cluster.testjob;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * The small streaming job the cluster tests submit as a real jar: generated numbers at a fixed
 * rate, keyed by {@code n % 16}, summed in keyed state (RocksDB on the cluster), discarded. The
 * datagen connector comes from the cluster's class path, as in Flink's distribution; checkpointing
 * comes from the cluster's configuration. Argument: records per second (default 200).
 */
public final class CountingJob {

    private CountingJob() {}

    public static void main(String[] args) throws Exception {
        long perSecond = args.length > 0 ? Long.parseLong(args[0]) : 200;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        DataGeneratorSource<Long> numbers =
                new DataGeneratorSource<>(
                        index -> index,
                        Long.MAX_VALUE,
                        RateLimiterStrategy.perSecond(perSecond),
                        Types.LONG);
        env.fromSource(numbers, WatermarkStrategy.noWatermarks(), "numbers")
                .uid("numbers")
                .keyBy(n -> n % 16, Types.LONG)
                .reduce(Long::sum)
                .uid("sums")
                .name("sums")
                .sinkTo(new DiscardingSink<>())
                .uid("discard")
                .name("discard");
        env.execute("effonce-cluster-counting-job");
    }
}
