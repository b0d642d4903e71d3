package io.effonce.job.decode;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

/**
 * The parts of a change record the decoder looks at, read in one streaming pass: {@code before},
 * {@code source} and {@code schema} are skipped without building objects, which is most of a
 * record's bytes.
 */
final class EnvelopeScan {

    /** The fields of {@code after} the job uses. */
    static final Set<String> AFTER_FIELDS =
            Set.of("payment_id", "merchant_id", "amount", "currency", "state", "updated_at");

    /** One scalar field as it appeared. */
    record Field(JsonToken token, String text, long number, boolean fitsLong) {}

    boolean object;
    boolean heartbeat;
    Field tsMs;
    boolean hasOp;
    String op = "?";
    boolean hasSchema;
    EnvelopeScan payload;
    boolean payloadNotObject;
    JsonToken after;
    final Map<String, Field> afterFields = new HashMap<>(8);

    /** Reads the value at the parser's next token. */
    static EnvelopeScan read(JsonParser p) throws IOException {
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
            if (AFTER_FIELDS.contains(name)) {
                afterFields.put(name, field(p, token));
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
