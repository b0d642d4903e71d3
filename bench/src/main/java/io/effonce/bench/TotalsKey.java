package io.effonce.bench;

import java.time.LocalDate;

/** A merchant-day-currency, the key of the totals table; the day is UTC. */
record TotalsKey(String merchantId, LocalDate day, String currency) {}
