package io.effonce.examples.adclicks;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.PostgresStores;
import io.effonce.sink.SinkChange;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Ad clicks per campaign and hour, exact after any restore: clicks from a Kafka topic, copies
 * dropped by click id, counted per campaign and hour, written by the flushable sink as absolute
 * counts. Built on the sink's public API alone.
 */
public final class AdClicksJob {

    private AdClicksJob() {}

    public static void main(String[] args) throws Exception {
        AdClicksSettings settings = AdClicksSettings.fromArgs(args);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        if (!env.getCheckpointConfig().isCheckpointingEnabled()) {
            env.enableCheckpointing(1_000); // the sink commits at checkpoints
        }
        build(env, settings);
        env.execute("ad-clicks-per-campaign-hour");
    }

    /** Adds the job to {@code env}; every operator has a uid, so savepoints restore. */
    public static void build(StreamExecutionEnvironment env, AdClicksSettings settings) {
        KafkaSource<String> source =
                KafkaSource.<String>builder()
                        .setBootstrapServers(settings.kafkaServers())
                        .setTopics(settings.topic())
                        .setGroupId("effonce-example-ad-clicks")
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .setValueOnlyDeserializer(new SimpleStringSchema())
                        .build();
        FlushableSink<CampaignHour, Long> sink =
                FlushableSink.<CampaignHour, Long>builder()
                        .store(
                                PostgresStores.forMapping(
                                        settings.store(),
                                        ClickRows.MAPPING,
                                        settings.createTables()))
                        .valueType(Types.LONG)
                        .options(env.getConfiguration())
                        .build();
        var counts =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "clicks")
                        .uid("clicks")
                        .process(new ParseClicks())
                        .uid("parse-clicks")
                        .name("Parse clicks")
                        .keyBy(Click::clickId)
                        .process(new FirstClicks(settings.rememberClickIds()))
                        .uid("first-clicks")
                        .name("First click of each id")
                        .keyBy(CampaignHour::of, TypeInformation.of(CampaignHour.class))
                        .process(new HourlyClicks())
                        .uid("hourly-clicks")
                        .name("Clicks per campaign and hour")
                        .returns(new TypeHint<SinkChange<CampaignHour, Long>>() {});
        sink.writeFromSameKeyGroups(counts, TypeInformation.of(CampaignHour.class), "clicks-sink");
    }
}
