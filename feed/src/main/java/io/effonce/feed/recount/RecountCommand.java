package io.effonce.feed.recount;

import io.effonce.credentials.DatabaseLogin;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code recount}: publishes final days' totals recomputed from the ledger. */
@Command(
        name = "recount",
        mixinStandardHelpOptions = true,
        version = "effonce-feed 0.1.0-SNAPSHOT",
        description = {
            "Recomputes the totals of final days from the ledger's SUCCEEDED payments, late"
                    + " changes included, and publishes them in merchant_daily_totals_recount;"
                    + " the view merchant_daily_totals_final shows them instead of the committed"
                    + " totals. Reads the ledger, never writes it. Exit 1 if a day was refused"
                    + " (not final yet)."
        })
public final class RecountCommand implements Callable<Integer> {

    static final String PASSWORD_ENV = "EFFONCE_RECOUNT_PASSWORD";

    @Spec private CommandSpec spec;

    @Option(
            names = "--jdbc-url",
            required = true,
            paramLabel = "URL",
            description = "The ledger's database, e.g. jdbc:postgresql://db:5432/ledger")
    private String jdbcUrl;

    @Option(
            names = "--user",
            defaultValue = "effonce_recount",
            description = "Role to connect as (default: ${DEFAULT-VALUE}, deploy/sql/roles.sql).")
    private String user;

    @Option(
            names = "--password-file",
            paramLabel = "FILE",
            description =
                    "File holding the role's password (first line). Else the environment"
                            + " variable "
                            + PASSWORD_ENV
                            + ", else none.")
    private Path passwordFile;

    @Option(
            names = "--zone",
            paramLabel = "ZONE",
            description =
                    "The job's totals.zone: days are dates in it. Default: the zone the job's sink"
                            + " recorded (committed_progress.day_zone); given, it must match it.")
    private ZoneId zone;

    @Option(
            names = "--day",
            paramLabel = "YYYY-MM-DD",
            description = "A day to recount; repeat for more.")
    private List<LocalDate> days = new ArrayList<>();

    @Option(
            names = "--late",
            description =
                    "Recount every final day with late events no recount has seen yet (for a"
                            + " schedule, e.g. hourly).")
    private boolean late;

    @Option(
            names = "--even-if-open",
            description =
                    "Also recount days that are not final yet. Their recount hides what the stream"
                            + " still adds until the next recount.")
    private boolean evenIfOpen;

    public static void main(String[] args) {
        System.exit(new CommandLine(new RecountCommand()).execute(args));
    }

    @Override
    public Integer call() throws SQLException {
        if (days.isEmpty() && !late) {
            throw new ParameterException(
                    spec.commandLine(), "Name the days: --day YYYY-MM-DD (repeatable) or --late.");
        }
        PrintWriter out = spec.commandLine().getOut();
        int refused = 0;
        try (Connection connection = connect()) {
            LedgerRecount recount =
                    new LedgerRecount(connection, daysZone(LedgerRecount.jobZone(connection)));
            List<LocalDate> todo = new ArrayList<>(days);
            if (late) {
                LedgerRecount.DaysWithLateEvents found = recount.daysWithNewLateEvents();
                todo.addAll(found.due());
                for (LocalDate day : found.waiting()) {
                    out.println(
                            day
                                    + ": late events, not final yet (final through "
                                    + found.finalThrough().map(LocalDate::toString).orElse("none")
                                    + "); a later --late run recounts it");
                }
            }
            for (LocalDate day : todo) {
                try {
                    out.println(recount.recount(day, evenIfOpen).summary());
                } catch (DayNotFinalException e) {
                    spec.commandLine().getErr().println(e.getMessage());
                    refused++;
                }
            }
            if (todo.isEmpty()) {
                out.println("Nothing to recount.");
            }
        }
        return refused == 0 ? 0 : 1;
    }

    /**
     * The zone whose dates the days are: the job's. A recount in another zone would publish other
     * days' payments under these dates, over the committed totals.
     */
    private ZoneId daysZone(Optional<ZoneId> recorded) {
        if (zone == null) {
            return recorded.orElseThrow(
                    () ->
                            new ParameterException(
                                    spec.commandLine(),
                                    "The job has not recorded its zone yet (committed_progress has"
                                            + " no day_zone): name the job's totals.zone with"
                                            + " --zone."));
        }
        if (recorded.isPresent() && !recorded.get().normalized().equals(zone.normalized())) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--zone "
                            + zone
                            + " is not the job's totals.zone, "
                            + recorded.get()
                            + " (committed_progress.day_zone): leave --zone out or pass --zone "
                            + recorded.get()
                            + ".");
        }
        return zone;
    }

    private Connection connect() throws SQLException {
        String password;
        try {
            password = DatabaseLogin.password(passwordFile, PASSWORD_ENV, System.getenv());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        return new DatabaseLogin(jdbcUrl, user, password).connect("recount");
    }
}
