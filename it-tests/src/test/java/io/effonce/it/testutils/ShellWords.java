package io.effonce.it.testutils;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/** A command line split into words by a real shell, as a reader who pastes it would run it. */
public final class ShellWords {

    private ShellWords() {}

    public static List<String> of(String command) throws IOException, InterruptedException {
        Process shell =
                new ProcessBuilder("sh", "-c", "printf '%s\\0' " + command)
                        .redirectErrorStream(true)
                        .start();
        byte[] out = shell.getInputStream().readAllBytes();
        if (shell.waitFor() != 0) {
            throw new IllegalStateException(
                    "sh did not read " + command + ": " + new String(out, StandardCharsets.UTF_8));
        }
        String words = new String(out, StandardCharsets.UTF_8);
        return Arrays.asList(words.substring(0, words.length() - 1).split("\0", -1));
    }
}
