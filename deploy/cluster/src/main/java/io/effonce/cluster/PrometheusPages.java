package io.effonce.cluster;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

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

    private PrometheusPages() {}

    /** The page of every port of config.yaml's range that answers. */
    public static List<String> scrape() throws InterruptedException {
        return scrape(FIRST_PORT, LAST_PORT);
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

    /** The page of every port from {@code first} to {@code last} that answers 200. */
    public static List<String> scrape(int first, int last) throws InterruptedException {
        List<String> pages = new ArrayList<>();
        for (int port = first; port <= last; port++) {
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
