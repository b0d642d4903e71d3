package io.effonce.cluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code submit --wait} knows a job whose main checked nothing, however the flag is written. */
class SubmitWaitTest {

    @Test
    void theStartupCheckSwitchedOffIsSeenInEitherFormAndTheLastOneCounts() {
        assertThat(checkedNothing("--kafka.topic", "t", "--startup-check", "false")).isTrue();
        assertThat(checkedNothing("--startup-check=FALSE")).isTrue();
        assertThat(checkedNothing("--startup-check", "false", "--startup-check", "true")).isFalse();
        assertThat(checkedNothing("--startup-check=true")).isFalse();
        assertThat(checkedNothing("--kafka.topic", "t")).isFalse();
    }

    private static boolean checkedNothing(String... args) {
        JobCommands.Submit submit = new JobCommands.Submit();
        submit.args = List.of(args);
        return submit.mainCheckedNothing();
    }
}
