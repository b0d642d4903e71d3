package io.effonce.sink;

/** What tests switch off in the sink to show what it is for; not part of the sink's API. */
public final class SinkTestHooks {

    private SinkTestHooks() {}

    /** The builder with step 3 of the full flush (deleting keys restored state lacks) off. */
    public static <K, V> FlushableSink.Builder<K, V> withoutStaleDeletion(
            FlushableSink.Builder<K, V> builder) {
        return builder.withoutStaleDeletion();
    }
}
