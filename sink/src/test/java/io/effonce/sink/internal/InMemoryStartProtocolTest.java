package io.effonce.sink.internal;

import io.effonce.sink.SinkStoreFactory;
import io.effonce.sink.testutils.InMemorySinkStore;
import io.effonce.sink.testutils.InMemoryTable;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/** The start protocol's contract on the in-memory store. */
class InMemoryStartProtocolTest extends StartProtocolContract<String, Long> {

    private final InMemoryTable<String, Long> table = new InMemoryTable<>();

    @Override
    SinkStoreFactory<String, Long> stores() {
        return InMemorySinkStore.factory(table);
    }

    @Override
    TypeInformation<Long> valueType() {
        return TypeInformation.of(Long.class);
    }

    @Override
    TypeInformation<String> keyType() {
        return TypeInformation.of(String.class);
    }

    @Override
    String key(String name) {
        return name;
    }

    @Override
    Long value(long amount) {
        return amount;
    }

    @Override
    Map<String, Long> live() {
        return table.values();
    }

    @Override
    Map<String, Long> committed() {
        return table.committedValues();
    }

    @Override
    String dump() {
        return table.dump();
    }

    @Override
    DatabaseCopy copyOfTheDatabase() {
        InMemoryTable.Copy copy = table.copy();
        return () -> table.goBack(copy);
    }
}
