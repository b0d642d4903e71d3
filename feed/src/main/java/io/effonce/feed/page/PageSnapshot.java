package io.effonce.feed.page;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Objects;

/**
 * What the page shows at one moment: the day, its top merchant-days with the live and the committed
 * total side by side, how far the committed totals go (as of), and the restores seen.
 *
 * @param day the day shown; null while both totals tables are empty
 * @param asOf from the view {@code committed_progress}; null while the sink has not reported any
 * @param liveWrittenAt the newest write among the rows' live totals; null without any
 * @param error why the figures could not be read (the database is unreachable, say); the other
 *     fields then hold the last figures read, or nothing
 */
record PageSnapshot(
        LocalDate day,
        List<Row> rows,
        AsOf asOf,
        Instant liveWrittenAt,
        List<Restore> restores,
        Instant readAt,
        String trigger,
        long commitNotices,
        String error) {

    PageSnapshot {
        rows = List.copyOf(rows);
        restores = List.copyOf(restores);
    }

    /**
     * One (merchant, currency) of the day. A null committed total: no checkpoint has committed the
     * key yet; a null live total: the live table lacks the key (a restore's flush removed it, for
     * now).
     */
    record Row(
            String merchantId,
            String currency,
            Long committedMinor,
            Long committedPayments,
            Long checkpointId,
            Long liveMinor,
            Long livePayments,
            boolean dayFinal,
            String source,
            Long finalMinor) {}

    /**
     * The committed totals' progress, one row of {@code committed_progress}; {@code watermark} the
     * event time its commits cover (null until every key group has one), {@code dayZone} the zone
     * whose dates the days are.
     */
    record AsOf(
            Long checkpointId,
            Instant completeThrough,
            LocalDate finalThrough,
            Instant committedAt,
            Instant lastRestoreAt,
            Long lastRestoredCheckpoint,
            long keyGroups,
            Instant watermark,
            String dayZone) {}

    /** A restore of the job: when, from which checkpoint, and when this page first saw it. */
    record Restore(Instant at, Long checkpointId, Instant seenAt) {}

    /** The same figures, read again for another reason. */
    PageSnapshot because(String newTrigger, long notices) {
        return new PageSnapshot(
                day, rows, asOf, liveWrittenAt, restores, readAt, newTrigger, notices, error);
    }

    /**
     * Whether a page showing {@code other} would show the same figures (times of reading aside).
     */
    boolean sameFiguresAs(PageSnapshot other) {
        return other != null
                && Objects.equals(day, other.day)
                && rows.equals(other.rows)
                && Objects.equals(asOf, other.asOf)
                && Objects.equals(liveWrittenAt, other.liveWrittenAt)
                && restores.equals(other.restores)
                && Objects.equals(error, other.error);
    }

    String toJson() {
        return PageJson.write(this::writeTo);
    }

    private void writeTo(JsonGenerator json) throws IOException {
        json.writeStartObject();
        text(json, "day", day);
        text(json, "readAt", readAt);
        text(json, "trigger", trigger);
        number(json, "commitNotices", commitNotices);
        text(json, "error", error);
        if (asOf == null) {
            json.writeNullField("asOf");
        } else {
            json.writeObjectFieldStart("asOf");
            number(json, "checkpoint", asOf.checkpointId());
            text(json, "completeThrough", asOf.completeThrough());
            text(json, "finalThrough", asOf.finalThrough());
            text(json, "committedAt", asOf.committedAt());
            text(json, "lastRestoreAt", asOf.lastRestoreAt());
            number(json, "lastRestoredCheckpoint", asOf.lastRestoredCheckpoint());
            number(json, "keyGroups", asOf.keyGroups());
            text(json, "watermark", asOf.watermark());
            text(json, "dayZone", asOf.dayZone());
            json.writeEndObject();
        }
        text(json, "liveWrittenAt", liveWrittenAt);
        json.writeArrayFieldStart("restores");
        for (Restore r : restores) {
            json.writeStartObject();
            text(json, "at", r.at());
            number(json, "checkpoint", r.checkpointId());
            text(json, "seenAt", r.seenAt());
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeArrayFieldStart("rows");
        for (Row r : rows) {
            json.writeStartObject();
            text(json, "merchant", r.merchantId());
            text(json, "currency", r.currency());
            number(json, "committed", r.committedMinor());
            number(json, "committedPayments", r.committedPayments());
            number(json, "checkpoint", r.checkpointId());
            number(json, "live", r.liveMinor());
            number(json, "livePayments", r.livePayments());
            json.writeBooleanField("final", r.dayFinal());
            text(json, "source", r.source());
            number(json, "finalTotal", r.finalMinor());
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeEndObject();
    }

    /** A string, a date or a time (as its ISO text), or null. */
    private static void text(JsonGenerator json, String name, Object value) throws IOException {
        if (value == null) {
            json.writeNullField(name);
        } else {
            json.writeStringField(name, value.toString());
        }
    }

    private static void number(JsonGenerator json, String name, Long value) throws IOException {
        if (value == null) {
            json.writeNullField(name);
        } else {
            json.writeNumberField(name, value);
        }
    }
}
