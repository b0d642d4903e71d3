package io.effonce.demo;

import io.effonce.feed.page.PageSettings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The one-command demo: a ledger in embedded PostgreSQL, the relay into embedded Kafka, the job on
 * a local multi-process Flink cluster, a workload across a few event-time days, a TaskManager
 * killed in the middle of a checkpoint, and the ledger as the oracle at the end. Exits 0 only if
 * the totals equal the ledger. While it runs it serves the live page (feed's {@code
 * LivePageServer}) as the read-only role {@code effonce_dashboard}.
 */
@Command(
        name = "effonce demo",
        mixinStandardHelpOptions = true,
        description =
                "Runs the whole pipeline locally, kills a TaskManager mid-checkpoint, and"
                        + " compares the totals with the ledger.")
public final class Demo implements Callable<Integer> {

    @Option(
            names = "--payments",
            description = "Payments the workload makes (default: ${DEFAULT-VALUE}).")
    long payments = 30_000;

    @Option(names = "--rate", description = "Payments per second (default: ${DEFAULT-VALUE}).")
    double rate = 600;

    @Option(
            names = "--days",
            description = "Event-time days the workload spans (default: ${DEFAULT-VALUE}).")
    int days = 3;

    @Option(
            names = "--kills",
            description = "TaskManagers killed mid-checkpoint (default: ${DEFAULT-VALUE}).")
    int kills = 2;

    @Option(
            names = "--high-availability",
            description =
                    "Run the cluster with ZooKeeper high availability: a ZooKeeper server and a"
                            + " standby JobManager beside the leader.")
    boolean highAvailability;

    @Option(
            names = "--jobmanager-kills",
            description =
                    "Leading JobManagers killed mid-checkpoint, a new standby started after each;"
                            + " needs --high-availability (default: ${DEFAULT-VALUE}).")
    int jobManagerKills = 0;

    @Option(
            names = "--sink-rollbacks",
            description =
                    "Times the sink's database goes back in time while the job runs, as when an"
                            + " asynchronous standby is promoted: its tables are put back to a copy"
                            + " taken three completed checkpoints earlier (default:"
                            + " ${DEFAULT-VALUE}).")
    int sinkRollbacks = 0;

    @Option(
            names = "--ledger-failover",
            description =
                    "Run the ledger (its first shard) on a primary with a streaming standby, kill"
                            + " the primary (kill -9) in the middle of the workload and promote the"
                            + " standby: the relay follows it through its failover slot, the"
                            + " workload goes on against it, and the totals must equal its ledger.")
    boolean ledgerFailover;

    @Option(
            names = "--shards",
            description =
                    "Ledger shards: databases, each with its own relay, slot and topic, read by"
                            + " the job as one stream; the payments are spread over them (default:"
                            + " ${DEFAULT-VALUE}).")
    int shards = 1;

    @Option(names = "--parallelism", description = "Job parallelism (default: ${DEFAULT-VALUE}).")
    int parallelism = 2;

    @Option(names = "--job-jar", description = "The job's shaded jar (default: ${DEFAULT-VALUE}).")
    Path jobJar = Path.of("job/target/effonce-job-0.1.0-SNAPSHOT-job.jar");

    @Option(
            names = "--work-dir",
            description =
                    "Where the cluster and relay keep their files (default: ${DEFAULT-VALUE}).")
    Path workDir = Path.of("target/demo");

    @Option(
            names = "--page-port",
            description =
                    "Port of the live page served while the demo runs (top merchants, committed"
                            + " beside live, on http://127.0.0.1:PORT/); 0 turns it off (default:"
                            + " ${DEFAULT-VALUE}).")
    int pagePort = PageSettings.DEFAULT_PORT;

    @Option(
            names = "--prometheus",
            description =
                    "Also start Debian's prometheus (when installed) on the cluster's and the"
                            + " relay's metrics, with deploy/prometheus/effonce-alerts.yml, and"
                            + " print its address.")
    boolean prometheus;

    @Option(
            names = "--settle-timeout",
            description =
                    "How long to wait for the totals to catch up (default: ${DEFAULT-VALUE}).")
    Duration settleTimeout = Duration.ofMinutes(3);

    public static void main(String[] args) {
        System.exit(new CommandLine(new Demo()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (jobManagerKills > 0 && !highAvailability) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this),
                    "--jobmanager-kills needs --high-availability: without it the job dies with"
                            + " its JobManager (add --high-availability, or set"
                            + " --jobmanager-kills 0)");
        }
        if (shards < 1 || shards > 16) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this),
                    "--shards must be between 1 and 16 (a relay and a database each); was "
                            + shards);
        }
        if (sinkRollbacks < 0 || sinkRollbacks > 10) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this),
                    "--sink-rollbacks must be between 0 and 10; was " + sinkRollbacks);
        }
        checkPagePort();
        try (DemoStack stack = DemoStack.start(this)) {
            return new DemoRun(this, stack).run() ? 0 : 1;
        }
    }

    /** Fails before anything starts if the page's port is wrong or taken. */
    private void checkPagePort() {
        if (pagePort < 0 || pagePort > 65_535) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this),
                    "--page-port must be between 1 and 65535, or 0 for no page; was " + pagePort);
        }
        if (pagePort == 0) {
            return;
        }
        try (ServerSocket probe = new ServerSocket(pagePort, 1, InetAddress.getLoopbackAddress())) {
            probe.setReuseAddress(true);
        } catch (IOException e) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this),
                    "--page-port "
                            + pagePort
                            + " is in use ("
                            + e.getMessage()
                            + "): choose another port, or 0 for no page");
        }
    }
}
