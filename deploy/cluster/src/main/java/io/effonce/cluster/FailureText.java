package io.effonce.cluster;

import java.util.ArrayList;
import java.util.List;

/**
 * The one line a person needs from a failure Flink reports as a stack trace (a job's exception
 * history, a failed jar run): the innermost cause's message, or the innermost wrapper of it that
 * adds to it (a driver's "relation does not exist" inside the sink's "… apply
 * deploy/sql/sink.sql"), without class names.
 */
public final class FailureText {

    private static final String CAUSED_BY = "Caused by: ";

    private FailureText() {}

    public static String rootMessage(String trace) {
        List<String> messages = new ArrayList<>();
        boolean inMessage = false;
        for (String line : trace.lines().toList()) {
            String t = line.strip();
            if (t.startsWith(CAUSED_BY)) {
                messages.add(withoutClassName(t.substring(CAUSED_BY.length())));
                inMessage = true;
            } else if (t.startsWith("at ")
                    || t.startsWith("... ")
                    || t.isEmpty()
                    || t.equals("]")) {
                // "]" ends the REST answer's list of errors, after a cause without frames.
                inMessage = false;
            } else if (messages.isEmpty()) {
                messages.add(withoutClassName(t));
                inMessage = true;
            } else if (inMessage) {
                // A message of several lines (a server's "Position: 128" after its error).
                int last = messages.size() - 1;
                messages.set(last, messages.get(last) + " " + t);
            }
        }
        if (messages.isEmpty()) {
            return trace.strip();
        }
        String root = messages.get(messages.size() - 1);
        for (int i = messages.size() - 2; i >= 0; i--) {
            String wrapper = messages.get(i);
            int at = wrapper.indexOf(root);
            if (at >= 0 && at + root.length() < wrapper.length()) {
                return wrapper; // it says more after the cause: a hint, not only a prefix
            }
        }
        return root;
    }

    private static String withoutClassName(String line) {
        int colon = line.indexOf(": ");
        if (colon > 0 && line.substring(0, colon).matches("[\\w.$\\[\\]]+")) {
            return line.substring(colon + 2);
        }
        return line;
    }
}
