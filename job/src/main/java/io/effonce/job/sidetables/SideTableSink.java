package io.effonce.job.sidetables;

import io.effonce.sink.store.PostgresStoreConfig;
import io.effonce.sink.store.RetryingSession;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;

/**
 * Writes rows to a side table ({@code late_events}, {@code dead_letters}) with {@code INSERT ... ON
 * CONFLICT DO NOTHING} on the row's natural key. Rows are batched and written at the latest before
 * each checkpoint barrier, so nothing is lost; a replay inserts the same keys again, which the
 * conflict clause ignores.
 */
public final class SideTableSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;
    private static final int BATCH = 500;

    private final PostgresStoreConfig connection;
    private final String insertSql;
    private final RowBinder<T> binder;
    private final String metricName;

    SideTableSink(
            PostgresStoreConfig connection,
            String insertSql,
            RowBinder<T> binder,
            String metricName) {
        this.connection = connection;
        this.insertSql = insertSql;
        this.binder = binder;
        this.metricName = metricName;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        return new Writer(context.metricGroup().counter(metricName));
    }

    private final class Writer implements SinkWriter<T> {
        private final RetryingSession session = new RetryingSession(connection);
        private final List<T> pending = new ArrayList<>();
        private final Counter written;

        Writer(Counter written) {
            this.written = written;
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
            written.inc(rows.size());
            pending.clear();
        }

        @Override
        public void close() {
            session.close();
        }
    }
}
