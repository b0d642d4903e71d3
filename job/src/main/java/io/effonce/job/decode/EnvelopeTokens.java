package io.effonce.job.decode;

import java.io.IOException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

/**
 * The tokens of one record as {@link EnvelopeScan} reads them, from {@link ByteTokens} (the common
 * case, straight from the bytes) or {@link JacksonTokens} (everything else). The scan walks objects
 * token by token and skips every other value with {@link #skipChildren}.
 */
interface EnvelopeTokens {

    /** The next token, as Jackson's {@code JsonParser.nextToken} names it. */
    JsonToken next() throws IOException;

    /** The index in {@link EnvelopeScan#NAMES} of the current field name, or -1. */
    int nameIndex() throws IOException;

    /** The text of the current scalar value. */
    String text() throws IOException;

    /** Whether the current integer fits a long. */
    boolean fitsLong() throws IOException;

    /** The current integer, if it {@link #fitsLong}. */
    long longValue() throws IOException;

    /** At the start of an object or array, skips to its end; else does nothing. */
    void skipChildren() throws IOException;
}
