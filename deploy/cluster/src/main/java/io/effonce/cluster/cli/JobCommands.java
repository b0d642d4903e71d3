package io.effonce.cluster.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.effonce.cluster.FailureText;
import io.effonce.cluster.FlinkJobs;
import io.effonce.cluster.FlinkRestException;
import io.effonce.cluster.JobSubmission;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.awaitility.core.ConditionTimeoutException;
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
                        "Wait until every task is RUNNING; stop at the job's first failure,"
                                + " print its root message and cancel the job unless it ended"
                                + " by itself (exit 1).")
        boolean waitRunning;

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
                String failure;
                try {
                    failure =
                            jobs.awaitAllTasksRunningOrFirstFailure(
                                    jobId, FlinkJobs.DEFAULT_TIMEOUT, PROGRESS_EVERY, err::println);
                } catch (ConditionTimeoutException e) {
                    failure =
                            "not every task ran within "
                                    + FlinkJobs.DEFAULT_TIMEOUT.toMinutes()
                                    + " min, and no task failed (free slots: "
                                    + parent.cluster().rest().slots().free()
                                    + ")";
                }
                if (failure != null) {
                    err.println(
                            "Job "
                                    + jobId
                                    + " failed while starting: "
                                    + failure
                                    + cancelUnlessEnded(jobs, jobId));
                    return 1;
                }
            }
            return 0;
        }

        /**
         * A job that failed while starting but did not end by itself restarts into the same
         * failure: {@code --wait} reports it and leaves nothing behind. Says which, for the same
         * line.
         */
        private String cancelUnlessEnded(FlinkJobs jobs, String jobId) {
            String state = parent.cluster().rest().jobState(jobId);
            if (ENDING.contains(state)) {
                return " (the job is " + state + ")";
            }
            jobs.cancel(jobId);
            return " (the job was "
                    + state
                    + ", restarting into the same failure: it is cancelled)";
        }

        /** How often --wait says what it waits for. */
        private static final Duration PROGRESS_EVERY = Duration.ofSeconds(15);

        /** States of a job that ends by itself. */
        private static final Set<String> ENDING =
                Set.of("FAILING", "FAILED", "CANCELLING", "CANCELED", "FINISHED");
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

    @Command(name = "cancel", description = "Cancel a job (its retained checkpoints stay).")
    static final class Cancel implements Callable<Integer> {
        @ParentCommand ClusterCli parent;

        @Parameters(index = "0", description = "Job id.")
        String jobId;

        @Override
        public Integer call() {
            parent.cluster().jobs().cancel(jobId);
            System.out.println("Cancelled " + jobId);
            return 0;
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
