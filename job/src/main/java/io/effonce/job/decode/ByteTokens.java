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
final class ByteTokens implements EnvelopeTokens {

    /**
     * A record outside the subset; no stack trace, as it is expected and frequent under fuzzing.
     */
    static final class Unusual extends IOException {
        private static final long serialVersionUID = 1L;

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    private static final int MAX_NESTING = 64;
    private static final int MAX_NAME_BYTES = 1_000;
    private static final int MAX_STRING_BYTES = 1 << 20;
    private static final int MAX_NUMBER_CHARS = 100;
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

    private final byte[] b;
    private int pos;
    private JsonToken current;

    /** Objects opened by {@link #next} and not yet closed. */
    private int depth;

    /** The current name's or scalar's bytes: [start, end), without quotes. */
    private int start;

    private int end;
    private boolean escaped;
    private boolean nonAscii;
    private int integerDigits;

    ByteTokens(byte[] bytes) {
        this.b = bytes;
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

    private JsonToken scalar(int c) throws IOException {
        switch (c) {
            case '"':
                string();
                return JsonToken.VALUE_STRING;
            case 't':
                return literal("true", JsonToken.VALUE_TRUE);
            case 'f':
                return literal("false", JsonToken.VALUE_FALSE);
            case 'n':
                return literal("null", JsonToken.VALUE_NULL);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return number();
                }
                throw new Unusual();
        }
    }

    /** Skips the value at the next non-space byte, inside {@code level} open containers. */
    private void skipValue(int level) throws IOException {
        int c = nextNonSpace();
        if (c == '{') {
            pos++;
            skipObjectBody(level + 1);
        } else if (c == '[') {
            pos++;
            skipArrayBody(level + 1);
        } else {
            scalar(c);
        }
    }

    /** Skips the members and the closing brace of the {@code level}th open container. */
    private void skipObjectBody(int level) throws IOException {
        if (level > MAX_NESTING) {
            throw new Unusual();
        }
        if (nextNonSpace() == '}') {
            pos++;
            return;
        }
        while (true) {
            if (peek() != '"') {
                throw new Unusual();
            }
            string();
            if (end - start > MAX_NAME_BYTES || nextNonSpace() != ':') {
                throw new Unusual();
            }
            pos++;
            skipValue(level);
            int c = nextNonSpace();
            pos++;
            if (c == '}') {
                return;
            }
            if (c != ',') {
                throw new Unusual();
            }
            nextNonSpace();
        }
    }

    /** Skips the values and the closing bracket of the {@code level}th open container. */
    private void skipArrayBody(int level) throws IOException {
        if (level > MAX_NESTING) {
            throw new Unusual();
        }
        if (nextNonSpace() == ']') {
            pos++;
            return;
        }
        while (true) {
            skipValue(level);
            int c = nextNonSpace();
            pos++;
            if (c == ']') {
                return;
            }
            if (c != ',') {
                throw new Unusual();
            }
        }
    }

    /** A string at its opening quote: checks every escape and every UTF-8 sequence. */
    private void string() throws IOException {
        byte[] b = this.b;
        int p = pos + 1;
        int first = p;
        boolean escapes = false;
        boolean multiByte = false;
        while (true) {
            if (p >= b.length) {
                throw new Unusual();
            }
            byte c = b[p];
            if (c >= 0x20 && c != '"' && c != '\\') {
                p++; // printable ASCII: nearly every byte
            } else if (c == '"') {
                break;
            } else if (c == '\\') {
                p = escape(b, p + 1);
                escapes = true;
            } else if (c < 0) {
                p = utf8(b, p);
                multiByte = true;
            } else {
                throw new Unusual(); // a control character
            }
        }
        if (p - first > MAX_STRING_BYTES) {
            throw new Unusual();
        }
        start = first;
        end = p;
        pos = p + 1;
        escaped = escapes;
        nonAscii = multiByte;
    }

    /** The escape whose backslash is before {@code p}; returns the position after it. */
    private static int escape(byte[] b, int p) throws IOException {
        if (p >= b.length) {
            throw new Unusual();
        }
        switch (b[p]) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> {
                return p + 1;
            }
            case 'u' -> {
                if (p + 4 >= b.length) {
                    throw new Unusual();
                }
                for (int i = p + 1; i <= p + 4; i++) {
                    byte h = b[i];
                    boolean hex =
                            (h >= '0' && h <= '9')
                                    || (h >= 'a' && h <= 'f')
                                    || (h >= 'A' && h <= 'F');
                    if (!hex) {
                        throw new Unusual();
                    }
                }
                return p + 5;
            }
            default -> throw new Unusual();
        }
    }

    /**
     * The UTF-8 sequence at {@code p}, by RFC 3629: no overlong forms, no surrogates, nothing past
     * U+10FFFF. Returns the position after it.
     */
    private static int utf8(byte[] b, int p) throws IOException {
        int lead = b[p] & 0xFF;
        int continuations;
        int low = 0x80;
        int high = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF) {
            continuations = 1;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            continuations = 2;
            if (lead == 0xE0) {
                low = 0xA0;
            } else if (lead == 0xED) {
                high = 0x9F;
            }
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            continuations = 3;
            if (lead == 0xF0) {
                low = 0x90;
            } else if (lead == 0xF4) {
                high = 0x8F;
            }
        } else {
            throw new Unusual();
        }
        if (p + continuations >= b.length) {
            throw new Unusual();
        }
        for (int i = 1; i <= continuations; i++) {
            int c = b[p + i] & 0xFF;
            if (c < low || c > high) {
                throw new Unusual();
            }
            low = 0x80;
            high = 0xBF;
        }
        return p + continuations + 1;
    }

    /** A number by RFC 8259's grammar; what follows it is checked by whoever reads on. */
    private JsonToken number() throws IOException {
        byte[] b = this.b;
        int p = pos;
        if (b[p] == '-') {
            p++;
        }
        int first = p;
        if (p < b.length && b[p] == '0') {
            p++;
        } else if (p < b.length && b[p] >= '1' && b[p] <= '9') {
            p = digits(b, p + 1);
        } else {
            throw new Unusual();
        }
        integerDigits = p - first;
        boolean integer = true;
        if (p < b.length && b[p] == '.') {
            p = requireDigits(b, p + 1);
            integer = false;
        }
        if (p < b.length && (b[p] == 'e' || b[p] == 'E')) {
            p++;
            if (p < b.length && (b[p] == '+' || b[p] == '-')) {
                p++;
            }
            p = requireDigits(b, p);
            integer = false;
        }
        if (p - pos > MAX_NUMBER_CHARS) {
            throw new Unusual();
        }
        start = pos;
        end = p;
        pos = p;
        return integer ? JsonToken.VALUE_NUMBER_INT : JsonToken.VALUE_NUMBER_FLOAT;
    }

    private static int requireDigits(byte[] b, int p) throws IOException {
        if (p >= b.length || b[p] < '0' || b[p] > '9') {
            throw new Unusual();
        }
        return digits(b, p + 1);
    }

    private static int digits(byte[] b, int p) {
        while (p < b.length && b[p] >= '0' && b[p] <= '9') {
            p++;
        }
        return p;
    }

    private JsonToken literal(String word, JsonToken token) throws IOException {
        int length = word.length();
        if (pos + length > b.length) {
            throw new Unusual();
        }
        for (int i = 0; i < length; i++) {
            if (b[pos + i] != word.charAt(i)) {
                throw new Unusual();
            }
        }
        pos += length;
        return token;
    }

    /** Skips JSON's four whitespace bytes; returns the byte after them. */
    private int nextNonSpace() throws IOException {
        byte[] b = this.b;
        for (int p = pos; p < b.length; p++) {
            byte c = b[p];
            if (c > ' ' || (c != ' ' && c != '\n' && c != '\r' && c != '\t')) {
                pos = p;
                return c & 0xFF;
            }
        }
        throw new Unusual();
    }

    private int peek() throws IOException {
        if (pos >= b.length) {
            throw new Unusual();
        }
        return b[pos] & 0xFF;
    }
}
