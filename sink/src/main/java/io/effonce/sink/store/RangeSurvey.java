package io.effonce.sink.store;

import java.util.Set;

/**
 * What a writer finds in a key-group range before it takes it: the owners the fence names there
 * (job id and run id of each) and whether any row lies in the range.
 */
public record RangeSurvey(Set<String> owners, boolean hasRows) {

    public RangeSurvey {
        owners = Set.copyOf(owners);
    }
}
