package io.effonce.k8s;

import io.effonce.cdc.RelayCli;
import io.effonce.cdc.RelayOptions;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * What the relay knows, asked of its own picocli model: its options and, for each, the environment
 * variables its description names (cdc-source README: "Each can also be set from the environment
 * variable in brackets").
 */
final class RelayFacts {

    private static final Pattern VARIABLE = Pattern.compile("\\bEFFONCE_[A-Z0-9_]+\\b");

    private RelayFacts() {}

    /** Every documented option: not hidden, not --help or --version. */
    static Set<String> options() {
        return new TreeSet<>(variablesByOption().keySet());
    }

    /** Every environment variable an option's description names. */
    static Set<String> variables() {
        Set<String> all = new TreeSet<>();
        variablesByOption().values().forEach(all::addAll);
        return all;
    }

    /** The variables an option's description names, e.g. --db-password-file: two. */
    static Set<String> variablesOf(String option) {
        return variablesByOption().getOrDefault(option, Set.of());
    }

    private static Map<String, Set<String>> variablesByOption() {
        Map<String, Set<String>> out = new TreeMap<>();
        for (OptionSpec option : new CommandLine(new RelayOptions()).getCommandSpec().options()) {
            if (option.hidden() || option.usageHelp() || option.versionHelp()) {
                continue;
            }
            Set<String> variables = new TreeSet<>();
            Matcher m = VARIABLE.matcher(String.join(" ", Arrays.asList(option.description())));
            while (m.find()) {
                variables.add(m.group());
            }
            out.put(option.longestName(), variables);
        }
        if (out.isEmpty()) {
            throw new IllegalStateException("RelayOptions declares no option");
        }
        return out;
    }

    /** Parses and validates as the relay's main does; throws with the relay's own message. */
    static RelayOptions parse(List<String> args, Map<String, String> env) {
        return RelayCli.parse(args.toArray(String[]::new), env);
    }
}
