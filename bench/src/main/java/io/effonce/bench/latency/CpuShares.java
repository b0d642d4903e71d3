package io.effonce.bench.latency;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What the machine was doing over an interval: the share of all cores each part of the stack used
 * (this JVM — relay, Kafka, workload —, PostgreSQL, Flink's JobManager and TaskManagers), what
 * everything else used, and the load average. Read from /proc (Linux), in clock ticks.
 */
final class CpuShares {

    static final String THIS_JVM = "this JVM (relay, Kafka, workload)";

    private final long machineBusy;
    private final long machineTotal;
    private final Map<String, Long> byPart;

    private CpuShares(long machineBusy, long machineTotal, Map<String, Long> byPart) {
        this.machineBusy = machineBusy;
        this.machineTotal = machineTotal;
        this.byPart = byPart;
    }

    static CpuShares now() throws IOException {
        String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        long idle = Long.parseLong(cpu[4]) + Long.parseLong(cpu[5]); // idle + iowait
        long total = 0;
        for (int i = 1; i < cpu.length && i <= 8; i++) { // user .. steal
            total += Long.parseLong(cpu[i]);
        }
        Map<String, Long> parts = new LinkedHashMap<>();
        parts.put(THIS_JVM, ticks(ProcessHandle.current()));
        // All processes, not descendants: pg_ctl leaves PostgreSQL to be adopted by init.
        try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
            all.filter(p -> p.pid() != ProcessHandle.current().pid())
                    .forEach(
                            p -> {
                                String part = part(p);
                                if (part != null) {
                                    parts.merge(part, ticks(p), Long::sum);
                                }
                            });
        }
        return new CpuShares(total - idle, total, parts);
    }

    /** Percent of all cores, per part and for everything outside the stack, since {@code from}. */
    String since(CpuShares from) throws IOException {
        double total = Math.max(1, machineTotal - from.machineTotal);
        long ours = 0;
        StringBuilder line = new StringBuilder();
        for (Map.Entry<String, Long> e : byPart.entrySet()) {
            long used = Math.max(0, e.getValue() - from.byPart.getOrDefault(e.getKey(), 0L));
            ours += used;
            line.append(String.format(", %s %.0f%%", e.getKey(), 100 * used / total));
        }
        long busy = machineBusy - from.machineBusy;
        String load = Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        return String.format(
                "machine %.0f%% busy%s, outside the stack %.0f%%; load average (1 min) %s",
                100 * busy / total, line, 100 * Math.max(0, busy - ours) / total, load);
    }

    private static String part(ProcessHandle p) {
        String command = commandLine(p);
        if (command.contains("TaskManagerRunner")) {
            return "Flink TaskManagers";
        }
        if (command.contains("ClusterEntrypoint")) {
            return "Flink JobManager";
        }
        if (command.startsWith("postgres") || command.contains("/bin/postgres")) {
            return "PostgreSQL";
        }
        return null; // not part of the stack
    }

    /** The process's arguments joined by spaces; empty once it is gone. */
    private static String commandLine(ProcessHandle p) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline"));
            return new String(raw, java.nio.charset.StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * User and system ticks of a process and of its children it has reaped (PostgreSQL's ended
     * backends); 0 once it is gone.
     */
    private static long ticks(ProcessHandle p) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // After the command: state is field 3, so utime (14) .. cstime (17) are 11..14 here.
            return Long.parseLong(f[11])
                    + Long.parseLong(f[12])
                    + Long.parseLong(f[13])
                    + Long.parseLong(f[14]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
