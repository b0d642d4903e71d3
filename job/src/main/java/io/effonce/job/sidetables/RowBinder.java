package io.effonce.job.sidetables;

import java.io.Serializable;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** Binds one element to an insert statement of a side table. */
@FunctionalInterface
interface RowBinder<T> extends Serializable {
    void bind(PreparedStatement statement, T element) throws SQLException;
}
