package io.effonce.it.testutils;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.cluster.JobSubmission;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The resume command {@code flink-local cancel} prints is, read by a shell, the submission. */
class ShellWordsTest {

    @Test
    void aPrintedSubmitCommandIsTheSubmissionWordForWord() throws Exception {
        List<String> args =
                List.of("--postgres.url", "jdbc:postgresql://h:5432/db?a=1&b=2", "it's $HOME", "");
        JobSubmission job =
                new JobSubmission(
                        Path.of("/jars/a job.jar"),
                        "io.example.Job",
                        args,
                        2,
                        "file:/ck/chk-7",
                        true);
        List<String> words = ShellWords.of(job.asCommand("/bin/flink-local", Path.of("/work dir")));
        List<String> expected =
                new ArrayList<>(
                        List.of(
                                "/bin/flink-local",
                                "--work-dir",
                                "/work dir",
                                "submit",
                                "/jars/a job.jar",
                                "--class",
                                "io.example.Job",
                                "--parallelism",
                                "2",
                                "-s",
                                "file:/ck/chk-7",
                                "--allow-non-restored-state",
                                "--wait",
                                "--"));
        expected.addAll(args);
        assertThat(words).containsExactlyElementsOf(expected);
    }
}
