package io.effonce.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Where a run's JVM spent its CPU, read from Linux's {@code /proc/<pid>/task/<tid>/stat} just
 * before the run stops: the JIT compiler and the garbage collector by themselves, then every thread
 * by its name (a subtask's threads summed; Linux keeps 15 characters of a name). A profile of each
 * part for every run, taken the same way for every system; empty where there is no {@code /proc}.
 */
final class CpuByThread {

    private static final double TICKS_PER_SECOND = 100; // USER_HZ on every Linux of note

    private static final int NAMED = 6;

    private CpuByThread() {}

    /** One line: the process's CPU seconds, then its parts, largest first. */
    static Optional<String> of(ProcessHandle process) {
        Path tasks = Path.of("/proc", Long.toString(process.pid()), "task");
        if (!Files.isDirectory(tasks)) {
            return Optional.empty();
        }
        Map<String, Double> seconds = new HashMap<>();
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : threads.toList()) {
                read(thread.resolve("stat"))
                        .ifPresent(t -> seconds.merge(part(t.name()), t.seconds(), Double::sum));
            }
        } catch (IOException e) {
            return Optional.empty(); // the process ended while it was read
        }
        double total = seconds.values().stream().mapToDouble(Double::doubleValue).sum();
        List<Map.Entry<String, Double>> largest =
                seconds.entrySet().stream()
                        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                        .toList();
        double named = largest.stream().limit(NAMED).mapToDouble(Map.Entry::getValue).sum();
        String parts =
                largest.stream()
                        .limit(NAMED)
                        .map(e -> "%s %.1f".formatted(e.getKey(), e.getValue()))
                        .collect(Collectors.joining(", "));
        return Optional.of("CPU %.1f s: %s, the rest %.1f".formatted(total, parts, total - named));
    }

    private record ThreadTime(String name, double seconds) {}

    private static Optional<ThreadTime> read(Path stat) {
        try {
            String line = Files.readString(stat);
            // pid (name) state ppid ... utime stime: the name may hold spaces and parentheses.
            String name = line.substring(line.indexOf('(') + 1, line.lastIndexOf(')'));
            String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            return Optional.of(new ThreadTime(name, ticks / TICKS_PER_SECOND));
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // the thread ended while it was read
        }
    }

    /**
     * The part a thread belongs to: the JIT, the collector, the start-up, else its name without
     * numbers.
     */
    static String part(String threadName) {
        if (threadName.contains("CompilerThre")) {
            return "JIT";
        }
        if (threadName.startsWith("GC Thread")
                || threadName.startsWith("G1 ")
                || threadName.equals("VM Thread")) {
            return "GC";
        }
        if (threadName.equals("java")) {
            return "main"; // the launcher's thread, which runs main(): the start-up
        }
        return threadName.replaceAll("[0-9]+", "").strip();
    }
}
