package io.effonce.sink.sql;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/** A table the sink cannot write is refused when the query is planned, naming what to change. */
class EffoncePostgresTableFactoryTest {

    private static final String OPTIONS =
            "'connector' = 'effonce-postgres', 'url' = 'jdbc:postgresql://127.0.0.1:1/none',"
                    + " 'table-name' = 'totals'";

    @Test
    void aTableWithoutAPrimaryKeyIsRefused() {
        assertThatThrownBy(() -> plan("(k STRING, v BIGINT)", OPTIONS + ", 'password-env' = 'P'"))
                .hasStackTraceContaining("needs a PRIMARY KEY (...) NOT ENFORCED");
    }

    @Test
    void aTableWithoutAPasswordSourceIsRefusedNamingBothOptions() {
        assertThatThrownBy(() -> plan(keyed("v BIGINT"), OPTIONS))
                .hasStackTraceContaining("set 'password-file'")
                .hasStackTraceContaining("'password-env'");
    }

    @Test
    void aColumnOfATypeTheSinkCannotWriteIsRefusedNamingIt() {
        assertThatThrownBy(() -> plan(keyed("v ARRAY<INT>"), OPTIONS + ", 'password-env' = 'P'"))
                .hasStackTraceContaining("Column v has type ARRAY<INT>")
                .hasStackTraceContaining("CAST the column");
    }

    @Test
    void aKeyColumnPostgresCannotGiveBackAsTheSameKeyIsRefusedNamingIt() {
        String options = OPTIONS + ", 'password-env' = 'P'";
        assertThatThrownBy(() -> plan(keyedBy("k TIMESTAMP(9)"), options))
                .hasStackTraceContaining("primary-key column k has type TIMESTAMP(9)")
                .hasStackTraceContaining("TIMESTAMP(6) or less");
        assertThatThrownBy(() -> plan(keyedBy("k TIMESTAMP_LTZ(7)"), options))
                .hasStackTraceContaining("TIMESTAMP_LTZ(6) or less");
        assertThatThrownBy(() -> plan(keyedBy("k DOUBLE"), options))
                .hasStackTraceContaining("primary-key column k has type DOUBLE")
                .hasStackTraceContaining("NaN");
        // Timestamps PostgreSQL keeps whole make keys; the refused types make values.
        new RowDataMapping(row("k", DataTypes.TIMESTAMP(6)), row("v", DataTypes.BIGINT()));
        new RowDataMapping(row("k", DataTypes.TIMESTAMP_LTZ(3)), row("v", DataTypes.BIGINT()));
        new RowDataMapping(row("k", DataTypes.STRING()), row("v", DataTypes.TIMESTAMP(9)));
        new RowDataMapping(row("k", DataTypes.STRING()), row("v", DataTypes.DOUBLE()));
    }

    @Test
    void aColumnNamedAfterAReservedWordOrTheSinksOwnColumnsIsRefusedAtPlanning() {
        String options = OPTIONS + ", 'password-env' = 'P'";
        assertThatThrownBy(() -> plan(keyed("`order` BIGINT"), options))
                .hasStackTraceContaining("'order'")
                .hasStackTraceContaining("PostgreSQL reserves");
        assertThatThrownBy(() -> plan(keyed("barrier_tag BIGINT"), options))
                .hasStackTraceContaining("the sink adds a column of that name");
    }

    @Test
    void anUnknownOptionIsRefusedByName() {
        assertThatThrownBy(
                        () ->
                                plan(
                                        keyed("v BIGINT"),
                                        OPTIONS
                                                + ", 'password-env' = 'P', 'sink.batchsize' ="
                                                + " '10'"))
                .hasStackTraceContaining("sink.batchsize");
    }

    @Test
    void anInvalidTableNameIsRefusedNamingTheOption() {
        assertThatThrownBy(
                        () ->
                                plan(
                                        keyed("v BIGINT"),
                                        OPTIONS.replace("'totals'", "'totals; drop'")
                                                + ", 'password-env' = 'P'"))
                .hasStackTraceContaining("'table-name'");
    }

    private static RowType row(String name, DataType type) {
        return (RowType) DataTypes.ROW(DataTypes.FIELD(name, type)).getLogicalType();
    }

    /** A table keyed by {@code key} (a column named k), with a BIGINT value. */
    private static String keyedBy(String key) {
        return "(" + key + ", v BIGINT, PRIMARY KEY (k) NOT ENFORCED)";
    }

    private static String keyed(String value) {
        return "(k STRING, " + value + ", PRIMARY KEY (k) NOT ENFORCED)";
    }

    /** Plans an insert into the table; nothing runs. */
    private static void plan(String columns, String options) {
        TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tables.executeSql("CREATE TABLE t " + columns + " WITH (" + options + ")");
        tables.executeSql(
                "CREATE TABLE t_src "
                        + columns.replace(", PRIMARY KEY (k) NOT ENFORCED", "")
                        + " WITH ('connector' = 'datagen')");
        tables.explainSql("INSERT INTO t SELECT * FROM t_src");
    }
}
