package io.effonce.credentials;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How every component reads a password from a file (a mounted Secret, a file only its user can
 * read): the first line, without its line break or surrounding blanks, so a file written by {@code
 * echo} or from a Kubernetes literal works as it is. The password never appears in a message.
 */
public final class PasswordFile {

    private PasswordFile() {}

    /**
     * The password in {@code file}; {@code setting} names where the file came from (an option, a
     * variable) in the message when it cannot be read.
     */
    public static String read(Path file, String setting) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    setting + " names " + file + ", which cannot be read: " + e, e);
        }
        int end = text.indexOf('\n');
        return (end < 0 ? text : text.substring(0, end)).strip();
    }
}
