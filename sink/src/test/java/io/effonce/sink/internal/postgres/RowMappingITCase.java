package io.effonce.sink.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.sink.Column;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.Progress;
import io.effonce.sink.RowMapping;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.StoredRow;
import io.effonce.sink.testutils.Claims;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.PostgresExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The PostgreSQL store knows no merchant: over a table of another shape — one {@code bigint} key
 * column, one {@code text} value column, no day — every write path of the three tables works as
 * over the totals table, from the mapping alone.
 */
@ExtendWith(PostgresExtension.class)
class RowMappingITCase {

    /** An account and its balance label: nothing like a merchant-day. */
    record Account(long number) {}

    enum AccountRows implements RowMapping<Account, String> {
        MAPPING;

        @Override
        public List<Column> keyColumns() {
            return List.of(Column.bigint("account_no"));
        }

        @Override
        public List<Column> valueColumns() {
            return List.of(Column.text("label"));
        }

        @Override
        public Object keyColumn(Account key, int index) {
            return key.number();
        }

        @Override
        public Object valueColumn(String value, int index) {
            return value;
        }

        @Override
        public Account readKey(ResultSet row, int firstColumn) throws SQLException {
            return new Account(row.getLong(firstColumn));
        }
    }

    private static final KeyGroupSpan SPAN = new KeyGroupSpan(0, 127);

    private PostgresEndpoint db;
    private PostgresStoreConfig config;

    @BeforeEach
    void createTables(PostgresEndpoint db) throws SQLException {
        this.db = db;
        this.config =
                PostgresStoreConfig.builder()
                        .url(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .table("accounts")
                        .build();
        execute(
                "DROP TABLE IF EXISTS accounts, accounts_staged, accounts_committed;"
                        + " CREATE TABLE accounts (account_no BIGINT PRIMARY KEY, label TEXT NOT"
                        + " NULL, barrier_tag BIGINT NOT NULL, key_group INTEGER NOT NULL,"
                        + " written_at TIMESTAMPTZ NOT NULL);"
                        + " CREATE TABLE accounts_committed (account_no BIGINT PRIMARY KEY, label"
                        + " TEXT NOT NULL, checkpoint_id BIGINT NOT NULL, key_group INTEGER NOT"
                        + " NULL, committed_at TIMESTAMPTZ NOT NULL);"
                        + " CREATE TABLE accounts_staged (checkpoint_id BIGINT NOT NULL,"
                        + " account_no BIGINT NOT NULL, label TEXT, key_group INTEGER NOT NULL,"
                        + " deleted BOOLEAN NOT NULL DEFAULT false, staged_by TEXT,"
                        + " PRIMARY KEY (checkpoint_id, account_no));"
                        + " DELETE FROM sink_fences WHERE sink_table = 'accounts';"
                        + " DELETE FROM sink_live_deletes WHERE sink_table = 'accounts';"
                        + " DELETE FROM sink_progress WHERE sink_table = 'accounts'");
    }

    @Test
    void everyPathOfTheThreeTablesWorksFromTheMappingAlone() throws SQLException {
        try (var store = new PostgresSinkStore<>(config, AccountRows.MAPPING)) {
            Claims.take(store, SPAN, "run", "attempt 0");
            store.write(List.of(row(1, "one", 3), row(2, "two", 3), row(3, "three", 4)));
            store.write(List.of(row(1, "one again", 4)));
            assertThat(values("accounts"))
                    .isEqualTo(Map.of(1L, "one again", 2L, "two", 3L, "three"));
            assertThat(store.keysTaggedSince(4)).containsExactlyInAnyOrder(acc(1), acc(3));

            store.stage(4, List.of(row(1, "one again", 4), row(2, "two", 4)));
            store.stage(5, List.of(row(2, "two at 5", 5)));
            assertThat(store.commit(4, Progress.UNKNOWN)).isEqualTo(2);
            assertThat(values("accounts_committed")).isEqualTo(Map.of(1L, "one again", 2L, "two"));
            assertThat(store.commit(5, Progress.UNKNOWN)).isEqualTo(1);
            assertThat(values("accounts_committed"))
                    .isEqualTo(Map.of(1L, "one again", 2L, "two at 5"));

            assertThat(store.keysCommittedAfter(4)).containsExactly(acc(2));
            store.rollBackCommitted(List.of(row(2, "two", 4)), List.of(acc(1)));
            assertThat(values("accounts_committed")).isEqualTo(Map.of(2L, "two"));

            // A staged deletion removes the key when its checkpoint commits.
            store.stage(6, List.of(StoredRow.tombstone(acc(2), 2, 6), row(3, "three", 6)));
            assertThat(store.commit(6, Progress.UNKNOWN)).isEqualTo(2);
            assertThat(values("accounts_committed")).isEqualTo(Map.of(3L, "three"));

            // A value staged where a deletion was staged at the same checkpoint is a value again.
            store.stage(7, List.of(StoredRow.tombstone(acc(3), 3, 7)));
            store.stage(7, List.of(row(3, "three at 7", 7)));
            assertThat(store.commit(7, Progress.UNKNOWN)).isEqualTo(1);
            assertThat(values("accounts_committed")).isEqualTo(Map.of(3L, "three at 7"));

            store.delete(List.of(StoredRow.tombstone(acc(3), 3, 5)));
            assertThat(values("accounts")).isEqualTo(Map.of(1L, "one again", 2L, "two"));
            assertThat(deletionTags()).as("sink_live_deletes").isEqualTo(Map.of(3, 5L));
            assertThat(store.deleteAll()).isEqualTo(2);
            assertThat(values("accounts")).isEmpty();
            assertThat(values("accounts_committed")).isEmpty();
            assertThat(deletionTags()).as("a reset drops the range's deletions").isEmpty();
        }
    }

    private static Account acc(long number) {
        return new Account(number);
    }

    private static StoredRow<Account, String> row(long account, String label, long tag) {
        return new StoredRow<>(acc(account), label, (int) (account % 128), tag);
    }

    private Map<Integer, Long> deletionTags() throws SQLException {
        Map<Integer, Long> found = new TreeMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT key_group, barrier_tag FROM sink_live_deletes"
                                        + " WHERE sink_table = 'accounts'")) {
            while (rs.next()) {
                found.put(rs.getInt(1), rs.getLong(2));
            }
        }
        return found;
    }

    private Map<Long, String> values(String table) throws SQLException {
        Map<Long, String> found = new TreeMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT account_no, label FROM " + table)) {
            while (rs.next()) {
                found.put(rs.getLong(1), rs.getString(2));
            }
        }
        return found;
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
