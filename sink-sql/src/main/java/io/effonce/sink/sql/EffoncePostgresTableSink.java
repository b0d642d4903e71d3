package io.effonce.sink.sql;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.PostgresStores;
import io.effonce.sink.SinkChange;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

/**
 * The planned sink of an {@code effonce-postgres} table: the changelog mapped to the sink's
 * changes, keyed by the primary key, written by the flushable sink. Its operators take their uids
 * from the planner ({@code table.exec.uid.generation}), so a savepoint of one version of a query
 * restores into the next; without planner uids they are named after the table.
 */
final class EffoncePostgresTableSink implements DynamicTableSink {

    private final PostgresStoreConfig store;
    private final boolean createTables;
    private final ReadableConfig options;
    private final RowType physical;
    private final RowDataMapping mapping;
    private final int[] keyFields;
    private final int[] valueFields;

    EffoncePostgresTableSink(
            PostgresStoreConfig store,
            boolean createTables,
            ReadableConfig options,
            RowType physical,
            RowDataMapping mapping,
            int[] keyFields,
            int[] valueFields) {
        this.store = store;
        this.createTables = createTables;
        this.options = options;
        this.physical = physical;
        this.mapping = mapping;
        this.keyFields = keyFields;
        this.valueFields = valueFields;
    }

    /**
     * Upserts: inserts, updates and deletes of a key; no update-before (the key's row is its
     * value).
     */
    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        return ChangelogMode.newBuilder()
                .addContainedKind(RowKind.INSERT)
                .addContainedKind(RowKind.UPDATE_AFTER)
                .addContainedKind(RowKind.DELETE)
                .build();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        FlushableSink<RowData, RowData> sink =
                FlushableSink.<RowData, RowData>builder()
                        .store(PostgresStores.forMapping(store, mapping, createTables))
                        .valueType(InternalTypeInfo.of(mapping.valueType()))
                        .options(options)
                        .build();
        return new DataStreamSinkProvider() {
            @Override
            public DataStreamSink<?> consumeDataStream(
                    ProviderContext provider, DataStream<RowData> rows) {
                String base = "effonce-postgres-" + store.table();
                DataStream<SinkChange<RowData, RowData>> changes =
                        rows.map(
                                        new ToSinkChanges(
                                                mapping, keyFields, valueFields, getters()),
                                        changeType())
                                .uid(provider.generateUid("changes").orElse(base + "-changes"))
                                .name("Changes of " + store.table());
                return sink.writeFrom(
                                changes,
                                InternalTypeInfo.of(mapping.keyType()),
                                provider.generateUid("flushable-sink").orElse(base))
                        .sinkTo(new DiscardingSink<>())
                        .uid(provider.generateUid("end").orElse(base + "-end"))
                        .name("End of " + store.table());
            }
        };
    }

    private RowData.FieldGetter[] getters() {
        RowData.FieldGetter[] getters = new RowData.FieldGetter[physical.getFieldCount()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = RowData.createFieldGetter(physical.getTypeAt(i), i);
        }
        return getters;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private TypeInformation<SinkChange<RowData, RowData>> changeType() {
        return (TypeInformation)
                Types.POJO(
                        SinkChange.class,
                        Map.of(
                                "key", InternalTypeInfo.of(mapping.keyType()),
                                "value", InternalTypeInfo.of(mapping.valueType()),
                                "deleted", Types.BOOLEAN));
    }

    @Override
    public DynamicTableSink copy() {
        return new EffoncePostgresTableSink(
                store, createTables, options, physical, mapping, keyFields, valueFields);
    }

    @Override
    public String asSummaryString() {
        return "effonce-postgres(" + store.table() + ")";
    }
}
