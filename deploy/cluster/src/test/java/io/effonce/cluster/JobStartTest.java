package io.effonce.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When a job whose main checked nothing is taken to read: each Kafka source has a partition. */
class JobStartTest {

    private static final String READER = "0.Source__Ledger_changes.KafkaSourceReader.";

    @Test
    void aKafkaSourceWithAPartitionReadsOneWithoutDoesNot() {
        List<String> noSplit = List.of(READER + "commitsSucceeded", "0.numRecordsIn");
        List<String> split =
                List.of(
                        READER + "commitsSucceeded",
                        READER + "topic.ledger.partition.0.currentOffset");
        List<String> sink = List.of("0.Flushable_sink.restoreFlushesFull");

        assertThat(JobStart.everyKafkaSourceHasAPartition(Map.of("source", split, "sink", sink)))
                .isTrue();
        assertThat(JobStart.everyKafkaSourceHasAPartition(Map.of("source", noSplit, "sink", sink)))
                .isFalse();
        assertThat(
                        JobStart.everyKafkaSourceHasAPartition(
                                Map.of("source", split, "other source", noSplit)))
                .as("every Kafka source, not one")
                .isFalse();
        assertThat(JobStart.everyKafkaSourceHasAPartition(Map.of("sink", sink)))
                .as("before the reader's metrics reach the REST API")
                .isFalse();
    }
}
