package io.effonce.job;

import io.effonce.it.testutils.StoreFaults.RuleOff;

/**
 * The soak's job with the restore flush's delete step off: a key the restored state lacks stays in
 * the table. The soak runs it with {@code -Deffonce.soak.rule-off=stale-deletion}.
 */
public final class WithoutStaleDeletion {

    private WithoutStaleDeletion() {}

    public static void main(String[] args) throws Exception {
        SoakJob.run(args, RuleOff.STALE_DELETION);
    }
}
