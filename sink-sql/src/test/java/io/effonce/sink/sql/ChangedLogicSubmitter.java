package io.effonce.sink.sql;

import java.net.URI;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * One version of the changed-logic SQL job, planned in its own JVM and submitted to a running
 * cluster, as a SQL client would: the planner numbers its nodes from one in each JVM, so the uids
 * {@code table.exec.uid.generation=ALWAYS} derives from them match only between two clients that
 * planned the same graph. Prints {@code JOB <id>} and exits; the job runs on.
 *
 * <p>Arguments: cluster REST URI, JDBC URL, user, password file, the user's password for the JDBC
 * connector, Kafka servers, topic, the query whose rows both tables get (a SELECT over {@code
 * changes}), and a savepoint path or "-".
 */
public final class ChangedLogicSubmitter {

    private ChangedLogicSubmitter() {}

    public static void main(String[] args) throws Exception {
        URI cluster = URI.create(args[0]);
        String url = args[1];
        String user = args[2];
        String passwordFile = args[3];
        String password = args[4];
        String kafka = args[5];
        String topic = args[6];
        String query = " " + args[7];
        String savepoint = args[8];

        Configuration conf = new Configuration();
        conf.setString("table.exec.uid.generation", "ALWAYS");
        if (!"-".equals(savepoint)) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createRemoteEnvironment(
                        cluster.getHost(), cluster.getPort(), conf);
        env.setParallelism(2);
        env.enableCheckpointing(300);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.executeSql(
                "CREATE TABLE changes ("
                        + " `after` ROW<payment_id STRING, merchant_id STRING, amount BIGINT,"
                        + " currency STRING, state STRING, `day` DATE>"
                        + ") WITH ('connector' = 'kafka', 'topic' = '"
                        + topic
                        + "', 'properties.bootstrap.servers' = '"
                        + kafka
                        + "', 'properties.group.id' = 'sql-changed-logic',"
                        + " 'scan.startup.mode' = 'earliest-offset', 'format' = 'json')");
        String columns =
                "(merchant_id STRING, `day` DATE, currency STRING, total_minor BIGINT,"
                        + " payments BIGINT, PRIMARY KEY (merchant_id, `day`, currency) NOT"
                        + " ENFORCED)";
        tables.executeSql(
                "CREATE TABLE effonce_totals "
                        + columns
                        + " WITH ('connector' = 'effonce-postgres', 'url' = '"
                        + url
                        + "', 'table-name' = 'effonce_totals', 'username' = '"
                        + user
                        + "', 'password-file' = '"
                        + passwordFile
                        + "', 'sink.create-tables' = 'true')");
        tables.executeSql(
                "CREATE TABLE jdbc_totals "
                        + columns
                        + " WITH ('connector' = 'jdbc', 'url' = '"
                        + url
                        + "', 'table-name' = 'jdbc_totals', 'username' = '"
                        + user
                        + "', 'password' = '"
                        + password
                        + "', 'sink.buffer-flush.interval' = '100ms')");
        var both = tables.createStatementSet();
        both.addInsertSql("INSERT INTO effonce_totals" + query);
        both.addInsertSql("INSERT INTO jdbc_totals" + query);
        System.out.println("JOB " + both.execute().getJobClient().orElseThrow().getJobID());
        // the remote client's threads would keep this JVM alive
        System.exit(0);
    }
}
