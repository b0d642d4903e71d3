package io.effonce.cdc;

import java.util.Map;
import java.util.Properties;

/** The relay benchmark's access to package-private parts (this file shares the relay's package). */
public final class RelayBenchAccess {

    private RelayBenchAccess() {}

    /** Parses options as the main does. */
    public static RelayOptions options(String[] args, Map<String, String> env) {
        return RelayCli.parse(args, env);
    }

    /**
     * The engine properties the relay would use, for a raw engine with the same settings: what the
     * relay's preflight finds decides them, as in the relay.
     */
    public static Properties engineProperties(RelayOptions options) {
        return EngineConfig.properties(options, Preflight.check(options));
    }
}
