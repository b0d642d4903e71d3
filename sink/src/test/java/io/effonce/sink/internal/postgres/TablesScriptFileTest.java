package io.effonce.sink.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TablesScriptFileTest {

    @TempDir Path dir;

    @Test
    void aStartRefusedOnEveryRestartWritesOneFileForOneScript() throws Exception {
        Path first = TablesScriptFile.write(dir, "CREATE TABLE t (k TEXT);");
        Path again = TablesScriptFile.write(dir, "CREATE TABLE t (k TEXT);");
        Path other = TablesScriptFile.write(dir, "CREATE TABLE u (k TEXT);");

        assertThat(again).isEqualTo(first);
        assertThat(other).isNotEqualTo(first);
        assertThat(Files.readString(first)).isEqualTo("CREATE TABLE t (k TEXT);\n");
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files).containsExactlyInAnyOrder(first, other);
        }
    }

    @Test
    void aLinkPlantedUnderTheNameIsReplacedNotFollowed() throws Exception {
        Path name = TablesScriptFile.write(dir, "CREATE TABLE t (k TEXT);");
        Files.delete(name);
        Path target = Files.writeString(dir.resolve("elsewhere"), "untouched");
        Files.createSymbolicLink(name, target);

        Path written = TablesScriptFile.write(dir, "CREATE TABLE t (k TEXT);");

        assertThat(written).isEqualTo(name).isRegularFile();
        assertThat(Files.isSymbolicLink(written)).isFalse();
        assertThat(Files.readString(target)).isEqualTo("untouched");
        assertThat(Files.readString(written)).isEqualTo("CREATE TABLE t (k TEXT);\n");
    }
}
