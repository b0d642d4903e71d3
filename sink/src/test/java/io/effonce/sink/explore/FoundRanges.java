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
        return copy(found, owners, leases, found.laterDeployment(), found.newestDeletion());
    }

    /** {@code found} without the later deployment it read elsewhere in the table (row 1c). */
    static RangeRecord withoutLaterDeployment(RangeRecord found) {
        return copy(
                found, found.owners(), found.leases(), Optional.empty(), found.newestDeletion());
    }

    /**
     * {@code found} as if no live row of the range had been deleted ({@code sink_live_deletes}).
     */
    static RangeRecord withoutDeletions(RangeRecord found) {
        return copy(found, found.owners(), found.leases(), found.laterDeployment(), 0);
    }

    private static RangeRecord copy(
            RangeRecord found,
            Set<RangeOwner> owners,
            Map<String, Duration> leases,
            Optional<String> laterDeployment,
            long newestDeletion) {
        return new RangeRecord(
                owners,
                found.committedByClaimantRun(),
                found.lastCommitted(),
                found.durableThrough(),
                found.claimantRunSuperseded(),
                found.hasRows(),
                newestDeletion,
                found.committedLineages(),
                found.savepointBranchErasedAt(),
                found.newestRepair(),
                leases,
                laterDeployment);
    }
}
