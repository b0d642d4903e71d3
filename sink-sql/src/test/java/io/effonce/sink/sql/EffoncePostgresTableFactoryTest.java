package io.effonce.sink.sql;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
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
