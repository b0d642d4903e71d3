package io.effonce.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Reads settings and credentials from the environment: {@code NAME}, or the first line of the file
 * named by {@code NAME_FILE}. Values are never logged.
 */
public final class Secrets {

    private Secrets() {}

    /** The value of {@code name} or of the file {@code name_FILE}, or {@code fallback}. */
    public static String fromEnv(Map<String, String> env, String name, String fallback) {
        String value = env.get(name);
        if (value != null && !value.isEmpty()) {
            return value;
        }
        String file = env.get(name + "_FILE");
        if (file != null && !file.isEmpty()) {
            return readFirstLine(Path.of(file), name + "_FILE");
        }
        return fallback;
    }

    /** The first line of {@code file}, without its line break. */
    public static String readFirstLine(Path file, String settingName) {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            int end = text.indexOf('\n');
            return (end < 0 ? text : text.substring(0, end)).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    settingName + " names " + file + ", which cannot be read: " + e.getMessage(),
                    e);
        }
    }
}
