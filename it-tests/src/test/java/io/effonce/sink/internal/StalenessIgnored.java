package io.effonce.sink.internal;

import io.effonce.job.DailyTotal;
import io.effonce.job.MerchantDayKey;
import io.effonce.sink.testutils.DelegatingStore;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The counterfactual of the fence's staleness rule (rows 1–3 of {@link StartDecision}): the
 * takeover is shown the range without what makes the claimant stale (a later deployment, a newer
 * attempt of its run, a newer commit of its run), so a paused attempt that wakes after the job
 * moved on takes the range and flushes it back to the checkpoint it restored. In this package to
 * ask the rule itself what it would refuse.
 */
public final class StalenessIgnored extends DelegatingStore<MerchantDayKey, DailyTotal> {

    public StalenessIgnored(SinkStore<MerchantDayKey, DailyTotal> store) {
        super(store);
    }

    @Override
    public Takeover takeOwnership(
            KeyGroupSpan span, Claim claim, Function<RangeRecord, TakeoverTerms> terms) {
        Takeover taken =
                store.takeOwnership(span, claim, found -> terms.apply(notNewer(claim, found)));
        return new Takeover(notNewer(claim, taken.found()), taken.taken(), taken.token());
    }

    /** {@code found} with only the owners and the commits that do not make {@code claim} stale. */
    private static RangeRecord notNewer(Claim claim, RangeRecord found) {
        Set<RangeOwner> older =
                found.owners().stream()
                        .filter(
                                owner ->
                                        StartDecision.staleness(claim, only(owner, found))
                                                .isEmpty())
                        .collect(Collectors.toUnmodifiableSet());
        return withOwners(
                older, Math.min(found.committedByClaimantRun(), claim.restoredOrZero()), found);
    }

    private static RangeRecord only(RangeOwner owner, RangeRecord found) {
        return withOwners(Set.of(owner), 0, found);
    }

    /** {@code found} with these owners and commit of the claimant's run, never superseded. */
    private static RangeRecord withOwners(
            Set<RangeOwner> owners, long committedByClaimantRun, RangeRecord found) {
        return new RangeRecord(
                owners,
                committedByClaimantRun,
                found.lastCommitted(),
                found.durableThrough(),
                false,
                found.hasRows(),
                found.newestDeletion(),
                found.committedLineages(),
                found.savepointBranchErasedAt(),
                found.newestRepair(),
                found.leases(),
                Optional.empty());
    }
}
