package io.effonce.it.testutils;

import io.effonce.job.DailyTotal;
import io.effonce.job.MerchantDayKey;
import io.effonce.job.MerchantDayRows;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.PostgresStores;
import io.effonce.sink.SinkStoreFactory;
import io.effonce.sink.internal.SinkStore;
import io.effonce.sink.internal.StalenessIgnored;
import io.effonce.sink.internal.postgres.PostgresSinkStore;
import io.effonce.sink.testutils.DelegatingStore;
import io.effonce.sink.testutils.IgnoringDeletes;

/** Faults injected at the sink's store, the seam the job graph already has for it. */
public final class StoreFaults {

    private StoreFaults() {}

    /** A rule of the sink switched off at its store, for a counterfactual. */
    public enum RuleOff {
        /** None: the store as shipped. */
        NONE,
        /** Step 3 of the restore flush: deletes do nothing ({@link #withoutDeletes}). */
        STALE_DELETION,
        /** Rows 1–3 of the start decision: the takeover sees no newer attempt. */
        STALENESS;

        SinkStore<MerchantDayKey, DailyTotal> applyTo(SinkStore<MerchantDayKey, DailyTotal> store) {
            return switch (this) {
                case NONE -> store;
                case STALE_DELETION -> new IgnoringDeletes<>(store);
                case STALENESS -> new StalenessIgnored(store);
            };
        }
    }

    /**
     * The counterfactual of step 3 of the full flush: the store ignores deletes, so a key that the
     * restored state lacks stays in the table. {@code LedgerPipeline} builds its sink from options,
     * which cannot switch the delete step off, so the switch is made here, one level down (the
     * sink's own tests switch it off the same way).
     */
    public static SinkStoreFactory<MerchantDayKey, DailyTotal> withoutDeletes(
            PostgresStoreConfig config) {
        return () ->
                new IgnoringDeletes<>(new PostgresSinkStore<>(config, MerchantDayRows.MAPPING));
    }

    /**
     * The soak's store: the deployed one (deployments numbered as the job's are), with {@code off}
     * switched off, whose takeovers wait while the nemesis holds them ({@link TakeoverHolds}).
     */
    public static SinkStoreFactory<MerchantDayKey, DailyTotal> soak(
            PostgresStoreConfig config, RuleOff off) {
        return DelegatingStore.decorating(
                PostgresStores.deployed(config, MerchantDayRows.MAPPING),
                store -> new TakeoverHolds.Held(config, off.applyTo(store)));
    }
}
