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
 * Finds the retained checkpoint that earlier owners of a sink's key groups left behind, so that a
 * refused fresh start can name the path to restore from. Flink keeps a job's retained checkpoints
 * in {@code <execution.checkpointing.dir>/<job id>/chk-<n>}, each complete one with a {@code
 * _metadata} file; the fence records owners as {@code <job id>/<run id>}.
 *
 * <p>A directory is not proof of whose checkpoint it is: in application mode with HA every
 * deployment has the job id {@code 00000000000000000000000000000000} and shares one directory. So
 * the pointer is checked against what the sink itself recorded for the range, the last checkpoint
 * it committed there: that one is named when retained; a newer one only when that one is gone (its
 * completion notice never reached the sink), and said to be unverified; an older one never
 * (restoring it would roll the totals back).
 */
final class RetainedCheckpoints {

    private static final Pattern CHECKPOINT = Pattern.compile("chk-(\\d+)");

    private RetainedCheckpoints() {}

    /**
     * A retained checkpoint to restore from.
     *
     * @param recorded whether it is the very checkpoint the sink last committed for the range
     */
    record Retained(String path, boolean recorded) {}

    /**
     * The checkpoint of {@code owners} under {@code checkpointsDir} to restore from, given that the
     * sink last committed {@code lastCommitted} (0: none) in the range; empty when there is none or
     * the directory cannot be read (the refusal then names the directory instead).
     */
    static Optional<Retained> toRestore(
            String checkpointsDir, Collection<String> owners, long lastCommitted) {
        Path recorded = null;
        Path newest = null;
        long newestId = lastCommitted;
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
                    if (!m.matches() || !fs.exists(new Path(child.getPath(), "_metadata"))) {
                        continue;
                    }
                    long id = Long.parseLong(m.group(1));
                    if (id == lastCommitted) {
                        recorded = child.getPath();
                    } else if (id > newestId) {
                        newestId = id;
                        newest = child.getPath();
                    }
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
        if (recorded != null) {
            return Optional.of(new Retained(recorded.toString(), true));
        }
        return Optional.ofNullable(newest).map(p -> new Retained(p.toString(), false));
    }
}
