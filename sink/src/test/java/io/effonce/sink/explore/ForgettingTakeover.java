package io.effonce.sink.explore;

import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.RangeRecord;
import io.effonce.sink.internal.SinkStore;
import io.effonce.sink.internal.Takeover;
import io.effonce.sink.internal.TakeoverTerms;
import io.effonce.sink.testutils.DelegatingStore;
import java.util.function.Function;

/**
 * A rule switched off in the takeover: it decides on what it read with a part of it forgotten
 * ({@link FoundRanges}), and the store does what that decision says. Built inside a decoration's
 * lambda ({@code store -> new ForgettingTakeover(store, FoundRanges::withoutDeletions)}): the
 * decoration is serialized with the sink, the rewrite is not.
 */
final class ForgettingTakeover extends DelegatingStore<String, Long> {

    private final Function<RangeRecord, RangeRecord> rewrite;

    ForgettingTakeover(SinkStore<String, Long> store, Function<RangeRecord, RangeRecord> rewrite) {
        super(store);
        this.rewrite = rewrite;
    }

    @Override
    public Takeover takeOwnership(
            KeyGroupSpan span, Claim claim, Function<RangeRecord, TakeoverTerms> terms) {
        return super.takeOwnership(span, claim, found -> terms.apply(rewrite.apply(found)));
    }
}
