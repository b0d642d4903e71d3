package io.effonce.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.SinkMisconfiguredException;
import io.effonce.sink.internal.StoredRow;
import io.effonce.sink.internal.postgres.PostgresSinkStore;
import io.effonce.sink.testutils.Claims;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.PostgresExtension;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sink's tables for any mapping: created from the mapping alone on an empty database (twice:
 * idempotent), and every column type a mapping can use goes in and comes back, SQL NULLs in the
 * value included. The tables every sink shares are deploy/sql/sink.sql's shared block, no merchant
 * table with them.
 */
@ExtendWith(PostgresExtension.class)
class SinkTableDdlITCase {

    /** A key of three types, a value of every other type. */
    record Key(String name, LocalDate day, Integer slot) {}

    enum EveryType implements RowMapping<Key, List<Object>> {
        MAPPING;

        @Override
        public List<Column> keyColumns() {
            return List.of(
                    new Column("name", ColumnType.TEXT),
                    new Column("day", ColumnType.DATE),
                    new Column("slot", ColumnType.INTEGER));
        }

        @Override
        public List<Column> valueColumns() {
            return List.of(
                    new Column("count", ColumnType.BIGINT),
                    new Column("amount", ColumnType.NUMERIC),
                    new Column("ratio", ColumnType.DOUBLE),
                    new Column("flag", ColumnType.BOOLEAN),
                    new Column("seen_local", ColumnType.TIMESTAMP),
                    new Column("seen_at", ColumnType.TIMESTAMPTZ),
                    new Column("note", ColumnType.TEXT));
        }

        @Override
        public Object keyColumn(Key key, int index) {
            return switch (index) {
                case 0 -> key.name();
                case 1 -> key.day();
                default -> key.slot();
            };
        }

        @Override
        public Object valueColumn(List<Object> value, int index) {
            return value.get(index);
        }

        @Override
        public Key readKey(ResultSet row, int first) throws SQLException {
            return new Key(
                    row.getString(first),
                    row.getObject(first + 1, LocalDate.class),
                    row.getObject(first + 2, Integer.class));
        }
    }

    private static final KeyGroupSpan SPAN = new KeyGroupSpan(0, 127);
    private static final Key A = new Key("a", LocalDate.of(2026, 11, 28), 7);
    private static final Key B = new Key("b", LocalDate.of(2026, 11, 29), -1);

    @Test
    void theTablesOfAMappingAreCreatedAndEveryTypeGoesInAndComesBack(PostgresEndpoint server)
            throws Exception {
        PostgresEndpoint db = LocalServices.newDatabase(server, "ddl");
        for (int i = 0; i < 2; i++) {
            try (Connection c = db.connect()) {
                c.setAutoCommit(false);
                SinkTableDdl.create(c, "every_type", EveryType.MAPPING);
                c.commit();
            }
        }
        List<Object> full =
                List.of(
                        9_000_000_000L,
                        new BigDecimal("12345.67"),
                        0.25,
                        true,
                        LocalDateTime.of(2026, 11, 28, 10, 15, 30),
                        Instant.parse("2026-11-28T09:15:30Z"),
                        "n'ote; --");
        List<Object> nulls = Arrays.asList(null, null, null, null, null, null, null);
        PostgresStoreConfig config =
                PostgresStoreConfig.builder()
                        .url(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .table("every_type")
                        .build();
        try (var store = new PostgresSinkStore<>(config, EveryType.MAPPING)) {
            Claims.take(store, SPAN, "run", "attempt 0");
            store.write(List.of(new StoredRow<>(A, full, 1, 3), new StoredRow<>(B, nulls, 2, 3)));
            assertThat(store.keysTaggedSince(3)).containsExactlyInAnyOrder(A, B);
            assertThat(row(db, "every_type", B)).as("SQL NULLs in the value").isEqualTo(nulls);
            store.stage(3, List.of(new StoredRow<>(A, full, 1, 3)));
            assertThat(store.commit(3, Progress.UNKNOWN)).isEqualTo(1);
            store.delete(List.of(StoredRow.tombstone(B, 2, 3)));
        }
        assertThat(row(db, "every_type", A)).isEqualTo(full);
        assertThat(row(db, "every_type_committed", A)).isEqualTo(full);
        assertThat(count(db, "every_type")).as("B deleted by its key of three types").isOne();
    }

    @Test
    void tablesThatLackAColumnATableOrTheTagIndexAreRefusedAtOpenWithTheirScript(
            PostgresEndpoint server) throws Exception {
        PostgresEndpoint db = LocalServices.newDatabase(server, "ddlcheck");
        PostgresStoreConfig config =
                PostgresStoreConfig.builder()
                        .url(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .table("every_type")
                        .build();
        try (var store = PostgresStores.forMapping(config, EveryType.MAPPING, true).create()) {
            assertThat(store).as("created, and then found complete").isNotNull();
        }
        execute(db, "DROP INDEX every_type_tag_idx");
        assertThatThrownBy(
                        () -> PostgresStores.forMapping(config, EveryType.MAPPING, false).create())
                .isInstanceOf(SinkMisconfiguredException.class)
                .hasMessageContaining("lack an index on every_type (barrier_tag, key_group)")
                .hasMessageContaining("CREATE INDEX IF NOT EXISTS every_type_tag_idx");
        try (var store = PostgresStores.forMapping(config, EveryType.MAPPING, true).create()) {
            assertThat(store).as("sink.create-tables puts the index back").isNotNull();
        }

        execute(db, "ALTER TABLE every_type DROP COLUMN barrier_tag");
        execute(db, "ALTER TABLE every_type_committed DROP COLUMN ratio");
        execute(db, "DROP TABLE every_type_staged");
        assertThatThrownBy(
                        () -> PostgresStores.forMapping(config, EveryType.MAPPING, false).create())
                .isInstanceOf(SinkMisconfiguredException.class)
                .hasMessageContaining("column every_type.barrier_tag")
                .hasMessageContaining("column every_type_committed.ratio")
                .hasMessageContaining("table every_type_staged")
                .hasMessageContaining("CREATE TABLE IF NOT EXISTS every_type (")
                .hasMessageContaining("sink.create-tables=true");
    }

    /**
     * The script a refusal prints ends up on one line in a submit command's output: without
     * comments it still runs there, and it grants the sink's login its tables.
     */
    @Test
    void theScriptARefusalPrintsRunsOnOneLineAndGrantsTheSinksRoleItsTables(PostgresEndpoint server)
            throws Exception {
        PostgresEndpoint db = LocalServices.newDatabase(server, "ddlprinted");
        PostgresStoreConfig asSink =
                PostgresStoreConfig.builder()
                        .url(db.jdbcUrl())
                        .username("effonce_sink")
                        .password("unused")
                        .table("every_type")
                        .build();
        String printed =
                PostgresStores.forMapping(asSink, EveryType.MAPPING, true)
                        .tablesScript()
                        .orElseThrow();
        assertThat(printed)
                .doesNotContain("--")
                .contains(
                        "GRANT SELECT, INSERT, UPDATE, DELETE ON every_type, every_type_committed,"
                                + " every_type_staged TO \"effonce_sink\";");
        execute(db, printed.replace('\n', ' '));
        assertThat(count(db, "every_type")).isZero();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT has_table_privilege('effonce_sink', 'every_type_staged',"
                                        + " 'INSERT')")) {
            rs.next();
            assertThat(rs.getBoolean(1)).isTrue();
        }
    }

    @Test
    void aColumnOfATypeThatWouldChangeItsValuesIsRefusedAtOpenNamingIt(PostgresEndpoint server)
            throws Exception {
        PostgresEndpoint db = LocalServices.newDatabase(server, "ddltypes");
        PostgresStoreConfig config =
                PostgresStoreConfig.builder()
                        .url(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .table("every_type")
                        .build();
        try (var store = PostgresStores.forMapping(config, EveryType.MAPPING, true).create()) {
            assertThat(store).isNotNull();
        }
        // Narrower by hand: a real rounds a double, timestamp(3) rounds microseconds, silently.
        execute(db, "ALTER TABLE every_type_committed ALTER COLUMN ratio TYPE real");
        execute(db, "ALTER TABLE every_type ALTER COLUMN seen_local TYPE timestamp(3)");
        assertThatThrownBy(
                        () -> PostgresStores.forMapping(config, EveryType.MAPPING, false).create())
                .isInstanceOf(SinkMisconfiguredException.class)
                .hasMessageContaining(
                        "column every_type_committed.ratio of type double precision (it is real")
                .hasMessageContaining(
                        "column every_type.seen_local of type timestamp (it is timestamp(3)"
                                + " without time zone");
        // A wider type, or varchar for text, holds the values as they are.
        execute(db, "ALTER TABLE every_type_committed ALTER COLUMN ratio TYPE double precision");
        execute(db, "ALTER TABLE every_type ALTER COLUMN seen_local TYPE timestamp");
        execute(db, "ALTER TABLE every_type ALTER COLUMN note TYPE varchar(4000)");
        execute(db, "ALTER TABLE every_type ALTER COLUMN count TYPE numeric");
        try (var store = PostgresStores.forMapping(config, EveryType.MAPPING, false).create()) {
            assertThat(store).isNotNull();
        }
    }

    @Test
    void everyWordThisPostgresReservesIsRefusedAsAColumnName(PostgresEndpoint server)
            throws Exception {
        List<String> reserved = new ArrayList<>();
        try (Connection c = server.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT word FROM pg_get_keywords() WHERE catcode IN ('R', 'T')")) {
            while (rs.next()) {
                reserved.add(rs.getString(1));
            }
        }
        assertThat(reserved).hasSizeGreaterThan(70);
        assertThat(Column.RESERVED).containsAll(reserved);
        // Why: unquoted, such a name is a syntax error in the first statement that names it.
        try (Connection c = server.connect();
                Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.execute("CREATE TEMP TABLE words (order BIGINT)"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("syntax error");
        }
    }

    @Test
    void theSharedBlockIsTheSinksOwnTablesOnly() {
        String shared = SinkTableDdl.shared();
        assertThat(shared)
                .contains("CREATE TABLE IF NOT EXISTS sink_fences")
                .contains("CREATE OR REPLACE VIEW committed_progress")
                .doesNotContain("merchant_daily_totals");
    }

    private static List<Object> row(PostgresEndpoint db, String table, Key key) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT count, amount, ratio, flag, seen_local, seen_at, note FROM "
                                        + table
                                        + " WHERE name = '"
                                        + key.name()
                                        + "'")) {
            assertThat(rs.next()).isTrue();
            List<Object> values = new ArrayList<>();
            values.add(rs.getObject(1, Long.class));
            values.add(rs.getBigDecimal(2));
            values.add(rs.getObject(3, Double.class));
            values.add(rs.getObject(4, Boolean.class));
            values.add(rs.getObject(5, LocalDateTime.class));
            OffsetDateTime at = rs.getObject(6, OffsetDateTime.class);
            values.add(at == null ? null : at.toInstant());
            values.add(rs.getString(7));
            return values;
        }
    }

    private static void execute(PostgresEndpoint db, String sql) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static long count(PostgresEndpoint db, String table) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
