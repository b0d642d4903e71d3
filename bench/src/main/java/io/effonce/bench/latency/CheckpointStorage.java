package io.effonce.bench.latency;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * What the cluster's checkpoint directory holds: the files its retained checkpoints refer to, the
 * storage price of the checkpoint interval.
 */
record CheckpointStorage(long bytes, long files) {

    /** The directory's files now; a file Flink deletes while it is read is left out. */
    static CheckpointStorage of(Path dir) throws IOException {
        long[] sum = new long[2];
        Files.walkFileTree(
                dir,
                new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                        sum[0] += attributes.size();
                        sum[1]++;
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException gone) {
                        return FileVisitResult.CONTINUE;
                    }
                });
        return new CheckpointStorage(sum[0], sum[1]);
    }

    @Override
    public String toString() {
        return String.format("%.1f MiB in %,d files", bytes / 1048576.0, files);
    }
}
