package io.effonce.it.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.cdc.testutils.Relays;
import io.effonce.cluster.FlinkJobs;
import io.effonce.cluster.JobSubmission;
import io.effonce.cluster.LocalFlinkCluster;
import io.effonce.it.testutils.ChaosClusterExtension;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.JobJar;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.StepBackSampler;
import io.effonce.it.testutils.TakeoverHolds;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.job.MisreadingRelease;
import io.effonce.job.SoakJob;
import io.effonce.job.WithoutStaleDeletion;
import io.effonce.job.WithoutStaleness;
import io.effonce.testing.LedgerPair;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SoakRun;
import io.effonce.testing.faults.PostgresLinkCut;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.KafkaBrokers;
import io.effonce.testing.oracle.Comparison;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Production's faults one after another and together, drawn from a seed: TaskManagers killed or
 * frozen mid-checkpoint or just before a sink subtask's takeover, the leading JobManager killed, a
 * partition's leading Kafka broker killed, the relay killed, the ledger's primary killed and its
 * standby promoted, the job cut from the sink's database mid-transaction, the sink's database put
 * back three checkpoints, rescales and redeploys through stop-with-savepoint, an operator's
 * rollback of a bad release, and overlaps (a second fault while the recovery from the first is in
 * progress), on one multi-process deployment (the ledger's primary and its standby with failover
 * slots, ZooKeeper, two JobManagers, three TaskManagers, three Kafka brokers, the relay as a
 * process, the sink's database behind a forwarder that can cut it off) with the workload running
 * throughout. After every fault the ledger is held still at a commit and the live and the committed
 * totals must equal it again; the committed table is read every 100 ms and must never step back but
 * with its database.
 *
 * <p>{@code mvn verify} runs seed 1: every fault once ({@link FaultSchedule#everyFaultOnce}: each
 * overlap, and each kind no other fault injects). The soak ({@code -Deffonce.soak=true}) draws
 * {@code -Deffonce.soak.faults} (40) faults from {@code -Deffonce.soak.seed} (a new one each run,
 * printed); the same seed replays the same schedule.
 */
@ExtendWith(PostgresExtension.class)
class NemesisSoakITCase {

    private static final Logger LOG = LoggerFactory.getLogger(NemesisSoakITCase.class);

    private static final int TASK_MANAGERS = 3;

    /** The relay's topic (the test relays' {@code --partitions}). */
    private static final int PARTITIONS = 2;

    /** The relay's name: its slot's and its topic's. */
    private static final String RELAY = "soak";

    /** Payments committed between two faults, two seconds': changes in flight when each lands. */
    private static final long BETWEEN_FAULTS = (long) (2 * SoakWorkload.RATE);

    @RegisterExtension
    static final ChaosClusterExtension CLUSTER =
            ChaosClusterExtension.highlyAvailable(WorkDirs.fresh("soak-cluster"), TASK_MANAGERS);

    private final Path dir = WorkDirs.fresh("soak");

    @Test
    void totalsEndExactAndTheCommittedViewNeverStepsBackUnderADrawnScheduleOfFaults(
            PostgresEndpoint sinkDb) throws Exception {
        long seed =
                Long.getLong(
                        "effonce.soak.seed",
                        SoakRun.asked() ? new Random().nextLong() & 0xffff : 1);
        Integer count =
                Integer.getInteger(
                        "effonce.soak.faults", SoakRun.asked() ? Integer.valueOf(40) : null);
        List<SoakFault> schedule =
                count == null
                        ? FaultSchedule.everyFaultOnce(seed)
                        : FaultSchedule.draw(seed, count);
        LOG.info("Soak seed {}: {} faults {}", seed, schedule.size(), schedule);

        LocalFlinkCluster cluster = CLUSTER.cluster();
        SinkTables sinkTables = new SinkTables(sinkDb);
        List<String> history = new ArrayList<>();
        URI sinkServer = URI.create(sinkDb.jdbcUrl().substring("jdbc:".length()));
        try (LedgerPair ledgerPair = LedgerPair.start();
                KafkaBrokers kafka = KafkaBrokers.start(3);
                PostgresLinkCut sinkLink =
                        PostgresLinkCut.to(sinkServer.getHost(), sinkServer.getPort())) {
            PostgresEndpoint ledger = ledgerPair.endpoint();
            Relays relays = new Relays(ledger, kafka.bootstrapServers(), RELAY, dir);
            try (RelayProcess relay =
                    new RelayProcess(relays, dir.resolve("logs"), "--replication-factor", "3")) {
                relay.start();
                SoakDeployment deployment =
                        new SoakDeployment(
                                cluster,
                                CLUSTER.chaos(),
                                kafka,
                                ledgerPair,
                                relay,
                                RELAY,
                                relays.topic(),
                                PARTITIONS,
                                sinkDb,
                                sinkLink,
                                new TakeoverHolds(sinkDb));
                // The job reaches the sink's database through the forwarder that can cut it off.
                PostgresEndpoint throughLink =
                        new PostgresEndpoint(
                                sinkLink.jdbcUrl(sinkDb.jdbcUrl()),
                                sinkDb.user(),
                                sinkDb.password());
                JobSubmission jar =
                        JobJar.withTestEntries(
                                throughLink, kafka.bootstrapServers(), relays.topic(), dir);
                JobSubmission job =
                        jar.withArgs(
                                        Stream.concat(jar.args().stream(), ruleOff().stream())
                                                .toList())
                                .withEntryClass(jobEntry());
                JobSubmission badRelease = jar.withEntryClass(MisreadingRelease.class.getName());
                FlinkJobs jobs = cluster.jobs();
                String jobId = jobs.submit(job);
                jobs.awaitAllTasksRunning(jobId);
                jobs.awaitCompletedCheckpoints(jobId, 1);
                ChaosReport report = new ChaosReport("soak-seed-" + seed, ledger, sinkDb);
                report.figure("seed", seed);
                report.figure("schedule", schedule);
                report.figure("job options added", ruleOff());
                report.figure("job entry class", job.entryClass());
                SoakFigures figures = new SoakFigures();
                long started;
                try (StepBackSampler sampler = new StepBackSampler(sinkDb);
                        SoakWorkload workload = new SoakWorkload(ledger)) {
                    Nemesis nemesis =
                            new Nemesis(
                                    deployment,
                                    job,
                                    badRelease,
                                    jobId,
                                    2,
                                    report,
                                    sampler,
                                    workload,
                                    new Random(seed));
                    for (SoakFault fault : schedule) {
                        workload.awaitMore(BETWEEN_FAULTS);
                        history.add(fault.name());
                        report.nameFaults(fault.shortName());
                        try {
                            List<ChaosReport.Recovery> recoveries = nemesis.apply(fault);
                            workload.whilePaused(
                                    () -> {
                                        TotalsInvariant.awaitHolds(
                                                ledger, sinkDb, TotalsInvariant.TIMEOUT);
                                        recoveries.forEach(ChaosReport.Recovery::exact);
                                        TotalsInvariant.awaitCommittedHolds(
                                                ledger, sinkDb, TotalsInvariant.TIMEOUT);
                                    });
                            figures.add(fault, recoveries);
                        } catch (AssertionError | Exception e) {
                            throw violation(seed, history, e);
                        }
                        if (sampler.committedStepsBack() != 0) {
                            throw violation(
                                    seed,
                                    history,
                                    new AssertionError(
                                            "the committed table stepped back "
                                                    + sampler.committedStepsBack()
                                                    + " times"));
                        }
                    }
                    workload.awaitMore(BETWEEN_FAULTS);
                    workload.stopAndDrain();
                    started = workload.started();
                    Comparison comparison =
                            TotalsInvariant.awaitHolds(ledger, sinkDb, TotalsInvariant.TIMEOUT);
                    jobs.awaitCheckpointAfter(
                            nemesis.jobId(),
                            cluster.rest().checkpoints(nemesis.jobId()).latestCompletedId());
                    TotalsInvariant.awaitCommittedHolds(ledger, sinkDb, TotalsInvariant.TIMEOUT);
                    report.figure("payments started", started);
                    report.figure(
                            "payments in the ledger", new SinkTables(ledger).count("payments"));
                    report.figure("ledger failovers", ledgerPair.failovers());
                    report.figure("faults", schedule.size());
                    report.figure(
                            "overlaps", schedule.stream().filter(SoakFault::isOverlap).count());
                    report.figure("committed reads", sampler.committedSamples());
                    report.figure("committed steps back", sampler.committedStepsBack());
                    report.figure("live steps back (flushes)", sampler.liveStepsBack());
                    report.figure("dead letters", sinkTables.count("dead_letters"));
                    report.figure("result", comparison.summary());
                    figures.table()
                            .forEach((kind, row) -> report.figure("recovery of " + kind, row));
                    report.close();
                    assertThat(sampler.committedStepsBack())
                            .as("committed steps back (seed %d)", seed)
                            .isZero();
                    jobs.cancel(nemesis.jobId());
                }
                assertThat(sinkTables.count("dead_letters"))
                        .as("dead letters of a workload without bad records")
                        .isZero();
                // A failover loses what the primary acknowledged but had not sent to its standby.
                assertThat(new SinkTables(ledger).count("payments"))
                        .as("payments in the ledger")
                        .isPositive()
                        .isLessThanOrEqualTo(started);
            } finally {
                relays.dropSlot();
            }
        }
    }

    /**
     * Job options that switch a rule off ({@code -Deffonce.soak.job-args="--key value ..."}): the
     * checker must then find a violation. Empty unless asked.
     */
    private static List<String> ruleOff() {
        String args = System.getProperty("effonce.soak.job-args", "").strip();
        if (!args.isEmpty()) {
            LOG.warn("Soak with job options {}: a rule may be off", args);
        }
        return args.isEmpty() ? List.of() : List.of(args.split("\\s+"));
    }

    /**
     * The job's entry class: {@link SoakJob} (the shipped pipeline over a store whose takeovers the
     * nemesis can hold), or with {@code -Deffonce.soak.rule-off} the same with a rule of the sink
     * switched off, which the checker must then catch: {@code stale-deletion} (the restore flush
     * deletes nothing, {@link WithoutStaleDeletion}) or {@code staleness} (the fence lets a stale
     * attempt take over, {@link WithoutStaleness}). Rules users can switch off go through {@code
     * effonce.soak.job-args}.
     */
    private static String jobEntry() {
        String off = System.getProperty("effonce.soak.rule-off", "").strip();
        return switch (off) {
            case "" -> SoakJob.class.getName();
            case "stale-deletion" -> {
                LOG.warn("Soak with the restore flush's delete step off");
                yield WithoutStaleDeletion.class.getName();
            }
            case "staleness" -> {
                LOG.warn("Soak with the fence's staleness rule off");
                yield WithoutStaleness.class.getName();
            }
            default ->
                    throw new IllegalArgumentException(
                            "-Deffonce.soak.rule-off="
                                    + off
                                    + " is not a rule the soak can switch off; use stale-deletion or staleness");
        };
    }

    /** Stops the soak with its seed and the faults up to the violation, to replay it. */
    private static AssertionError violation(long seed, List<String> history, Throwable cause) {
        return new AssertionError(
                "Soak violation at fault %d of seed %d; replay with -Deffonce.soak.seed=%d; faults so far: %s"
                        .formatted(history.size(), seed, seed, history),
                cause);
    }
}
