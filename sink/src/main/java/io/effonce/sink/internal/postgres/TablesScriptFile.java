package io.effonce.sink.internal.postgres;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.apache.flink.annotation.Internal;

/**
 * The script that creates a sink's tables, also written to a file where the refusal was found: a
 * message travels through Flink's exception history and the submit command's one line, which join
 * its lines; the file keeps them, ready for psql -f. The file is named by its content, so a start
 * refused on every restart of its task writes one file, not one per restart.
 */
@Internal
public final class TablesScriptFile {

    private TablesScriptFile() {}

    /** " It is also in the file F on host H." — or nothing, if no file could be written. */
    public static String note(String script) {
        try {
            Path file = write(Path.of(System.getProperty("java.io.tmpdir")), script);
            return " The script is also in the file "
                    + file.toAbsolutePath()
                    + " on "
                    + InetAddress.getLocalHost().getHostName()
                    + ".";
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /**
     * Writes {@code script} to {@code dir}, named by its digest, unless a regular file of that name
     * already holds it. Written beside and moved into place: a reader never sees half a script, and
     * a link planted under the name is replaced, never followed.
     */
    static Path write(Path dir, String script) throws IOException {
        String text = script.endsWith("\n") ? script : script + "\n";
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        Path file = dir.resolve("effonce-sink-tables-" + digest(bytes) + ".sql");
        if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
                && Files.size(file) == bytes.length
                && text.equals(Files.readString(file))) {
            return file;
        }
        Path written = Files.createTempFile(dir, "effonce-sink-tables-", ".part");
        try {
            Files.write(written, bytes);
            return Files.move(
                    written,
                    file,
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(written);
        }
    }

    private static String digest(byte[] bytes) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has SHA-256", e);
        }
    }
}
