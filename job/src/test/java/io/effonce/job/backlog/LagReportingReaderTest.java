package io.effonce.job.backlog;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.junit.jupiter.api.Test;

/**
 * A reader with more subtasks than partitions to share holds no split: it says at its first
 * checkpoint that it is not behind, once, instead of leaving its enumerator to presume a backlog
 * (checkpoints on the long interval) for {@link BacklogEnumerator#QUIET}. A reader that holds a
 * split says nothing there: it speaks with its records.
 */
class LagReportingReaderTest {

    @Test
    void aReaderWithoutASplitSaysAtItsFirstCheckpointThatItIsNotBehind() {
        List<SourceEvent> sent = new ArrayList<>();
        LagReportingReader<String, SourceSplit> idle = reader(List.of(), sent);
        idle.snapshotState(1);
        idle.snapshotState(2);
        assertThat(sent).containsExactly(new ReaderLag(false, 0));

        sent.clear();
        SourceSplit partition = () -> "topic-0";
        reader(List.of(partition), sent).snapshotState(1);
        assertThat(sent).isEmpty();
    }

    @SuppressWarnings("unchecked")
    private static LagReportingReader<String, SourceSplit> reader(
            List<SourceSplit> splits, List<SourceEvent> sent) {
        SourceReader<String, SourceSplit> delegate =
                (SourceReader<String, SourceSplit>)
                        Proxy.newProxyInstance(
                                SourceReader.class.getClassLoader(),
                                new Class<?>[] {SourceReader.class},
                                (proxy, method, args) ->
                                        method.getName().equals("snapshotState") ? splits : null);
        SourceReaderContext context =
                (SourceReaderContext)
                        Proxy.newProxyInstance(
                                SourceReaderContext.class.getClassLoader(),
                                new Class<?>[] {SourceReaderContext.class},
                                (proxy, method, args) -> {
                                    if (method.getName().equals("sendSourceEventToCoordinator")) {
                                        sent.add((SourceEvent) args[0]);
                                    }
                                    return null;
                                });
        return new LagReportingReader<>(
                delegate, context, new LagClassifier(Duration.ofSeconds(5)), Clock.systemUTC());
    }
}
