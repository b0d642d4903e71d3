package io.effonce.cdc;

import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Takes an option's default from the environment: {@code --db-url} from {@code EFFONCE_PG_URL},
 * {@code --db-user} from {@code EFFONCE_PG_USER}, {@code --kafka-bootstrap} from {@code
 * EFFONCE_KAFKA_BOOTSTRAP}, {@code --topic-prefix} from {@code EFFONCE_TOPIC_PREFIX}, and any other
 * {@code --some-option} from {@code EFFONCE_RELAY_SOME_OPTION}. A value on the command line wins.
 */
final class EnvDefaults implements IDefaultValueProvider {

    private static final Map<String, String> SHARED =
            Map.of(
                    "--db-url", "EFFONCE_PG_URL",
                    "--db-user", "EFFONCE_PG_USER",
                    "--db-password-file", "EFFONCE_PG_PASSWORD_FILE",
                    "--kafka-bootstrap", "EFFONCE_KAFKA_BOOTSTRAP",
                    "--topic-prefix", "EFFONCE_TOPIC_PREFIX");

    private final Map<String, String> env;

    EnvDefaults(Map<String, String> env) {
        this.env = env;
    }

    /** The environment variable that sets {@code longName}, e.g. {@code EFFONCE_RELAY_SLOT}. */
    static String variable(String longName) {
        String shared = SHARED.get(longName);
        if (shared != null) {
            return shared;
        }
        return "EFFONCE_RELAY_" + longName.substring(2).replace('-', '_').toUpperCase(Locale.ROOT);
    }

    @Override
    public String defaultValue(ArgSpec argSpec) {
        if (!(argSpec instanceof OptionSpec option)
                || option.hidden()
                || option.isMultiValue()
                || option.usageHelp()
                || option.versionHelp()) {
            return null;
        }
        String value = env.get(variable(option.longestName()));
        return value == null || value.isEmpty() ? null : value;
    }
}
