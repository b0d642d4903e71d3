package io.effonce.cdc;

/**
 * {@code --slot-failover}: whether the relay creates its slot with {@code failover = true}, so that
 * a standby with {@code sync_replication_slots = on} keeps a copy and the slot survives the
 * standby's promotion (PostgreSQL 17 and later).
 */
enum SlotFailover {
    /** On where the ledger's server is PostgreSQL 17 or later. */
    AUTO,
    ON,
    OFF;

    /** First PostgreSQL release ({@code server_version_num}) with failover slots. */
    static final int FIRST_VERSION = 170000;

    /** Whether a slot created on a server of {@code serverVersion} gets failover. */
    boolean appliesTo(int serverVersion) {
        return switch (this) {
            case AUTO -> serverVersion >= FIRST_VERSION;
            case ON -> true;
            case OFF -> false;
        };
    }
}
