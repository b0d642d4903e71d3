package io.effonce.testing.workload;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The workload's SQL, with bound parameters only. Inserts are one multi-row statement over arrays
 * ({@code unnest}), so a batch of new payments costs one round trip; moves are one UPDATE per state
 * change, sent as a JDBC batch, so the change stream sees every change separately.
 */
final class LedgerWrites implements AutoCloseable {

    private static final String INSERT =
            "INSERT INTO payments (payment_id, caller_id, client_key, merchant_id, fingerprint,"
                    + " amount, currency, state, updated_at)"
                    + " SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[],"
                    + " ?::bigint[], ?::text[], ?::text[], ?::timestamptz[])"
                    + " ON CONFLICT (caller_id, client_key) DO NOTHING"
                    + " RETURNING caller_id, client_key";
    private static final String READ =
            "SELECT caller_id, client_key, payment_id, state, fingerprint FROM payments"
                    + " WHERE (caller_id, client_key) IN"
                    + " (SELECT * FROM unnest(?::text[], ?::text[]))";
    private static final String MOVE =
            "UPDATE payments SET state = ?, psp_charge = COALESCE(?, psp_charge), updated_at = ?"
                    + " WHERE payment_id = ? AND state = ?";

    /** A row as the ledger holds it, read to answer a request that hit the unique key. */
    record StoredRow(String paymentId, PaymentState state, String fingerprint) {}

    /** One compare-and-set. */
    record MoveRow(PaymentPlan plan, PaymentState from, PaymentState to, Instant at) {}

    private final Connection connection;
    private final PreparedStatement insert;
    private final PreparedStatement read;
    private final PreparedStatement move;

    LedgerWrites(Connection connection) throws SQLException {
        this.connection = connection;
        this.insert = connection.prepareStatement(INSERT);
        this.read = connection.prepareStatement(READ);
        this.move = connection.prepareStatement(MOVE);
    }

    /**
     * Creates each plan's row in {@code state} (VOID rows carry no merchant, fingerprint, amount or
     * currency) unless its (caller, key) exists; returns the scopes of the rows created.
     */
    Set<String> insertIfAbsent(List<PaymentPlan> plans, PaymentState state, List<Instant> at)
            throws SQLException {
        int n = plans.size();
        String[] ids = new String[n];
        String[] callers = new String[n];
        String[] keys = new String[n];
        String[] merchants = new String[n];
        String[] fingerprints = new String[n];
        Long[] amounts = new Long[n];
        String[] currencies = new String[n];
        String[] states = new String[n];
        String[] times = new String[n];
        for (int i = 0; i < n; i++) {
            PaymentPlan p = plans.get(i);
            PaymentState s = state != null ? state : p.initial();
            boolean isVoid = s == PaymentState.VOID;
            ids[i] = p.paymentId();
            callers[i] = p.callerId();
            keys[i] = p.clientKey();
            merchants[i] = isVoid ? null : p.merchantId();
            fingerprints[i] = isVoid ? null : p.fingerprint();
            amounts[i] = isVoid ? null : p.amount();
            currencies[i] = isVoid ? null : p.currency();
            states[i] = s.name();
            times[i] = at.get(i).toString();
        }
        int c = 1;
        insert.setArray(c++, connection.createArrayOf("text", ids));
        insert.setArray(c++, connection.createArrayOf("text", callers));
        insert.setArray(c++, connection.createArrayOf("text", keys));
        insert.setArray(c++, connection.createArrayOf("text", merchants));
        insert.setArray(c++, connection.createArrayOf("text", fingerprints));
        insert.setArray(c++, connection.createArrayOf("bigint", amounts));
        insert.setArray(c++, connection.createArrayOf("text", currencies));
        insert.setArray(c++, connection.createArrayOf("text", states));
        insert.setArray(c, connection.createArrayOf("text", times));
        Set<String> created = new HashSet<>();
        try (ResultSet rs = insert.executeQuery()) {
            while (rs.next()) {
                created.add(scope(rs.getString(1), rs.getString(2)));
            }
        }
        return created;
    }

    /** The stored rows of these plans' scopes, by scope. */
    Map<String, StoredRow> read(List<PaymentPlan> plans) throws SQLException {
        String[] callers = plans.stream().map(PaymentPlan::callerId).toArray(String[]::new);
        String[] keys = plans.stream().map(PaymentPlan::clientKey).toArray(String[]::new);
        read.setArray(1, connection.createArrayOf("text", callers));
        read.setArray(2, connection.createArrayOf("text", keys));
        Map<String, StoredRow> rows = new HashMap<>();
        try (ResultSet rs = read.executeQuery()) {
            while (rs.next()) {
                rows.put(
                        scope(rs.getString(1), rs.getString(2)),
                        new StoredRow(
                                rs.getString(3),
                                PaymentState.valueOf(rs.getString(4)),
                                rs.getString(5)));
            }
        }
        return rows;
    }

    /** Runs each compare-and-set as its own UPDATE; returns per move whether it applied. */
    boolean[] move(List<MoveRow> moves) throws SQLException {
        for (MoveRow m : moves) {
            move.setString(1, m.to().name());
            move.setString(
                    2,
                    m.to() == PaymentState.SUCCEEDED
                            ? "ch_" + m.plan().paymentId().substring(4)
                            : null);
            move.setObject(3, OffsetDateTime.ofInstant(m.at(), ZoneOffset.UTC));
            move.setString(4, m.plan().paymentId());
            move.setString(5, m.from().name());
            move.addBatch();
        }
        int[] counts = moves.isEmpty() ? new int[0] : move.executeBatch();
        boolean[] applied = new boolean[counts.length];
        for (int i = 0; i < counts.length; i++) {
            applied[i] = counts[i] == 1;
        }
        return applied;
    }

    static String scope(String callerId, String clientKey) {
        return callerId + ":" + clientKey;
    }

    static String scope(PaymentPlan plan) {
        return scope(plan.callerId(), plan.clientKey());
    }

    @Override
    public void close() throws SQLException {
        try (insert;
                read;
                move) {
            // closes the three statements
        }
    }
}
