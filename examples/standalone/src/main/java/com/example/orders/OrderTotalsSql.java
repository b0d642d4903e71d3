package com.example.orders;

import java.util.List;

/** The same totals in Flink SQL, through {@code 'connector' = 'effonce-postgres'}. */
public final class OrderTotalsSql {

    private OrderTotalsSql() {}

    /** The statements, the INSERT last. */
    public static List<String> statements(
            String url, String user, String passwordFile, long orders, long perSecond) {
        return List.of(
                """
                CREATE TABLE orders (n BIGINT) WITH (
                  'connector' = 'datagen',
                  'fields.n.kind' = 'sequence',
                  'fields.n.start' = '0',
                  'fields.n.end' = '%d',
                  'rows-per-second' = '%d'
                )"""
                        .formatted(orders - 1, perSecond),
                """
                CREATE TABLE customer_totals_sql (
                  customer BIGINT,
                  total BIGINT,
                  PRIMARY KEY (customer) NOT ENFORCED
                ) WITH (
                  'connector' = 'effonce-postgres',
                  'url' = '%s',
                  'table-name' = 'customer_totals_sql',
                  'username' = '%s',
                  'password-file' = '%s',
                  'sink.create-tables' = 'true'
                )"""
                        .formatted(url, user, passwordFile),
                """
                INSERT INTO customer_totals_sql
                SELECT n %% %d, SUM(n %% 7 + 1) FROM orders GROUP BY n %% %d"""
                        .formatted(Order.CUSTOMERS, Order.CUSTOMERS));
    }
}
