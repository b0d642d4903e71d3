package io.effonce.local.cli;

import io.effonce.credentials.PasswordFile;
import io.effonce.local.LocalCli;
import io.effonce.testing.PostgresEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code role-password}: gives one of the project's roles the password in a file, creating the file
 * with a random password first if it does not exist — the file is then what the component logging
 * in as that role reads ({@code --db-password-file}, {@code --postgres.password-file}).
 */
@Command(
        name = "role-password",
        mixinStandardHelpOptions = true,
        version = "effonce-local 0.1.0-SNAPSHOT",
        description = {
            "Sets ROLE's password (ALTER ROLE, as the superuser EFFONCE_PG_USER) to the first line"
                    + " of FILE. A FILE that does not exist is created first, readable by you only,"
                    + " with a random password. The password is never printed."
        })
public final class RolePasswordCommand implements Callable<Integer> {

    private static final Pattern ROLE = Pattern.compile("effonce_[a-z_]+");

    @ParentCommand private LocalCli parent;
    @Spec private CommandSpec spec;

    @Parameters(
            index = "0",
            paramLabel = "ROLE",
            description = "One of roles.sql's roles, e.g. effonce_relay or effonce_sink.")
    private String role;

    @Parameters(index = "1", paramLabel = "FILE", description = "The password file.")
    private Path file;

    @Override
    public Integer call() {
        if (!ROLE.matcher(role).matches()) {
            throw new ParameterException(
                    spec.commandLine(),
                    "ROLE must be one of roles.sql's roles (effonce_...), not '" + role + "'");
        }
        // The database first: a missing EFFONCE_PG_URL fails before a file is written.
        PostgresEndpoint db = parent.database();
        boolean created = !Files.exists(file);
        if (created) {
            writeRandomPassword(file);
        }
        db.withPasswordFor(role, PasswordFile.read(file, "FILE"));
        spec.commandLine()
                .getOut()
                .println(
                        "Set the password of "
                                + role
                                + " to the one in "
                                + file
                                + (created ? " (a new random password, file mode 600)" : ""));
        return 0;
    }

    private static void writeRandomPassword(Path file) {
        byte[] secret = new byte[18];
        new SecureRandom().nextBytes(secret);
        try {
            Path parentDir = file.toAbsolutePath().getParent();
            Files.createDirectories(parentDir);
            Files.createFile(
                    file,
                    PosixFilePermissions.asFileAttribute(
                            Set.copyOf(PosixFilePermissions.fromString("rw-------"))));
            Files.writeString(file, HexFormat.of().formatHex(secret) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the password file " + file, e);
        }
    }
}
