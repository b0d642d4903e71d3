package io.effonce.sink;

import io.effonce.credentials.PasswordFile;
import java.nio.file.Path;

/** Where a sink's password comes from, resolved in the task that logs in. */
final class PasswordSource {

    private PasswordSource() {}

    /** From the file if one is named, else the environment variable, else the given one. */
    static String resolve(String passwordFile, String passwordEnv, String password) {
        if (passwordFile != null) {
            return PasswordFile.read(Path.of(passwordFile), "The sink's password file setting");
        }
        if (passwordEnv != null) {
            String value = System.getenv(passwordEnv);
            if (value == null) {
                throw new IllegalStateException(
                        "The sink's password variable " + passwordEnv + " is not set in this task");
            }
            return value;
        }
        return password == null ? "" : password;
    }

    /** Refuses anything but exactly one source, saying what each is. */
    static void requireOne(String passwordFile, String passwordEnv, String password) {
        int sources =
                (passwordFile == null ? 0 : 1)
                        + (passwordEnv == null ? 0 : 1)
                        + (password == null ? 0 : 1);
        if (sources != 1) {
            throw new IllegalArgumentException(
                    "Set exactly one password source: passwordFile(...) (a file whose first line is"
                            + " the password), passwordEnv(...) (an environment variable of the"
                            + " tasks) or password(...) (tests, embedded databases); "
                            + (sources == 0 ? "none was set" : sources + " were set"));
        }
    }
}
