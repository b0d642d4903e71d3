package io.effonce.job;

/**
 * The job cannot start as configured, for a reason its message names with the fix. Thrown from
 * {@code main} before anything is submitted; it carries no stack trace, so the person who submitted
 * the job reads one sentence, not the frames of the code that found it.
 */
public final class JobStartupException extends RuntimeException {

    public JobStartupException(String message) {
        super(message, null, false, false);
    }
}
