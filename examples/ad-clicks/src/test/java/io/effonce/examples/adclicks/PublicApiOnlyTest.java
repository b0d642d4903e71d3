package io.effonce.examples.adclicks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.annotation.PublicEvolving;
import org.junit.jupiter.api.Test;

/**
 * The example is a job any Flink user could write: what it takes from effonce is the sink's public
 * API, nothing internal and nothing of the ledger job.
 */
class PublicApiOnlyTest {

    private static final Pattern IMPORT =
            Pattern.compile("^import (io\\.effonce\\.[\\w.]+);", Pattern.MULTILINE);

    @Test
    void theExampleImportsOnlyTheSinksPublicApi() throws Exception {
        List<String> imported = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("src", "main", "java"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                Matcher m = IMPORT.matcher(Files.readString(file));
                while (m.find()) {
                    imported.add(m.group(1));
                }
            }
        }
        assertThat(imported).as("the example uses the sink").isNotEmpty();
        for (String name : imported) {
            assertThat(name).as("an effonce import").startsWith("io.effonce.sink.");
            assertThat(Class.forName(name).isAnnotationPresent(PublicEvolving.class))
                    .as("%s is the sink's public API", name)
                    .isTrue();
        }
    }
}
