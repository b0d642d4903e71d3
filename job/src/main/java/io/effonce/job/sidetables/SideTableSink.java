package io.effonce.job.sidetables;

import io.effonce.jdbc.DriverRegistrations;
import io.effonce.jdbc.RefusedRows;
import io.effonce.jdbc.RefusedRowsException;
import io.effonce.jdbc.RetryingSession;
import io.effonce.sink.PostgresStoreConfig;
import java.io.Serializable;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes rows to a side table ({@code late_events}, {@code dead_letters}) with {@code INSERT ... ON
 * CONFLICT DO NOTHING} on the row's natural key. Rows are batched and written every {@link
 * #FLUSH_INTERVAL}, at 500 rows, and at the latest before each checkpoint barrier, so nothing is
 * lost; a replay inserts the same keys again, which the conflict clause ignores. A row the database
 * refuses for its content (the decoder's checks make that unexpected) is found by splitting the
 * batch, written in its {@code fallback} form if it has one (a dead letter without its raw value),
 * else logged in full, and counted in {@code <metric>Refused}; it never fails the task, and every
 * other row is written.
 */
public final class SideTableSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(SideTableSink.class);
    private static final int BATCH = 500;

    /**
     * Rows wait at most this long before they are written, so a late change shows in {@code
     * late_events} within about a second even when checkpoints are minutes apart.
     */
    static final Duration FLUSH_INTERVAL = Duration.ofSeconds(1);

    private final PostgresStoreConfig connection;
    private final String insertSql;
    private final RowBinder<T> binder;
    private final Fallback<T> fallback;
    private final String metricName;

    /**
     * @param fallback a storable form of a refused row, or null if it has none
     */
    SideTableSink(
            PostgresStoreConfig connection,
            String insertSql,
            RowBinder<T> binder,
            Fallback<T> fallback,
            String metricName) {
        this.connection = connection;
        this.insertSql = insertSql;
        this.binder = binder;
        this.fallback = fallback;
        this.metricName = metricName;
    }

    /** A storable form of a row the database refused; part of the job graph, so serializable. */
    @FunctionalInterface
    interface Fallback<T> extends Serializable {
        T apply(T refused);
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        ClassLoader jobLoader = SideTableSink.class.getClassLoader();
        context.getUserCodeClassLoader()
                .registerReleaseHookIfAbsent(
                        DriverRegistrations.RELEASE_HOOK,
                        () -> DriverRegistrations.releaseLoadedBy(jobLoader));
        return new Writer(
                context.metricGroup().counter(metricName),
                context.metricGroup().counter(metricName + "Refused"),
                context.getProcessingTimeService());
    }

    private final class Writer implements SinkWriter<T> {
        private final RetryingSession session = new RetryingSession(connection.session());
        private final List<T> pending = new ArrayList<>();
        private final Counter written;
        private final Counter refused;
        private final ProcessingTimeService time;

        Writer(Counter written, Counter refused, ProcessingTimeService time) {
            this.written = written;
            this.refused = refused;
            this.time = time;
            scheduleFlush();
        }

        /** Timers run on the task thread, between records: no lock needed. */
        private void scheduleFlush() {
            time.registerTimer(
                    time.getCurrentProcessingTime() + FLUSH_INTERVAL.toMillis(),
                    now -> {
                        flush(false);
                        scheduleFlush();
                    });
        }

        @Override
        public void write(T element, Context context) {
            pending.add(element);
            if (pending.size() >= BATCH) {
                flush(false);
            }
        }

        @Override
        public void flush(boolean endOfInput) {
            if (pending.isEmpty()) {
                return;
            }
            List<T> rows = List.copyOf(pending);
            int refusedRows = RefusedRows.writeSplitting(rows, this::insert, this::refused);
            written.inc(rows.size() - refusedRows);
            pending.clear();
        }

        private void insert(List<T> rows) {
            session.inTransaction(
                    "Writing " + rows.size() + " rows to " + connection.table(),
                    c -> {
                        try (PreparedStatement s = c.prepareStatement(insertSql)) {
                            for (T row : rows) {
                                binder.bind(s, row);
                                s.addBatch();
                            }
                            s.executeBatch();
                        }
                        return null;
                    });
        }

        private void refused(T row, RefusedRowsException e) {
            refused.inc();
            T storable = fallback == null ? null : fallback.apply(row);
            LOG.error(
                    "{} refused a row (SQLSTATE {}: {}); {}: {}",
                    connection.table(),
                    e.sqlState(),
                    e.databaseMessage(),
                    storable == null ? "it is logged here only" : "its fallback form is written",
                    row);
            if (storable != null) {
                insert(List.of(storable));
            }
        }

        @Override
        public void close() {
            session.close();
        }
    }
}
