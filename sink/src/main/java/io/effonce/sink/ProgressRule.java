package io.effonce.sink;

import java.io.Serializable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * What a commit records as how far its totals are complete, from the writer's event-time watermark
 * at the checkpoint's barrier. The sink knows watermarks only; the job that knows what its keys
 * mean (for the ledger: when a day is final) says the rest.
 */
@FunctionalInterface
@PublicEvolving
public interface ProgressRule extends Serializable {

    /** The watermark alone: no final day, zone or horizon recorded. */
    ProgressRule WATERMARK_ONLY = watermark -> new Progress(watermark, null, null, null);

    /** The progress at {@code watermark} (never {@code Long.MIN_VALUE}: then it is unknown). */
    Progress at(long watermark);
}
