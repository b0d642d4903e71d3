package io.effonce.job.migrate;

/** A ledger change as the dedup tests see it: derived event ID, merchant, amount. */
public record Change(String eventId, String merchant, long amount) {}
