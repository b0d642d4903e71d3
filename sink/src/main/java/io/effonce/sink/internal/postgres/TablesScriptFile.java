package io.effonce.sink.internal.postgres;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.annotation.Internal;

/**
 * The script that creates a sink's tables, also written to a file where the refusal was found: a
 * message travels through Flink's exception history and the submit command's one line, which join
 * its lines; the file keeps them, ready for psql -f.
 */
@Internal
public final class TablesScriptFile {

    private TablesScriptFile() {}

    /** " It is also in the file F on host H." — or nothing, if no file could be written. */
    public static String note(String script) {
        try {
            Path file = Files.createTempFile("effonce-sink-tables-", ".sql");
            Files.writeString(file, script.endsWith("\n") ? script : script + "\n");
            return " The script is also in the file "
                    + file.toAbsolutePath()
                    + " on "
                    + InetAddress.getLocalHost().getHostName()
                    + ".";
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
