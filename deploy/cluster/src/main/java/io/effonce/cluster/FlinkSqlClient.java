package io.effonce.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Flink's own SQL client, run the way {@code bin/sql-client.sh -f} runs it (embedded mode: the
 * planner on its own JVM, the jobs submitted to the cluster over REST), with this cluster's
 * configuration. A real Flink distribution needs nothing more in {@code lib/}: it ships the table
 * API, runtime and planner there; the SQL client's jar, the SQL gateway's (the client runs one
 * inside) and flink-python's (whose option parser the client calls) are in its {@code opt/}.
 */
public final class FlinkSqlClient {

    static final String MAIN_CLASS = "org.apache.flink.table.client.SqlClient";
    private static final String CLASSPATH_RESOURCE = "/io/effonce/cluster/sql-client-classpath.txt";

    private FlinkSqlClient() {}

    /**
     * The SQL client's process for {@code sqlFile}, each of {@code jars} added to its session (as
     * {@code -j} does: a connector's jar, shipped with every job the file submits). Its INSERTs are
     * submitted and not awaited; the client prints each job's id and ends.
     */
    public static ProcessBuilder command(LocalFlinkCluster cluster, Path sqlFile, List<Path> jars) {
        Path confDir = cluster.workDir().resolve("conf");
        URI rest = cluster.restUri();
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Dlog.file=" + cluster.logDir().resolve("sql-client.log"));
        cmd.add("-Dlog4j.configurationFile=file:" + confDir.resolve("log4j.properties"));
        cmd.add("-classpath");
        cmd.add(classpath(ClusterState.classpath(cluster.workDir())));
        cmd.add(MAIN_CLASS);
        cmd.add("embedded");
        cmd.addAll(List.of("-D", "execution.target=remote"));
        cmd.addAll(List.of("-D", "rest.address=" + rest.getHost()));
        cmd.addAll(List.of("-D", "rest.port=" + rest.getPort()));
        for (Path jar : jars) {
            cmd.addAll(List.of("-j", jar.toAbsolutePath().toString()));
        }
        cmd.addAll(List.of("-f", sqlFile.toAbsolutePath().toString()));
        ProcessBuilder builder = new ProcessBuilder(cmd);
        builder.environment().put("FLINK_CONF_DIR", confDir.toString());
        return builder;
    }

    /**
     * The cluster's class path and the SQL client's jars: from the build, or from a distribution's
     * {@code opt/} when the cluster runs from its {@code lib/*}.
     */
    static String classpath(String clusterClasspath) {
        if (!clusterClasspath.endsWith("/lib/*")) {
            return clusterClasspath + ":" + buildClasspath();
        }
        Path opt =
                Path.of(
                                clusterClasspath.substring(
                                        0, clusterClasspath.length() - "/lib/*".length()))
                        .resolve("opt");
        StringBuilder classpath = new StringBuilder(clusterClasspath);
        for (String jar : List.of("flink-sql-client", "flink-sql-gateway", "flink-python")) {
            classpath.append(':').append(inOpt(opt, jar));
        }
        return classpath.toString();
    }

    private static Path inOpt(Path opt, String prefix) {
        try (Stream<Path> files = Files.list(opt)) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix))
                    .findFirst()
                    .orElseThrow(
                            () ->
                                    new IllegalStateException(
                                            "No "
                                                    + prefix
                                                    + " jar in "
                                                    + opt
                                                    + ", which the SQL"
                                                    + " client needs"));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list " + opt, e);
        }
    }

    private static String buildClasspath() {
        try (InputStream in = FlinkSqlClient.class.getResourceAsStream(CLASSPATH_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(
                        "No " + CLASSPATH_RESOURCE + " on the class path: build deploy/cluster");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
