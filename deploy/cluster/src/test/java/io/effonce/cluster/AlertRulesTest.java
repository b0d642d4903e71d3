package io.effonce.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * deploy/prometheus's alert rules, checked and unit-tested by Debian's {@code promtool}: every
 * alert fires on the series that should fire it and stays silent on those beside them that should
 * not (effonce-alerts.test.yml).
 */
class AlertRulesTest {

    private static final Path PROMTOOL = Path.of("/usr/bin/promtool");

    /** Maven runs the tests in deploy/cluster. */
    private static final Path RULES = Path.of("../prometheus");

    @Test
    void theRulesAreValid() throws Exception {
        String out = promtool("check", "rules", "effonce-alerts.yml");
        assertThat(out).contains("SUCCESS: 9 rules found");
    }

    /** The one-machine configuration README.md tells a person to run. */
    @Test
    void theLocalConfigurationIsValidWithItsRules() throws Exception {
        String out = promtool("check", "config", "local.yml");
        assertThat(out).contains("SUCCESS: local.yml is valid").contains("SUCCESS: 9 rules found");
    }

    @Test
    void everyAlertFiresWhereItShouldAndOnlyThere() throws Exception {
        String out = promtool("test", "rules", "effonce-alerts.test.yml");
        assertThat(out).contains("SUCCESS");
    }

    private static String promtool(String... args) throws IOException, InterruptedException {
        if (!Files.isExecutable(PROMTOOL)) {
            throw new IllegalStateException(
                    "The alert rules' tests need Debian's prometheus package ("
                            + PROMTOOL
                            + "); .ci/run installs it: apt-get install -y"
                            + " --no-install-recommends prometheus");
        }
        List<String> command = new ArrayList<>(List.of(PROMTOOL.toString()));
        command.addAll(List.of(args));
        Process p =
                new ProcessBuilder(command)
                        .directory(RULES.toFile())
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("promtool finished").isTrue();
        assertThat(p.exitValue()).as("promtool's exit code; its output:%n%s", out).isZero();
        return out;
    }
}
