package io.effonce.it.testutils;

import io.effonce.cluster.FlinkProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How many of Flink's user-code class loaders a Flink process still holds, each with every class a
 * job's run loaded. Counted with the JDK's {@code jcmd GC.class_histogram}, which runs a full
 * collection first: a loader that is counted is reachable, not merely not yet collected.
 */
public final class UserCodeLoaders {

    private static final Pattern LOADER =
            Pattern.compile(
                    "^\\s*\\d+:\\s+(\\d+)\\s+\\d+\\s+org\\.apache\\.flink\\.util\\."
                            + "(?:ChildFirstClassLoader|FlinkUserCodeClassLoaders\\$ParentFirstClassLoader)$",
                    Pattern.MULTILINE);

    private UserCodeLoaders() {}

    public static int reachable(FlinkProcess process) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        try {
            Process run =
                    new ProcessBuilder(
                                    jcmd.toString(),
                                    String.valueOf(process.pid()),
                                    "GC.class_histogram")
                            .redirectErrorStream(true)
                            .start();
            String histogram =
                    new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!run.waitFor(2, TimeUnit.MINUTES) || run.exitValue() != 0) {
                throw new IllegalStateException(
                        "jcmd GC.class_histogram of " + process + " failed: " + histogram);
            }
            int loaders = 0;
            Matcher m = LOADER.matcher(histogram);
            while (m.find()) {
                loaders += Integer.parseInt(m.group(1));
            }
            return loaders;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
