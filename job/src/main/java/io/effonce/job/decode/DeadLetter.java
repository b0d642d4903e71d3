package io.effonce.job.decode;

/**
 * A record the job could not use, with the reason; one row of {@code dead_letters}, unique on
 * (topic, partition, offset).
 *
 * @param rawValue the record's value as text, cut to the job's size limit
 */
public record DeadLetter(String topic, int partition, long offset, String reason, String rawValue) {}
