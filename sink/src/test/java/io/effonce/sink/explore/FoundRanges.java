package io.effonce.sink.explore;

import io.effonce.sink.internal.RangeOwner;
import io.effonce.sink.internal.RangeRecord;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** What a takeover read, with a part forgotten: how the counterfactuals switch a rule off. */
final class FoundRanges {

    private FoundRanges() {}

    /** {@code found} with {@code owners} and {@code leases} in place of its own. */
    static RangeRecord with(
            RangeRecord found, Set<RangeOwner> owners, Map<String, Duration> leases) {
        return copy(found, owners, leases, found.laterDeployment());
    }

    /** {@code found} without the later deployment it read elsewhere in the table (row 1c). */
    static RangeRecord withoutLaterDeployment(RangeRecord found) {
        return copy(found, found.owners(), found.leases(), Optional.empty());
    }

    private static RangeRecord copy(
            RangeRecord found,
            Set<RangeOwner> owners,
            Map<String, Duration> leases,
            Optional<String> laterDeployment) {
        return new RangeRecord(
                owners,
                found.committedByClaimantRun(),
                found.lastCommitted(),
                found.durableThrough(),
                found.claimantRunSuperseded(),
                found.hasRows(),
                found.newestDeletion(),
                found.committedLineages(),
                found.savepointBranchErasedAt(),
                found.newestRepair(),
                leases,
                laterDeployment);
    }
}
