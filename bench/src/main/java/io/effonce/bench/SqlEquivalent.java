package io.effonce.bench;

import java.util.List;
import java.util.Map;

/**
 * The job written the way Flink SQL users would write it: the relay's JSON envelopes from Kafka,
 * the counted state kept first, deduplicated by payment id and state with {@code ROW_NUMBER} (first
 * copy wins), summed per merchant, UTC day and currency, and upserted through the JDBC connector
 * or, as the fourth system, the same statements through {@code 'connector' = 'effonce-postgres'}.
 * It has none of the job's guarantees after a restore with changed logic (no flush, no late-event
 * accounting, dedup state that grows without bound) — it is the speed to beat.
 */
final class SqlEquivalent {

    /**
     * The tuning Flink's documentation recommends for this kind of query ("Performance Tuning":
     * mini-batch aggregation, local-global aggregation): state is read and written once per key per
     * batch of up to 5,000 records or 1 s, and each subtask pre-aggregates before the shuffle.
     */
    static final Map<String, String> MINI_BATCH =
            Map.of(
                    "table.exec.mini-batch.enabled", "true",
                    "table.exec.mini-batch.allow-latency", "1 s",
                    "table.exec.mini-batch.size", "5000",
                    "table.optimizer.agg-phase-strategy", "TWO_PHASE");

    private SqlEquivalent() {}

    /** Where the totals go: the JDBC connector, or effonce-postgres (the flushable sink). */
    enum Sink {
        JDBC,
        EFFONCE
    }

    static List<String> statements(
            Sink sink,
            String bootstrap,
            String topic,
            String jdbcUrl,
            String user,
            String password) {
        String table = sink == Sink.JDBC ? BenchJob.SQL_TABLE : BenchJob.SQL_EFFONCE_TABLE;
        return List.of(
                "CREATE TABLE ledger_changes ("
                        + " `after` ROW<payment_id STRING, merchant_id STRING, amount BIGINT,"
                        + " currency STRING, state STRING, updated_at STRING>,"
                        + " proc AS PROCTIME()"
                        + ") WITH ("
                        + " 'connector' = 'kafka',"
                        + " 'topic' = '"
                        + topic
                        + "', 'properties.bootstrap.servers' = '"
                        + bootstrap
                        + "', 'properties.group.id' = 'effonce-bench-sql',"
                        + " 'scan.startup.mode' = 'earliest-offset',"
                        + " 'format' = 'json',"
                        + " 'json.ignore-parse-errors' = 'true')",
                "CREATE TABLE "
                        + table
                        + " ("
                        + " merchant_id STRING, `day` DATE, currency STRING,"
                        + " total_minor BIGINT, payments BIGINT,"
                        + " PRIMARY KEY (merchant_id, `day`, currency) NOT ENFORCED"
                        + ") WITH ("
                        + (sink == Sink.JDBC
                                ? " 'connector' = 'jdbc', 'password' = '" + password + "',"
                                : " 'connector' = 'effonce-postgres', 'password-env' = '"
                                        + BenchJob.PASSWORD_ENV
                                        + "',")
                        + " 'url' = '"
                        + jdbcUrl
                        + "', 'table-name' = '"
                        + table
                        + "', 'username' = '"
                        + user
                        + "')",
                "INSERT INTO "
                        + table
                        + " SELECT merchant_id, `day`, currency, SUM(amount), COUNT(*) FROM ("
                        + "  SELECT merchant_id, `day`, currency, amount, ROW_NUMBER() OVER ("
                        + "   PARTITION BY payment_id, state ORDER BY proc ASC) AS rn FROM ("
                        + "    SELECT `after`.payment_id AS payment_id, `after`.state AS state,"
                        + "     `after`.merchant_id AS merchant_id, `after`.currency AS currency,"
                        + "     `after`.amount AS amount,"
                        + "     CAST(SUBSTRING(`after`.updated_at FROM 1 FOR 10) AS DATE) AS `day`,"
                        + "     proc FROM ledger_changes WHERE `after`.state = 'SUCCEEDED'))"
                        + " WHERE rn = 1 GROUP BY merchant_id, `day`, currency");
    }
}
