package io.effonce.it.testutils;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names of deploy/prometheus/README.md's table ("The metrics that matter"): every name
 * in backticks in a row's first cell, except the patterns ({@code …}, {@code <REASON>}), whose
 * series appear only with the first event of their kind.
 */
public final class MetricTable {

    public static final Path README = Path.of("..", "deploy", "prometheus", "README.md");

    private static final Pattern NAME = Pattern.compile("`([^`]+)`");

    private MetricTable() {}

    public static List<String> names() throws IOException {
        List<String> names = new ArrayList<>();
        boolean inTable = false;
        for (String line : Files.readAllLines(README)) {
            if (line.startsWith("## ")) {
                inTable = line.equals("## The metrics that matter");
                continue;
            }
            if (!inTable || !line.startsWith("| `")) {
                continue;
            }
            Matcher m = NAME.matcher(line.split("\\|")[1]);
            while (m.find()) {
                String name = m.group(1);
                if (!name.contains("…") && !name.contains("<")) {
                    names.add(name);
                }
            }
        }
        return names;
    }
}
