package io.effonce.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.testing.junit.PostgresExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(PostgresExtension.class)
class SchemaITCase {

    @Test
    void schemaFilesApplyTwice(PostgresEndpoint db) {
        // The extension applied them once already.
        SchemaTool.applyAll(db);
        SchemaTool.applyAll(db);
    }

    @Test
    void stateConstraintRejectsAnUnknownState(PostgresEndpoint db) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            assertThatThrownBy(
                            () ->
                                    s.execute(
                                            "INSERT INTO payments (payment_id, caller_id, client_key,"
                                                    + " merchant_id, amount, currency, state, updated_at)"
                                                    + " VALUES ('pay_x', 'c', 'k', 'm1', 100, 'EUR',"
                                                    + " 'SETTLED', now())"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("payments_state_known");
            s.execute(
                    "INSERT INTO payments (payment_id, caller_id, client_key, merchant_id, amount,"
                            + " currency, state, updated_at)"
                            + " VALUES ('pay_y', 'c', 'k2', 'm1', 100, 'EUR', 'PENDING', now())");
            assertThat(s.getUpdateCount()).isEqualTo(1);
        }
    }
}
