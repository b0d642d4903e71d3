package io.effonce.examples.adclicks;

import io.effonce.sink.PostgresStoreConfig;
import java.time.Duration;
import org.apache.flink.util.ParameterTool;

/**
 * The example job's settings, from {@code --name value} arguments. The password is read from a file
 * in each writing task, never passed on the command line.
 */
public record AdClicksSettings(
        String kafkaServers,
        String topic,
        String postgresUrl,
        String postgresUser,
        String passwordFile,
        String table,
        boolean createTables,
        Duration rememberClickIds) {

    public static AdClicksSettings fromArgs(String[] args) {
        ParameterTool p = ParameterTool.fromArgs(args);
        return new AdClicksSettings(
                required(p, "kafka.bootstrap-servers"),
                p.get("kafka.topic", "clicks"),
                required(p, "postgres.url"),
                p.get("postgres.user", "effonce_sink"),
                required(p, "postgres.password-file"),
                p.get("table", "ad_clicks_hourly"),
                p.getBoolean("create-tables", true),
                Duration.parse(p.get("remember-click-ids", "PT24H")));
    }

    /** Where the sink writes: the table and the login, the password from its file. */
    public PostgresStoreConfig store() {
        return PostgresStoreConfig.builder()
                .url(postgresUrl)
                .username(postgresUser)
                .passwordFile(passwordFile)
                .table(table)
                .build();
    }

    private static String required(ParameterTool p, String name) {
        String value = p.get(name);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(
                    "--" + name + " is required (see examples/ad-clicks/README.md)");
        }
        return value;
    }
}
