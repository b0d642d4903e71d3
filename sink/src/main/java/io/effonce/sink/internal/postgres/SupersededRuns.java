package io.effonce.sink.internal.postgres;

import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.DeploymentOrder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * What a takeover reads of later deployments: whether one took key groups over from the claimant's
 * run ({@code sink_superseded_runs}, row 1), and whether one owns key groups anywhere in the table
 * (row 1c). The second holds where the first cannot: a database that went back may have forgotten
 * the ranges a later deployment took, but not every one, and an attempt of the earlier deployment
 * that wakes then must not take a range it finds its own again, or unowned.
 */
final class SupersededRuns {

    private SupersededRuns() {}

    /** Whether a later deployment took key groups over from {@code run}. */
    static boolean superseded(Connection c, String table, String run) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT EXISTS (SELECT 1 FROM sink_superseded_runs"
                                + " WHERE sink_table = ? AND run = ?)")) {
            s.setString(1, table);
            s.setString(2, run);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /**
     * A run deployed after the claimant's that owns key groups anywhere in the table below the
     * claimant's maximum parallelism, if any: key groups beyond it are not of this job's shape (a
     * mistaken deployment with a larger maximum parallelism may own them) and must not lock it out.
     */
    static Optional<String> laterDeployment(Connection c, String table, Claim claim)
            throws SQLException {
        String run = claim.run();
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT DISTINCT owner_job FROM sink_fences"
                                + " WHERE sink_table = ? AND owner_job <> ? AND key_group < ?")) {
            s.setString(1, table);
            s.setString(2, run);
            s.setInt(3, claim.maxParallelism());
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    if (DeploymentOrder.later(rs.getString(1), run)) {
                        return Optional.of(rs.getString(1));
                    }
                }
            }
        }
        return Optional.empty();
    }
}
