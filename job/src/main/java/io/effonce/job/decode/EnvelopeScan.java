package io.effonce.job.decode;

import java.io.IOException;
import java.util.List;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

/**
 * The parts of a change record the decoder looks at, read in one streaming pass: {@code before},
 * {@code source} and {@code schema} are skipped without building objects, which is most of a
 * record's bytes. Public for the decoding benchmark (bench's {@code EnvelopeDecodeBenchmark}).
 */
public final class EnvelopeScan {

    /** The fields of {@code after} the job uses, in the order of {@link #afterFields}. */
    static final List<String> AFTER_FIELDS =
            List.of("payment_id", "merchant_id", "amount", "currency", "state", "updated_at");

    /** One scalar field as it appeared. */
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

    /** Reads the value at the parser's next token. */
    public static EnvelopeScan read(JsonParser p) throws IOException {
        EnvelopeScan scan = new EnvelopeScan();
        if (p.nextToken() != JsonToken.START_OBJECT) {
            p.skipChildren();
            return scan;
        }
        scan.readObject(p);
        return scan;
    }

    private void readObject(JsonParser p) throws IOException {
        object = true;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken token = p.nextToken();
            fields++;
            switch (name) {
                case "heartbeat" -> {
                    heartbeat = token == JsonToken.VALUE_TRUE;
                    p.skipChildren();
                }
                case "ts_ms" -> {
                    tsMs = field(p, token);
                    p.skipChildren();
                }
                case "op" -> {
                    hasOp = true;
                    op = token.isScalarValue() ? p.getText() : "?";
                    p.skipChildren();
                }
                case "schema" -> {
                    hasSchema = true;
                    p.skipChildren();
                }
                case "payload" -> {
                    if (token == JsonToken.START_OBJECT) {
                        payload = new EnvelopeScan();
                        payload.readObject(p);
                    } else {
                        payloadNotObject = true;
                        p.skipChildren();
                    }
                }
                case "after" -> {
                    after = token;
                    if (token == JsonToken.START_OBJECT) {
                        readAfter(p);
                    } else {
                        p.skipChildren();
                    }
                }
                default -> p.skipChildren();
            }
        }
    }

    private void readAfter(JsonParser p) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken token = p.nextToken();
            int index = AFTER_FIELDS.indexOf(name);
            if (index >= 0) {
                afterFields[index] = field(p, token);
            }
            p.skipChildren();
        }
    }

    private static Field field(JsonParser p, JsonToken token) throws IOException {
        return switch (token) {
            case VALUE_STRING -> new Field(token, p.getText(), 0, false);
            case VALUE_NUMBER_INT -> {
                JsonParser.NumberType type = p.getNumberType();
                boolean fits =
                        type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG;
                yield new Field(token, p.getText(), fits ? p.getLongValue() : 0, fits);
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
