package io.effonce.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * Parses a benchmark's flags with picocli, as every other command of the project: {@code --help}
 * prints the usage and exits 0; a wrong flag or value fails with picocli's message and the usage.
 */
public final class BenchFlags {

    private BenchFlags() {}

    /**
     * Fills the {@code @Option} fields of {@code flags} from {@code args}; returns {@code flags}.
     */
    public static <T> T parse(T flags, String[] args) {
        CommandLine line = new CommandLine(flags);
        try {
            line.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException(e.getMessage() + "\n" + line.getUsageMessage(), e);
        }
        if (line.isUsageHelpRequested() || line.isVersionHelpRequested()) {
            line.usage(System.out);
            System.exit(0);
        }
        return flags;
    }

    /** Flink settings from {@code --flink key=value,...}, in their order. */
    public static Map<String, String> flinkSettings(List<String> pairs) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            require(
                    eq > 0 && eq < pair.length() - 1,
                    "--flink takes key=value pairs, e.g. execution.checkpointing.interval=1s;"
                            + " got '"
                            + pair
                            + "'");
            settings.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        return settings;
    }

    /** {@code condition}, or an {@link IllegalArgumentException} naming the flag and the fix. */
    public static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
