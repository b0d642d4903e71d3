package io.effonce.cluster;

/**
 * The one line a person needs from a failure Flink reports as a stack trace (a job's exception
 * history, a failed jar run): the message of the innermost cause, without its class name.
 */
public final class FailureText {

    private static final String CAUSED_BY = "Caused by: ";

    private FailureText() {}

    public static String rootMessage(String trace) {
        String root = null;
        for (String line : trace.lines().toList()) {
            String t = line.strip();
            if (t.startsWith(CAUSED_BY)) {
                root = t.substring(CAUSED_BY.length());
            } else if (root == null && !t.isEmpty()) {
                root = t;
            }
        }
        if (root == null) {
            return trace.strip();
        }
        int colon = root.indexOf(": ");
        if (colon > 0 && root.substring(0, colon).matches("[\\w.$\\[\\]]+")) {
            root = root.substring(colon + 2);
        }
        return root;
    }
}
