package io.effonce.cluster;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The small files in a cluster's work directory that let a later command (another JVM) find the
 * cluster again: ports and process ids in {@code cluster.properties}, the Flink class path, and the
 * submission of each job (so {@code rescale} can resubmit it).
 */
final class ClusterState {

    private static final String FILE = "cluster.properties";

    private ClusterState() {}

    static void write(Path workDir, int restPort, String classpath, List<FlinkProcess> processes) {
        Properties p = new Properties();
        p.setProperty("rest.port", Integer.toString(restPort));
        for (FlinkProcess process : processes) {
            p.setProperty(process.name() + ".pid", Long.toString(process.pid()));
            if (process.port() > 0) {
                p.setProperty(process.name() + ".port", Integer.toString(process.port()));
            }
        }
        store(p, workDir.resolve(FILE));
        writeString(workDir.resolve("classpath.txt"), classpath);
    }

    static Optional<Properties> read(Path workDir) {
        Path file = workDir.resolve(FILE);
        return Files.exists(file) ? Optional.of(load(file)) : Optional.empty();
    }

    static String classpath(Path workDir) {
        try {
            return Files.readString(workDir.resolve("classpath.txt")).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void delete(Path workDir) {
        try {
            Files.deleteIfExists(workDir.resolve(FILE));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void recordSubmission(Path workDir, String jobId, JobSubmission job) {
        Properties p = new Properties();
        p.setProperty("jar", job.jar().toAbsolutePath().toString());
        p.setProperty("entryClass", job.entryClass());
        p.setProperty("parallelism", Integer.toString(job.parallelism()));
        p.setProperty("allowNonRestoredState", Boolean.toString(job.allowNonRestoredState()));
        if (job.savepointPath() != null) {
            p.setProperty("savepoint", job.savepointPath());
        }
        for (int i = 0; i < job.args().size(); i++) {
            p.setProperty("arg." + i, job.args().get(i));
        }
        store(p, workDir.resolve("jobs").resolve(jobId + ".properties"));
    }

    static Optional<JobSubmission> submission(Path workDir, String jobId) {
        Path file = workDir.resolve("jobs").resolve(jobId + ".properties");
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        Properties p = load(file);
        TreeMap<Integer, String> args = new TreeMap<>();
        p.stringPropertyNames().stream()
                .filter(k -> k.startsWith("arg."))
                .forEach(k -> args.put(Integer.parseInt(k.substring(4)), p.getProperty(k)));
        return Optional.of(
                new JobSubmission(
                        Path.of(p.getProperty("jar")),
                        p.getProperty("entryClass"),
                        new ArrayList<>(args.values()),
                        Integer.parseInt(p.getProperty("parallelism", "0")),
                        p.getProperty("savepoint"),
                        Boolean.parseBoolean(p.getProperty("allowNonRestoredState"))));
    }

    private static void store(Properties p, Path file) {
        try {
            Files.createDirectories(file.getParent());
            try (Writer out = Files.newBufferedWriter(file)) {
                p.store(out, "written by effonce-cluster");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Properties load(Path file) {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    private static void writeString(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
