package io.effonce.demo;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cluster.CheckpointStats;
import io.effonce.cluster.FlinkProcess;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.faults.SinkDatabaseRollback;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.oracle.LedgerOracle;
import io.effonce.testing.oracle.MerchantDay;
import io.effonce.testing.oracle.Total;
import io.effonce.testing.workload.EventClock;
import io.effonce.testing.workload.LedgerWorkload;
import io.effonce.testing.workload.WorkloadOptions;
import io.effonce.testing.workload.WorkloadReport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLongArray;

/** Drives the demo: the workload, the kills, the progress line, then the oracle's verdict. */
final class DemoRun {

    private final Demo options;
    private final DemoStack stack;

    /** The sink's side: its totals and late events, in the first shard's database. */
    private final LedgerOracle oracle;

    /** Payments started, per shard. */
    private final AtomicLongArray paymentsStarted;

    private int killsDone;
    private int jobManagerKillsDone;
    private int rollbacksDone;
    private int ledgerFailoversDone;

    /** Completed once the ledger's standby is primary: the first shard's workload goes on. */
    private final CompletableFuture<Void> ledgerPromoted = new CompletableFuture<>();

    private volatile boolean primaryKilled;

    DemoRun(Demo options, DemoStack stack) {
        this.options = options;
        this.stack = stack;
        this.oracle = new LedgerOracle(stack.sink);
        this.paymentsStarted = new AtomicLongArray(stack.shards.size());
    }

    /** Returns whether the totals ended equal to the ledger. */
    boolean run() throws Exception {
        double seconds = options.payments / options.rate;
        // Event time runs ahead of the wall clock, so the relay's heartbeats never overtake it.
        Instant start =
                Instant.now()
                        .plus(1, ChronoUnit.HOURS)
                        .truncatedTo(ChronoUnit.DAYS)
                        .plus(1, ChronoUnit.DAYS);
        double speed = options.days * 86_400.0 / seconds;
        int shards = stack.shards.size();
        List<CompletableFuture<WorkloadReport>> running = new ArrayList<>();
        for (int i = 0; i < shards; i++) {
            int shard = i;
            // The payments spread over the shards; the first takes what does not divide.
            long count = options.payments / shards + (i == 0 ? options.payments % shards : 0);
            // A fixed step of event time per payment, not wall time: the workload spans --days
            // however slow the machine or long a failover's pause, and never outruns the job's
            // event-time tolerance (its changes would be dead letters).
            Duration step = Duration.ofNanos((long) (options.days * 86_400e9 / Math.max(1, count)));
            WorkloadOptions workload =
                    WorkloadOptions.builder()
                            .count(count)
                            .rate(options.rate * count / options.payments)
                            .scope(i == 0 ? "demo" : "demo-shard" + i)
                            .seed(7 + i)
                            .clock(EventClock.simulated(start, step))
                            .build();
            running.add(
                    CompletableFuture.supplyAsync(
                            () ->
                                    shard == 0 && stack.ledgerPair != null
                                            ? throughTheFailover(workload)
                                            : new LedgerWorkload(workload)
                                                    .run(
                                                            stack.shards.get(shard),
                                                            r ->
                                                                    paymentsStarted.set(
                                                                            shard, r.started()))));
        }
        DemoStack.say(
                String.format(
                        "Workload: %,d payments at %.0f/s%s, event time from %s across %d days"
                                + " (%.0fx real time at that rate)",
                        options.payments,
                        options.rate,
                        shards > 1 ? " over " + shards + " ledger shards" : "",
                        start,
                        options.days,
                        speed));
        CompletableFuture<Void> all =
                CompletableFuture.allOf(running.toArray(CompletableFuture[]::new));

        // TaskManager and JobManager kills alternate, spread evenly over the workload; the sink
        // database's rollbacks come after them.
        int kills = options.kills + options.jobManagerKills;
        int failovers = stack.ledgerPair != null ? 1 : 0;
        int faults = kills + failovers + options.sinkRollbacks;
        long between = options.payments / (faults + 1);
        while (!all.isDone()) {
            progress();
            int done = killsDone + jobManagerKillsDone + ledgerFailoversDone + rollbacksDone;
            if (done < faults && started() >= between * (done + 1)) {
                boolean jobManagerTurn =
                        jobManagerKillsDone < options.jobManagerKills
                                && (killsDone >= options.kills || done % 2 == 1);
                if (done >= kills && ledgerFailoversDone < failovers) {
                    ledgerFailover();
                } else if (done >= kills) {
                    sinkDatabaseGoesBack();
                } else if (jobManagerTurn) {
                    killLeadingJobManagerMidCheckpoint();
                } else {
                    killMidCheckpoint();
                }
            }
            Thread.sleep(1000); // pacing of the progress line, not synchronisation
        }
        System.out.println();
        for (int i = 0; i < shards; i++) {
            DemoStack.say(
                    "Workload done"
                            + (shards > 1 ? " on shard " + i : "")
                            + ": "
                            + running.get(i).join().summary());
        }

        Comparison comparison = settle();
        printTopMerchants();
        CheckpointStats stats = stack.cluster.rest().checkpoints(stack.jobId);
        DemoStack.say(
                String.format(
                        "TaskManagers killed mid-checkpoint: %d; JobManagers: %d; ledger"
                                + " failovers: %d; sink database rollbacks: %d; restores: %d;"
                                + " checkpoints: %d; relay published %,d changes",
                        killsDone,
                        jobManagerKillsDone,
                        ledgerFailoversDone,
                        rollbacksDone,
                        stats.restored(),
                        stats.completed(),
                        changesRelayed()));
        if (stack.pageUri() != null) {
            DemoStack.say("The live page at " + stack.pageUri() + " stops with the demo");
        }
        System.out.println();
        System.out.println(comparison.summary());
        if (!comparison.matches()) {
            DemoStack.say("Dead letters (not in the verdict's sink + late): " + deadLetters());
        }
        return comparison.matches();
    }

    private void killMidCheckpoint() {
        stack.cluster.jobs().awaitCheckpointInProgress(stack.jobId, Duration.ofSeconds(30));
        // A TaskManager that runs some of the job's tasks, so the kill costs a restore.
        String victim = stack.cluster.jobs().taskManagersOf(stack.jobId).iterator().next();
        System.out.println();
        DemoStack.say(
                "Killing TaskManager " + victim + " (kill -9) while a checkpoint is in progress");
        stack.cluster.taskManager(victim).kill();
        stack.cluster.startTaskManager();
        killsDone++;
    }

    private void killLeadingJobManagerMidCheckpoint() {
        stack.cluster.jobs().awaitCheckpointInProgress(stack.jobId, Duration.ofSeconds(30));
        FlinkProcess leader = stack.cluster.leadingJobManager();
        System.out.println();
        DemoStack.say(
                "Killing the leading JobManager "
                        + leader.name()
                        + " (kill -9) while a checkpoint is in progress; starting a new standby");
        stack.cluster.killJobManager(leader);
        stack.cluster.startJobManager();
        FlinkProcess next = stack.cluster.awaitNewLeader(leader, Duration.ofMinutes(2));
        DemoStack.say(next.name() + " leads; it recovers the job from its latest checkpoint");
        jobManagerKillsDone++;
    }

    /**
     * The sink's tables and sequences copied now and put back once three more checkpoints have
     * completed (the workload goes on meanwhile), the sink's sessions ended: what a promoted
     * asynchronous standby does. The sink notices at its next write and Flink restores.
     */
    private void sinkDatabaseGoesBack() throws InterruptedException {
        long before = stack.cluster.rest().checkpoints(stack.jobId).completed();
        SinkDatabaseRollback copy = SinkDatabaseRollback.copy(stack.sink);
        System.out.println();
        DemoStack.say("Copied the sink's tables (an asynchronous standby that will fall behind)");
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (stack.cluster.rest().checkpoints(stack.jobId).completed() < before + 3
                && System.nanoTime() < deadline) {
            progress();
            Thread.sleep(500); // pacing of the progress line while checkpoints complete
        }
        long lost = stack.cluster.rest().checkpoints(stack.jobId).completed() - before;
        copy.restore();
        System.out.println();
        DemoStack.say(
                "The sink's database went back "
                        + lost
                        + " completed checkpoints (the copy put back, its sessions ended): the"
                        + " sink notices at its next write, the task fails, and the restore"
                        + " rewrites the live and committed tables from state");
        rollbacksDone++;
    }

    /**
     * The first shard's workload when its ledger fails over: it stops with the primary (its last
     * transaction lost or not, as the standby has it), waits for the promotion, and starts the
     * payments left against the new primary, which the same multi-host URL finds.
     */
    private WorkloadReport throughTheFailover(WorkloadOptions workload) {
        PostgresEndpoint ledger = stack.shards.get(0);
        try {
            return new LedgerWorkload(workload)
                    .run(ledger, r -> paymentsStarted.set(0, r.started()));
        } catch (RuntimeException | AssertionError primaryGone) {
            // Whatever pgjdbc throws when the server dies mid-batch (with -ea, an assertion of its
            // own); before the kill, a failure is the workload's and stays one.
            if (!primaryKilled) {
                throw primaryGone;
            }
            ledgerPromoted.join();
            long before = paymentsStarted.get(0);
            WorkloadOptions rest =
                    WorkloadOptions.builder()
                            .count(Math.max(0, workload.count() - before))
                            .rate(workload.rate())
                            .scope("demo-after-failover")
                            .seed(workload.seed() + 100)
                            .clock(workload.clock().continuedAfter(before))
                            .build();
            return new LedgerWorkload(rest)
                    .run(ledger, r -> paymentsStarted.set(0, before + r.started()));
        }
    }

    /**
     * Kills the ledger's primary once the relay's slot is synchronized to the standby, waits for
     * the relay to stop on its broken stream, promotes the standby and starts the relay again: it
     * finds its slot there, at the position the job has seen, and no change is lost or snapshot.
     */
    private void ledgerFailover() throws InterruptedException {
        DemoStack.LedgerPair pair = stack.ledgerPair;
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (!pair.standby().hasSyncedSlot("effonce_demo") && System.nanoTime() < deadline) {
            progress();
            Thread.sleep(500); // pacing while the standby synchronizes the slot
        }
        System.out.println();
        DemoStack.say(
                "Killing the ledger's primary (kill -9) in the middle of the workload's"
                        + " transactions; promoting its streaming standby");
        long killed = System.nanoTime();
        primaryKilled = true;
        pair.primary().crash();
        LedgerRelay broken = stack.relay(0);
        long stopDeadline = killed + Duration.ofMinutes(2).toNanos();
        while (broken.isRunning() && System.nanoTime() < stopDeadline) {
            Thread.sleep(100); // the relay notices its stream is gone
        }
        pair.standby().promote();
        ledgerPromoted.complete(null);
        stack.restartRelay(0);
        DemoStack.say(
                String.format(
                        "The standby is primary; the relay streams from its synchronized slot %,d"
                                + " ms after the kill, and the workload goes on against it",
                        (System.nanoTime() - killed) / 1_000_000));
        ledgerFailoversDone++;
    }

    /** Waits until sink + late equals the ledger, or the timeout; returns the last comparison. */
    private Comparison settle() throws InterruptedException {
        long deadline = System.nanoTime() + options.settleTimeout.toNanos();
        Comparison comparison = compare();
        while (!comparison.matches() && System.nanoTime() < deadline) {
            progress();
            Thread.sleep(1000); // pacing, as above
            comparison = compare();
        }
        System.out.println();
        return comparison;
    }

    /** The ledger, every shard together, against the sink's totals plus its late events. */
    private Comparison compare() {
        return Comparison.of(
                LedgerOracle.ledgerTotals(stack.shards),
                LedgerOracle.sum(oracle.sinkTotals(), oracle.lateTotals()));
    }

    /** The sink's dead letters by reason: a change there is missing from sink + late. */
    private Map<String, Long> deadLetters() throws SQLException {
        Map<String, Long> byReason = new TreeMap<>();
        try (Connection c = stack.sink.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT split_part(reason, ':', 1), count(*) FROM dead_letters"
                                        + " GROUP BY 1")) {
            while (rs.next()) {
                byReason.put(rs.getString(1), rs.getLong(2));
            }
        }
        return byReason;
    }

    private long started() {
        long sum = 0;
        for (int i = 0; i < paymentsStarted.length(); i++) {
            sum += paymentsStarted.get(i);
        }
        return sum;
    }

    private long changesRelayed() {
        return stack.relays().stream().mapToLong(r -> r.metrics().changesPublished()).sum();
    }

    private void progress() {
        Map<MerchantDay, Total> sink = oracle.sinkTotals();
        String checkpoints;
        try {
            CheckpointStats stats = stack.cluster.rest().checkpoints(stack.jobId);
            checkpoints =
                    String.format(
                            "checkpoints %4d | restores %d", stats.completed(), stats.restored());
        } catch (RuntimeException noLeaderYet) {
            checkpoints = "JobManager failing over";
        }
        System.out.printf(
                "\rpayments %,8d | changes relayed %,8d | %s | merchant-days in sink %,6d",
                started(), changesRelayed(), checkpoints, sink.size());
        System.out.flush();
    }

    private void printTopMerchants() {
        Map<MerchantDay, Total> sink = oracle.sinkTotals();
        Map<MerchantDay, Total> ledger = LedgerOracle.ledgerTotals(stack.shards);
        System.out.println();
        System.out.printf(
                "%-10s %-10s %-4s %18s %18s %9s%n",
                "merchant", "day", "cur", "sink total", "ledger total", "payments");
        sink.entrySet().stream()
                .sorted(
                        Comparator.comparing(
                                        (Map.Entry<MerchantDay, Total> e) ->
                                                e.getValue().totalMinor())
                                .reversed())
                .limit(10)
                .forEach(
                        e ->
                                System.out.printf(
                                        "%-10s %-10s %-4s %,18d %,18d %,9d%n",
                                        e.getKey().merchantId(),
                                        e.getKey().day(),
                                        e.getKey().currency(),
                                        e.getValue().totalMinor(),
                                        ledger.getOrDefault(e.getKey(), Total.ZERO).totalMinor(),
                                        e.getValue().payments()));
    }
}
