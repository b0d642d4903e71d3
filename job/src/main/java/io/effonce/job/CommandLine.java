package io.effonce.job;

import io.effonce.dedup.DedupOptions;
import io.effonce.sink.FlushableSinkOptions;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.description.Description;
import org.apache.flink.configuration.description.HtmlFormatter;

/**
 * Reads {@code --key value} (or {@code --key=value}) arguments into a Flink {@link Configuration}
 * and prints every option with its default and description for {@code --help}. Unknown keys are
 * refused, naming the key, so a typo never runs with a default.
 */
public final class CommandLine {

    /** Every option class whose options the job reads. */
    static final List<Class<?>> OPTION_CLASSES =
            List.of(JobOptions.class, DedupOptions.class, FlushableSinkOptions.class);

    private CommandLine() {}

    public static boolean wantsHelp(String[] args) {
        for (String a : args) {
            if (a.equals("--help") || a.equals("-h")) {
                return true;
            }
        }
        return false;
    }

    static Configuration parse(String[] args) {
        return parse(args, OPTION_CLASSES);
    }

    /** The same, for a command that reads the options of {@code optionClasses}. */
    public static Configuration parse(String[] args, List<Class<?>> optionClasses) {
        Map<String, ConfigOption<?>> known = knownOptions(optionClasses);
        Configuration config = new Configuration();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException(
                        "Unexpected argument '" + arg + "'; options look like --key value");
            }
            String key = arg.substring(2);
            String value;
            int eq = key.indexOf('=');
            if (eq >= 0) {
                value = key.substring(eq + 1);
                key = key.substring(0, eq);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new IllegalArgumentException("Option --" + key + " needs a value");
            }
            if (JobOptions.REMOVED.containsKey(key)) {
                throw new IllegalArgumentException(
                        "Option --" + key + " " + JobOptions.REMOVED.get(key));
            }
            if (!known.containsKey(key) && !isDeprecatedKey(known, key)) {
                throw new IllegalArgumentException(
                        "Unknown option --" + key + "; run with --help to list the options");
            }
            config.setString(key, value);
        }
        return config;
    }

    private static boolean isDeprecatedKey(Map<String, ConfigOption<?>> known, String key) {
        for (ConfigOption<?> option : known.values()) {
            for (var fallback : option.fallbackKeys()) {
                if (fallback.getKey().equals(key)) {
                    return true;
                }
            }
        }
        return false;
    }

    static String help() {
        return help(
                "LedgerTotalsJob --kafka.bootstrap-servers HOST:PORT --postgres.url URL",
                OPTION_CLASSES);
    }

    /** Usage and every option of {@code optionClasses} with its default and description. */
    public static String help(String usage, List<Class<?>> optionClasses) {
        StringBuilder out = new StringBuilder();
        out.append("Usage: ")
                .append(usage)
                .append(
                        " [--option value ...]\n\nOptions (also readable from Flink's config.yaml):\n");
        knownOptions(optionClasses)
                .forEach(
                        (key, option) ->
                                out.append(
                                        String.format(
                                                "  --%s%n      %s%n      default: %s%n",
                                                key,
                                                text(option.description()),
                                                option.hasDefaultValue()
                                                        ? option.defaultValue()
                                                        : "(none)")));
        return out.toString();
    }

    /** A Flink option description as plain text (Flink formats them for its HTML docs). */
    static String text(Description description) {
        String html = new HtmlFormatter().format(description);
        return html.replaceAll("<[^>]+>", "")
                .replace("&quot;", "\"")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&#39;", "'")
                .replace("&amp;", "&");
    }

    static Map<String, ConfigOption<?>> knownOptions() {
        return knownOptions(OPTION_CLASSES);
    }

    private static Map<String, ConfigOption<?>> knownOptions(List<Class<?>> optionClasses) {
        Map<String, ConfigOption<?>> options = new TreeMap<>();
        for (Class<?> type : optionClasses) {
            for (ConfigOption<?> option : optionsOf(type)) {
                options.put(option.key(), option);
            }
        }
        return options;
    }

    private static List<ConfigOption<?>> optionsOf(Class<?> type) {
        List<ConfigOption<?>> options = new ArrayList<>();
        for (Field f : type.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == ConfigOption.class) {
                try {
                    options.add((ConfigOption<?>) f.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return options;
    }
}
