package io.effonce.job;

import io.effonce.jdbc.JdbcUrls;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.SinkTableDdl;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the job needs from its services, checked in {@code main} before its graph is built: the
 * sink's login, its tables and rights, the change topics. A mistake found here fails the submission
 * once, with a sentence that names the fix, instead of a task that restarts forever with the reason
 * in Flink's exception history. Kafka that does not answer is such a mistake (a wrong {@code
 * --kafka.bootstrap-servers} restarted the sources forever); a sink database {@code main} cannot
 * reach, or a password given to the tasks only, is a warning here: the tasks connect themselves
 * (but the sink's numbering of the deployment, next, needs it unless {@code
 * sink.require-deployment-number} is false).
 */
final class StartupCheck {

    private static final Logger LOG = LoggerFactory.getLogger(StartupCheck.class);
    private static final int TIMEOUT_SECONDS = 15;

    private StartupCheck() {}

    /** Throws {@link JobStartupException} naming every problem found. */
    static void run(PostgresStoreConfig sink, String bootstrap, List<String> topics) {
        List<String> problems = new ArrayList<>(sinkDatabase(sink));
        problems.addAll(topics(bootstrap, topics));
        if (!problems.isEmpty()) {
            throw new JobStartupException(String.join(" ", problems));
        }
    }

    /** The sink's login, tables and rights. */
    static List<String> sinkDatabase(PostgresStoreConfig sink) {
        String where = JdbcUrls.redacted(sink.jdbcUrl());
        String password;
        try {
            password = sink.session().resolvePassword();
        } catch (RuntimeException e) {
            // The password may be given to the tasks only (a variable or a file on their hosts).
            LOG.warn(
                    "The sink's password is not readable where main runs ({}); the sink database"
                            + " is not checked here, the tasks connect themselves.",
                    e.getMessage());
            return List.of();
        }
        Properties login = new Properties();
        login.setProperty("user", sink.user());
        login.setProperty("password", password);
        login.setProperty("ApplicationName", "effonce-startup-check");
        login.setProperty("connectTimeout", String.valueOf(TIMEOUT_SECONDS));
        login.setProperty("socketTimeout", String.valueOf(TIMEOUT_SECONDS * 2));
        // The driver itself, not DriverManager: in a session cluster each submission's main runs
        // in a class loader of its own, which DriverManager's registered drivers may not be from.
        try (Connection c = new org.postgresql.Driver().connect(sink.jdbcUrl(), login)) {
            if (c == null) {
                return List.of(
                        "--postgres.url must be a PostgreSQL JDBC URL (jdbc:postgresql://host:port/"
                                + "database); it is "
                                + where
                                + ".");
            }
            return tables(c, sink, where);
        } catch (SQLException e) {
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            if (state.startsWith("28")) {
                return List.of(
                        "The sink database at "
                                + where
                                + " refused the login of "
                                + sink.user()
                                + " ("
                                + e.getMessage()
                                + "): check --postgres.user and the password in"
                                + " --postgres.password-file or the variable --postgres.password-env"
                                + " names; a role's password is set with ALTER ROLE "
                                + sink.user()
                                + " PASSWORD '…'.");
            }
            if (state.equals("3D000")) {
                return List.of(
                        "The database in --postgres.url does not exist at "
                                + where
                                + " ("
                                + e.getMessage()
                                + "): name the database that holds the sink's tables.");
            }
            LOG.warn(
                    "Could not reach the sink database at {} from where main runs (SQLSTATE {}: {});"
                            + " not checked here, the tasks connect themselves.",
                    where,
                    state,
                    e.getMessage());
            return List.of();
        }
    }

    private static List<String> tables(Connection c, PostgresStoreConfig sink, String where)
            throws SQLException {
        List<String> needed = new ArrayList<>(SinkTableDdl.tablesWritten(sink));
        needed.addAll(List.of("late_events", "dead_letters"));
        List<String> missing = new ArrayList<>();
        List<String> notWritable = new ArrayList<>();
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT to_regclass(?) IS NOT NULL, CASE WHEN to_regclass(?) IS NULL"
                                + " THEN false ELSE has_table_privilege(?, 'INSERT, UPDATE,"
                                + " DELETE') END")) {
            for (String table : needed) {
                s.setString(1, table);
                s.setString(2, table);
                s.setString(3, table);
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    if (!rs.getBoolean(1)) {
                        missing.add(table);
                    } else if (!rs.getBoolean(2)) {
                        notWritable.add(table);
                    }
                }
            }
        }
        if (!missing.isEmpty()) {
            return List.of(
                    "The sink's tables "
                            + String.join(", ", missing)
                            + " are missing at "
                            + where
                            + ": apply deploy/sql/sink.sql and deploy/sql/roles.sql there as a"
                            + " superuser (deploy/local/bin/effonce-local schema does both).");
        }
        if (!notWritable.isEmpty()) {
            return List.of(
                    sink.user()
                            + " may not write "
                            + String.join(", ", notWritable)
                            + " at "
                            + where
                            + ": apply deploy/sql/roles.sql (it grants effonce_sink what the job"
                            + " needs) and run the job as effonce_sink.");
        }
        return List.of();
    }

    /** That Kafka answers and every topic exists. */
    static List<String> topics(String bootstrap, List<String> topics) {
        return topics(bootstrap, topics, TIMEOUT_SECONDS);
    }

    /** The same, waiting at most {@code timeoutSeconds} for the broker. */
    static List<String> topics(String bootstrap, List<String> topics, int timeoutSeconds) {
        Map<String, Object> settings = new HashMap<>(KafkaClientDefaults.SETTINGS);
        settings.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        settings.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutSeconds * 1000);
        settings.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutSeconds * 1000);
        List<String> missing = new ArrayList<>();
        try (Admin admin = Admin.create(settings)) {
            for (String topic : topics) {
                try {
                    admin.describeTopics(List.of(topic))
                            .allTopicNames()
                            .get(timeoutSeconds, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                        throw e;
                    }
                    missing.add(topic);
                }
            }
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            // Submitted anyway, the sources would restart forever, each attempt's clients
            // flooding the log with their reconnects.
            Throwable cause =
                    e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            return List.of(
                    "Kafka at "
                            + bootstrap
                            + " did not answer within "
                            + timeoutSeconds
                            + " s from where main runs ("
                            + cause.getClass().getSimpleName()
                            + (cause.getMessage() == null ? "" : ": " + cause.getMessage())
                            + "): check --"
                            + JobOptions.KAFKA_BOOTSTRAP.key()
                            + " (host:port of brokers the TaskManagers reach). If main runs where"
                            + " Kafka cannot be reached (a client outside the cluster), --"
                            + JobOptions.STARTUP_CHECK.key()
                            + " false skips the checks (and --sink.require-deployment-number false"
                            + " the deployment's numbering, if the sink's database cannot be"
                            + " reached either).");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
        if (missing.isEmpty()) {
            return List.of();
        }
        return List.of(
                "The topic "
                        + String.join(", ", missing)
                        + " does not exist at "
                        + bootstrap
                        + ": start the relay first (it creates its topic, with LogAppendTime), or"
                        + " name the relay's topic with --kafka.topic.");
    }
}
