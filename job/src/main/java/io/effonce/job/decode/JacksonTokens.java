package io.effonce.job.decode;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

/** {@link EnvelopeTokens} of Jackson's streaming parser: any JSON, with Jackson's own errors. */
final class JacksonTokens implements EnvelopeTokens {

    private static final Map<String, Integer> INDEX = new HashMap<>();

    static {
        for (int i = 0; i < EnvelopeScan.NAMES.size(); i++) {
            INDEX.put(EnvelopeScan.NAMES.get(i), i);
        }
    }

    private final JsonParser parser;

    JacksonTokens(JsonParser parser) {
        this.parser = parser;
    }

    @Override
    public JsonToken next() throws IOException {
        return parser.nextToken();
    }

    @Override
    public int nameIndex() throws IOException {
        return INDEX.getOrDefault(parser.currentName(), -1);
    }

    @Override
    public String text() throws IOException {
        return parser.getText();
    }

    @Override
    public boolean fitsLong() throws IOException {
        JsonParser.NumberType type = parser.getNumberType();
        return type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG;
    }

    @Override
    public long longValue() throws IOException {
        return parser.getLongValue();
    }

    @Override
    public void skipChildren() throws IOException {
        parser.skipChildren();
    }
}
