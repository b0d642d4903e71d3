package io.effonce.sink.internal.postgres;

import io.effonce.sink.Column;
import io.effonce.sink.RowMapping;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;

/**
 * A batch of keys as one array parameter per key column, joined to a table as {@code u(c0, c1...)}:
 * how every statement that names keys (delete, stage a tombstone, set back from committed) reaches
 * them in one round trip.
 */
final class KeyArrays<K> {

    private final RowMapping<K, ?> mapping;
    private final List<Column> keys;

    KeyArrays(RowMapping<K, ?> mapping, List<Column> keys) {
        this.mapping = mapping;
        this.keys = keys;
    }

    /** {@code unnest(?::text[], ...) AS u(c0, ...)}. */
    String unnested() {
        return "unnest("
                + ColumnSql.arrays(keys)
                + ") AS u("
                + ColumnSql.aliases(keys.size())
                + ")";
    }

    /** {@code AND t.k0 = u.c0::type...}: a row of {@code t} is one of the keys. */
    String matching(String t) {
        StringBuilder match = new StringBuilder();
        for (int k = 0; k < keys.size(); k++) {
            match.append(" AND ")
                    .append(t)
                    .append('.')
                    .append(keys.get(k).name())
                    .append(" = u.c")
                    .append(k)
                    .append(keys.get(k).type().elementCast());
        }
        return match.toString();
    }

    /** Binds {@code toBind} from parameter {@code first} on; returns the next parameter's index. */
    int bind(Connection c, PreparedStatement s, int first, Collection<K> toBind)
            throws SQLException {
        Object[][] columns = columns(toBind);
        for (int k = 0; k < keys.size(); k++) {
            s.setObject(first + k, keys.get(k).type().bind(c, columns[k]));
        }
        return first + keys.size();
    }

    /** The key columns of {@code toBind}: one array per column, the keys in their order. */
    Object[][] columns(Collection<K> toBind) {
        Object[][] columns = new Object[keys.size()][toBind.size()];
        int i = 0;
        for (K key : toBind) {
            for (int k = 0; k < keys.size(); k++) {
                columns[k][i] = mapping.keyColumn(key, k);
            }
            i++;
        }
        return columns;
    }
}
