package io.effonce.sink.testutils;

import io.effonce.sink.internal.AttemptId;
import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.SinkStore;
import io.effonce.sink.internal.TakeoverTerms;
import java.util.OptionalLong;

/** Claims for store-level tests that drive a store without the operator's start protocol. */
public final class Claims {

    private Claims() {}

    /** A first attempt of subtask 0 of 1 in {@code run}, without restored state. */
    public static Claim firstAttempt(String run, String task) {
        return new Claim(AttemptId.of(run, task, 0, 1, 0), OptionalLong.empty());
    }

    /**
     * Takes {@code span} whatever the range holds, as a test's stand-in for a writer that the start
     * protocol let in; returns the token.
     */
    public static long take(SinkStore<?, ?> store, KeyGroupSpan span, String run, String task) {
        return store.takeOwnership(span, firstAttempt(run, task), found -> TakeoverTerms.TAKE)
                .token();
    }
}
