package io.effonce.it.testutils;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The runnable blocks of a README, in order: a fenced {@code bash} block preceded by {@code <!--
 * one-machine step -->} runs in the reader's working shell; one preceded by {@code <!-- one-machine
 * service, ready at: TEXT -->} runs in a shell of its own and is up once its output shows TEXT.
 */
public final class ReadmeSteps {

    /** One block as written: the command text, and the readiness text of a service. */
    public record Block(String script, String readyAt) {

        public boolean isService() {
            return readyAt != null;
        }
    }

    private static final Pattern BLOCK =
            Pattern.compile(
                    "<!-- one-machine (step|service, ready at: (.+?)) -->\\s*\\n```bash\\n(.*?)```",
                    Pattern.DOTALL);

    private ReadmeSteps() {}

    public static List<Block> of(Path readme) {
        String text;
        try {
            text = Files.readString(readme);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Block> blocks = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            blocks.add(new Block(m.group(3), m.group(2)));
        }
        return blocks;
    }
}
