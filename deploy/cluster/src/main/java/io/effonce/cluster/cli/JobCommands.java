package io.effonce.cluster.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.effonce.cluster.CheckpointStats;
import io.effonce.cluster.FailureText;
import io.effonce.cluster.FlinkRestException;
import io.effonce.cluster.JobSubmission;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** The job commands of {@code flink-local}: submit, savepoint, stop-job, cancel, rescale. */
final class JobCommands {

    private JobCommands() {}

    @Command(name = "submit", description = "Upload a job jar and run it; prints the job id.")
    static final class Submit implements Callable<Integer> {
        @ParentCommand ClusterCli parent;
        @Spec CommandSpec spec;

        @Parameters(index = "0", description = "The job jar.")
        Path jar;

        @Parameters(index = "1..*", description = "Program arguments (after --).")
        List<String> args = new ArrayList<>();

        @Option(names = "--class", required = true, description = "Entry class.")
        String entryClass;

        @Option(
                names = {"-p", "--parallelism"},
                defaultValue = "0",
                description = "Parallelism (0: cluster default).")
        int parallelism;

        @Option(
                names = {"-s", "--savepoint"},
                description = "Savepoint or retained checkpoint to restore from.")
        String savepoint;

        @Option(
                names = "--allow-non-restored-state",
                description = "Skip state no operator claims.")
        boolean allowNonRestoredState;

        @Option(
                names = "--wait",
                description =
                        "Wait until every task is RUNNING or the job FINISHED (with the job's"
                                + " --startup-check false, also until its Kafka sources have"
                                + " their partitions and it completed a checkpoint: one that"
                                + " completes none in 5 min without a failure is left running,"
                                + " exit 1); stop at the job's first failure, print its"
                                + " root message, cancel the job unless it ended by itself and"
                                + " say what to do once the cause is fixed (exit 1).")
        boolean waitRunning;

        /**
         * Whether the job's args switch its main's checks of Kafka and the database off ({@code
         * --startup-check false} or {@code --startup-check=false}; the last one counts).
         */
        boolean mainCheckedNothing() {
            String value = null;
            for (int i = 0; i < args.size(); i++) {
                String arg = args.get(i);
                if (arg.equals("--startup-check") && i + 1 < args.size()) {
                    value = args.get(i + 1);
                } else if (arg.startsWith("--startup-check=")) {
                    value = arg.substring("--startup-check=".length());
                }
            }
            return "false".equalsIgnoreCase(value);
        }

        @Override
        public Integer call() throws Exception {
            if (args.contains("--help") || args.contains("-h")) {
                // In the JobManager a main that only prints its help submits no job, and the
                // help would go to the JobManager's stdout: run it here instead.
                Process help =
                        parent.cluster()
                                .runLocally(jar, entryClass, args)
                                .redirectErrorStream(true)
                                .start();
                PrintWriter out = spec.commandLine().getOut();
                out.print(new String(help.getInputStream().readAllBytes(), UTF_8));
                out.flush();
                return help.waitFor();
            }
            JobSubmission job =
                    new JobSubmission(
                            jar, entryClass, args, parallelism, savepoint, allowNonRestoredState);
            var jobs = parent.cluster().jobs();
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            String jobId;
            try {
                jobId = jobs.submit(job);
            } catch (FlinkRestException e) {
                // The job's main failed: its message, not the REST handler's stack trace.
                err.println(
                        "The job was not submitted: " + FailureText.rootMessage(e.getMessage()));
                return 1;
            }
            out.println(jobId);
            if (waitRunning) {
                StartWatch watch = new StartWatch(parent.cluster());
                var failure = watch.failureWhileStarting(jobId, err::println);
                if (failure.isEmpty() && mainCheckedNothing()) {
                    failure = watch.failureBeforeFirstCheckpoint(jobId, err::println);
                }
                if (failure.isPresent()) {
                    err.println(failure.get());
                    return 1;
                }
            }
            return 0;
        }
    }

    @Command(name = "savepoint", description = "Take a savepoint; prints its path.")
    static final class Savepoint implements Callable<Integer> {
        @ParentCommand ClusterCli parent;

        @Parameters(index = "0", description = "Job id.")
        String jobId;

        @Override
        public Integer call() {
            System.out.println(parent.cluster().jobs().savepoint(jobId));
            return 0;
        }
    }

    @Command(name = "stop-job", description = "Stop a job with a savepoint; prints its path.")
    static final class StopJob implements Callable<Integer> {
        @ParentCommand ClusterCli parent;

        @Parameters(index = "0", description = "Job id.")
        String jobId;

        @Option(
                names = "--drain",
                description =
                        "Send the end-of-input watermark before the savepoint (the job's event-time"
                                + " state survives it).")
        boolean drain;

        @Override
        public Integer call() {
            System.out.println(parent.cluster().jobs().stopWithSavepoint(jobId, drain));
            return 0;
        }
    }

    @Command(
            name = "cancel",
            description =
                    "Cancel a job (its retained checkpoints stay); prints the newest one and how to"
                            + " resume from it.")
    static final class Cancel implements Callable<Integer> {
        @ParentCommand ClusterCli parent;
        @Spec CommandSpec spec;

        @Parameters(index = "0", description = "Job id.")
        String jobId;

        @Override
        public Integer call() {
            var cluster = parent.cluster();
            CheckpointStats checkpoints = cluster.rest().checkpoints(jobId);
            String newest = checkpoints.latestCompletedPath();
            Optional<JobSubmission> submitted = cluster.jobs().submissionOf(jobId);
            cluster.jobs().cancel(jobId);
            PrintWriter out = spec.commandLine().getOut();
            out.println("Cancelled " + jobId);
            // Without a checkpoint of its own, a job restored from a savepoint or checkpoint
            // resumes from it, however it was submitted.
            String from =
                    newest != null
                            ? newest
                            : Optional.ofNullable(checkpoints.latestRestoredPath())
                                    .or(() -> submitted.map(JobSubmission::savepointPath))
                                    .orElse(null);
            out.println(resumeAdvice(from, newest != null, submitted.isPresent()));
            submitted.ifPresent(
                    job ->
                            out.println(
                                    "  "
                                            + (from == null ? job : job.fromSavepoint(from))
                                                    .asCommand(
                                                            PROGRAM,
                                                            cluster.workDir().toAbsolutePath())));
            out.flush();
            return 0;
        }

        /** The command line's own path, as its launcher gives it. */
        private static final String PROGRAM =
                System.getProperty("flink-local.program", "deploy/cluster/bin/flink-local");

        /**
         * What a submit of the same job after a cancel is: a restore, from {@code from} (its newest
         * retained checkpoint when {@code ownCheckpoint}, else the savepoint or checkpoint it was
         * restored from); without {@code -s} it is a fresh start, which the sink refuses on a table
         * that holds the job's rows. With {@code command}, the command that does it follows on the
         * next line.
         */
        static String resumeAdvice(String from, boolean ownCheckpoint, boolean command) {
            if (from == null) {
                return "It completed no checkpoint: submit it again as before to start it afresh"
                        + (command ? ":" : ".");
            }
            return (ownCheckpoint
                            ? "Its newest retained checkpoint is "
                            : "It completed no checkpoint of its own; it was restored from ")
                    + from
                    + "; a new submit of the job is a restore from it (without -s a submit is a"
                    + " fresh start, which the sink refuses on a table that holds the job's rows)."
                    + (command
                            ? " To resume it as it was submitted:"
                            : " Resume it by submitting it again as before with -s " + from + ".");
        }
    }

    @Command(
            name = "rescale",
            description =
                    "Stop with a savepoint, resubmit from it with a new parallelism; prints the new job id.")
    static final class Rescale implements Callable<Integer> {
        @ParentCommand ClusterCli parent;

        @Parameters(index = "0", description = "Job id (submitted through this cluster).")
        String jobId;

        @Parameters(index = "1", description = "New parallelism.")
        int parallelism;

        @Override
        public Integer call() {
            var jobs = parent.cluster().jobs();
            String newJobId = jobs.rescale(jobId, parallelism);
            jobs.awaitAllTasksRunning(newJobId);
            System.out.println(newJobId);
            return 0;
        }
    }
}
