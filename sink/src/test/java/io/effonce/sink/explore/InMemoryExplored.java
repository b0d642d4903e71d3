package io.effonce.sink.explore;

import io.effonce.sink.SinkStoreFactory;
import io.effonce.sink.testutils.InMemorySinkStore;
import io.effonce.sink.testutils.InMemoryTable;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/** The in-memory store, new for every explored history. */
final class InMemoryExplored implements ExploredStore<String, Long> {

    private final InMemoryTable<String, Long> table = new InMemoryTable<>();

    /** The table the stores share, for tests that inject a fault into it. */
    InMemoryTable<String, Long> table() {
        return table;
    }

    @Override
    public void truncate() {
        // a new instance for every history
    }

    @Override
    public SinkStoreFactory<String, Long> stores() {
        return InMemorySinkStore.factory(table);
    }

    @Override
    public TypeInformation<String> keyType() {
        return TypeInformation.of(String.class);
    }

    @Override
    public TypeInformation<Long> valueType() {
        return TypeInformation.of(Long.class);
    }

    @Override
    public String key(String name) {
        return name;
    }

    @Override
    public Long value(long amount) {
        return amount;
    }

    @Override
    public Map<String, Long> live() {
        return table.values();
    }

    @Override
    public Map<String, Long> committed() {
        return table.committedValues();
    }

    @Override
    public Map<String, Long> committedCheckpoints() {
        return table.committedCheckpoints();
    }
}
