package io.effonce.testing;

import io.effonce.credentials.PasswordFile;
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
            return PasswordFile.read(Path.of(file), name + "_FILE");
        }
        return fallback;
    }
}
