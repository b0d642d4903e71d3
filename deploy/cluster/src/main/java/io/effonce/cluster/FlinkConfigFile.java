package io.effonce.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Flink 2.x {@code config.yaml} written with flat keys, one per line (as {@code
 * deploy/flink-conf/config.yaml} is). Values can be read and replaced in place, keeping the
 * comments, and the result written into a configuration directory together with the log4j files.
 */
public final class FlinkConfigFile {

    /** Where the module's copy of deploy/flink-conf lives on the class path. */
    public static final String RESOURCE_DIR = "/io/effonce/cluster/flink-conf/";

    static final List<String> LOG4J_FILES = List.of("log4j.properties", "log4j-console.properties");

    private static final Pattern ENTRY = Pattern.compile("^([A-Za-z0-9_.\\-]+):\\s*(.*)$");

    private final List<String> lines;

    private FlinkConfigFile(List<String> lines) {
        this.lines = new ArrayList<>(lines);
    }

    /** The project's cluster configuration, deploy/flink-conf/config.yaml. */
    public static FlinkConfigFile projectDefault() {
        return new FlinkConfigFile(resource("config.yaml").lines().toList());
    }

    /** Reads a config.yaml with flat keys. */
    public static FlinkConfigFile read(Path file) {
        try {
            return new FlinkConfigFile(Files.readAllLines(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The value of a key, with surrounding quotes removed, if the file sets it. */
    public Optional<String> get(String key) {
        for (String line : lines) {
            Matcher m = ENTRY.matcher(line);
            if (m.matches() && m.group(1).equals(key)) {
                return Optional.of(unquote(m.group(2).trim()));
            }
        }
        return Optional.empty();
    }

    /** Replaces the key's line, or appends one when the file does not set it. */
    public FlinkConfigFile set(String key, String value) {
        String line = key + ": " + quoteIfNeeded(value);
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = ENTRY.matcher(lines.get(i));
            if (m.matches() && m.group(1).equals(key)) {
                lines.set(i, line);
                return this;
            }
        }
        if (!lines.contains("# ---- Set for this cluster ----")) {
            lines.add("");
            lines.add("# ---- Set for this cluster ----");
        }
        lines.add(line);
        return this;
    }

    /** Sets every entry of the map, in its order. */
    public FlinkConfigFile setAll(Map<String, String> values) {
        values.forEach(this::set);
        return this;
    }

    /** The file's text. */
    public String text() {
        return String.join("\n", lines) + "\n";
    }

    /** Writes config.yaml and the project's log4j files into {@code confDir}. */
    public void writeTo(Path confDir) {
        try {
            Files.createDirectories(confDir);
            Files.writeString(confDir.resolve("config.yaml"), text());
            for (String name : LOG4J_FILES) {
                Files.writeString(confDir.resolve(name), resource(name));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String resource(String name) {
        try (InputStream in = FlinkConfigFile.class.getResourceAsStream(RESOURCE_DIR + name)) {
            if (in == null) {
                throw new IllegalStateException(
                        "Missing class path resource "
                                + RESOURCE_DIR
                                + name
                                + "; build deploy/cluster with Maven (it copies deploy/flink-conf)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String unquote(String v) {
        if (v.length() >= 2
                && ((v.startsWith("\"") && v.endsWith("\""))
                        || (v.startsWith("'") && v.endsWith("'")))) {
            return v.substring(1, v.length() - 1);
        }
        return v;
    }

    private static String quoteIfNeeded(String v) {
        boolean plain =
                !v.isEmpty()
                        && !v.contains(": ")
                        && !v.contains(" #")
                        && "!&*[]{}|>'\"%@`#,?".indexOf(v.charAt(0)) < 0
                        && !v.startsWith("- ");
        return plain ? v : "'" + v.replace("'", "''") + "'";
    }
}
