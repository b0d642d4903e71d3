package io.effonce.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.rest.messages.MessageHeaders;
import org.apache.flink.runtime.rest.messages.MessageParameters;
import org.apache.flink.runtime.rest.messages.RequestBody;
import org.apache.flink.runtime.rest.messages.ResponseBody;
import org.apache.flink.runtime.rest.util.RestClientException;
import org.apache.flink.util.ExceptionUtils;

/**
 * How {@link FlinkRestClient} talks to the cluster: Flink's own {@link RestClusterClient}, started
 * on first use, each request awaited with an upper bound, and an error answer turned into a {@link
 * FlinkRestException} with Flink's error text (an unreachable endpoint into an {@link
 * UncheckedIOException}).
 */
final class RestCalls implements AutoCloseable {

    /** Upper bound of one call, Flink's own connection retries included. */
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /**
     * Pause between Flink's retries of a request that found no endpoint. Flink's 3 s default would
     * add up to 3 s to each cluster start, whose first calls meet a JobManager still starting; the
     * callers poll on their own anyway. A value in the configuration wins.
     */
    private static final Duration RETRY_DELAY = Duration.ofMillis(200);

    private final Configuration config;
    private RestClusterClient<StandaloneClusterId> client;
    private boolean closed;

    RestCalls(Configuration config) {
        if (!config.contains(RestOptions.RETRY_DELAY)) {
            config.set(RestOptions.RETRY_DELAY, RETRY_DELAY);
        }
        this.config = config;
    }

    Configuration config() {
        return config;
    }

    /** Stops Flink's client: its threads, connections and, with HA, its ZooKeeper session. */
    @Override
    public synchronized void close() {
        closed = true;
        if (client != null) {
            client.close();
            client = null;
        }
    }

    /**
     * Flink's client, started on first use: a cluster attached only to list or stop its processes
     * never needs one, and with HA the ZooKeeper it reads may start after this object is made.
     */
    synchronized RestClusterClient<StandaloneClusterId> client() {
        if (closed) {
            throw new IllegalStateException("The REST client is closed");
        }
        if (client == null) {
            try {
                client = new RestClusterClient<>(config, StandaloneClusterId.getInstance());
            } catch (Exception e) {
                throw new FlinkRestException("Could not start Flink's REST client: " + e, e);
            }
        }
        return client;
    }

    <R extends RequestBody, P extends ResponseBody, U extends MessageParameters> P send(
            MessageHeaders<R, P, U> headers, U params, R request) {
        String what =
                headers.getHttpMethod().getNettyHttpMethod()
                        + " "
                        + MessageParameters.resolveUrl(headers.getTargetRestEndpointURL(), params);
        return await(what, client().sendRequest(headers, params, request));
    }

    static <T> T await(String what, CompletableFuture<T> answer) {
        try {
            return answer.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            throw new IllegalStateException(what + " interrupted", e);
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw new UncheckedIOException(
                    what + ": no answer within " + TIMEOUT, new IOException(e));
        } catch (ExecutionException e) {
            throw failure(what, e.getCause());
        }
    }

    private static RuntimeException failure(String what, Throwable cause) {
        Optional<RestClientException> answer =
                ExceptionUtils.findThrowable(cause, RestClientException.class);
        if (answer.isPresent()) {
            return new FlinkRestException(
                    what
                            + " -> "
                            + answer.get().getHttpResponseStatus().code()
                            + ": "
                            + answer.get().getMessage(),
                    cause);
        }
        Optional<IOException> io = ExceptionUtils.findThrowable(cause, IOException.class);
        if (io.isPresent()) {
            return new UncheckedIOException(what + " failed: " + io.get().getMessage(), io.get());
        }
        return new FlinkRestException(what + " failed: " + cause, cause);
    }
}
