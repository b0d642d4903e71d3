package io.effonce.feed.page;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.credentials.DatabaseLogin;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.ParameterException;

class LivePageCommandTest {

    private static final String URL = "jdbc:postgresql://db:5432/ledger";

    @Test
    void defaultsAreTheDashboardRolePort8090AndTheTopTenOfTheNewestDay() {
        PageSettings s =
                LivePageCommand.parse(
                        new String[] {"--jdbc-url", URL},
                        Map.of("EFFONCE_DASHBOARD_PASSWORD", "from-env"));
        assertThat(s.login().user()).isEqualTo("effonce_dashboard");
        assertThat(s.login().password()).isEqualTo("from-env");
        assertThat(s.port()).isEqualTo(8090);
        assertThat(s.bindAddress()).isEqualTo("127.0.0.1");
        assertThat(s.top()).isEqualTo(10);
        assertThat(s.day()).isNull();
        assertThat(s.liveInterval()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void thePasswordFileWinsOverTheEnvironmentAndOnlyItsFirstLineCounts(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("dashboard.password");
        Files.writeString(file, "s3cret\nsecond line\n");
        PageSettings s =
                LivePageCommand.parse(
                        new String[] {
                            "--jdbc-url",
                            URL,
                            "--password-file",
                            file.toString(),
                            "--top",
                            "25",
                            "--day",
                            "2025-03-01",
                            "--port",
                            "0"
                        },
                        Map.of("EFFONCE_DASHBOARD_PASSWORD", "from-env"));
        assertThat(s.login().password()).isEqualTo("s3cret");
        assertThat(s.top()).isEqualTo(25);
        assertThat(s.day()).isEqualTo(LocalDate.parse("2025-03-01"));
        assertThat(s.port()).isZero();
        assertThat(s.login().toString()).doesNotContain("s3cret");
    }

    @Test
    void badInputIsRefusedNamingTheOption(@TempDir Path dir) {
        assertRefused("--jdbc-url", "--top", "5");
        assertRefused("--jdbc-url must be a PostgreSQL JDBC URL", "--jdbc-url", "mysql://db/x");
        assertRefused("--top must be between 1 and 1000, was 0", "--jdbc-url", URL, "--top", "0");
        assertRefused("--port must be between 0 and 65535", "--jdbc-url", URL, "--port", "70000");
        assertRefused(
                "--live-interval-ms must be between 100",
                "--jdbc-url",
                URL,
                "--live-interval-ms",
                "5");
        assertRefused("--day", "--jdbc-url", URL, "--day", "1 March");
        assertRefused(
                "--password-file names",
                "--jdbc-url",
                URL,
                "--password-file",
                dir.resolve("missing").toString());
    }

    @Test
    void theCommandLineSaysWhatWasWrongAndExitsWithTwo() {
        StringWriter err = new StringWriter();
        int exit =
                LivePageCommand.run(
                        new String[] {"--jdbc-url", URL, "--top", "-1"},
                        Map.of(),
                        new PrintWriter(new StringWriter()),
                        new PrintWriter(err, true));
        assertThat(exit).isEqualTo(LivePageCommand.EXIT_USAGE);
        assertThat(err.toString()).contains("--top must be between 1 and 1000, was -1");
    }

    @Test
    void helpAndVersionArePrintedAndExitZeroWithoutServing() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int help =
                LivePageCommand.run(
                        new String[] {"--help"},
                        Map.of(),
                        new PrintWriter(out, true),
                        new PrintWriter(err, true));
        int version =
                LivePageCommand.run(
                        new String[] {"--version"},
                        Map.of(),
                        new PrintWriter(out, true),
                        new PrintWriter(err, true));
        // --jdbc-url is required, yet a help request needs none: nothing was parsed into settings
        assertThat(help).isEqualTo(LivePageCommand.EXIT_OK);
        assertThat(version).isEqualTo(LivePageCommand.EXIT_OK);
        assertThat(out.toString()).contains("--jdbc-url").contains("effonce live page");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void startFailuresSayWhatToDoWithoutThePassword() {
        DatabaseLogin login =
                new DatabaseLogin(URL + "?password=hidden", "effonce_dashboard", "pw");
        assertThat(
                        LivePageCommand.explain(
                                new SQLException("password authentication failed", "28P01"), login))
                .contains("--user effonce_dashboard")
                .contains("--password-file or EFFONCE_DASHBOARD_PASSWORD");
        assertThat(
                        LivePageCommand.explain(
                                new SQLException(
                                        "The server requested SCRAM-based authentication, but no"
                                                + " password was provided.",
                                        "08004"),
                                login))
                .as("no password given: the password options, not the URL")
                .contains("--password-file or EFFONCE_DASHBOARD_PASSWORD")
                .doesNotContain("--jdbc-url");
        assertThat(LivePageCommand.explain(new SQLException("refused", "08001"), login))
                .contains("--jdbc-url")
                .doesNotContain("hidden");
        assertThat(LivePageCommand.explain(new SQLException("no table", "42P01"), login))
                .contains("deploy/sql/sink.sql");
        assertThat(login.toString()).doesNotContain("hidden").doesNotContain("pw]");
    }

    private static void assertRefused(String message, String... args) {
        assertThatThrownBy(() -> LivePageCommand.parse(args, Map.of()))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining(message);
    }
}
