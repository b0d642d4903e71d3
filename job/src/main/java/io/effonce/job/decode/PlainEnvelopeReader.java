package io.effonce.job.decode;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

/**
 * The fast path of the envelope scan: reads a record straight from its bytes when it is plain JSON
 * — one object, ASCII strings without escapes or bytes below 0x20, integers of at most 18 digits,
 * each known field once, nested at most {@value #MAX_DEPTH} deep, at most {@value #MAX_BYTES} bytes
 * — which is what the relay writes. It fills the same {@link EnvelopeScan} as Jackson's pass
 * ({@link EnvelopeScan#read}) and gives up ({@code null}) on anything else, so unusual and hostile
 * input is always judged by Jackson: this path may only be faster, never different. Jackson costs
 * most of a record's decoding in parser set-up, name canonicalisation and token bookkeeping; the
 * relay's records need none of that.
 */
final class PlainEnvelopeReader {

    static final int MAX_DEPTH = 64;

    /** Far below Jackson's own limits (names, strings, numbers), so none of them can differ. */
    static final int MAX_BYTES = 32 * 1024;

    private static final byte[][] ENVELOPE_NAMES =
            ascii("heartbeat", "ts_ms", "op", "schema", "payload", "after");
    private static final int HEARTBEAT = 0;
    private static final int TS_MS = 1;
    private static final int OP = 2;
    private static final int SCHEMA = 3;
    private static final int PAYLOAD = 4;
    private static final int AFTER = 5;

    private static final byte[][] AFTER_NAMES =
            ascii(EnvelopeScan.AFTER_FIELDS.toArray(new String[0]));

    /** Giving up is control flow, not an error: one instance, no stack trace. */
    private static final class NotPlain extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotPlain() {
            super(null, null, false, false);
        }
    }

    private static final NotPlain NOT_PLAIN = new NotPlain();

    private final byte[] b;
    private int i;

    private PlainEnvelopeReader(byte[] b) {
        this.b = b;
    }

    /** The scan of {@code value}, or {@code null} when it is not plain: then ask Jackson. */
    static EnvelopeScan read(byte[] value) {
        if (value.length > MAX_BYTES) {
            return null;
        }
        PlainEnvelopeReader reader = new PlainEnvelopeReader(value);
        try {
            EnvelopeScan scan = new EnvelopeScan();
            reader.skipSpace();
            reader.expect('{');
            reader.readObject(scan, 1);
            reader.skipSpace();
            return reader.i == value.length ? scan : null;
        } catch (NotPlain e) {
            return null;
        }
    }

    /**
     * The members of an envelope (or of its payload), after its '{'; as EnvelopeScan.readObject.
     */
    private void readObject(EnvelopeScan scan, int depth) {
        scan.object = true;
        int seen = 0;
        if (firstMember('}')) {
            return;
        }
        do {
            int known = memberName(ENVELOPE_NAMES);
            seen = once(seen, known);
            switch (known) {
                case HEARTBEAT -> scan.heartbeat = skipValue(depth) == JsonToken.VALUE_TRUE;
                case TS_MS -> scan.tsMs = field(depth);
                case OP -> {
                    scan.hasOp = true;
                    scan.op = scalarText(depth);
                }
                case SCHEMA -> {
                    scan.hasSchema = true;
                    skipValue(depth);
                }
                case PAYLOAD -> {
                    if (peek() == '{') {
                        i++;
                        checkDepth(depth + 1);
                        scan.payload = new EnvelopeScan();
                        readObject(scan.payload, depth + 1);
                    } else {
                        scan.payloadNotObject = true;
                        skipValue(depth);
                    }
                }
                case AFTER -> {
                    if (peek() == '{') {
                        i++;
                        checkDepth(depth + 1);
                        scan.after = JsonToken.START_OBJECT;
                        readAfter(scan, depth + 1);
                    } else {
                        scan.after = skipValue(depth);
                    }
                }
                default -> skipValue(depth);
            }
        } while (nextMember('}'));
    }

    private void readAfter(EnvelopeScan scan, int depth) {
        int seen = 0;
        if (firstMember('}')) {
            return;
        }
        do {
            int known = memberName(AFTER_NAMES);
            seen = once(seen, known);
            if (known < 0) {
                skipValue(depth);
            } else {
                scan.afterFields[known] = field(depth);
            }
        } while (nextMember('}'));
    }

    /** Reads a member's name and colon; the name's index in {@code names}, or -1. */
    private int memberName(byte[][] names) {
        int start = nameStart();
        int end = stringEnd();
        colon();
        return indexOf(names, start, end);
    }

    /**
     * {@code seen} with name {@code known} added (-1: not a known name). Gives up on a known name
     * seen before: Jackson's pass lets the last of two equal names win, leave that to it.
     */
    private static int once(int seen, int known) {
        if (known < 0) {
            return seen;
        }
        if ((seen & 1 << known) != 0) {
            throw NOT_PLAIN;
        }
        return seen | 1 << known;
    }

    /** One field's value as {@code EnvelopeScan.Field}: text of strings and integers, else none. */
    private EnvelopeScan.Field field(int depth) {
        byte c = peek();
        if (c == '"') {
            i++;
            int start = i;
            int end = stringEnd();
            return new EnvelopeScan.Field(JsonToken.VALUE_STRING, text(start, end), 0, false);
        }
        if (c == '-' || isDigit(c)) {
            int start = i;
            if (!number()) {
                return new EnvelopeScan.Field(JsonToken.VALUE_NUMBER_FLOAT, null, 0, false);
            }
            int digits = i - start - (c == '-' ? 1 : 0);
            if (digits > 18) {
                throw NOT_PLAIN; // may not fit a long: Jackson's number types decide
            }
            return new EnvelopeScan.Field(
                    JsonToken.VALUE_NUMBER_INT, text(start, i), parseLong(start, i), true);
        }
        return new EnvelopeScan.Field(skipValue(depth), null, 0, false);
    }

    /** Jackson's {@code getText()} of a scalar (the literal as written), "?" for a container. */
    private String scalarText(int depth) {
        byte c = peek();
        if (c == '"') {
            i++;
            int start = i;
            return text(start, stringEnd());
        }
        int start = i;
        JsonToken token = skipValue(depth);
        return token.isScalarValue() ? text(start, i) : "?";
    }

    /** Skips one value, validating it; returns its first token. */
    private JsonToken skipValue(int depth) {
        byte c = peek();
        switch (c) {
            case '"' -> {
                i++;
                stringEnd();
                return JsonToken.VALUE_STRING;
            }
            case '{' -> {
                i++;
                checkDepth(depth + 1);
                if (!firstMember('}')) {
                    do {
                        nameStart();
                        stringEnd();
                        colon();
                        skipValue(depth + 1);
                    } while (nextMember('}'));
                }
                return JsonToken.START_OBJECT;
            }
            case '[' -> {
                i++;
                checkDepth(depth + 1);
                if (!firstMember(']')) {
                    do {
                        skipValue(depth + 1);
                    } while (nextMember(']'));
                }
                return JsonToken.START_ARRAY;
            }
            case 't' -> {
                literal("true");
                return JsonToken.VALUE_TRUE;
            }
            case 'f' -> {
                literal("false");
                return JsonToken.VALUE_FALSE;
            }
            case 'n' -> {
                literal("null");
                return JsonToken.VALUE_NULL;
            }
            default -> {
                if (c == '-' || isDigit(c)) {
                    return number() ? JsonToken.VALUE_NUMBER_INT : JsonToken.VALUE_NUMBER_FLOAT;
                }
                throw NOT_PLAIN;
            }
        }
    }

    /**
     * A JSON number at {@code i}, validated as RFC 8259 and Jackson's defaults have it (no leading
     * zeros, no '+', digits on both sides of '.'); true if it is an integer.
     */
    private boolean number() {
        int start = i;
        if (b[i] == '-') {
            i++;
        }
        if (peek() == '0') {
            i++;
            if (i < b.length && isDigit(b[i])) {
                throw NOT_PLAIN;
            }
        } else {
            digits();
        }
        boolean integer = true;
        if (i < b.length && b[i] == '.') {
            i++;
            digits();
            integer = false;
        }
        if (i < b.length && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            if (i < b.length && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            digits();
            integer = false;
        }
        if (i - start > 100) {
            throw NOT_PLAIN;
        }
        return integer;
    }

    /** One or more digits. */
    private void digits() {
        if (!isDigit(peek())) {
            throw NOT_PLAIN;
        }
        while (i < b.length && isDigit(b[i])) {
            i++;
        }
    }

    /**
     * The end of the string whose first character is at {@code i} (after its quote); moves past the
     * closing quote. ASCII only, without bytes below 0x20: an escape, such a byte or any byte of a
     * multi-byte character is Jackson's to judge.
     */
    private int stringEnd() {
        byte[] bytes = b;
        int j = i;
        // Eight bytes at a time: most of a record's bytes are in strings it only skips.
        while (j + 8 <= bytes.length) {
            long special = specialBytes((long) WORDS.get(bytes, j));
            if (special != 0) {
                j += Long.numberOfTrailingZeros(special) >>> 3;
                break;
            }
            j += 8;
        }
        for (; j < bytes.length; j++) {
            byte c = bytes[j];
            if (c == '"') {
                i = j + 1;
                return j;
            }
            if (c < 0x20 || c == '\\') {
                throw NOT_PLAIN; // bytes >= 0x80 are negative
            }
        }
        throw NOT_PLAIN;
    }

    private static final VarHandle WORDS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH_BITS = 0x8080808080808080L;

    /**
     * The high bit set in each byte of {@code word} (little-endian) that ends or spoils a plain
     * string: '"', '\\', below 0x20, or 0x80 and above. Bytes above the first such byte may be
     * flagged falsely (a borrow carries), the lowest flagged byte never is.
     */
    static long specialBytes(long word) {
        long quote = word ^ (ONES * '"');
        long backslash = word ^ (ONES * '\\');
        return ((quote - ONES) & ~quote
                        | (backslash - ONES) & ~backslash
                        | (word - ONES * 0x20) & ~word
                        | word)
                & HIGH_BITS;
    }

    /** After '{' or '[': true if the container is empty (and moves past its end). */
    private boolean firstMember(char close) {
        skipSpace();
        if (peek() == close) {
            i++;
            return true;
        }
        return false;
    }

    /** After a member: true if another follows (moves past the ','), false at the end. */
    private boolean nextMember(char close) {
        skipSpace();
        byte c = peek();
        i++;
        if (c == ',') {
            skipSpace();
            return true;
        }
        if (c == close) {
            return false;
        }
        throw NOT_PLAIN;
    }

    /** At a member's name: moves past its opening quote. */
    private int nameStart() {
        expect('"');
        return i;
    }

    private void colon() {
        skipSpace();
        expect(':');
        skipSpace();
    }

    private void literal(String word) {
        if (i + word.length() > b.length) {
            throw NOT_PLAIN;
        }
        for (int k = 0; k < word.length(); k++) {
            if (b[i + k] != word.charAt(k)) {
                throw NOT_PLAIN;
            }
        }
        i += word.length();
    }

    private void expect(char c) {
        if (peek() != c) {
            throw NOT_PLAIN;
        }
        i++;
    }

    private byte peek() {
        if (i >= b.length) {
            throw NOT_PLAIN;
        }
        return b[i];
    }

    private void skipSpace() {
        while (i < b.length) {
            byte c = b[i];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            i++;
        }
    }

    private static void checkDepth(int depth) {
        if (depth > MAX_DEPTH) {
            throw NOT_PLAIN;
        }
    }

    private String text(int start, int end) {
        return new String(b, start, end - start, StandardCharsets.ISO_8859_1);
    }

    /** An integer literal of at most 18 digits, validated by {@link #number}. */
    private long parseLong(int start, int end) {
        boolean negative = b[start] == '-';
        long value = 0;
        for (int k = negative ? start + 1 : start; k < end; k++) {
            value = value * 10 + (b[k] - '0');
        }
        return negative ? -value : value;
    }

    private int indexOf(byte[][] names, int start, int end) {
        for (int k = 0; k < names.length; k++) {
            if (matches(names[k], start, end)) {
                return k;
            }
        }
        return -1;
    }

    private boolean matches(byte[] name, int start, int end) {
        if (end - start != name.length) {
            return false;
        }
        for (int k = 0; k < name.length; k++) { // names are short: no call to Arrays.equals
            if (b[start + k] != name[k]) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static byte[][] ascii(String... names) {
        byte[][] bytes = new byte[names.length][];
        for (int k = 0; k < names.length; k++) {
            bytes[k] = names[k].getBytes(StandardCharsets.US_ASCII);
        }
        return bytes;
    }
}
