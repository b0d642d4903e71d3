package io.effonce.it.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.cdc.testutils.Relays;
import io.effonce.cluster.FlinkJobs;
import io.effonce.cluster.LocalFlinkCluster;
import io.effonce.it.testutils.ChaosClusterExtension;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.JobJar;
import io.effonce.it.testutils.RunningWorkload;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.StepBackSampler;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SoakRun;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.KafkaBrokers;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Production's faults one after another and together, drawn from a seed: TaskManagers killed or
 * frozen mid-checkpoint, the leading JobManager killed, a partition's leading Kafka broker killed,
 * the relay killed, rescales and redeploys through stop-with-savepoint, and overlaps (a second
 * fault while the recovery from the first is in progress), on one multi-process deployment
 * (ZooKeeper, two JobManagers, three TaskManagers, three Kafka brokers, the relay as a process)
 * with the workload running throughout. After every fault the ledger is held still at a commit and
 * the totals must equal it again; the committed table is read every 100 ms and must never step
 * back.
 *
 * <p>{@code mvn verify} runs seed 1: every kind once. The soak ({@code -Deffonce.soak=true}) draws
 * {@code -Deffonce.soak.faults} (40) faults from {@code -Deffonce.soak.seed} (a new one each run,
 * printed); the same seed replays the same schedule.
 */
@ExtendWith(PostgresExtension.class)
class NemesisSoakITCase {

    private static final Logger LOG = LoggerFactory.getLogger(NemesisSoakITCase.class);

    private static final int TASK_MANAGERS = 3;

    /** The relay's topic (the test relays' {@code --partitions}). */
    private static final int PARTITIONS = 2;

    /** Payments committed between two faults: changes in flight when each lands. */
    private static final long BETWEEN_FAULTS = 1_500;

    @RegisterExtension
    static final ChaosClusterExtension CLUSTER =
            ChaosClusterExtension.highlyAvailable(WorkDirs.fresh("soak-cluster"), TASK_MANAGERS);

    private final Path dir = WorkDirs.fresh("soak");

    @Test
    void totalsEndExactAndTheCommittedViewNeverStepsBackUnderADrawnScheduleOfFaults(
            PostgresEndpoint db) throws Exception {
        long seed =
                Long.getLong(
                        "effonce.soak.seed",
                        SoakRun.asked() ? new Random().nextLong() & 0xffff : 1);
        int count =
                Integer.getInteger(
                        "effonce.soak.faults", SoakRun.asked() ? 40 : SoakFault.values().length);
        List<SoakFault> schedule = FaultSchedule.draw(seed, count);
        LOG.info("Soak seed {}: {} faults {}", seed, count, schedule);

        LocalFlinkCluster cluster = CLUSTER.cluster();
        SinkTables tables = new SinkTables(db);
        List<String> history = new ArrayList<>();
        try (KafkaBrokers kafka = KafkaBrokers.start(3)) {
            Relays relays = new Relays(db, kafka.bootstrapServers(), "soak", dir);
            try (RelayProcess relay =
                    new RelayProcess(relays, dir.resolve("logs"), "--replication-factor", "3")) {
                relay.start();
                FlinkJobs jobs = cluster.jobs();
                String jobId =
                        jobs.submit(
                                JobJar.submission(
                                        db, kafka.bootstrapServers(), relays.topic(), dir));
                jobs.awaitAllTasksRunning(jobId);
                jobs.awaitCompletedCheckpoints(jobId, 1);
                ChaosReport report = new ChaosReport("soak-seed-" + seed, db);
                report.figure("seed", seed);
                report.figure("schedule", schedule);
                Nemesis nemesis =
                        new Nemesis(
                                cluster,
                                CLUSTER.chaos(),
                                kafka,
                                relay,
                                relays.topic(),
                                PARTITIONS,
                                jobId,
                                2,
                                report,
                                new Random(seed));
                SoakFigures figures = new SoakFigures();
                WorkloadReport ledger;
                try (StepBackSampler sampler = new StepBackSampler(db);
                        RunningWorkload workload =
                                RunningWorkload.start(Workloads.unbounded("soak", 800), db)) {
                    for (SoakFault fault : schedule) {
                        workload.awaitMore(BETWEEN_FAULTS);
                        history.add(fault.name());
                        try {
                            List<ChaosReport.Recovery> recoveries = nemesis.apply(fault);
                            workload.whilePaused(
                                    () -> {
                                        TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                                        recoveries.forEach(ChaosReport.Recovery::exact);
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
                    ledger = workload.stopAndDrain();
                    Comparison comparison = TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                    jobs.awaitCheckpointAfter(
                            nemesis.jobId(),
                            cluster.rest().checkpoints(nemesis.jobId()).latestCompletedId());
                    TotalsInvariant.awaitCommittedHolds(db, TotalsInvariant.TIMEOUT);
                    report.figure("payments", ledger.started());
                    report.figure("faults", schedule.size());
                    report.figure(
                            "overlaps", schedule.stream().filter(SoakFault::isOverlap).count());
                    report.figure("committed reads", sampler.committedSamples());
                    report.figure("committed steps back", sampler.committedStepsBack());
                    report.figure("live steps back (flushes)", sampler.liveStepsBack());
                    report.figure("dead letters", tables.count("dead_letters"));
                    report.figure("result", comparison.summary());
                    figures.table()
                            .forEach((kind, row) -> report.figure("recovery of " + kind, row));
                    report.close();
                    assertThat(sampler.committedStepsBack())
                            .as("committed steps back (seed %d)", seed)
                            .isZero();
                }
                assertThat(tables.count("dead_letters"))
                        .as("dead letters of a workload without bad records")
                        .isZero();
                assertThat(tables.count("payments")).isEqualTo(ledger.started());
                jobs.cancel(nemesis.jobId());
            } finally {
                relays.dropSlot();
            }
        }
    }

    /** Stops the soak with its seed and the faults up to the violation, to replay it. */
    private static AssertionError violation(long seed, List<String> history, Throwable cause) {
        return new AssertionError(
                "Soak violation at fault %d of seed %d; replay with -Deffonce.soak.seed=%d; faults so far: %s"
                        .formatted(history.size(), seed, seed, history),
                cause);
    }
}
