package io.effonce.local.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.local.LocalCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

class LocalCliTest {

    @Test
    void helpDocumentsEveryOptionOfEveryCommand() {
        CommandLine cli = new CommandLine(new LocalCli(Map.of()));
        assertThat(cli.getSubcommands())
                .containsKeys("schema", "role-password", "workload", "oracle", "postgres", "kafka");
        for (CommandLine command : cli.getSubcommands().values()) {
            String usage = command.getUsageMessage(CommandLine.Help.Ansi.OFF);
            for (OptionSpec option : command.getCommandSpec().options()) {
                assertThat(String.join(" ", option.description()))
                        .as("description of %s %s", command.getCommandName(), option.longestName())
                        .isNotBlank();
                assertThat(usage).contains(option.longestName());
            }
        }
        Result help = run(Map.of(), "workload", "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("--clock-step", "--rate", "--batch=N");
        assertThat(run(Map.of(), "--help").out()).contains("EFFONCE_PG_PASSWORD_FILE");
    }

    @Test
    void aMissingDatabaseSaysWhatToSet() {
        Result r = run(Map.of(), "oracle");
        assertThat(r.code()).isEqualTo(LocalCli.ERROR);
        assertThat(r.err()).contains("EFFONCE_PG_URL is not set", "'postgres' command");
    }

    @Test
    void aWrongOptionValueIsAUsageError() {
        Map<String, String> env = Map.of("EFFONCE_PG_URL", "jdbc:postgresql://127.0.0.1:1/x");
        assertThat(run(env, "workload", "--currencies", "eur").err())
                .contains("'eur' is not a 3-letter upper-case ISO 4217 code");
        Result r = run(env, "workload", "--count", "many");
        assertThat(r.code()).isEqualTo(LocalCli.ERROR);
        assertThat(r.err()).contains("--count");
    }

    @Test
    void aRolePasswordForARoleOutsideTheProjectIsRefusedBeforeAnyFileIsWritten() {
        Map<String, String> env = Map.of("EFFONCE_PG_URL", "jdbc:postgresql://127.0.0.1:1/x");
        Result r = run(env, "role-password", "postgres", "target/never-written.password");
        assertThat(r.code()).isEqualTo(LocalCli.ERROR);
        assertThat(r.err()).contains("ROLE must be one of roles.sql's roles");
        assertThat(java.nio.file.Path.of("target/never-written.password")).doesNotExist();
    }

    @Test
    void aRolePasswordWithoutTheDatabasesVariablesIsRefusedBeforeAnyFileIsWritten() {
        Result r = run(Map.of(), "role-password", "effonce_sink", "target/never-written.password");
        assertThat(r.code()).isEqualTo(LocalCli.ERROR);
        assertThat(r.err()).contains("EFFONCE_PG_URL");
        assertThat(java.nio.file.Path.of("target/never-written.password")).doesNotExist();
    }

    record Result(int code, String out, String err) {}

    static Result run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = LocalCli.run(env, new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Result(code, out.toString(), err.toString());
    }
}
