package io.effonce.dedup;

import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A restore that changes a setting the restored state was built with. Restarting cannot help (the
 * next attempt restores the same state with the same setting), so Flink fails the job at once
 * instead of restarting it in a loop.
 */
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public final class SettingChangedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    SettingChangedException(String option, String recorded, String now, String why) {
        super(
                "The restored state was built with "
                        + option
                        + "="
                        + recorded
                        + ", this job has "
                        + option
                        + "="
                        + now
                        + ": "
                        + why
                        + " Restore with "
                        + option
                        + "="
                        + recorded
                        + ", or start a new job without this state (see job/README.md,"
                        + " \"Settings fixed for a job's life\").");
    }
}
