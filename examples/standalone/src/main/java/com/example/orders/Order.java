package com.example.orders;

/** An order of a customer: the job's input. */
public record Order(long customer, long amount) {

    /** The customers orders are spread over. */
    public static final int CUSTOMERS = 10;

    /** The {@code n}th order of the generated stream: customer {@code n % 10}, 1 to 7. */
    public static Order number(Long n) {
        return new Order(n % CUSTOMERS, n % 7 + 1);
    }
}
