package io.effonce.sink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What Flink 2.3's planner makes of an INSERT into the connector, for each query shape, {@code ON
 * CONFLICT} clause and {@code table.exec.sink.upsert-materialize} setting: refused, written
 * directly, or behind Flink's upsert materializer, with the conflict strategy the sink node
 * carries. sink-sql/README.md, "ON CONFLICT and upsert materialization", is this table; a Flink
 * upgrade that changes a row (2.4 stops requiring the clause) fails here first.
 */
class OnConflictPlanningTest {

    /** The query shapes: what the query's upsert key is, against the table's key k. */
    private static final Map<String, String> QUERIES =
            Map.of(
                    "the key", "SELECT k, SUM(v) FROM src GROUP BY k",
                    "another key", "SELECT MAX(k), SUM(v) FROM src GROUP BY g",
                    "none (insert-only)", "SELECT k, v FROM src");

    @ParameterizedTest(name = "{0}, upsert key {1}, ''{2}'': {3}")
    @CsvSource(
            delimiter = '|',
            nullValues = "-",
            value = {
                "AUTO  | the key            | -                         | direct",
                "AUTO  | the key            | ON CONFLICT DO ERROR       | direct ERROR",
                "AUTO  | the key            | ON CONFLICT DO NOTHING     | direct NOTHING",
                "AUTO  | the key            | ON CONFLICT DO DEDUPLICATE | direct DEDUPLICATE",
                "AUTO  | another key        | -                         | refused",
                "AUTO  | another key        | ON CONFLICT DO ERROR       | materialized ERROR",
                "AUTO  | another key        | ON CONFLICT DO NOTHING     | materialized NOTHING",
                "AUTO  | another key        | ON CONFLICT DO DEDUPLICATE | materialized DEDUPLICATE",
                "AUTO  | none (insert-only) | -                         | refused",
                "AUTO  | none (insert-only) | ON CONFLICT DO ERROR       | materialized ERROR",
                "AUTO  | none (insert-only) | ON CONFLICT DO NOTHING     | materialized NOTHING",
                "AUTO  | none (insert-only) | ON CONFLICT DO DEDUPLICATE | direct DEDUPLICATE",
                "NONE  | the key            | -                         | direct",
                "NONE  | another key        | -                         | direct",
                "NONE  | another key        | ON CONFLICT DO ERROR       | direct ERROR",
                "NONE  | another key        | ON CONFLICT DO NOTHING     | direct NOTHING",
                "NONE  | another key        | ON CONFLICT DO DEDUPLICATE | direct DEDUPLICATE",
                "NONE  | none (insert-only) | -                         | direct",
                "FORCE | the key            | -                         | materialized",
                "FORCE | the key            | ON CONFLICT DO DEDUPLICATE | materialized DEDUPLICATE",
                "FORCE | another key        | -                         | materialized",
                "FORCE | another key        | ON CONFLICT DO ERROR       | materialized ERROR",
                "FORCE | none (insert-only) | -                         | materialized",
            })
    void thePlannersAnswer(String materialize, String upsertKey, String clause, String expected) {
        assertThat(plan(materialize, QUERIES.get(upsertKey), clause)).isEqualTo(expected);
    }

    /** Plans the insert (nothing runs) and says what became of it. */
    private static String plan(String materialize, String query, String clause) {
        TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tables.getConfig().set("table.exec.sink.upsert-materialize", materialize);
        tables.executeSql(
                "CREATE TABLE t (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ("
                        + "'connector' = 'effonce-postgres', 'url' = 'jdbc:postgresql://127.0.0.1:1/none',"
                        + " 'table-name' = 'totals', 'password-env' = 'P',"
                        + " 'sink.require-deployment-number' = 'false')");
        // DO ERROR and DO NOTHING need watermarks on every source (Flink resolves by event time).
        tables.executeSql(
                "CREATE TABLE src (k STRING, v BIGINT, g INT, ts TIMESTAMP(3),"
                        + " WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen')");
        String sink;
        try {
            String explained =
                    tables.explainSql(
                            "INSERT INTO t " + query + (clause == null ? "" : " " + clause));
            sink =
                    explained
                            .substring(explained.indexOf("== Optimized Physical Plan =="))
                            .lines()
                            .filter(line -> line.contains("Sink(table="))
                            .findFirst()
                            .orElseThrow();
        } catch (RuntimeException e) {
            assertThat(e).hasStackTraceContaining("Please specify an ON CONFLICT clause");
            return "refused";
        }
        String strategy =
                sink.contains("conflictStrategy=[")
                        ? " " + sink.replaceAll(".*conflictStrategy=\\[(\\w+)].*", "$1")
                        : "";
        return (sink.contains("upsertMaterialize=[true]") ? "materialized" : "direct") + strategy;
    }
}
