package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.feed.page.HeadlessChromium;
import io.effonce.it.testutils.ReaderShell;
import io.effonce.it.testutils.ReadmeSteps;
import io.effonce.it.testutils.ReadmeSteps.Block;
import io.effonce.it.testutils.ServiceShell;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * README's "Try it on one machine", run as a reader would: every block as written (but for the
 * services' ports, given once where each starts) and in order, the services each in a shell of
 * their own (up when they print what the README says to wait for), the rest in one shell — from a
 * shell environment without any of the project's variables, with the launchers compiling what they
 * run. The last block's oracle must print {@code 0 differences}; a block that fails ends the test
 * with its shell's log. Only the one build the README asks for first is the test run's own.
 */
class ReadmeDeployStepsITCase {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path LOGS = Path.of("target", "readme-steps").toAbsolutePath();

    /**
     * The one change made to README's blocks: each service gets a port other than its default,
     * given once where it starts, as README says to when a default port is taken. The other blocks
     * reach the services through the files they write.
     */
    private static final Map<String, String> PORT_GIVEN_ONCE =
            Map.of(
                    "effonce-local postgres", "effonce-local postgres --port 15439",
                    "effonce-local kafka", "effonce-local kafka --port 19093",
                    "feed/bin/effonce-page", "feed/bin/effonce-page --port 0");

    private static final List<Integer> PORTS = List.of(15439, 19093);
    private static final List<String> DEFAULT_PORTS = List.of("54329", "19092");

    @Test
    void theDeployStepsRunAsWrittenAndTheOracleFindsNoDifference() throws Exception {
        List<Block> blocks = withPortsGivenOnce(ReadmeSteps.of(ROOT.resolve("README.md")));
        assertThat(blocks)
                .as(
                        "README's one-machine blocks: postgres, kafka, setup, relay, live page,"
                                + " job and verdict")
                .extracting(Block::isService)
                .containsExactly(true, true, false, true, true, false);
        assertThat(ROOT.resolve("job/target/effonce-job-0.1.0-SNAPSHOT-job.jar"))
                .as("the job jar of the build README asks for first")
                .exists();
        PORTS.forEach(ReadmeDeployStepsITCase::requireFree);
        deleteTree(ROOT.resolve("target/try"));
        deleteTree(LOGS);
        Map<String, String> env = readersEnvironment();

        Deque<ServiceShell> services = new ArrayDeque<>();
        List<ServiceShell> starting = new ArrayList<>();
        try (ReaderShell shell = ReaderShell.start(ROOT, env, LOGS.resolve("shell.log"))) {
            for (Block block : blocks) {
                if (block.isService()) {
                    // Services in consecutive blocks start at the same moment, as a reader
                    // opening their shells one after the other does.
                    ServiceShell service =
                            ServiceShell.launch(
                                    block.script(),
                                    block.readyAt(),
                                    ROOT,
                                    env,
                                    LOGS.resolve("service-" + (services.size() + 1) + ".log"));
                    services.push(service);
                    starting.add(service);
                } else {
                    starting.forEach(service -> service.awaitUp(Duration.ofMinutes(5)));
                    starting.clear();
                    shell.run(block.script(), Duration.ofMinutes(10));
                }
            }
            assertThat(shell.output())
                    .as("the oracle's verdict at the end of README's steps")
                    .containsPattern("[0-9,]+ merchant-days, 0 differences");
            saysItIsUpInAFewLines("service-1.log", "PostgreSQL is up");
            saysItIsUpInAFewLines("service-2.log", "Kafka is up");
            assertThat(livePageSnapshot())
                    .as("the live page's snapshot once the totals are in")
                    .contains("\"merchant\":", "\"committed\":", "\"live\":");
            theLivePageShowsTheTotalsAndNothingRed();
        } finally {
            stopTheCluster(env);
            while (!services.isEmpty()) {
                services.pop().close();
            }
        }
    }

    /**
     * The page in a browser, as a reader opens it once README's steps are done: the totals shown,
     * and on an idle, correct system no lag in red (the workload has ended; the newest commit
     * covers the last write).
     */
    private static void theLivePageShowsTheTotalsAndNothingRed() throws Exception {
        try (HeadlessChromium browser = HeadlessChromium.start()) {
            try {
                browser.open(livePage());
                await(
                                "the live page showing rows, no error, the committed lag known and not"
                                        + " red, the last write current or idle")
                        .atMost(Duration.ofMinutes(2))
                        .until(
                                browser::figures,
                                page ->
                                        !page.rows().isEmpty()
                                                && page.error().isBlank()
                                                && "lag-ok".equals(page.committedLag().colour())
                                                && List.of("lag-ok", "lag-idle")
                                                        .contains(page.liveLag().colour()));
            } finally {
                browser.screenshot(LOGS.resolve("live-page.png"));
            }
        }
    }

    /**
     * A service's shell, up to its ready line: its own line of where it is up at most, no
     * configuration, metadata or warning of the service it runs.
     */
    private static void saysItIsUpInAFewLines(String log, String ready) throws IOException {
        List<String> lines = Files.readAllLines(LOGS.resolve(log));
        int at =
                IntStream.range(0, lines.size())
                        .filter(i -> lines.get(i).startsWith(ready))
                        .findFirst()
                        .orElse(-1);
        assertThat(at).as("%s's line \"%s\": %s", log, ready, lines).isNotNegative();
        assertThat(lines.subList(0, at))
                .as("what %s printed before \"%s\"", log, ready)
                .hasSizeLessThanOrEqualTo(1)
                .noneMatch(line -> line.contains("WARN") || line.contains("ERROR"));
    }

    /** The live page's address, as it printed it in its shell's log. */
    private static URI livePage() throws IOException {
        String log = Files.readString(LOGS.resolve("service-4.log"));
        Matcher at = Pattern.compile("Live page: (\\S+)").matcher(log);
        assertThat(at.find()).as("the live page's address in its log: %s", log).isTrue();
        return URI.create(at.group(1));
    }

    /** The live page's snapshot. */
    private static String livePageSnapshot() throws Exception {
        HttpResponse<String> snapshot =
                HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(livePage().resolve("snapshot.json")).build(),
                                HttpResponse.BodyHandlers.ofString());
        assertThat(snapshot.statusCode()).as(snapshot.body()).isEqualTo(200);
        return snapshot.body();
    }

    private static List<Block> withPortsGivenOnce(List<Block> blocks) {
        List<Block> changed = new ArrayList<>();
        int given = 0;
        for (Block block : blocks) {
            String script = block.script();
            for (String port : DEFAULT_PORTS) {
                assertThat(script)
                        .as("a default port written into README's blocks")
                        .doesNotContain(port);
            }
            for (Map.Entry<String, String> start : PORT_GIVEN_ONCE.entrySet()) {
                if (block.isService() && script.contains(start.getKey())) {
                    script = script.replace(start.getKey(), start.getValue());
                    given++;
                }
            }
            changed.add(new Block(script, block.readyAt()));
        }
        assertThat(given)
                .as("services whose port the test gives")
                .isEqualTo(PORT_GIVEN_ONCE.size());
        return changed;
    }

    /**
     * A fresh shell's: no EFFONCE_ variable, not the base directory Maven exported for this run.
     */
    private static Map<String, String> readersEnvironment() {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.keySet()
                .removeIf(
                        name -> name.startsWith("EFFONCE_") || name.equals("MAVEN_PROJECTBASEDIR"));
        return env;
    }

    private static void stopTheCluster(Map<String, String> env) throws Exception {
        ProcessBuilder stop =
                new ProcessBuilder("deploy/cluster/bin/flink-local", "stop")
                        .directory(ROOT.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(LOGS.resolve("flink-local-stop.log").toFile());
        stop.environment().clear();
        stop.environment().putAll(env);
        Process process = stop.start();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly();
        }
    }

    private static void requireFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertThat(socket.getLocalPort()).isEqualTo(port);
        } catch (IOException e) {
            throw new AssertionError(
                    "Port "
                            + port
                            + " is in use; README's one-machine steps need it (stop the local"
                            + " PostgreSQL or Kafka that holds it)",
                    e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
