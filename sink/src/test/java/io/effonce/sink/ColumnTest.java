package io.effonce.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A mapping's column names reach SQL text, so only plain lower-case identifiers are taken. */
class ColumnTest {

    @ParameterizedTest
    @ValueSource(strings = {"merchant_id", "_day", "total2"})
    void takesPlainNames(String name) {
        assertThat(Column.text(name).name()).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Day", "2day", "a.b", "day; DROP TABLE x", "day\"", "a b"})
    void refusesAnythingElseNamingTheColumn(String name) {
        assertThatThrownBy(() -> Column.bigint(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("plain lower-case name")
                .hasMessageContaining("'" + name + "'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"order", "user", "select", "table", "left"})
    void refusesAWordPostgresReservesNamingIt(String name) {
        assertThatThrownBy(() -> Column.text(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + name + "'")
                .hasMessageContaining("PostgreSQL reserves");
    }

    @ParameterizedTest
    @ValueSource(strings = {"barrier_tag", "key_group", "written_at", "checkpoint_id", "deleted"})
    void refusesTheNameOfAColumnTheSinkAddsItself(String name) {
        assertThatThrownBy(() -> Column.bigint(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the sink adds a column of that name");
    }
}
