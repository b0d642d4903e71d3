package io.effonce.job.decode;

import java.io.IOException;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

/**
 * The parts of a change record the decoder looks at, read in one streaming pass: {@code before},
 * {@code source} and {@code schema} are skipped without building objects, which is most of a
 * record's bytes. {@link #read(byte[])} reads a record straight from its bytes when it is the plain
 * JSON nearly every record is ({@link ByteTokens}), and with Jackson otherwise. Public for the
 * decoding benchmark (bench's {@code EnvelopeDecodeBenchmark}).
 */
public final class EnvelopeScan {

    /** The fields of {@code after} the job uses, in the order of {@link #afterFields}. */
    static final List<String> AFTER_FIELDS =
            List.of("payment_id", "merchant_id", "amount", "currency", "state", "updated_at");

    private static final List<String> ENVELOPE_FIELDS =
            List.of("heartbeat", "ts_ms", "op", "schema", "payload", "after");

    /** Every field name the scan reads: the envelope's, then {@link #AFTER_FIELDS}. */
    static final List<String> NAMES =
            Stream.concat(ENVELOPE_FIELDS.stream(), AFTER_FIELDS.stream()).toList();

    private static final int HEARTBEAT = 0;
    private static final int TS_MS = 1;
    private static final int OP = 2;
    private static final int SCHEMA = 3;
    private static final int PAYLOAD = 4;
    private static final int AFTER = 5;

    private static final JsonFactory JSON = new JsonFactory();

    /** One scalar field as it appeared; {@code text} only for a string. */
    record Field(JsonToken token, String text, long number, boolean fitsLong) {}

    boolean object;
    int fields;
    boolean heartbeat;
    Field tsMs;
    boolean hasOp;
    String op = "?";
    boolean hasSchema;
    EnvelopeScan payload;
    boolean payloadNotObject;
    JsonToken after;

    /** By the index of the name in {@link #AFTER_FIELDS}; null where the field is absent. */
    final Field[] afterFields = new Field[AFTER_FIELDS.size()];

    /** The field {@code name} of {@link #AFTER_FIELDS}, or null if absent. */
    Field afterField(String name) {
        return afterFields[AFTER_FIELDS.indexOf(name)];
    }

    /**
     * Reads a record's value: from its bytes if they are plain, else with Jackson.
     *
     * @throws IOException Jackson's, if the value is not JSON
     */
    public static EnvelopeScan read(byte[] value) throws IOException {
        try {
            return read(new ByteTokens(value));
        } catch (ByteTokens.Unusual e) {
            try (JsonParser parser = JSON.createParser(value)) {
                return read(new JacksonTokens(parser));
            }
        }
    }

    /** Reads a value with Jackson alone, as for a record that is not plain. */
    public static EnvelopeScan read(JsonParser parser) throws IOException {
        return read(new JacksonTokens(parser));
    }

    /** Reads the value at the tokens' next token. */
    static EnvelopeScan read(EnvelopeTokens tokens) throws IOException {
        EnvelopeScan scan = new EnvelopeScan();
        if (tokens.next() != JsonToken.START_OBJECT) {
            tokens.skipChildren();
            return scan;
        }
        scan.readObject(tokens);
        return scan;
    }

    private void readObject(EnvelopeTokens t) throws IOException {
        object = true;
        while (t.next() == JsonToken.FIELD_NAME) {
            int name = t.nameIndex();
            JsonToken token = t.next();
            fields++;
            switch (name) {
                case HEARTBEAT -> {
                    heartbeat = token == JsonToken.VALUE_TRUE;
                    t.skipChildren();
                }
                case TS_MS -> {
                    tsMs = field(t, token);
                    t.skipChildren();
                }
                case OP -> {
                    hasOp = true;
                    op = token.isScalarValue() ? t.text() : "?";
                    t.skipChildren();
                }
                case SCHEMA -> {
                    hasSchema = true;
                    t.skipChildren();
                }
                case PAYLOAD -> {
                    if (token == JsonToken.START_OBJECT) {
                        payload = new EnvelopeScan();
                        payload.readObject(t);
                    } else {
                        payloadNotObject = true;
                        t.skipChildren();
                    }
                }
                case AFTER -> {
                    after = token;
                    if (token == JsonToken.START_OBJECT) {
                        readAfter(t);
                    } else {
                        t.skipChildren();
                    }
                }
                default -> t.skipChildren();
            }
        }
    }

    private void readAfter(EnvelopeTokens t) throws IOException {
        while (t.next() == JsonToken.FIELD_NAME) {
            int index = t.nameIndex() - ENVELOPE_FIELDS.size();
            JsonToken token = t.next();
            if (index >= 0) {
                afterFields[index] = field(t, token);
            }
            t.skipChildren();
        }
    }

    private static Field field(EnvelopeTokens t, JsonToken token) throws IOException {
        return switch (token) {
            case VALUE_STRING -> new Field(token, t.text(), 0, false);
            case VALUE_NUMBER_INT -> {
                boolean fits = t.fitsLong();
                yield new Field(token, null, fits ? t.longValue() : 0, fits);
            }
            default -> new Field(token, null, 0, false);
        };
    }

    /**
     * Whether this is the value of a heartbeat Debezium writes to its own heartbeat topic ({@code
     * io.debezium.connector.common.Heartbeat}): {@code ts_ms} and nothing else.
     */
    boolean debeziumHeartbeat() {
        return fields == 1 && tsMs != null;
    }

    /**
     * The envelope itself: the {@code payload} of the schemas-on form, else this object. Null if
     * the record has a schema but its payload is not an object.
     */
    EnvelopeScan envelope() {
        if (hasSchema && payload != null) {
            return payload;
        }
        return hasSchema && payloadNotObject ? null : this;
    }
}
