package io.effonce.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds and starts the JVM command lines of Flink's JobManager and TaskManager, the way Flink's
 * bin/jobmanager.sh and bin/taskmanager.sh do: memory flags and dynamic properties from {@code
 * BashJavaUtils}, JVM options from {@code env.java.opts.*}, log4j from the configuration directory.
 */
final class FlinkLauncher {

    private static final Logger LOG = LoggerFactory.getLogger(FlinkLauncher.class);

    static final String JOBMANAGER_CLASS =
            "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
    static final String TASKMANAGER_CLASS =
            "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";

    /** Flink's own ZooKeeper server main, as bin/start-zookeeper-quorum.sh runs it. */
    static final String ZOOKEEPER_CLASS =
            "org.apache.flink.runtime.zookeeper.FlinkZooKeeperQuorumPeer";

    private static final String BASH_JAVA_UTILS =
            "org.apache.flink.runtime.util.bash.BashJavaUtils";
    private static final String RESULT_PREFIX = "BASH_JAVA_UTILS_EXEC_RESULT:";
    private static final String CLASSPATH_RESOURCE = "/io/effonce/cluster/flink-classpath.txt";

    private final String classpath;
    private final Path confDir;
    private final Path logDir;
    private final String marker;
    private final FlinkConfigFile config;
    private CompletableFuture<List<String>> jobManagerParams;
    private CompletableFuture<List<String>> taskManagerParams;

    FlinkLauncher(String classpath, Path confDir, Path logDir, String marker) {
        this.classpath = classpath;
        this.confDir = confDir;
        this.logDir = logDir;
        this.marker = marker;
        this.config = FlinkConfigFile.read(confDir.resolve("config.yaml"));
    }

    /**
     * Starts computing the memory flags of both process kinds. Each costs a JVM start (~1 s), so
     * both run at once, and only once per cluster.
     */
    synchronized void prefetch() {
        if (jobManagerParams == null) {
            jobManagerParams = CompletableFuture.supplyAsync(() -> resourceParams("JM"));
            taskManagerParams = CompletableFuture.supplyAsync(() -> resourceParams("TM"));
        }
    }

    /** The Flink runtime class path written at build time (Flink jars and log4j only). */
    static String mavenClasspath() {
        String fromProperty = System.getProperty("effonce.flink.classpath");
        if (fromProperty != null && !fromProperty.isBlank()) {
            return fromProperty;
        }
        try (InputStream in = FlinkLauncher.class.getResourceAsStream(CLASSPATH_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(
                        "No "
                                + CLASSPATH_RESOURCE
                                + " on the class path: build deploy/cluster with Maven, set"
                                + " FLINK_HOME, or pass -Deffonce.flink.classpath=...");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The class path of a Flink distribution: everything in its lib/. */
    static String distributionClasspath(Path flinkHome) {
        return flinkHome.toAbsolutePath().resolve("lib").resolve("*").toString();
    }

    /**
     * Starts JobManager {@code index} serving REST on {@code restPort} (each JobManager of a
     * high-availability cluster has its own).
     */
    FlinkProcess startJobManager(int index, int restPort) {
        prefetch();
        List<String> params = jobManagerParams.join();
        List<String> extra = List.of("-D", "rest.port=" + restPort);
        return start(
                FlinkProcess.Role.JOBMANAGER, index, restPort, params.get(0), params.get(1), extra);
    }

    /**
     * Starts a single ZooKeeper server from Flink's class path (flink-runtime's quorum peer over
     * the shaded ZooKeeper), configured by {@code zooCfg}, listening on {@code clientPort}.
     */
    FlinkProcess startZooKeeper(Path zooCfg, int clientPort) {
        String name = FlinkProcess.name(FlinkProcess.Role.ZOOKEEPER, 0);
        Path logFile = logDir.resolve(name + ".log");
        List<String> cmd = new ArrayList<>();
        cmd.add(javaExecutable());
        cmd.add(marker);
        cmd.add("-Xmx128m");
        cmd.addAll(log4jFlags(logFile));
        cmd.add("-classpath");
        cmd.add(classpath);
        cmd.add(ZOOKEEPER_CLASS);
        cmd.add("--zkConfigFile");
        cmd.add(zooCfg.toString());
        cmd.add("--peerId");
        cmd.add("1");
        return new FlinkProcess(
                FlinkProcess.Role.ZOOKEEPER, 0, launch(name, cmd, logDir), logFile, clientPort);
    }

    FlinkProcess startTaskManager(int index) {
        prefetch();
        List<String> params = taskManagerParams.join();
        List<String> extra =
                List.of("-D", "taskmanager.resource-id=" + FlinkProcess.resourceId(index));
        return start(FlinkProcess.Role.TASKMANAGER, index, 0, params.get(0), params.get(1), extra);
    }

    private FlinkProcess start(
            FlinkProcess.Role role,
            int index,
            int port,
            String jvmParams,
            String dynamicConfigs,
            List<String> extraArgs) {
        String name = FlinkProcess.name(role, index);
        Path logFile = logDir.resolve(name + ".log");
        List<String> cmd = new ArrayList<>();
        cmd.add(javaExecutable());
        cmd.add(marker);
        cmd.addAll(split(jvmParams));
        cmd.addAll(split(config.get("env.java.opts.all").orElse("")));
        String roleKey = role == FlinkProcess.Role.JOBMANAGER ? "jobmanager" : "taskmanager";
        cmd.addAll(split(config.get("env.java.opts." + roleKey).orElse("")));
        cmd.addAll(log4jFlags(logFile));
        cmd.add("-classpath");
        cmd.add(classpath);
        cmd.add(role == FlinkProcess.Role.JOBMANAGER ? JOBMANAGER_CLASS : TASKMANAGER_CLASS);
        cmd.add("--configDir");
        cmd.add(confDir.toString());
        cmd.addAll(split(dynamicConfigs));
        cmd.addAll(extraArgs);
        return new FlinkProcess(role, index, launch(name, cmd, logDir), logFile, port);
    }

    /**
     * Starts {@code cmd} detached from this JVM's streams: stdout and stderr to {@code
     * <logDir>/<name>.out}, stdin from /dev/null.
     */
    static ProcessHandle launch(String name, List<String> cmd, Path logDir) {
        try {
            Process process =
                    new ProcessBuilder(cmd)
                            .redirectErrorStream(true)
                            .redirectOutput(logDir.resolve(name + ".out").toFile())
                            .redirectInput(
                                    ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                            .start();
            LOG.info("Started {} (pid {}), log {}", name, process.pid(), logDir);
            return process.toHandle();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start " + name + ": " + cmd, e);
        }
    }

    private List<String> log4jFlags(Path logFile) {
        String log4j = "file:" + confDir.resolve("log4j.properties");
        return List.of(
                "-Dlog.file=" + logFile,
                "-Dlog4j.configuration=" + log4j,
                "-Dlog4j.configurationFile=" + log4j);
    }

    /** Runs BashJavaUtils GET_JM/TM_RESOURCE_PARAMS: [JVM memory flags, dynamic -D properties]. */
    private List<String> resourceParams(String which) {
        List<String> cmd =
                List.of(
                        javaExecutable(),
                        "-Dlog4j.configurationFile=file:"
                                + confDir.resolve("log4j-console.properties"),
                        "-classpath",
                        classpath,
                        BASH_JAVA_UTILS,
                        "GET_" + which + "_RESOURCE_PARAMS",
                        "--configDir",
                        confDir.toString());
        try {
            Process process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String output =
                    new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int exit = process.waitFor();
            List<String> results =
                    output.lines()
                            .filter(l -> l.startsWith(RESULT_PREFIX))
                            .map(l -> l.substring(RESULT_PREFIX.length()).trim())
                            .toList();
            if (exit != 0 || results.size() < 2) {
                throw new IllegalStateException(
                        "BashJavaUtils GET_"
                                + which
                                + "_RESOURCE_PARAMS failed (exit "
                                + exit
                                + "); check the memory settings in "
                                + confDir.resolve("config.yaml")
                                + ":\n"
                                + output);
            }
            LOG.debug("{} resource params: {}", which, results);
            return results.subList(results.size() - 2, results.size());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static List<String> split(String s) {
        return s.isBlank() ? List.of() : Arrays.asList(s.trim().split("\\s+"));
    }
}
