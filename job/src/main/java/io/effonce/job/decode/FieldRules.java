package io.effonce.job.decode;

/**
 * What a ledger row's fields must be for the job to use them: a known state, an identifier that
 * survives PostgreSQL text and UTF-8, an ISO 4217 currency code. Each check names what is wrong.
 */
final class FieldRules {

    private static final String[] STATE_CONSTANTS = ChangeDecoder.STATES.toArray(new String[0]);

    private FieldRules() {}

    /**
     * The constant of {@link ChangeDecoder#STATES} equal to {@code state}, or null. Later stages
     * hash and compare the state of every change; the constant has its hash computed once.
     */
    static String knownState(String state) {
        for (String known : STATE_CONSTANTS) {
            if (known.equals(state)) {
                return known;
            }
        }
        return null;
    }

    /**
     * What is wrong with an identifier, or null: it must be non-empty, at most {@link
     * ChangeDecoder#MAX_ID_CHARS} characters, free of control characters (PostgreSQL text cannot
     * hold NUL) and of unpaired surrogates (they do not survive UTF-8, so two ids could become
     * one).
     */
    static String identifierProblem(String id) {
        if (id.isBlank()) {
            return "is empty";
        }
        if (id.length() > ChangeDecoder.MAX_ID_CHARS) {
            return "has " + id.length() + " characters, more than " + ChangeDecoder.MAX_ID_CHARS;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c >= 0x20 && c < 0x7F) {
                continue; // printable ASCII, nearly every character of every id
            }
            if (Character.isISOControl(c)) {
                return "contains control character U+%04X at %d".formatted((int) c, i);
            }
            if (Character.isHighSurrogate(c)
                    && i + 1 < id.length()
                    && Character.isLowSurrogate(id.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return "contains an unpaired surrogate at " + i;
            }
        }
        return null;
    }

    /** Three capital letters A to Z (ISO 4217's form). */
    static boolean isCurrencyCode(String code) {
        if (code.length() != 3) {
            return false;
        }
        for (int i = 0; i < 3; i++) {
            char c = code.charAt(i);
            if (c < 'A' || c > 'Z') {
                return false;
            }
        }
        return true;
    }

    /** A value quoted in a reason, cut so that a huge field cannot make a huge reason. */
    static String clip(String value) {
        return value.length() <= 64 ? value : value.substring(0, 64) + "...";
    }
}
