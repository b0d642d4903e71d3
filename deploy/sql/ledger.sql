-- The payments ledger: the durable record the stream job reads through logical decoding.
-- Idempotent: safe to apply twice.

CREATE TABLE IF NOT EXISTS payments (
  payment_id  TEXT PRIMARY KEY,            -- derived from the caller's scope
  caller_id   TEXT NOT NULL,
  client_key  TEXT NOT NULL,
  merchant_id TEXT,                        -- NULL only on a VOID row
  fingerprint TEXT,                        -- NULL only on a VOID row
  amount      BIGINT,                      -- minor units; NULL only on a VOID row
  currency    CHAR(3),
  state       TEXT NOT NULL,               -- PENDING, UNKNOWN, SUCCEEDED, FAILED, VOID
  psp_charge  TEXT,
  updated_at  TIMESTAMPTZ NOT NULL,        -- time of the last state change = event time
  UNIQUE (caller_id, client_key),          -- the durable guard
  CONSTRAINT payments_state_known
    CHECK (state IN ('PENDING', 'UNKNOWN', 'SUCCEEDED', 'FAILED', 'VOID'))
);

-- The change stream carries whole rows on update, so consumers see every field of `after`.
ALTER TABLE payments REPLICA IDENTITY FULL;

-- The batch recount reads one day's SUCCEEDED payments at a time (feed/README.md).
CREATE INDEX IF NOT EXISTS payments_succeeded_at_idx ON payments (updated_at)
  WHERE state = 'SUCCEEDED';
