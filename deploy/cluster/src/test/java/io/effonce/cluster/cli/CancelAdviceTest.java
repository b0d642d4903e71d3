package io.effonce.cluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What {@code cancel} says a new submit of the job is, by what the job left to resume from. */
class CancelAdviceTest {

    @Test
    void aJobWithACheckpointOfItsOwnResumesFromItsNewest() {
        assertThat(JobCommands.Cancel.resumeAdvice("file:/cp/chk-7", true, true))
                .startsWith("Its newest retained checkpoint is file:/cp/chk-7;")
                .contains("a new submit of the job is a restore from it")
                .endsWith("To resume it as it was submitted:");
    }

    @Test
    void aJobWithoutOneResumesFromTheSavepointItWasRestoredFromAndSaysSo() {
        assertThat(JobCommands.Cancel.resumeAdvice("file:/sp/savepoint-1", false, false))
                .startsWith(
                        "It completed no checkpoint of its own; it was restored from"
                                + " file:/sp/savepoint-1;")
                .doesNotContain("newest retained checkpoint")
                .endsWith(
                        "Resume it by submitting it again as before with -s file:/sp/savepoint-1.");
    }

    @Test
    void aJobWithNothingToResumeFromStartsAfresh() {
        assertThat(JobCommands.Cancel.resumeAdvice(null, false, true))
                .isEqualTo(
                        "It completed no checkpoint: submit it again as before to start it"
                                + " afresh:");
    }
}
