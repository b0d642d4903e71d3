package io.effonce.testing;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger as a managed PostgreSQL runs it: a primary and a streaming standby with failover
 * slots, on two ports that one multi-host URL names. {@link #crashPrimary} kills the primary the
 * way a lost machine goes; {@link #promoteStandby} promotes the standby and starts a new standby of
 * it on the dead primary's port, so the URL stays right through any number of failovers. The
 * standby is asynchronous: a commit the primary acknowledged but had not yet sent is lost with it.
 */
public final class LedgerPair implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LedgerPair.class);

    private final PostgresEndpoint endpoint;
    private final List<AutoCloseable> dead = new ArrayList<>();
    private AutoCloseable primaryOwner;
    private EmbeddedPostgres primary;
    private StreamingStandby standby;
    private int failovers;

    private LedgerPair(EmbeddedPostgres primary, StreamingStandby standby) {
        this.primary = primary;
        this.primaryOwner = primary;
        this.standby = standby;
        this.endpoint = standby.withPrimary(primary);
    }

    /** A primary with the project's schema and its standby, both streaming. */
    public static LedgerPair start() {
        EmbeddedPostgres primary = EmbeddedPostgres.start();
        SchemaTool.applyAll(primary.endpoint());
        return new LedgerPair(primary, StreamingStandby.of(primary, true));
    }

    /** Both servers in one URL: pgjdbc connects to whichever is primary. */
    public PostgresEndpoint endpoint() {
        return endpoint;
    }

    /** Whether the standby holds {@code slot}, synchronized and ready for a failover. */
    public boolean standbyHasSlot(String slot) {
        return standby.hasSyncedSlot(slot);
    }

    /** Kills the primary's postmaster ({@code SIGKILL}). */
    public void crashPrimary() {
        primary.crash();
        dead.add(primaryOwner);
    }

    /**
     * Promotes the standby, then makes it a new standby on the dead primary's port (a cold copy of
     * the new primary's data: it is stopped and started again, briefly, on its own port).
     */
    public void promoteStandby() {
        int port = primary.port();
        standby.promote();
        primary = standby.server();
        primaryOwner = standby;
        closeDead();
        standby = StreamingStandby.of(primary, true, port);
        failovers++;
        LOG.info(
                "Ledger failover {}: primary on port {}, standby on port {}",
                failovers,
                primary.port(),
                port);
    }

    public int failovers() {
        return failovers;
    }

    @Override
    public void close() {
        closeDead();
        standby.close();
        closeQuietly(primaryOwner);
    }

    /** Frees the data directories of dead primaries (their ports are free since they died). */
    private void closeDead() {
        dead.forEach(LedgerPair::closeQuietly);
        dead.clear();
    }

    private static void closeQuietly(AutoCloseable server) {
        try {
            server.close();
        } catch (Exception e) {
            LOG.warn("Could not close {}: {}", server, e.toString());
        }
    }
}
