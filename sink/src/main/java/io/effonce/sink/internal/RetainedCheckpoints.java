package io.effonce.sink.internal;

import java.io.IOException;
import java.util.Collection;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * Finds the newest retained checkpoint that earlier owners of a sink's key groups left behind, so
 * that a refused fresh start can name the path to restore from. Flink keeps a job's retained
 * checkpoints in {@code <execution.checkpointing.dir>/<job id>/chk-<n>}, each complete one with a
 * {@code _metadata} file; the fence records owners as {@code <job id>/<run id>}.
 */
final class RetainedCheckpoints {

    private static final Pattern CHECKPOINT = Pattern.compile("chk-(\\d+)");

    private RetainedCheckpoints() {}

    /**
     * The newest complete checkpoint of any of {@code owners} under {@code checkpointsDir}, or
     * empty when there is none or the directory cannot be read (the refusal then names the
     * directory instead).
     */
    static Optional<String> newest(String checkpointsDir, Collection<String> owners) {
        Path newest = null;
        long newestId = -1;
        try {
            Path base = new Path(checkpointsDir);
            FileSystem fs = base.getFileSystem();
            for (String owner : owners) {
                String jobId = owner.contains("/") ? owner.substring(0, owner.indexOf('/')) : owner;
                Path jobDir = new Path(base, jobId);
                if (!fs.exists(jobDir)) {
                    continue;
                }
                for (FileStatus child : fs.listStatus(jobDir)) {
                    Matcher m = CHECKPOINT.matcher(child.getPath().getName());
                    if (m.matches()
                            && Long.parseLong(m.group(1)) > newestId
                            && fs.exists(new Path(child.getPath(), "_metadata"))) {
                        newestId = Long.parseLong(m.group(1));
                        newest = child.getPath();
                    }
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
        return Optional.ofNullable(newest).map(Path::toString);
    }
}
