package com.example.orders;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.PostgresStores;
import io.effonce.sink.SinkChange;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Each customer's total of {@code orders} generated orders, written to PostgreSQL through the
 * flushable sink: the live table follows the stream, the committed table the checkpoints, and both
 * end exact whatever fails.
 */
public final class OrderTotalsJob {

    private OrderTotalsJob() {}

    /** {@code flink run order-totals.jar <jdbc url> <password file> <orders> <per second>}. */
    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        PostgresStoreConfig config =
                PostgresStoreConfig.builder()
                        .url(args[0]) // jdbc:postgresql://db:5432/shop
                        .table("customer_totals")
                        .passwordFile(args[1]) // or passwordEnv("VAR")
                        .options(env.getConfiguration()) // sink.max-retries, ...
                        .build();
        build(env, config, Long.parseLong(args[2]), Double.parseDouble(args[3]));
        env.execute("order totals");
    }

    /** Adds the job to {@code env}; every operator has a uid, so savepoints restore. */
    public static void build(
            StreamExecutionEnvironment env, PostgresStoreConfig store, long orders, double perSecond) {
        DataGeneratorSource<Order> source =
                new DataGeneratorSource<>(
                        Order::number,
                        orders,
                        RateLimiterStrategy.perSecond(perSecond),
                        TypeInformation.of(Order.class));
        FlushableSink<Long, Long> sink =
                FlushableSink.<Long, Long>builder()
                        .store(PostgresStores.forMapping(store, CustomerTotalRows.MAPPING, true))
                        .valueType(Types.LONG)
                        .options(env.getConfiguration())
                        .build();
        var totals =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "orders")
                        .uid("orders")
                        .keyBy(Order::customer, Types.LONG)
                        .process(new RunningTotal())
                        .uid("running-total")
                        .name("Running total per customer")
                        .returns(new TypeHint<SinkChange<Long, Long>>() {});
        // Behind an operator keyed the same way: the sink runs in its task, no second shuffle.
        sink.writeFromSameKeyGroups(totals, Types.LONG, "order-totals-sink");
    }
}
