package io.effonce.local.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code --env-file}: the environment a local service prints ("In another shell: export ..."), also
 * written to a file that other shells {@code source}: the service's port is then given once, where
 * it starts.
 */
final class EnvFile {

    @Option(
            names = "--env-file",
            paramLabel = "FILE",
            description =
                    "Also write the export lines to FILE (readable by you only) once up, for"
                            + " `source FILE` in other shells.")
    private Path file;

    /** Writes {@code export NAME=value} lines to the file, readable by its owner only, if given. */
    void write(Map<String, String> variables) {
        if (file == null) {
            return;
        }
        StringBuilder text = new StringBuilder();
        variables.forEach(
                (name, value) ->
                        text.append("export ").append(name).append('=').append(value).append('\n'));
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            Files.deleteIfExists(file);
            Files.createFile(
                    file,
                    PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rw-------")));
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
    }
}
