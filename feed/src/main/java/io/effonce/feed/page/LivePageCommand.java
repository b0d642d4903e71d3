package io.effonce.feed.page;

import io.effonce.credentials.DatabaseLogin;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.BindException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The live page as a command of its own, pointed at any database that holds the sink's tables:
 *
 * <pre>
 * EFFONCE_DASHBOARD_PASSWORD=… java -cp … io.effonce.feed.page.LivePageCommand \
 *     --jdbc-url jdbc:postgresql://db:5432/ledger
 * </pre>
 *
 * It logs in as {@code effonce_dashboard} (read-only), checks that the role can read what the page
 * shows, serves the page and runs until stopped. Exit codes: 0 after a stop, 2 for a wrong option,
 * 3 if it could not start.
 */
@Command(
        name = "live-page",
        mixinStandardHelpOptions = true,
        version = "effonce live page",
        description =
                "Serves a page of the top merchants' daily totals, live and committed side by"
                        + " side, refreshed on every checkpoint's commit (LISTEN"
                        + " effonce_committed).")
public final class LivePageCommand {

    static final String PASSWORD_ENV = "EFFONCE_DASHBOARD_PASSWORD";
    static final int EXIT_OK = 0;
    static final int EXIT_USAGE = 2;
    static final int EXIT_STARTUP = 3;

    @Option(
            names = "--jdbc-url",
            required = true,
            description =
                    "The database with the sink's tables, e.g. jdbc:postgresql://db:5432/ledger")
    String jdbcUrl;

    @Option(
            names = "--user",
            defaultValue = "effonce_dashboard",
            description = "The role to read as (default: ${DEFAULT-VALUE}).")
    String user;

    @Option(
            names = "--password-file",
            description =
                    "A file whose first line is the role's password; without it the password is"
                            + " taken from "
                            + PASSWORD_ENV
                            + ", or none is sent.")
    Path passwordFile;

    @Option(
            names = "--port",
            defaultValue = "" + PageSettings.DEFAULT_PORT,
            description = "The page's port; 0 takes a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(
            names = "--bind",
            defaultValue = "127.0.0.1",
            description =
                    "The address to listen on; 0.0.0.0 serves other machines too (default:"
                            + " ${DEFAULT-VALUE}).")
    String bind;

    @Option(
            names = "--top",
            defaultValue = "" + PageSettings.DEFAULT_TOP,
            description = "How many merchant-days to list, 1 to 1000 (default: ${DEFAULT-VALUE}).")
    int top;

    @Option(
            names = "--day",
            description = "The day to show (YYYY-MM-DD); default: the newest day in the tables.")
    LocalDate day;

    @Option(
            names = "--live-interval-ms",
            defaultValue = "1000",
            description =
                    "How often the live column is read, in ms; the committed column is read on"
                            + " every commit notice (default: ${DEFAULT-VALUE}).")
    long liveIntervalMillis;

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        System.exit(run(args, System.getenv(), out, err));
    }

    /** Parses {@code args}, with the password from {@code env}; throws for a wrong option. */
    static PageSettings parse(String[] args, Map<String, String> env) {
        LivePageCommand command = new LivePageCommand();
        CommandLine cli = new CommandLine(command);
        cli.parseArgs(args);
        return command.settings(cli, env);
    }

    /** Runs the page as the main does, on picocli's {@link CommandLine#execute}; the exit code. */
    static int run(String[] args, Map<String, String> env, PrintWriter out, PrintWriter err) {
        LivePageCommand command = new LivePageCommand();
        CommandLine cli = new CommandLine(command);
        cli.setOut(out);
        cli.setErr(err);
        cli.setParameterExceptionHandler(
                (e, given) -> {
                    err.println("live-page: " + e.getMessage());
                    err.println("Run with --help to see every option.");
                    err.flush();
                    return EXIT_USAGE;
                });
        cli.setExecutionStrategy(
                parsed -> {
                    Integer help = CommandLine.executeHelpRequest(parsed);
                    return help != null ? help : serve(command.settings(cli, env), out, err);
                });
        return cli.execute(args);
    }

    private static int serve(PageSettings settings, PrintWriter out, PrintWriter err) {
        try {
            checkAccess(settings.login());
        } catch (SQLException e) {
            err.println("live-page could not start: " + explain(e, settings.login()));
            return EXIT_STARTUP;
        }
        LivePageServer server;
        try {
            server = LivePageServer.start(settings);
        } catch (BindException e) {
            err.println(
                    "live-page could not start: --port "
                            + settings.port()
                            + " on --bind "
                            + settings.bindAddress()
                            + " is in use or not allowed ("
                            + e.getMessage()
                            + "); choose another port, or 0 for any free one");
            return EXIT_STARTUP;
        } catch (IOException e) {
            err.println("live-page could not start: " + e.getMessage());
            return EXIT_STARTUP;
        }
        out.println("Live page: " + server.uri() + " (reading as " + settings.login().user() + ")");
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    server.close();
                                    stopped.countDown();
                                },
                                "live-page-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            server.close();
        }
        return EXIT_OK;
    }

    private PageSettings settings(CommandLine cli, Map<String, String> env) {
        if (org.postgresql.Driver.parseURL(jdbcUrl, null) == null) {
            throw new ParameterException(
                    cli,
                    "--jdbc-url must be a PostgreSQL JDBC URL such as"
                            + " jdbc:postgresql://db:5432/ledger");
        }
        if (user.isBlank()) {
            throw new ParameterException(cli, "--user must name a role, e.g. effonce_dashboard");
        }
        if (port < 0 || port > 65_535) {
            throw new ParameterException(
                    cli, "--port must be between 0 and 65535 (0: any free port), was " + port);
        }
        if (top < 1 || top > 1_000) {
            throw new ParameterException(cli, "--top must be between 1 and 1000, was " + top);
        }
        if (liveIntervalMillis < 100 || liveIntervalMillis > 3_600_000) {
            throw new ParameterException(
                    cli,
                    "--live-interval-ms must be between 100 and 3600000, was "
                            + liveIntervalMillis);
        }
        DatabaseLogin login = new DatabaseLogin(jdbcUrl, user, password(cli, env));
        return new PageSettings(login, bind, port, top, day, Duration.ofMillis(liveIntervalMillis));
    }

    private String password(CommandLine cli, Map<String, String> env) {
        try {
            return DatabaseLogin.password(passwordFile, PASSWORD_ENV, env);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cli, e.getMessage());
        }
    }

    /** Logs in and reads what the page reads, once, so a wrong setting fails here. */
    static void checkAccess(DatabaseLogin login) throws SQLException {
        try (Connection c = login.connect("live page (start check)")) {
            new SnapshotQuery(null, 1).read(c);
        }
    }

    /** A start failure, with what to do about it; never the password. */
    static String explain(SQLException e, DatabaseLogin login) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String hint;
        // pgjdbc rejects a login the server asked a password for, and none was given, as 08004.
        if (state.equals("28P01") || state.equals("28000") || state.equals("08004")) {
            hint =
                    "the database refused the login of --user "
                            + login.user()
                            + ": check the password (--password-file or "
                            + PASSWORD_ENV
                            + ")";
        } else if (state.equals("42501")) {
            hint =
                    "--user "
                            + login.user()
                            + " may not read the totals: apply deploy/sql/roles.sql to this"
                            + " database, or use the role effonce_dashboard";
        } else if (state.equals("42P01")) {
            hint =
                    "the sink's tables are missing in this database: apply deploy/sql/sink.sql, or"
                            + " check --jdbc-url";
        } else if (state.startsWith("08")) {
            hint = "cannot reach the database of --jdbc-url";
        } else {
            hint = "reading the totals failed";
        }
        return hint + " (SQLSTATE " + state + ": " + e.getMessage() + ")";
    }
}
