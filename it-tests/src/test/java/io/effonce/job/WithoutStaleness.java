package io.effonce.job;

import io.effonce.it.testutils.StoreFaults.RuleOff;

/**
 * The soak's job with the fence's staleness rule off: an attempt that wakes after the job moved on
 * takes its key groups back. The soak runs it with {@code -Deffonce.soak.rule-off=staleness}.
 */
public final class WithoutStaleness {

    private WithoutStaleness() {}

    public static void main(String[] args) throws Exception {
        SoakJob.run(args, RuleOff.STALENESS);
    }
}
