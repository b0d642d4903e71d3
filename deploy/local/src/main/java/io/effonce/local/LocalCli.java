package io.effonce.local;

import io.effonce.local.cli.KafkaCommand;
import io.effonce.local.cli.OracleCommand;
import io.effonce.local.cli.PostgresCommand;
import io.effonce.local.cli.RolePasswordCommand;
import io.effonce.local.cli.SchemaCommand;
import io.effonce.local.cli.WorkloadCommand;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The operator's command line for local services: apply the schema, run the ledger workload,
 * compare the sink with the ledger oracle, start an embedded PostgreSQL. The database comes from
 * {@code EFFONCE_PG_URL}, {@code EFFONCE_PG_USER} and {@code EFFONCE_PG_PASSWORD} (or {@code
 * EFFONCE_PG_PASSWORD_FILE}). Exit codes: 0 success, 1 the oracle found differences, 2 a usage or
 * runtime error.
 */
@Command(
        name = "effonce-local",
        mixinStandardHelpOptions = true,
        version = "effonce-local 0.1.0-SNAPSHOT",
        description =
                "Local tools of effonce: schema, role passwords, ledger workload, oracle, embedded"
                        + " PostgreSQL and Kafka.",
        subcommands = {
            SchemaCommand.class,
            RolePasswordCommand.class,
            WorkloadCommand.class,
            OracleCommand.class,
            PostgresCommand.class,
            KafkaCommand.class,
            CommandLine.HelpCommand.class
        },
        footer = {
            "",
            "Environment:",
            "  EFFONCE_PG_URL            JDBC URL of the database,",
            "                            e.g. jdbc:postgresql://127.0.0.1:54329/postgres",
            "  EFFONCE_PG_USER           user (default postgres)",
            "  EFFONCE_PG_PASSWORD       password; or EFFONCE_PG_PASSWORD_FILE, a file",
            "                            whose first line is the password",
            "Exit codes: 0 success, 1 the oracle found differences, 2 usage or runtime error."
        })
public final class LocalCli implements Runnable {

    /** Exit code when the oracle found differences. */
    public static final int DIFFERENCES = 1;

    /** Exit code of a usage or runtime error. */
    public static final int ERROR = 2;

    private final Map<String, String> env;

    public LocalCli(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    public static void main(String[] args) {
        System.exit(
                run(
                        System.getenv(),
                        new PrintWriter(System.out, true),
                        new PrintWriter(System.err, true),
                        args));
    }

    /** Runs the command line with this environment and these streams; returns the exit code. */
    public static int run(
            Map<String, String> env, PrintWriter out, PrintWriter err, String... args) {
        CommandLine cli = new CommandLine(new LocalCli(env));
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionExceptionHandler(
                (e, commandLine, parseResult) -> {
                    commandLine.getErr().println("error: " + e.getMessage());
                    commandLine.getErr().flush();
                    return ERROR;
                });
        return cli.execute(args);
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(
                new CommandLine(this), "name a command: schema, workload, oracle or postgres");
    }

    /** The database the environment names; fails with what to set when it names none. */
    public PostgresEndpoint database() {
        return LocalServices.externalPostgres(env)
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        LocalServices.PG_URL
                                                + " is not set: set it (with "
                                                + LocalServices.PG_USER
                                                + " and "
                                                + LocalServices.PG_PASSWORD
                                                + " or "
                                                + LocalServices.PG_PASSWORD
                                                + "_FILE) to the database to use, or start one"
                                                + " with the 'postgres' command"));
    }
}
