package io.effonce.job.decode;

import java.io.IOException;

/**
 * JSON's string escapes and UTF-8's sequences, each checked where it stands in a record's bytes.
 */
final class JsonStrings {

    private JsonStrings() {}

    /** The escape whose backslash is before {@code p}; returns the position after it. */
    static int escape(byte[] b, int p) throws IOException {
        if (p >= b.length) {
            throw new JsonBytes.Unusual();
        }
        switch (b[p]) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> {
                return p + 1;
            }
            case 'u' -> {
                if (p + 4 >= b.length) {
                    throw new JsonBytes.Unusual();
                }
                for (int i = p + 1; i <= p + 4; i++) {
                    byte h = b[i];
                    boolean hex =
                            (h >= '0' && h <= '9')
                                    || (h >= 'a' && h <= 'f')
                                    || (h >= 'A' && h <= 'F');
                    if (!hex) {
                        throw new JsonBytes.Unusual();
                    }
                }
                return p + 5;
            }
            default -> throw new JsonBytes.Unusual();
        }
    }

    /**
     * The UTF-8 sequence at {@code p}, by RFC 3629: no overlong forms, no surrogates, nothing past
     * U+10FFFF. Returns the position after it.
     */
    static int utf8(byte[] b, int p) throws IOException {
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
            throw new JsonBytes.Unusual();
        }
        if (p + continuations >= b.length) {
            throw new JsonBytes.Unusual();
        }
        for (int i = 1; i <= continuations; i++) {
            int c = b[p + i] & 0xFF;
            if (c < low || c > high) {
                throw new JsonBytes.Unusual();
            }
            low = 0x80;
            high = 0xBF;
        }
        return p + continuations + 1;
    }
}
