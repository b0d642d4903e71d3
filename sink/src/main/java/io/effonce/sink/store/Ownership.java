package io.effonce.sink.store;

import java.util.Set;

/**
 * The result of taking a range of key groups: the writer's new fencing token, and the jobs that
 * owned any of those key groups before (empty when nobody did).
 */
public record Ownership(long token, Set<String> previousJobs) {

    public Ownership {
        previousJobs = Set.copyOf(previousJobs);
    }
}
