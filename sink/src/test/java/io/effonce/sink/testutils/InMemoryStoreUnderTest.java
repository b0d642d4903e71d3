package io.effonce.sink.testutils;

import io.effonce.sink.SinkStoreFactory;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/** The in-memory store, empty when new. */
public final class InMemoryStoreUnderTest implements StoreUnderTest<String, Long> {

    private final InMemoryTable<String, Long> table = new InMemoryTable<>();

    /** The table the stores share, for tests that inject a fault into it. */
    public InMemoryTable<String, Long> table() {
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
    public Optional<DatabaseCopy> copyToGoBackTo() {
        InMemoryTable.Copy copy = table.copy();
        return Optional.of(
                new DatabaseCopy() {
                    @Override
                    public void putBack() {
                        table.goBack(copy);
                    }

                    @Override
                    public void putBackRowsAndWriters() {
                        table.goBackRowsAndWriters(copy);
                    }

                    @Override
                    public void discard() {}
                });
    }

    @Override
    public void ageLeases(Duration by) {
        table.ageLeases(by);
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

    @Override
    public String dump() {
        return table.dump();
    }
}
