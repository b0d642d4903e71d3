package io.effonce.cluster;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalDouble;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The {@code /metrics} pages the Prometheus reporters of a local cluster's processes serve on this
 * machine's loopback ports (config.yaml: the first free port of {@link #FIRST_PORT}–{@link
 * #LAST_PORT}).
 */
public final class PrometheusPages {

    public static final int FIRST_PORT = 9249;
    public static final int LAST_PORT = 9260;

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /**
     * The reporter's port option: a cluster given ports of its own (a test's, beside other clusters
     * on the same machine) serves its pages there and nowhere else.
     */
    public static final String PORT_OPTION = "metrics.reporter.prom.port";

    private PrometheusPages() {}

    /** config.yaml's range, {@link #FIRST_PORT} to {@link #LAST_PORT}. */
    public static List<Integer> defaultPorts() {
        return IntStream.rangeClosed(FIRST_PORT, LAST_PORT).boxed().toList();
    }

    /** {@code n} free ports for a cluster's reporters of its own. */
    public static List<Integer> freePorts(int n) {
        return Arrays.stream(FreePorts.take(n)).boxed().toList();
    }

    /** {@code ports} as {@link #PORT_OPTION}'s value lists them. */
    public static String asOption(List<Integer> ports) {
        return ports.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** The page of every port of config.yaml's range that answers. */
    public static List<String> scrape() throws InterruptedException {
        return scrape(defaultPorts());
    }

    /**
     * The value of the first sample of {@code metric} whose labels contain {@code labels} (e.g.
     * {@code job_id="..."}), in any of {@code pages}.
     */
    public static OptionalDouble sample(List<String> pages, String metric, String labels) {
        for (String page : pages) {
            for (String line : page.split("\n")) {
                if (line.startsWith(metric + "{") && line.contains(labels)) {
                    return OptionalDouble.of(
                            Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
                }
            }
        }
        return OptionalDouble.empty();
    }

    /** The page of every port of {@code ports} that answers 200. */
    public static List<String> scrape(List<Integer> ports) throws InterruptedException {
        List<String> pages = new ArrayList<>();
        for (int port : ports) {
            try {
                HttpResponse<String> response =
                        HTTP.send(
                                HttpRequest.newBuilder(
                                                URI.create("http://127.0.0.1:" + port + "/metrics"))
                                        .timeout(Duration.ofSeconds(10))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    pages.add(response.body());
                }
            } catch (IOException nothingThere) {
                // no reporter on this port
            }
        }
        return pages;
    }
}
