package io.effonce.job.migrate;

/**
 * Where the two-stage layout of 0.1.0 (and of 0.2.x with {@code pipeline.layout=TWO_STAGE}) kept
 * its state: a dedup stage keyed by event id, then daily totals keyed by merchant-day. The job no
 * longer runs it; {@link MigrateSavepoint} reads a savepoint of it by these names once.
 */
public final class TwoStageLayout {

    /** The dedup stage's uid: remembered ids, the watermark floor, the recorded horizon. */
    public static final String DEDUP_UID = "dedup-by-event-id";

    /** The daily totals' uid: one total per merchant-day, the recorded zone. */
    public static final String TOTALS_UID = "daily-totals";

    /** The daily totals' keyed value state. */
    public static final String TOTAL_STATE = "daily-total";

    private TwoStageLayout() {}
}
