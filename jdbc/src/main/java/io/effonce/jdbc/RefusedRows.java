package io.effonce.jdbc;

import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Finds the rows a database refuses for their content. A batch is written whole; if it is refused
 * with {@link RefusedRowsException}, it is split in halves until each refused row stands alone, and
 * every other row is written. A clean batch costs one statement; k refused rows in a batch of n
 * cost about 2·k·log2(n) more. Any other failure propagates.
 */
public final class RefusedRows {

    private RefusedRows() {}

    /** Writes {@code rows} with {@code write}; hands each refused row to {@code refused}. */
    public static <T> int writeSplitting(
            List<T> rows, Consumer<List<T>> write, BiConsumer<T, RefusedRowsException> refused) {
        if (rows.isEmpty()) {
            return 0;
        }
        try {
            write.accept(rows);
            return 0;
        } catch (RefusedRowsException e) {
            if (rows.size() == 1) {
                refused.accept(rows.get(0), e);
                return 1;
            }
            int half = rows.size() / 2;
            return writeSplitting(rows.subList(0, half), write, refused)
                    + writeSplitting(rows.subList(half, rows.size()), write, refused);
        }
    }
}
