package io.effonce.job.migrate;

import io.effonce.jdbc.RetryingSession;
import io.effonce.sink.PostgresStoreConfig;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds each remembered event id's merchant in the ledger, a thousand payments per query: the
 * two-stage layout keyed ids by event id alone, the merchant layout keeps them under their
 * merchant. An id whose payment the ledger does not hold fails the migration, naming it: placing it
 * nowhere would let a copy of it count again.
 */
final class LedgerMerchants extends AbstractStreamOperator<MigratedEntry>
        implements OneInputStreamOperator<String, MigratedEntry>, BoundedOneInput {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(LedgerMerchants.class);

    static final int PAYMENTS_PER_QUERY = 1000;
    private static final int NAMED_IN_ERROR = 10;

    private final PostgresStoreConfig ledger;

    private transient RetryingSession session;
    private transient List<String> pending;
    private transient List<String> missing;
    private transient long missingCount;
    private transient LongCounter found;

    LedgerMerchants(PostgresStoreConfig ledger) {
        this.ledger = ledger;
    }

    @Override
    public void open() throws Exception {
        super.open();
        session = new RetryingSession(ledger.session());
        pending = new ArrayList<>();
        missing = new ArrayList<>();
        found = new LongCounter();
        getRuntimeContext().addAccumulator(MigrationReport.IDS_READ, found);
    }

    @Override
    public void processElement(StreamRecord<String> element) {
        pending.add(element.getValue());
        if (pending.size() >= PAYMENTS_PER_QUERY) {
            lookUp();
        }
    }

    @Override
    public void endInput() {
        lookUp();
        LOG.info(
                "{} remembered event ids placed under their merchant from {}, {} not found",
                found.getLocalValue(),
                ledger,
                missingCount);
        if (missingCount > 0) {
            throw new IllegalStateException(
                    missingCount
                            + " remembered event ids have no payment with a merchant in the ledger's"
                            + " payments table ("
                            + ledger
                            + "), for example "
                            + missing
                            + ". Point --ledger.url at the ledger the job reads; the migration"
                            + " cannot place an id it cannot find, and a copy of an unplaced id"
                            + " would be counted again.");
        }
    }

    private void lookUp() {
        if (pending.isEmpty()) {
            return;
        }
        Map<String, List<String>> idsByPayment = new HashMap<>();
        for (String eventId : pending) {
            idsByPayment.computeIfAbsent(paymentOf(eventId), p -> new ArrayList<>()).add(eventId);
        }
        Map<String, String> merchants =
                session.inTransaction(
                        "reading the merchants of remembered payments",
                        c -> {
                            Map<String, String> byPayment = new HashMap<>();
                            try (PreparedStatement ps =
                                    c.prepareStatement(
                                            "SELECT payment_id, merchant_id FROM payments"
                                                    + " WHERE payment_id = ANY(?)"
                                                    + " AND merchant_id IS NOT NULL")) {
                                ps.setArray(
                                        1,
                                        c.createArrayOf("text", idsByPayment.keySet().toArray()));
                                try (ResultSet rs = ps.executeQuery()) {
                                    while (rs.next()) {
                                        byPayment.put(rs.getString(1), rs.getString(2));
                                    }
                                }
                            }
                            return byPayment;
                        });
        idsByPayment.forEach(
                (payment, eventIds) -> {
                    String merchant = merchants.get(payment);
                    for (String eventId : eventIds) {
                        if (merchant == null) {
                            missingCount++;
                            if (missing.size() < NAMED_IN_ERROR) {
                                missing.add(eventId);
                            }
                        } else {
                            found.add(1);
                            output.collect(new StreamRecord<>(MigratedEntry.id(merchant, eventId)));
                        }
                    }
                });
        pending.clear();
    }

    /** An event id is {@code <payment id>:<state>} (PaymentChange#eventId). */
    static String paymentOf(String eventId) {
        int colon = eventId.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException(
                    "A remembered event id '" + eventId + "' is not <payment id>:<state>");
        }
        return eventId.substring(0, colon);
    }

    @Override
    public void close() throws Exception {
        if (session != null) {
            session.close();
        }
        super.close();
    }
}
