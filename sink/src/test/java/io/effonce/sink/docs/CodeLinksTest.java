package io.effonce.sink.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The project's Markdown links into the code stay true: every linked source file exists, and a link
 * to a line ({@code [`text`](Some.java#L42)}) lands on a line that holds its text. A renamed file
 * or a moved line fails here, and the message says where the text is now.
 */
class CodeLinksTest {

    private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK =
            Pattern.compile("\\[([^\\]]+)\\]\\(([^)#\\s]+\\.java)(?:#L(\\d+))?\\)");

    @Test
    void everyLinkToTheCodeLandsWhereItSays() throws IOException {
        List<String> wrong = new ArrayList<>();
        int anchored = 0;
        for (Path doc : markdown()) {
            String text = Files.readString(doc, StandardCharsets.UTF_8);
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                String where = REPOSITORY.relativize(doc) + " links " + link.group(0);
                Path target = doc.getParent().resolve(link.group(2)).normalize();
                if (!Files.isRegularFile(target)) {
                    wrong.add(where + ": no such file");
                } else if (link.group(3) != null) {
                    anchored++;
                    check(where, target, link.group(1), Integer.parseInt(link.group(3)), wrong);
                }
            }
        }
        assertThat(wrong).as("links into the code that no longer hold").isEmpty();
        assertThat(anchored)
                .as("links to a line of code (README's code map has some)")
                .isPositive();
    }

    private static void check(
            String where, Path target, String linkText, int line, List<String> wrong)
            throws IOException {
        String expected = linkText.replace("`", "").trim();
        List<String> lines = Files.readAllLines(target, StandardCharsets.UTF_8);
        if (line <= lines.size() && lines.get(line - 1).contains(expected)) {
            return;
        }
        List<Integer> now = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(expected)) {
                now.add(i + 1);
            }
        }
        wrong.add(
                where
                        + ": line "
                        + line
                        + " does not hold '"
                        + expected
                        + "'"
                        + (now.isEmpty() ? "; no line does" : "; it is on line(s) " + now));
    }

    private static List<Path> markdown() throws IOException {
        try (Stream<Path> files = Files.walk(REPOSITORY)) {
            return files.filter(p -> p.toString().endsWith(".md"))
                    .filter(
                            p ->
                                    Stream.of("target", ".git", "node_modules")
                                            .noneMatch(
                                                    skip ->
                                                            REPOSITORY
                                                                    .relativize(p)
                                                                    .toString()
                                                                    .contains(skip)))
                    .sorted()
                    .toList();
        }
    }
}
