package io.effonce.feed.page;

/**
 * Writes the page's JSON: the snapshot is a handful of flat records, so a string builder with
 * proper escaping is all it takes (nothing on this module's class path writes JSON). Only written
 * here, never parsed: the browser parses it.
 */
final class JsonText {

    private final StringBuilder out = new StringBuilder(1024);
    private boolean needComma;

    /** Opens an object: the top-level one, or the next element of an array. */
    JsonText begin() {
        comma();
        out.append('{');
        needComma = false;
        return this;
    }

    /** Opens an object as the value of {@code name}. */
    JsonText object(String name) {
        key(name);
        out.append('{');
        needComma = false;
        return this;
    }

    JsonText end() {
        out.append('}');
        needComma = true;
        return this;
    }

    JsonText array(String name) {
        key(name);
        out.append('[');
        needComma = false;
        return this;
    }

    JsonText endArray() {
        out.append(']');
        needComma = true;
        return this;
    }

    /** A string, a date or a time (as its ISO text), or null. */
    JsonText field(String name, Object value) {
        key(name);
        if (value == null) {
            out.append("null");
        } else {
            quote(value.toString());
        }
        needComma = true;
        return this;
    }

    JsonText number(String name, Long value) {
        key(name);
        out.append(value == null ? "null" : value.toString());
        needComma = true;
        return this;
    }

    JsonText bool(String name, boolean value) {
        key(name);
        out.append(value);
        needComma = true;
        return this;
    }

    private void key(String name) {
        comma();
        quote(name);
        out.append(':');
    }

    private void comma() {
        if (needComma) {
            out.append(',');
        }
    }

    private void quote(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                // so that no value can close a <script> element, should the JSON ever be inlined
                case '<' -> out.append("\\u003c");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
