package io.effonce.cluster.cli;

import io.effonce.cluster.FlinkSqlClient;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code flink-local sql FILE}: Flink's SQL client runs a SQL file on the cluster. */
@Command(
        name = "sql",
        description =
                "Run a Flink SQL file on the cluster with Flink's own SQL client (as sql-client.sh"
                        + " -f does): each INSERT is submitted as a job and its id printed on"
                        + " stdout, the client's output goes to stderr. Then waits for every"
                        + " task of each job to run: exits 1 when a statement failed or a job"
                        + " failed while starting (printing its first failure in one line and"
                        + " cancelling it).")
final class SqlCommand implements Callable<Integer> {
    private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;]*m");
    private static final Pattern JOB_ID = Pattern.compile("Job ID: ([0-9a-f]{32})");

    @ParentCommand ClusterCli parent;
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The SQL file.")
    Path file;

    @Option(
            names = {"-j", "--jar"},
            paramLabel = "JAR",
            description =
                    "A jar the statements use, shipped with their jobs (a connector's, e.g."
                            + " sink-sql/target/effonce-sink-sql-0.1.0-SNAPSHOT-sql.jar);"
                            + " repeatable.")
    List<Path> jars = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        for (Path path : append(jars, file)) {
            if (!Files.isReadable(path)) {
                throw new IllegalArgumentException(path.toAbsolutePath() + " cannot be read");
            }
        }
        Process client =
                FlinkSqlClient.command(parent.cluster(), file, jars)
                        .redirectErrorStream(true)
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                        .start();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean failed = false;
        List<String> jobIds = new ArrayList<>();
        try (BufferedReader lines =
                new BufferedReader(
                        new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                String plain = ANSI.matcher(line).replaceAll("");
                err.println(plain);
                Matcher job = JOB_ID.matcher(plain);
                if (job.find()) {
                    out.println(job.group(1));
                    jobIds.add(job.group(1));
                }
                // The client ends with 0 even when a statement of the file failed.
                failed |= plain.contains("[ERROR]");
            }
        }
        int exit = client.waitFor();
        if (failed || exit != 0) {
            return exit == 0 ? 1 : exit;
        }
        // The client returns once each job is submitted; a job may still fail while it starts
        // (the sink's tables missing, a role without rights), which only the job's history says.
        StartWatch watch = new StartWatch(parent.cluster());
        for (String jobId : jobIds) {
            var failure = watch.failureWhileStarting(jobId, err::println);
            if (failure.isPresent()) {
                err.println(failure.get());
                jobIds.stream().filter(id -> !id.equals(jobId)).forEach(watch::cancelIfRunning);
                return 1;
            }
        }
        return 0;
    }

    private static List<Path> append(List<Path> list, Path last) {
        List<Path> all = new ArrayList<>(list);
        all.add(last);
        return all;
    }
}
