package io.effonce.sink.sql;

import io.effonce.sink.SinkChange;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * A table's changelog as the sink's changes: an insert or an update-after sets its primary key to
 * the row's other columns, absolutely; a delete removes the key. The sink asks the planner for
 * exactly these kinds ({@link EffoncePostgresTableSink#getChangelogMode}): an update-before never
 * reaches it.
 */
final class ToSinkChanges implements MapFunction<RowData, SinkChange<RowData, RowData>> {

    private static final long serialVersionUID = 1L;

    private final RowDataMapping mapping;
    private final int[] keyFields;
    private final int[] valueFields;
    private final RowData.FieldGetter[] getters;

    ToSinkChanges(
            RowDataMapping mapping,
            int[] keyFields,
            int[] valueFields,
            RowData.FieldGetter[] getters) {
        this.mapping = mapping;
        this.keyFields = keyFields;
        this.valueFields = valueFields;
        this.getters = getters;
    }

    @Override
    public SinkChange<RowData, RowData> map(RowData row) {
        RowKind kind = row.getRowKind();
        if (kind == RowKind.DELETE) {
            return SinkChange.delete(mapping.binaryKey(project(row, keyFields)));
        }
        if (kind != RowKind.INSERT && kind != RowKind.UPDATE_AFTER) {
            throw new IllegalStateException(
                    "The effonce-postgres sink received a "
                            + kind
                            + " row; it takes inserts, updates and deletes of a key only");
        }
        return SinkChange.upsert(
                mapping.binaryKey(project(row, keyFields)),
                mapping.binaryValue(project(row, valueFields)));
    }

    private GenericRowData project(RowData row, int[] fields) {
        GenericRowData out = new GenericRowData(fields.length);
        for (int i = 0; i < fields.length; i++) {
            out.setField(i, getters[fields[i]].getFieldOrNull(row));
        }
        return out;
    }
}
