package io.effonce.job.migrate;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Options of {@link MigrateSavepoint}, beside the job's own ({@code dedup.*}, {@code totals.zone}:
 * the values the job ran with, which the new state is built for).
 */
public final class MigrationOptions {

    public static final ConfigOption<String> FROM =
            ConfigOptions.key("migrate.from")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "A savepoint taken before 0.3.0 (canonical format, as flink stop --type"
                                    + " canonical takes it). Read, never changed.");

    public static final ConfigOption<String> TO =
            ConfigOptions.key("migrate.to")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Where the migrated savepoint is written; restore the job from it.");

    public static final ConfigOption<String> LEDGER_URL =
            ConfigOptions.key("ledger.url")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "JDBC URL of the ledger the job reads, for a savepoint of the two-stage"
                                    + " layout only: each remembered event id's merchant is looked up"
                                    + " in its payments table.");

    public static final ConfigOption<String> LEDGER_USER =
            ConfigOptions.key("ledger.user")
                    .stringType()
                    .defaultValue("effonce_recount")
                    .withDescription(
                            "The ledger role: SELECT on payments is all it needs (effonce_recount"
                                    + " has exactly that among its rights).");

    public static final ConfigOption<String> LEDGER_PASSWORD_FILE =
            ConfigOptions.key("ledger.password-file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("A file holding the ledger role's password.");

    public static final ConfigOption<String> LEDGER_PASSWORD_ENV =
            ConfigOptions.key("ledger.password-env")
                    .stringType()
                    .defaultValue("EFFONCE_LEDGER_PASSWORD")
                    .withDescription(
                            "The environment variable holding the ledger role's password, if no"
                                    + " file is named.");

    private MigrationOptions() {}
}
