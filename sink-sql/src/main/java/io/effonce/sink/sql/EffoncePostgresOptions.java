package io.effonce.sink.sql;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The options of {@code 'connector' = 'effonce-postgres'} that are the connector's own; the
 * flushable sink's ({@code sink.batch-size}, {@code sink.flush-interval}, {@code
 * sink.restore-flush}, {@code sink.reset-on-fresh-start}, {@code sink.retired-retention}, {@code
 * sink.owner-lease}, {@code sink.lost-write-check}, {@code sink.max-retries}, {@code
 * sink.retry-backoff}) are read as they are.
 */
public final class EffoncePostgresOptions {

    private EffoncePostgresOptions() {}

    public static final ConfigOption<String> URL =
            ConfigOptions.key("url")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "JDBC URL of the PostgreSQL database, e.g."
                                    + " jdbc:postgresql://db:5432/analytics.");

    public static final ConfigOption<String> TABLE_NAME =
            ConfigOptions.key("table-name")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The table the sink writes, optionally schema-qualified; its committed"
                                    + " and staged tables are <table-name>_committed and"
                                    + " <table-name>_staged.");

    public static final ConfigOption<String> USERNAME =
            ConfigOptions.key("username")
                    .stringType()
                    .defaultValue("effonce_sink")
                    .withDescription("The login role.");

    public static final ConfigOption<String> PASSWORD_FILE =
            ConfigOptions.key("password-file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "A file, on every TaskManager, whose first line is the password.");

    public static final ConfigOption<String> PASSWORD_ENV =
            ConfigOptions.key("password-env")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "An environment variable of the TaskManagers holding the password"
                                    + " (used when password-file is not set).");

    public static final ConfigOption<Boolean> CREATE_TABLES =
            ConfigOptions.key("sink.create-tables")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Create the table, its committed and staged tables and the tables all"
                                    + " sinks share when they are missing (the login must be allowed"
                                    + " to create tables). Off: a missing table fails the job once,"
                                    + " with the script that creates it.");
}
