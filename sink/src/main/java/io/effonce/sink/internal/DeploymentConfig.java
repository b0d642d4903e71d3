package io.effonce.sink.internal;

import java.util.List;
import java.util.Optional;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.SchedulerExecutionMode;
import org.apache.flink.runtime.execution.Environment;

/**
 * What the deployment a sink subtask runs in is configured with, the job's configuration first and
 * then the cluster's: the settings the sink refuses and the ones its start protocol reads.
 */
final class DeploymentConfig {

    private final List<Configuration> configs;

    private DeploymentConfig(List<Configuration> configs) {
        this.configs = configs;
    }

    static DeploymentConfig of(Environment env) {
        return new DeploymentConfig(
                List.of(env.getJobConfiguration(), env.getTaskManagerInfo().getConfiguration()));
    }

    /**
     * Refuses the adaptive scheduler (and reactive mode): it rescales a job within its run, and the
     * fence cannot order a paused attempt of one layout against the attempts of another that
     * restored the same checkpoint (docs/flushable-sink.md, "The start as a plan"). A rescale
     * through a savepoint is a new run, which the fence orders.
     */
    /** What to do instead of the adaptive scheduler. */
    static final String ADAPTIVE_REFUSAL =
            JobManagerOptions.SCHEDULER.key()
                    + ": default (in the job's and the JobManager's configuration) and rescale"
                    + " through a savepoint (stop with a savepoint, submit with the new"
                    + " parallelism).";

    void refuseRescalingWithinARun() {
        for (Configuration config : configs) {
            boolean adaptive =
                    config.getOptional(JobManagerOptions.SCHEDULER)
                                    .filter(s -> s == JobManagerOptions.SchedulerType.Adaptive)
                                    .isPresent()
                            || config.get(JobManagerOptions.SCHEDULER_MODE)
                                    == SchedulerExecutionMode.REACTIVE;
            if (adaptive) {
                throw new IllegalStateException(
                        "The flushable sink cannot run under "
                                + JobManagerOptions.SCHEDULER.key()
                                + ": adaptive (or "
                                + JobManagerOptions.SCHEDULER_MODE.key()
                                + ": reactive): it rescales the job within a run, and a paused"
                                + " attempt of the old parallelism could take key groups back. "
                                + ADAPTIVE_REFUSAL);
            }
        }
    }

    /** {@code execution.checkpointing.dir}, from the job's configuration or the cluster's. */
    Optional<String> checkpointsDir() {
        return configs.stream()
                .flatMap(c -> c.getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY).stream())
                .findFirst();
    }
}
