package io.effonce.job.decode;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * {@link HostileRecords} for jqwik properties. Apart from HostileRecords, which tests in other
 * modules use without jqwik on their class path.
 */
final class HostileArbitraries {

    private HostileArbitraries() {}

    /** Valid envelopes of either schema form with up to {@code maxMutations} mutations each. */
    static Arbitrary<byte[]> records(int maxMutations) {
        Arbitrary<String> envelope =
                Combinators.combine(
                                Arbitraries.integers().between(0, HostileRecords.VALID - 1),
                                Arbitraries.of(true, false))
                        .as(HostileRecords::envelope);
        Arbitrary<List<Integer>> mutations =
                Arbitraries.integers()
                        .between(0, HostileRecords.MUTATIONS - 1)
                        .list()
                        .ofMaxSize(maxMutations);
        return Combinators.combine(envelope, mutations, Arbitraries.longs())
                .as(HostileRecords::mutate);
    }
}
