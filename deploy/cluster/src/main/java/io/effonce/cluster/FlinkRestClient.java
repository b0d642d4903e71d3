package io.effonce.cluster;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Flink's REST API, the parts a local cluster needs: TaskManagers, jar upload and run, job status,
 * checkpoint statistics, savepoints, stop-with-savepoint and cancel. Every call is synchronous; a
 * non-2xx answer raises {@link FlinkRestException} with Flink's error text.
 */
public final class FlinkRestClient {

    private final URI base;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** A client for {@code http://host:port}. */
    public FlinkRestClient(URI base) {
        this.base = base;
    }

    public URI baseUri() {
        return base;
    }

    /** GET of any REST path ({@code /overview}), parsed. */
    public Map<String, Object> get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    /** Resource ids of the registered TaskManagers ({@code tm-0}, ...). */
    public List<String> taskManagerIds() {
        List<?> tms = (List<?>) get("/taskmanagers").get("taskmanagers");
        return tms.stream().map(tm -> (String) Json.at(tm, "id")).toList();
    }

    /** Uploads a job jar; returns its jar id for {@link #runJar}. */
    public String uploadJar(Path jar) {
        String boundary = "effonce-" + UUID.randomUUID();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        try {
            String head =
                    "--"
                            + boundary
                            + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
                            + jar.getFileName()
                            + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n";
            body.write(head.getBytes(StandardCharsets.UTF_8));
            body.write(Files.readAllBytes(jar));
            body.write(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read job jar " + jar, e);
        }
        Map<String, Object> answer =
                send(
                        HttpRequest.newBuilder(uri("/jars/upload"))
                                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                                .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())));
        String filename = (String) answer.get("filename");
        return filename.substring(filename.lastIndexOf('/') + 1);
    }

    /** Runs an uploaded jar; returns the job id. */
    public String runJar(String jarId, JobSubmission job) {
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("entryClass", job.entryClass());
        request.put("programArgsList", job.args());
        if (job.parallelism() > 0) {
            request.put("parallelism", job.parallelism());
        }
        if (job.savepointPath() != null) {
            request.put("savepointPath", job.savepointPath());
            request.put("allowNonRestoredState", job.allowNonRestoredState());
        }
        return (String) post("/jars/" + jarId + "/run", request).get("jobid");
    }

    /** The job's state: CREATED, RUNNING, RESTARTING, FAILING, FINISHED, CANCELED, FAILED... */
    public String jobState(String jobId) {
        return (String) get("/jobs/" + jobId).get("state");
    }

    /** Id and state of every job the cluster knows. */
    public Map<String, String> jobs() {
        Map<String, String> jobs = new LinkedHashMap<>();
        for (Object job : (List<?>) get("/jobs/overview").get("jobs")) {
            jobs.put((String) Json.at(job, "jid"), (String) Json.at(job, "state"));
        }
        return jobs;
    }

    public CheckpointStats checkpoints(String jobId) {
        return CheckpointStats.fromJson(get("/jobs/" + jobId + "/checkpoints"));
    }

    /** Ids of checkpoints in progress right now, from the statistics' history. */
    public List<Long> checkpointsInProgress(String jobId) {
        return CheckpointStats.inProgressIds(get("/jobs/" + jobId + "/checkpoints"));
    }

    /** Resource ids of the TaskManagers that run at least one of the job's tasks. */
    public Set<String> taskManagersOf(String jobId) {
        Set<String> ids = new LinkedHashSet<>();
        for (Object vertex : (List<?>) get("/jobs/" + jobId).get("vertices")) {
            String path = "/jobs/" + jobId + "/vertices/" + Json.at(vertex, "id") + "/taskmanagers";
            for (Object tm : (List<?>) get(path).get("taskmanagers")) {
                ids.add((String) Json.at(tm, "taskmanager-id"));
            }
        }
        return ids;
    }

    /** Triggers a savepoint (canonical format) into {@code targetDir}; returns the trigger id. */
    public String triggerSavepoint(String jobId, String targetDir) {
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("target-directory", targetDir);
        request.put("cancel-job", false);
        return (String) post("/jobs/" + jobId + "/savepoints", request).get("request-id");
    }

    /** Triggers stop-with-savepoint (no drain); returns the trigger id. */
    public String triggerStop(String jobId, String targetDir, boolean drain) {
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("targetDirectory", targetDir);
        request.put("drain", drain);
        return (String) post("/jobs/" + jobId + "/stop", request).get("request-id");
    }

    /**
     * The savepoint's location once completed, {@code null} while in progress; throws when the
     * savepoint failed.
     */
    public String savepointLocation(String jobId, String triggerId) {
        Map<String, Object> answer = get("/jobs/" + jobId + "/savepoints/" + triggerId);
        if (!"COMPLETED".equals(Json.at(answer, "status", "id"))) {
            return null;
        }
        Object failure = Json.at(answer, "operation", "failure-cause");
        if (failure != null) {
            throw new FlinkRestException(
                    "Savepoint "
                            + triggerId
                            + " of job "
                            + jobId
                            + " failed: "
                            + Json.write(failure));
        }
        return (String) Json.at(answer, "operation", "location");
    }

    /** Cancels the job (retained checkpoints stay). */
    public void cancel(String jobId) {
        send(
                HttpRequest.newBuilder(uri("/jobs/" + jobId + "?mode=cancel"))
                        .method("PATCH", HttpRequest.BodyPublishers.noBody()));
    }

    private Map<String, Object> post(String path, Map<String, Object> body) {
        return send(
                HttpRequest.newBuilder(uri(path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(Json.write(body))));
    }

    private Map<String, Object> send(HttpRequest.Builder request) {
        HttpRequest built = request.timeout(Duration.ofSeconds(60)).build();
        HttpResponse<String> response;
        try {
            response = http.send(built, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(built.method() + " " + built.uri() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        String text = response.body();
        if (response.statusCode() / 100 != 2) {
            throw new FlinkRestException(
                    built.method()
                            + " "
                            + built.uri()
                            + " -> "
                            + response.statusCode()
                            + ": "
                            + text);
        }
        return text == null || text.isBlank() ? Map.of() : Json.parseObject(text);
    }

    private URI uri(String path) {
        return base.resolve(path);
    }
}
