package io.effonce.feed.page;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * Writes the page's JSON with Jackson's streaming generator, on one line (the event stream sends it
 * as one {@code data:} line). Beyond JSON's own escapes, {@code <} and the two JavaScript line
 * separators are escaped too, so that no value can close a {@code <script>} element or break a
 * line, should the JSON ever be inlined.
 */
final class PageJson {

    private static final JsonFactory FACTORY = new JsonFactory();
    private static final CharacterEscapes ESCAPES = new PageEscapes();

    /** What {@code body} writes into a generator, as text. */
    static String write(Body body) {
        StringWriter out = new StringWriter(1024);
        try (JsonGenerator json = FACTORY.createGenerator(out)) {
            json.setCharacterEscapes(ESCAPES);
            body.writeTo(json);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the page's JSON", e);
        }
        return out.toString();
    }

    /** The snapshot's fields, written into a generator. */
    interface Body {
        void writeTo(JsonGenerator json) throws IOException;
    }

    private PageJson() {}

    private static final class PageEscapes extends CharacterEscapes {

        private static final SerializableString LESS_THAN = new SerializedString("\\u003c");
        private static final SerializableString LINE_SEPARATOR = new SerializedString("\\u2028");
        private static final SerializableString PARAGRAPH_SEPARATOR =
                new SerializedString("\\u2029");

        private final int[] ascii = standardAsciiEscapesForJSON();

        PageEscapes() {
            ascii['<'] = ESCAPE_CUSTOM;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return switch (ch) {
                case '<' -> LESS_THAN;
                case 0x2028 -> LINE_SEPARATOR;
                case 0x2029 -> PARAGRAPH_SEPARATOR;
                default -> null;
            };
        }
    }
}
