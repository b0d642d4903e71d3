package io.effonce.cdc;

import java.util.Map;
import java.util.Properties;

/** Test-side access to package-private parts, for the benchmark in another package. */
public final class RelayTestAccess {

    private RelayTestAccess() {}

    /** Parses options as the main does. */
    public static RelayOptions options(String[] args, Map<String, String> env) {
        return RelayCli.parse(args, env);
    }

    /** The engine properties the relay would use, for a raw engine with the same settings. */
    public static Properties engineProperties(RelayOptions options) {
        return EngineConfig.properties(options, new Preflight.Findings(true));
    }
}
