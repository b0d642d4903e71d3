package io.effonce.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.JobID;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.rest.FileUpload;
import org.apache.flink.runtime.rest.RestClient;
import org.apache.flink.runtime.rest.handler.async.AsynchronousOperationResult;
import org.apache.flink.runtime.rest.messages.EmptyMessageParameters;
import org.apache.flink.runtime.rest.messages.EmptyRequestBody;
import org.apache.flink.runtime.rest.messages.JobExceptionsHeaders;
import org.apache.flink.runtime.rest.messages.JobExceptionsInfoWithHistory;
import org.apache.flink.runtime.rest.messages.JobMessageParameters;
import org.apache.flink.runtime.rest.messages.JobVertexDetailsHeaders;
import org.apache.flink.runtime.rest.messages.JobVertexMessageParameters;
import org.apache.flink.runtime.rest.messages.MessagePathParameter;
import org.apache.flink.runtime.rest.messages.TriggerId;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointIdPathParameter;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointMessageParameters;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointStatisticDetailsHeaders;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointingStatistics;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointingStatisticsHeaders;
import org.apache.flink.runtime.rest.messages.job.JobDetailsInfo;
import org.apache.flink.runtime.rest.messages.job.JobExceptionsMessageParameters;
import org.apache.flink.runtime.rest.messages.job.JobStatusInfoHeaders;
import org.apache.flink.runtime.rest.messages.job.SubtaskExecutionAttemptDetailsInfo;
import org.apache.flink.runtime.rest.messages.job.metrics.JobVertexMetricsHeaders;
import org.apache.flink.runtime.rest.messages.job.metrics.JobVertexMetricsMessageParameters;
import org.apache.flink.runtime.rest.messages.job.metrics.Metric;
import org.apache.flink.runtime.rest.messages.job.savepoints.SavepointInfo;
import org.apache.flink.runtime.rest.messages.job.savepoints.SavepointStatusHeaders;
import org.apache.flink.runtime.rest.messages.job.savepoints.SavepointStatusMessageParameters;
import org.apache.flink.runtime.rest.messages.job.savepoints.SavepointTriggerHeaders;
import org.apache.flink.runtime.rest.messages.job.savepoints.SavepointTriggerMessageParameters;
import org.apache.flink.runtime.rest.messages.job.savepoints.SavepointTriggerRequestBody;
import org.apache.flink.runtime.rest.messages.job.savepoints.stop.StopWithSavepointRequestBody;
import org.apache.flink.runtime.rest.messages.job.savepoints.stop.StopWithSavepointTriggerHeaders;
import org.apache.flink.runtime.rest.messages.queue.QueueStatus;
import org.apache.flink.runtime.rest.messages.taskmanager.TaskManagersHeaders;
import org.apache.flink.runtime.rest.util.RestConstants;
import org.apache.flink.runtime.webmonitor.handlers.JarRunHeaders;
import org.apache.flink.runtime.webmonitor.handlers.JarRunMessageParameters;
import org.apache.flink.runtime.webmonitor.handlers.JarRunRequestBody;
import org.apache.flink.runtime.webmonitor.handlers.JarUploadHeaders;
import org.apache.flink.runtime.webmonitor.handlers.JarUploadResponseBody;
import org.apache.flink.util.concurrent.Executors;

/**
 * Flink's REST API, the parts a local cluster needs — TaskManagers, jar upload and run, job status,
 * checkpoint statistics, savepoints, stop-with-savepoint and cancel — through Flink's own {@link
 * RestClusterClient} and the REST message classes of flink-runtime and flink-runtime-web. Every
 * call is synchronous; an error answer raises {@link FlinkRestException} with Flink's error text,
 * an unreachable endpoint an {@link UncheckedIOException}.
 *
 * <p>The endpoint is found as Flink's own CLI finds it: from {@code rest.address} and {@code
 * rest.port} without high availability, or, with {@code high-availability.type: zookeeper} in the
 * configuration ({@link #forConfDir}), from the leader information the leading JobManager publishes
 * in ZooKeeper, across JobManager failovers. The Flink client starts on the first call and holds
 * threads and connections until {@link #close()}.
 */
public final class FlinkRestClient implements AutoCloseable {

    private final RestCalls calls;

    /** A client for {@code http://host:port} (no high availability). */
    public FlinkRestClient(URI base) {
        this(addressed(new Configuration(), base.getHost(), base.getPort()));
    }

    /**
     * A client configured from the cluster's {@code confDir/config.yaml}, as Flink's CLI is: with
     * {@code high-availability.type: zookeeper} (and {@code high-availability.zookeeper.quorum},
     * {@code .zookeeper.path.root}, {@code high-availability.cluster-id}) it follows the leading
     * JobManager's REST endpoint through ZooKeeper; without, it calls {@code rest.address}
     * (127.0.0.1 unless set) and {@code rest.port}.
     */
    public static FlinkRestClient forConfDir(Path confDir) {
        Configuration config = GlobalConfiguration.loadConfiguration(confDir.toString());
        if (!config.contains(RestOptions.ADDRESS)) {
            config.set(RestOptions.ADDRESS, "127.0.0.1");
        }
        return new FlinkRestClient(config);
    }

    private FlinkRestClient(Configuration config) {
        this.calls = new RestCalls(config);
    }

    private static Configuration addressed(Configuration config, String host, int port) {
        config.set(RestOptions.ADDRESS, host);
        config.set(RestOptions.PORT, port);
        // RestClusterClient builds its base URL (only the path of it is used) from this one.
        config.set(JobManagerOptions.ADDRESS, host);
        return config;
    }

    /**
     * The REST endpoint of the leading JobManager ({@code http://127.0.0.1:port}). With high
     * availability this waits for a leader up to {@code rest.await-leader-timeout} (30 s) and fails
     * if none is known by then.
     */
    public URI baseUri() {
        String leader = calls.client().getWebInterfaceURL();
        if (!leader.startsWith("http://") && !leader.startsWith("https://")) {
            // RestClusterClient answers "Unknown address." when no leader turned up in time.
            throw new FlinkRestException("No leading JobManager's REST endpoint known: " + leader);
        }
        return URI.create(leader);
    }

    /** Resource ids of the registered TaskManagers ({@code tm-0}, ...). */
    public List<String> taskManagerIds() {
        return calls
                .send(
                        TaskManagersHeaders.getInstance(),
                        EmptyMessageParameters.getInstance(),
                        EmptyRequestBody.getInstance())
                .getTaskManagerInfos()
                .stream()
                .map(tm -> tm.getResourceId().getResourceIdString())
                .toList();
    }

    /**
     * Free task slots over all registered TaskManagers, and all slots: a slot that still holds a
     * task of a job this JobManager does not know (one a killed JobManager ran) is not free.
     */
    public SlotCount slots() {
        var infos =
                calls.send(
                                TaskManagersHeaders.getInstance(),
                                EmptyMessageParameters.getInstance(),
                                EmptyRequestBody.getInstance())
                        .getTaskManagerInfos();
        return new SlotCount(
                infos.stream().mapToInt(tm -> tm.getNumberAvailableSlots()).sum(),
                infos.stream().mapToInt(tm -> tm.getNumberSlots()).sum());
    }

    /** Free and total task slots of the cluster. */
    public record SlotCount(int free, int total) {}

    /** Uploads a job jar; returns its jar id for {@link #runJar}. */
    public String uploadJar(Path jar) {
        if (!Files.isRegularFile(jar)) {
            throw new UncheckedIOException(
                    "Could not read job jar " + jar, new NoSuchFileException(jar.toString()));
        }
        // RestClusterClient sends file uploads only for job graphs; a plain RestClient sends the
        // jar to the leader's endpoint, as the Flink Kubernetes operator does.
        URL leader = leaderUrl();
        String what = "upload of " + jar + " to " + leader;
        FileUpload file = new FileUpload(jar, RestConstants.CONTENT_TYPE_JAR);
        try (RestClient uploader = new RestClient(calls.config(), Executors.directExecutor())) {
            CompletableFuture<JarUploadResponseBody> answer =
                    uploader.sendRequest(
                            leader.getHost(),
                            leader.getPort(),
                            JarUploadHeaders.getInstance(),
                            EmptyMessageParameters.getInstance(),
                            EmptyRequestBody.getInstance(),
                            List.of(file));
            String filename = RestCalls.await(what, answer).getFilename();
            return filename.substring(filename.lastIndexOf('/') + 1);
        } catch (IOException e) {
            throw new UncheckedIOException(what + " failed", e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) { // RestClient's configuration and close()
            throw new FlinkRestException(what + " failed: " + e, e);
        }
    }

    /** Runs an uploaded jar; returns the job id. */
    public String runJar(String jarId, JobSubmission job) {
        JarRunHeaders headers = JarRunHeaders.getInstance();
        JarRunMessageParameters params = headers.getUnresolvedMessageParameters();
        params.jarIdPathParameter.resolve(jarId);
        return calls.send(headers, params, runRequest(job)).getJobId().toHexString();
    }

    /** Parallelism and restore settings only when given, so the cluster's defaults apply. */
    static JarRunRequestBody runRequest(JobSubmission job) {
        boolean restore = job.savepointPath() != null;
        return new JarRunRequestBody(
                job.entryClass(),
                job.args(),
                job.parallelism() > 0 ? job.parallelism() : null,
                null,
                restore ? job.allowNonRestoredState() : null,
                job.savepointPath(),
                null,
                null);
    }

    /** The job's state: CREATED, RUNNING, RESTARTING, FAILING, FINISHED, CANCELED, FAILED... */
    public String jobState(String jobId) {
        return calls.send(
                        JobStatusInfoHeaders.getInstance(),
                        jobParams(jobId),
                        EmptyRequestBody.getInstance())
                .getJobStatus()
                .name();
    }

    /** The job's details: state, and per vertex its parallelism and tasks per state. */
    public JobDetailsInfo jobDetails(String jobId) {
        return RestCalls.await(
                "details of job " + jobId,
                calls.client().getJobDetails(JobID.fromHexString(jobId)));
    }

    /** The stack traces of the job's failures, newest first (Flink's exception history). */
    public List<String> failures(String jobId) {
        JobExceptionsMessageParameters params = new JobExceptionsMessageParameters();
        params.jobPathParameter.resolve(JobID.fromHexString(jobId));
        return calls
                .send(JobExceptionsHeaders.getInstance(), params, EmptyRequestBody.getInstance())
                .getExceptionHistory()
                .getEntries()
                .stream()
                .map(JobExceptionsInfoWithHistory.ExceptionInfo::getStacktrace)
                .toList();
    }

    /** Id and state of every job the cluster knows. */
    public Map<String, String> jobs() {
        Map<String, String> jobs = new LinkedHashMap<>();
        for (JobStatusMessage job : RestCalls.await("job list", calls.client().listJobs())) {
            jobs.put(job.getJobId().toHexString(), job.getJobState().name());
        }
        return jobs;
    }

    public CheckpointStats checkpoints(String jobId) {
        return CheckpointStats.of(checkpointingStatistics(jobId));
    }

    /** Ids of checkpoints in progress right now, from the statistics' history. */
    public List<Long> checkpointsInProgress(String jobId) {
        return CheckpointStats.inProgressIds(checkpointingStatistics(jobId));
    }

    /**
     * The status of one checkpoint from the statistics' history: IN_PROGRESS, COMPLETED or FAILED
     * (a {@link FlinkRestException} once it has left the history).
     */
    public String checkpointStatus(String jobId, long checkpointId) {
        CheckpointStatisticDetailsHeaders headers = CheckpointStatisticDetailsHeaders.getInstance();
        CheckpointMessageParameters params = headers.getUnresolvedMessageParameters();
        // The checkpoint id parameter is a protected field; the list of path parameters is public.
        for (MessagePathParameter<?> p : params.getPathParameters()) {
            if (p instanceof CheckpointIdPathParameter id) {
                id.resolve(checkpointId);
            }
        }
        params.jobPathParameter.resolve(JobID.fromHexString(jobId));
        return calls.send(headers, params, EmptyRequestBody.getInstance()).getStatus().name();
    }

    /**
     * When a checkpoint in the statistics' history was triggered and acknowledged, and its parts.
     */
    public CheckpointTiming checkpointTiming(String jobId, long checkpointId) {
        return CheckpointTiming.of(calls, jobId, checkpointId);
    }

    /**
     * Resource ids of the TaskManagers that run at least one of the job's tasks (current attempts).
     */
    public Set<String> taskManagersOf(String jobId) {
        Set<String> ids = new LinkedHashSet<>();
        subtasks(jobId).forEach(subtask -> ids.add(subtask.getTaskmanagerId()));
        return ids;
    }

    /**
     * Resource ids of the TaskManagers that run a task of the job that has not finished: during a
     * stop-with-savepoint, the ones whose loss still fails the stop.
     */
    public Set<String> taskManagersOfUnfinishedTasks(String jobId) {
        Set<String> ids = new LinkedHashSet<>();
        for (SubtaskExecutionAttemptDetailsInfo subtask : subtasks(jobId)) {
            if (subtask.getStatus() != ExecutionState.FINISHED) {
                ids.add(subtask.getTaskmanagerId());
            }
        }
        return ids;
    }

    /** The current attempt of every subtask of every vertex of the job. */
    private List<SubtaskExecutionAttemptDetailsInfo> subtasks(String jobId) {
        List<SubtaskExecutionAttemptDetailsInfo> all = new ArrayList<>();
        for (JobDetailsInfo.JobVertexDetailsInfo vertex : jobDetails(jobId).getJobVertexInfos()) {
            // Per subtask, as the answer class of /vertices/:id/taskmanagers has no getters.
            JobVertexDetailsHeaders headers = JobVertexDetailsHeaders.getInstance();
            JobVertexMessageParameters params = headers.getUnresolvedMessageParameters();
            params.jobPathParameter.resolve(JobID.fromHexString(jobId));
            params.jobVertexIdPathParameter.resolve(vertex.getJobVertexID());
            all.addAll(calls.send(headers, params, EmptyRequestBody.getInstance()).getSubtasks());
        }
        return all;
    }

    /**
     * The ids of the metrics each vertex of the job reports, by vertex name ({@code
     * <subtask>.<name>} each; as fresh as the JobManager's metric fetcher, some seconds).
     */
    public Map<String, List<String>> vertexMetricIds(String jobId) {
        Map<String, List<String>> ids = new LinkedHashMap<>();
        for (JobDetailsInfo.JobVertexDetailsInfo vertex : jobDetails(jobId).getJobVertexInfos()) {
            JobVertexMetricsHeaders headers = JobVertexMetricsHeaders.getInstance();
            JobVertexMetricsMessageParameters params = headers.getUnresolvedMessageParameters();
            params.jobPathParameter.resolve(JobID.fromHexString(jobId));
            params.jobVertexIdPathParameter.resolve(vertex.getJobVertexID());
            ids.put(
                    vertex.getName(),
                    calls
                            .send(headers, params, EmptyRequestBody.getInstance())
                            .getMetrics()
                            .stream()
                            .map(Metric::getId)
                            .toList());
        }
        return ids;
    }

    /** Triggers a savepoint (canonical format) into {@code targetDir}; returns the trigger id. */
    public String triggerSavepoint(String jobId, String targetDir) {
        SavepointTriggerHeaders headers = SavepointTriggerHeaders.getInstance();
        SavepointTriggerMessageParameters params = headers.getUnresolvedMessageParameters();
        params.jobID.resolve(JobID.fromHexString(jobId));
        SavepointTriggerRequestBody request =
                new SavepointTriggerRequestBody(
                        targetDir, false, SavepointFormatType.CANONICAL, null);
        return calls.send(headers, params, request).getTriggerId().toHexString();
    }

    /**
     * Triggers stop-with-savepoint (canonical format), with {@code drain} sending the end-of-input
     * watermark first; returns the trigger id.
     */
    public String triggerStop(String jobId, String targetDir, boolean drain) {
        StopWithSavepointTriggerHeaders headers = StopWithSavepointTriggerHeaders.getInstance();
        SavepointTriggerMessageParameters params = headers.getUnresolvedMessageParameters();
        params.jobID.resolve(JobID.fromHexString(jobId));
        StopWithSavepointRequestBody request =
                new StopWithSavepointRequestBody(
                        targetDir, drain, SavepointFormatType.CANONICAL, null);
        return calls.send(headers, params, request).getTriggerId().toHexString();
    }

    /**
     * The savepoint's location once completed, {@code null} while in progress; throws when the
     * savepoint failed.
     */
    public String savepointLocation(String jobId, String triggerId) {
        SavepointStatusHeaders headers = SavepointStatusHeaders.getInstance();
        SavepointStatusMessageParameters params = headers.getUnresolvedMessageParameters();
        params.jobIdPathParameter.resolve(JobID.fromHexString(jobId));
        params.triggerIdPathParameter.resolve(TriggerId.fromHexString(triggerId));
        return savepointLocation(
                jobId, triggerId, calls.send(headers, params, EmptyRequestBody.getInstance()));
    }

    static String savepointLocation(
            String jobId, String triggerId, AsynchronousOperationResult<SavepointInfo> status) {
        if (status.queueStatus().getId() != QueueStatus.Id.COMPLETED) {
            return null;
        }
        SavepointInfo savepoint = status.resource();
        if (savepoint.getFailureCause() != null) {
            throw new FlinkRestException(
                    "Savepoint %s of job %s failed: %s"
                            .formatted(triggerId, jobId, savepoint.getFailureCause()),
                    savepoint.getFailureCause());
        }
        return savepoint.getLocation();
    }

    /** Cancels the job (retained checkpoints stay). */
    public void cancel(String jobId) {
        RestCalls.await(
                "cancel of job " + jobId, calls.client().cancel(JobID.fromHexString(jobId)));
    }

    /** Stops Flink's client: its threads, connections and, with HA, its ZooKeeper session. */
    @Override
    public void close() {
        calls.close();
    }

    private URL leaderUrl() {
        URI uri = baseUri();
        try {
            return uri.toURL();
        } catch (IOException e) {
            throw new UncheckedIOException("Not a URL: " + uri, e);
        }
    }

    private CheckpointingStatistics checkpointingStatistics(String jobId) {
        return calls.send(
                CheckpointingStatisticsHeaders.getInstance(),
                jobParams(jobId),
                EmptyRequestBody.getInstance());
    }

    private static JobMessageParameters jobParams(String jobId) {
        JobMessageParameters params = new JobMessageParameters();
        params.jobPathParameter.resolve(JobID.fromHexString(jobId));
        return params;
    }
}
