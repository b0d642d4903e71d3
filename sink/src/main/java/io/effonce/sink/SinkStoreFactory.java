package io.effonce.sink;

import io.effonce.sink.internal.SinkStore;
import java.io.Serializable;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Creates the store in the task that writes, so the job graph carries only its settings, never a
 * connection or a password. Get one from {@link PostgresStores}; its methods are the sink's.
 */
@FunctionalInterface
@PublicEvolving
public interface SinkStoreFactory<K, V> extends Serializable {

    @Internal
    SinkStore<K, V> create();

    /**
     * A number for a new deployment of the job, from the store, larger than every one before: when
     * the job's graph is built, so that an attempt of an earlier deployment that wakes up after a
     * later one took its key groups is known to be the earlier (sink/README.md, "A takeover that
     * only moves forward"). Empty when the store cannot number deployments, or cannot be reached
     * from where the graph is built; the deployment is then not ordered against others.
     */
    @Internal
    default OptionalLong numberDeployment() {
        return OptionalLong.empty();
    }

    /**
     * The script that creates the store's tables, named in the refusal of a sink whose tables are
     * missing; empty when the tables come from elsewhere (the job's deploy/sql).
     */
    @Internal
    default Optional<String> tablesScript() {
        return Optional.empty();
    }
}
