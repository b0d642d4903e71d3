package io.effonce.sink;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The tables a flushable sink needs, for any {@link RowMapping}: its live table (the mapping's
 * columns, the barrier tag and the key group, with the tag index the restore reads), its committed
 * and staged tables, and the tables every sink of the database shares. Each statement is
 * idempotent. {@link #create} runs them, for a login that may create tables; a sink without that
 * right refuses at start with {@link #script} in its message instead.
 */
@PublicEvolving
public final class SinkTableDdl {

    /** deploy/sql/sink.sql, carried in the jar; its shared block lies between the markers. */
    private static final String SINK_SQL = "sink.sql";

    private static final String BEGIN = "-- >>> shared";
    private static final String END = "-- <<< shared";
    private static final Pattern SHARED_TABLE =
            Pattern.compile("CREATE TABLE IF NOT EXISTS (\\w+) \\(");

    /** Concurrent CREATE ... IF NOT EXISTS can collide in the catalog: one creator at a time. */
    private static final long LOCK = 0x6566666f6e6365L; // "effonce"

    private SinkTableDdl() {}

    /** The live, committed and staged tables of {@code table} for {@code mapping}. */
    public static String tables(String table, RowMapping<?, ?> mapping) {
        List<Column> keys = mapping.keyColumns();
        List<Column> values = mapping.valueColumns();
        String keyList = keys.stream().map(Column::name).collect(Collectors.joining(", "));
        String keyDefs = definitions(keys, "NOT NULL");
        String valueDefs = definitions(values, "");
        String indexBase = table.substring(table.indexOf('.') + 1);
        return String.join(
                "\n",
                "CREATE TABLE IF NOT EXISTS " + table + " (",
                keyDefs + valueDefs,
                "  barrier_tag BIGINT NOT NULL,",
                "  key_group INTEGER NOT NULL,",
                "  written_at TIMESTAMPTZ NOT NULL DEFAULT now(),",
                "  PRIMARY KEY (" + keyList + ")",
                ");",
                "CREATE INDEX IF NOT EXISTS " + indexBase + "_tag_idx",
                "  ON " + table + " (barrier_tag, key_group);",
                "CREATE TABLE IF NOT EXISTS " + table + "_committed (",
                keyDefs + valueDefs,
                "  checkpoint_id BIGINT NOT NULL,",
                "  key_group INTEGER NOT NULL,",
                "  committed_at TIMESTAMPTZ NOT NULL DEFAULT now(),",
                "  PRIMARY KEY (" + keyList + ")",
                ");",
                "CREATE INDEX IF NOT EXISTS " + indexBase + "_committed_ckpt_idx",
                "  ON " + table + "_committed (checkpoint_id, key_group);",
                "CREATE TABLE IF NOT EXISTS " + table + "_staged (",
                "  checkpoint_id BIGINT NOT NULL,",
                keyDefs + valueDefs,
                "  key_group INTEGER NOT NULL,",
                "  deleted BOOLEAN NOT NULL DEFAULT false,",
                "  staged_by TEXT,",
                "  PRIMARY KEY (checkpoint_id, " + keyList + ")",
                ");",
                "ALTER TABLE " + table + "_staged ADD COLUMN IF NOT EXISTS staged_by TEXT;",
                "CREATE INDEX IF NOT EXISTS " + indexBase + "_staged_range_idx",
                "  ON " + table + "_staged (key_group, checkpoint_id);");
    }

    /**
     * The tables and the view every sink of a database shares (sink_fences, sink_progress...): the
     * block of deploy/sql/sink.sql between its markers, so the two never differ.
     */
    public static String shared() {
        String sinkSql;
        try (InputStream in = SinkTableDdl.class.getResourceAsStream(SINK_SQL)) {
            if (in == null) {
                throw new IllegalStateException(SINK_SQL + " is missing from the sink's jar");
            }
            sinkSql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int begin = sinkSql.indexOf(BEGIN);
        int end = sinkSql.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalStateException(
                    SINK_SQL + " in the sink's jar lacks its shared block's markers");
        }
        return sinkSql.substring(begin, end);
    }

    /** The names of the tables every sink of a database shares, from {@link #shared()}. */
    static List<String> sharedTableNames() {
        List<String> names = new ArrayList<>();
        Matcher m = SHARED_TABLE.matcher(shared());
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /** Everything a sink of {@code table} needs, as one script a superuser can apply. */
    public static String script(String table, RowMapping<?, ?> mapping) {
        return shared() + "\n" + tables(table, mapping) + "\n";
    }

    /**
     * The same, without comments, and with the rights of {@code role} on the tables of {@code
     * table}: printed in a refusal, where it may end up on one line (a comment would swallow the
     * rest of it).
     */
    @Internal
    public static String scriptToPrint(String table, RowMapping<?, ?> mapping, String role) {
        String statements =
                script(table, mapping)
                        .lines()
                        .map(line -> line.replaceAll("\\s*--.*$", ""))
                        .filter(line -> !line.isBlank())
                        .collect(Collectors.joining("\n"));
        return statements + "\n" + grants(table, role) + "\n";
    }

    /**
     * What {@code role} needs on the tables of {@code table}. deploy/sql/roles.sql grants the
     * tables every sink shares to {@code effonce_sink}, and begins by revoking what it does not
     * list: apply it first, then these.
     */
    static String grants(String table, String role) {
        return "GRANT SELECT, INSERT, UPDATE, DELETE ON "
                + table
                + ", "
                + table
                + "_committed, "
                + table
                + "_staged TO \""
                + role.replace("\"", "\"\"")
                + "\";";
    }

    /**
     * Creates what is missing inside the caller's transaction, one creator at a time; the login
     * must be allowed to create tables.
     */
    public static void create(Connection c, String table, RowMapping<?, ?> mapping)
            throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SELECT pg_advisory_xact_lock(" + LOCK + ")");
            s.execute(script(table, mapping));
        }
    }

    private static String definitions(List<Column> columns, String constraint) {
        return columns.stream()
                .map(
                        col ->
                                "  "
                                        + col.name()
                                        + " "
                                        + col.type().sqlType()
                                        + (constraint.isEmpty() ? "" : " " + constraint)
                                        + ",\n")
                .collect(Collectors.joining());
    }

    /**
     * The three tables of {@code config}'s table, then sink.sql's shared ones: what a start-up
     * check asks rights on.
     */
    @Internal
    public static List<String> tablesWritten(PostgresStoreConfig config) {
        List<String> all =
                new ArrayList<>(
                        List.of(config.table(), config.stagedTable(), config.committedTable()));
        all.addAll(sharedTableNames());
        return all;
    }
}
