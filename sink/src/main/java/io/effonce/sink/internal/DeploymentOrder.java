package io.effonce.sink.internal;

import java.util.OptionalLong;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;

/**
 * The order of a job's deployments, read from their runs' names. A run is named when the job's
 * graph is built ({@code <job id>/<run id>}); when the sink's database numbered the deployment then
 * (a sequence, so numbers grow in the order graphs were built, whatever the clocks), the run id is
 * {@code d<number>-<uuid>}. A run without a number is a bare UUID and is not ordered against
 * others.
 *
 * <p>Only the whole form is read as numbered: a bare UUID begins with eight hex digits, so about
 * one in 430 of them is {@code d} and seven decimal digits followed by {@code -}, and would be
 * taken for deployment seven-digit-something, older than every numbered one, and refused for good.
 */
@Internal
public final class DeploymentOrder {

    private static final String UUID_FORM = "\\p{XDigit}{8}(?:-\\p{XDigit}{4}){3}-\\p{XDigit}{12}";

    private static final Pattern NUMBERED = Pattern.compile("d(\\d{1,18})-" + UUID_FORM);

    private DeploymentOrder() {}

    /** A run id carrying deployment number {@code number}; {@code unique} is a UUID. */
    public static String runId(long number, UUID unique) {
        return "d" + number + "-" + unique;
    }

    /** The deployment number of {@code run}, if it has one. */
    public static OptionalLong of(String run) {
        // The run id follows the job id's slash (a UUID has none); a start reads it for every row
        // of the fence table, so the match is anchored there rather than searched for.
        String runId = run.substring(run.lastIndexOf('/') + 1);
        if (runId.isEmpty() || runId.charAt(0) != 'd') {
            return OptionalLong.empty();
        }
        Matcher m = NUMBERED.matcher(runId);
        return m.matches() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
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
