package io.effonce.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PasswordFileTest {

    @TempDir Path dir;

    @Test
    void thePasswordIsTheFirstLineWithoutItsLineBreak() throws Exception {
        Path echoed = Files.writeString(dir.resolve("echoed"), "s3cret\n");
        Path crlf = Files.writeString(dir.resolve("crlf"), "  s3cret \r\nsecond line\n");
        Path bare = Files.writeString(dir.resolve("bare"), "s3cret");

        assertThat(PasswordFile.read(echoed, "--password-file")).isEqualTo("s3cret");
        assertThat(PasswordFile.read(crlf, "--password-file")).isEqualTo("s3cret");
        assertThat(PasswordFile.read(bare, "--password-file")).isEqualTo("s3cret");
    }

    @Test
    void anUnreadableFileIsNamedWithTheSettingThatNamedIt() {
        Path missing = dir.resolve("missing");

        assertThatThrownBy(() -> PasswordFile.read(missing, "--db-password-file"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "--db-password-file names " + missing + ", which cannot be read");
    }
}
