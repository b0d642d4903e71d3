package io.effonce.feed.recount;

import java.time.LocalDate;
import java.util.Optional;

/** A recount asked for a day the stream may still change. */
public final class DayNotFinalException extends IllegalStateException {

    public DayNotFinalException(LocalDate day, Optional<LocalDate> finalThrough) {
        super(
                "Day "
                        + day
                        + " is not final yet ("
                        + finalThrough
                                .map(f -> "the committed totals are final through " + f)
                                .orElse(
                                        "committed_progress knows no final day yet: is the job"
                                                + " running and checkpointing?")
                        + "): the stream may still change it, and a recount would hide that."
                        + " Recount it once it is final, or pass --even-if-open.");
    }
}
