package io.effonce.cdc;

import io.effonce.credentials.PasswordFile;
import java.io.PrintWriter;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine;

/**
 * The command line of {@link LedgerRelay#main}, run by picocli's {@link CommandLine#execute}:
 * parses options (command line, then environment), reads the password, starts the relay and runs it
 * until the process is stopped. Exit codes: 0 after a clean stop, 1 if the running relay failed, 2
 * for a wrong option, 3 if it could not start.
 */
public final class RelayCli {

    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;
    static final int EXIT_STARTUP = 3;
    static final int EXIT_HALTED = 99;

    private RelayCli() {}

    /** Parses {@code args} with defaults from {@code env}; throws for a wrong option. */
    public static RelayOptions parse(String[] args, Map<String, String> env) {
        RelayOptions options = new RelayOptions();
        CommandLine cli = commandLine(options, env);
        cli.parseArgs(args);
        options.dbPassword = password(options, env);
        options.validate();
        return options;
    }

    static CommandLine commandLine(RelayOptions options, Map<String, String> env) {
        CommandLine cli = new CommandLine(options);
        cli.setDefaultValueProvider(new EnvDefaults(env));
        cli.setOverwrittenOptionsAllowed(true); // the last value wins, as in most tools
        return cli;
    }

    /** Runs the relay as the main does; returns the exit code. */
    static int run(String[] args, Map<String, String> env, PrintWriter out, PrintWriter err) {
        RelayOptions options = new RelayOptions();
        CommandLine cli = commandLine(options, env);
        cli.setOut(out);
        cli.setErr(err);
        cli.setParameterExceptionHandler((e, given) -> usageError(e.getMessage(), err));
        cli.setExecutionStrategy(
                parsed -> {
                    Integer help = CommandLine.executeHelpRequest(parsed);
                    if (help != null) {
                        return help;
                    }
                    try {
                        options.dbPassword = password(options, env);
                        options.validate();
                    } catch (IllegalArgumentException e) {
                        return usageError(e.getMessage(), err);
                    }
                    return runUntilStopped(options, err);
                });
        return cli.execute(args);
    }

    private static int usageError(String message, PrintWriter err) {
        err.println("ledger-relay: " + message);
        err.println("Run with --help to see every option.");
        err.flush();
        return EXIT_USAGE;
    }

    private static int runUntilStopped(RelayOptions options, PrintWriter err) {
        LedgerRelay relay;
        try {
            relay = LedgerRelay.start(options);
        } catch (RelayStartupException e) {
            err.println("ledger-relay could not start: " + e.getMessage());
            return EXIT_STARTUP;
        } catch (RuntimeException e) {
            err.println("ledger-relay could not start: " + RelayErrors.explain(e, options));
            return EXIT_STARTUP;
        }
        Thread hook = new Thread(relay::close, "relay-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            Optional<Throwable> failure = relay.awaitTermination();
            if (failure.isPresent()) {
                err.println("ledger-relay failed: " + RelayErrors.explain(failure.get(), options));
                relay.close();
                return EXIT_FAILED;
            }
            return EXIT_OK;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            relay.close();
            return EXIT_FAILED;
        }
    }

    /** The password: {@code --db-password-file}, else EFFONCE_PG_PASSWORD, else empty. */
    static String password(RelayOptions options, Map<String, String> env) {
        if (options.dbPasswordFile != null) {
            return PasswordFile.read(options.dbPasswordFile, "--db-password-file");
        }
        String value = env.get("EFFONCE_PG_PASSWORD");
        return value == null ? "" : value;
    }
}
