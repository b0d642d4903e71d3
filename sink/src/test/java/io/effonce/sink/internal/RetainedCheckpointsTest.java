package io.effonce.sink.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pointer a refused fresh start gives, checked against what the sink recorded. */
class RetainedCheckpointsTest {

    private static final String OLD_JOB = "3f5a0c2e9d1b4a7c8e6f0a1b2c3d4e5f";
    private static final String ZERO_JOB = "00000000000000000000000000000000";

    @TempDir Path dir;

    @Test
    void namesTheCheckpointTheSinkLastCommittedWhenItIsRetained() throws IOException {
        checkpoint(OLD_JOB, 4, true);
        checkpoint(OLD_JOB, 12, true);
        checkpoint(OLD_JOB, 13, false); // in progress when the job died: no _metadata
        checkpoint("ffffffffffffffffffffffffffffffff", 99, true); // not an owner of these groups
        Files.createDirectories(dir.resolve(OLD_JOB).resolve("shared"));

        assertThat(RetainedCheckpoints.toRestore(dir.toUri().toString(), owners(OLD_JOB), 12))
                .hasValueSatisfying(
                        r -> {
                            assertThat(r.path()).endsWith(OLD_JOB + "/chk-12");
                            assertThat(r.recorded()).isTrue();
                        });
    }

    /**
     * In application mode with HA every deployment has the zero job id and shares its directory: a
     * newer checkpoint there may be another deployment's. Following it would mix two timelines.
     */
    @Test
    void aNewerCheckpointInASharedDirectoryDoesNotHideTheRecordedOne() throws IOException {
        checkpoint(ZERO_JOB, 30, true); // what the sink committed last for these key groups
        checkpoint(ZERO_JOB, 57, true); // another deployment's, under the same job id

        assertThat(RetainedCheckpoints.toRestore(dir.toString(), owners(ZERO_JOB), 30))
                .hasValueSatisfying(r -> assertThat(r.path()).endsWith(ZERO_JOB + "/chk-30"))
                .hasValueSatisfying(r -> assertThat(r.recorded()).isTrue());
    }

    @Test
    void aNewerCheckpointIsNamedUnverifiedOnlyWhenTheRecordedOneIsGone() throws IOException {
        checkpoint(OLD_JOB, 9, true); // older than the sink's last commit: never named
        checkpoint(OLD_JOB, 11, true); // completed; its notice never reached the sink

        assertThat(RetainedCheckpoints.toRestore(dir.toString(), owners(OLD_JOB), 10))
                .hasValueSatisfying(r -> assertThat(r.path()).endsWith(OLD_JOB + "/chk-11"))
                .hasValueSatisfying(r -> assertThat(r.recorded()).isFalse());
    }

    @Test
    void isEmptyWhenNoCompleteCheckpointAsNewAsTheRecordIsLeft() throws IOException {
        checkpoint(OLD_JOB, 3, false);
        checkpoint(OLD_JOB, 2, true);

        assertThat(RetainedCheckpoints.toRestore(dir.toString(), owners(OLD_JOB), 3)).isEmpty();
        assertThat(
                        RetainedCheckpoints.toRestore(
                                dir.resolve("absent").toString(), owners(OLD_JOB), 0))
                .isEmpty();
    }

    private static List<String> owners(String jobId) {
        return List.of(jobId + "/run-1");
    }

    private void checkpoint(String jobId, long id, boolean complete) throws IOException {
        Path chk = Files.createDirectories(dir.resolve(jobId).resolve("chk-" + id));
        if (complete) {
            Files.writeString(chk.resolve("_metadata"), "metadata");
        }
    }
}
