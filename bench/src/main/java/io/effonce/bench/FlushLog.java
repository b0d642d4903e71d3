package io.effonce.bench;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The sink's restore-flush reports in the cluster's logs, the line each subtask writes when its
 * flush ends: remembers how long each log file was, then reads what was written after.
 */
final class FlushLog {

    private static final Pattern FLUSH =
            Pattern.compile(
                    "(Full \\(committed table too\\)|Full|Incremental) flush of \\S+ after restore"
                            + " from checkpoint (\\d+): \\d+"
                            + " rows tagged \\d+ or later, (\\d+) keys set from state, \\d+ stale"
                            + " keys deleted, in (\\d+) ms");

    /** What the subtasks' flushes after one restore did: modes, keys set in all, the longest. */
    record Flush(String modes, long keysSet, long millis, int subtasks) {
        @Override
        public String toString() {
            return subtasks == 0
                    ? "no flush report found in the logs"
                    : "%s flush by %d subtasks: %,d keys set, the longest %,d ms"
                            .formatted(modes, subtasks, keysSet, millis);
        }
    }

    private final Path dir;
    private final Map<Path, Long> lengths = new HashMap<>();

    private FlushLog(Path dir) {
        this.dir = dir;
        logFiles().forEach(f -> lengths.put(f, f.toFile().length()));
    }

    /** Marks the end of every log file in {@code dir} now. */
    static FlushLog from(Path dir) {
        return new FlushLog(dir);
    }

    /** The flushes after the restore from {@code checkpointId} logged since {@link #from}. */
    Flush flushSince(long checkpointId) {
        TreeSet<String> modes = new TreeSet<>();
        long keysSet = 0;
        long millis = 0;
        int subtasks = 0;
        for (Path file : logFiles()) {
            Matcher m = FLUSH.matcher(appended(file, lengths.getOrDefault(file, 0L)));
            while (m.find()) {
                if (Long.parseLong(m.group(2)) == checkpointId) {
                    modes.add(m.group(1));
                    keysSet += Long.parseLong(m.group(3));
                    millis = Math.max(millis, Long.parseLong(m.group(4)));
                    subtasks++;
                }
            }
        }
        return new Flush(String.join("+", modes), keysSet, millis, subtasks);
    }

    private List<Path> logFiles() {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String appended(Path file, long from) {
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            byte[] bytes = new byte[(int) Math.max(0, in.length() - from)];
            in.seek(from);
            in.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
