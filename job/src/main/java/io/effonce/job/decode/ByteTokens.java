package io.effonce.job.decode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

/**
 * {@link EnvelopeTokens} read straight from a record's bytes, for the JSON nearly every record is:
 * strict RFC 8259 in strict UTF-8, a root object, plain ASCII field names where the scan reads
 * them, no escape in a string the scan reads, integers of up to 18 digits. It validates everything
 * it passes over (skipped values too) and throws {@link Unusual} for anything else, valid or not;
 * the caller then reads the record with {@link JacksonTokens}. So whatever it reads, Jackson reads
 * the same, and every verdict on unusual input, errors included, is Jackson's. Jackson's own limits
 * lie far beyond the ones here (nesting, string and name lengths).
 */
final class ByteTokens extends JsonBytes implements EnvelopeTokens {

    private static final int MAX_LONG_DIGITS = 18;

    private static final byte[][] NAME_BYTES =
            EnvelopeScan.NAMES.stream()
                    .map(n -> n.getBytes(StandardCharsets.US_ASCII))
                    .toArray(byte[][]::new);

    private static final int MAX_KNOWN_NAME =
            EnvelopeScan.NAMES.stream().mapToInt(String::length).max().orElseThrow();

    /** Each known name's index by its length and first byte, which tell the names apart. */
    private static final int[] NAME_BY_LENGTH_AND_FIRST = new int[(MAX_KNOWN_NAME + 1) * 128];

    static {
        Arrays.fill(NAME_BY_LENGTH_AND_FIRST, -1);
        for (int i = 0; i < NAME_BYTES.length; i++) {
            int slot = slot(NAME_BYTES[i].length, NAME_BYTES[i][0]);
            if (NAME_BY_LENGTH_AND_FIRST[slot] >= 0) {
                throw new ExceptionInInitializerError(
                        EnvelopeScan.NAMES.get(i) + " shares its length and first letter");
            }
            NAME_BY_LENGTH_AND_FIRST[slot] = i;
        }
    }

    private JsonToken current;

    /** Objects opened by {@link #next} and not yet closed. */
    private int depth;

    ByteTokens(byte[] bytes) {
        super(bytes);
    }

    @Override
    public JsonToken next() throws IOException {
        if (current == null) {
            if (nextNonSpace() != '{') {
                throw new Unusual();
            }
            pos++;
            depth = 1;
            return current = JsonToken.START_OBJECT;
        }
        switch (current) {
            case FIELD_NAME:
                return current = value();
            case START_OBJECT:
                if (nextNonSpace() == '}') {
                    return endObject();
                }
                return current = name();
            case START_ARRAY:
                throw new Unusual(); // the scan skips arrays
            default:
                if (depth == 0) {
                    throw new Unusual(); // nothing after the root object is read
                }
                int c = nextNonSpace();
                if (c == '}') {
                    return endObject();
                }
                if (c != ',') {
                    throw new Unusual();
                }
                pos++;
                nextNonSpace();
                return current = name();
        }
    }

    @Override
    public int nameIndex() {
        int length = end - start;
        if (length == 0 || length > MAX_KNOWN_NAME) {
            return -1;
        }
        int index = NAME_BY_LENGTH_AND_FIRST[slot(length, b[start])];
        if (index < 0) {
            return -1;
        }
        byte[] name = NAME_BYTES[index];
        for (int i = 1; i < length; i++) {
            if (b[start + i] != name[i]) {
                return -1;
            }
        }
        return index;
    }

    private static int slot(int length, byte first) {
        return length * 128 + (first & 0x7F);
    }

    @Override
    public String text() throws IOException {
        return switch (current) {
            case VALUE_STRING -> {
                if (escaped) {
                    throw new Unusual();
                }
                yield new String(
                        b,
                        start,
                        end - start,
                        nonAscii ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
            }
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT ->
                    new String(b, start, end - start, StandardCharsets.ISO_8859_1);
            case VALUE_TRUE -> "true";
            case VALUE_FALSE -> "false";
            case VALUE_NULL -> "null";
            default -> throw new Unusual();
        };
    }

    @Override
    public boolean fitsLong() throws IOException {
        if (current != JsonToken.VALUE_NUMBER_INT || integerDigits > MAX_LONG_DIGITS) {
            throw new Unusual(); // Jackson decides between long and BigInteger
        }
        return true;
    }

    @Override
    public long longValue() throws IOException {
        fitsLong();
        boolean negative = b[start] == '-';
        long value = 0;
        for (int i = negative ? start + 1 : start; i < end; i++) {
            value = value * 10 + (b[i] - '0');
        }
        return negative ? -value : value;
    }

    @Override
    public void skipChildren() throws IOException {
        if (current == JsonToken.START_OBJECT) {
            skipObjectBody(depth);
            depth--;
            current = JsonToken.END_OBJECT;
        } else if (current == JsonToken.START_ARRAY) {
            skipArrayBody(depth + 1);
            current = JsonToken.END_ARRAY;
        }
    }

    private JsonToken endObject() {
        pos++;
        depth--;
        return current = JsonToken.END_OBJECT;
    }

    /** A field name the scan reads: plain printable ASCII, then its colon. */
    private JsonToken name() throws IOException {
        byte[] b = this.b;
        int p = pos;
        if (b[p] != '"') {
            throw new Unusual();
        }
        int first = ++p;
        while (true) {
            if (p >= b.length) {
                throw new Unusual();
            }
            byte c = b[p];
            if (c == '"') {
                break;
            }
            if (c < 0x20 || c == '\\') {
                throw new Unusual(); // a control character or an escape; non-ASCII is negative
            }
            p++;
        }
        if (p - first > MAX_NAME_BYTES) {
            throw new Unusual();
        }
        start = first;
        end = p;
        pos = p + 1;
        if (nextNonSpace() != ':') {
            throw new Unusual();
        }
        pos++;
        return JsonToken.FIELD_NAME;
    }

    /** The value at the next non-space byte, as {@link #next} reads it. */
    private JsonToken value() throws IOException {
        int c = nextNonSpace();
        if (c == '{') {
            pos++;
            if (++depth > MAX_NESTING) {
                throw new Unusual();
            }
            return JsonToken.START_OBJECT;
        }
        if (c == '[') {
            pos++;
            return JsonToken.START_ARRAY;
        }
        return scalar(c);
    }
}
