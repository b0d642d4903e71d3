package io.effonce.job.decode;

import java.io.IOException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

/**
 * The bytes of one JSON record as {@link ByteTokens} reads them: whitespace, strings, numbers and
 * literals by RFC 8259's grammar in strict UTF-8, and whole values skipped with every byte of them
 * checked. Anything outside that grammar or past the limits here throws {@link Unusual}.
 */
abstract class JsonBytes {

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

    static final int MAX_NESTING = 64;
    static final int MAX_NAME_BYTES = 1_000;
    private static final int MAX_STRING_BYTES = 1 << 20;
    private static final int MAX_NUMBER_CHARS = 100;

    final byte[] b;
    int pos;

    /** The current name's or scalar's bytes: [start, end), without quotes. */
    int start;

    int end;
    boolean escaped;
    boolean nonAscii;
    int integerDigits;

    JsonBytes(byte[] bytes) {
        this.b = bytes;
    }

    JsonToken scalar(int c) throws IOException {
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
    void skipValue(int level) throws IOException {
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
    void skipObjectBody(int level) throws IOException {
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
    void skipArrayBody(int level) throws IOException {
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
    void string() throws IOException {
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
                p = JsonStrings.escape(b, p + 1);
                escapes = true;
            } else if (c < 0) {
                p = JsonStrings.utf8(b, p);
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

    /** A number by RFC 8259's grammar; what follows it is checked by whoever reads on. */
    JsonToken number() throws IOException {
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

    static int requireDigits(byte[] b, int p) throws IOException {
        if (p >= b.length || b[p] < '0' || b[p] > '9') {
            throw new Unusual();
        }
        return digits(b, p + 1);
    }

    static int digits(byte[] b, int p) {
        while (p < b.length && b[p] >= '0' && b[p] <= '9') {
            p++;
        }
        return p;
    }

    JsonToken literal(String word, JsonToken token) throws IOException {
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
    int nextNonSpace() throws IOException {
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

    int peek() throws IOException {
        if (pos >= b.length) {
            throw new Unusual();
        }
        return b[pos] & 0xFF;
    }
}
