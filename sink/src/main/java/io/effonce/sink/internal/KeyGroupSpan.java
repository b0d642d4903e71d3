package io.effonce.sink.internal;

import java.io.Serializable;
import org.apache.flink.annotation.Internal;

/** An inclusive range of Flink key groups, the unit a writer owns and flushes. */
@Internal
public record KeyGroupSpan(int first, int last) implements Serializable {

    public KeyGroupSpan {
        if (first < 0 || last < first) {
            throw new IllegalArgumentException("bad key-group range " + first + ".." + last);
        }
    }

    public boolean contains(int keyGroup) {
        return keyGroup >= first && keyGroup <= last;
    }

    public int size() {
        return last - first + 1;
    }

    @Override
    public String toString() {
        return "key groups " + first + ".." + last;
    }
}
