package io.effonce.sink.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetainedCheckpointsTest {

    private static final String OLD_JOB = "3f5a0c2e9d1b4a7c8e6f0a1b2c3d4e5f";
    private static final String OTHER_JOB = "00000000000000000000000000000000";

    @TempDir Path dir;

    @Test
    void namesTheNewestCompleteCheckpointOfThePreviousOwners() throws IOException {
        checkpoint(OLD_JOB, 4, true);
        checkpoint(OLD_JOB, 12, true);
        checkpoint(OLD_JOB, 13, false); // in progress when the job died: no _metadata
        checkpoint(OTHER_JOB, 99, true); // not an owner of these key groups
        Files.createDirectories(dir.resolve(OLD_JOB).resolve("shared"));

        assertThat(RetainedCheckpoints.newest(dir.toUri().toString(), List.of(OLD_JOB + "/run-1")))
                .hasValueSatisfying(path -> assertThat(path).endsWith(OLD_JOB + "/chk-12"));
    }

    @Test
    void comparesCheckpointIdsAsNumbersAcrossOwners() throws IOException {
        checkpoint(OLD_JOB, 9, true);
        checkpoint(OTHER_JOB, 10, true);

        assertThat(
                        RetainedCheckpoints.newest(
                                dir.toString(), List.of(OLD_JOB + "/a", OTHER_JOB + "/b")))
                .hasValueSatisfying(path -> assertThat(path).endsWith(OTHER_JOB + "/chk-10"));
    }

    @Test
    void isEmptyWhenThePreviousOwnersLeftNoCompleteCheckpoint() throws IOException {
        checkpoint(OLD_JOB, 3, false);

        assertThat(RetainedCheckpoints.newest(dir.toString(), List.of(OLD_JOB + "/run"))).isEmpty();
        assertThat(RetainedCheckpoints.newest(dir.resolve("absent").toString(), List.of(OLD_JOB)))
                .isEmpty();
    }

    private void checkpoint(String jobId, long id, boolean complete) throws IOException {
        Path chk = Files.createDirectories(dir.resolve(jobId).resolve("chk-" + id));
        if (complete) {
            Files.writeString(chk.resolve("_metadata"), "metadata");
        }
    }
}
