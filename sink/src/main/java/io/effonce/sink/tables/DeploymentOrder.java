package io.effonce.sink.tables;

import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;

/**
 * The order of a job's deployments, read from their runs' names. A run is named when the job's
 * graph is built ({@code <job id>/<run id>}); when the sink's database numbered the deployment then
 * (a sequence, so numbers grow in the order graphs were built, whatever the clocks), the run id
 * starts with {@code d<number>-}. A run without a number is not ordered against others.
 */
@Internal
public final class DeploymentOrder {

    private static final Pattern NUMBERED = Pattern.compile("(?:^|/)d(\\d+)-[^/]*$");

    private DeploymentOrder() {}

    /** A run id carrying deployment number {@code number}. */
    public static String runId(long number, String unique) {
        return "d" + number + "-" + unique;
    }

    /** The deployment number of {@code run}, if it has one. */
    public static OptionalLong of(String run) {
        Matcher m = NUMBERED.matcher(run);
        return m.find() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
    }

    /**
     * Whether {@code run} was deployed after {@code than}: both numbered, and its number larger.
     */
    public static boolean later(String run, String than) {
        OptionalLong a = of(run);
        OptionalLong b = of(than);
        return a.isPresent() && b.isPresent() && a.getAsLong() > b.getAsLong();
    }
}
