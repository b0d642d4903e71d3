-- Tables the stream job writes. Idempotent: safe to apply twice.

-- Absolute daily totals, read by dashboards. Every write is a SET tagged with the id of the
-- last checkpoint barrier its writer had passed; the tag index lets a restore find what an
-- erased run wrote.
CREATE TABLE IF NOT EXISTS merchant_daily_totals (
  merchant_id  TEXT    NOT NULL,
  day          DATE    NOT NULL,
  currency     CHAR(3) NOT NULL,
  total_minor  BIGINT  NOT NULL,
  payments     BIGINT  NOT NULL,
  barrier_tag  BIGINT  NOT NULL,  -- id of the last checkpoint barrier the writer had passed
  key_group    INTEGER NOT NULL,  -- Flink key group of (merchant_id, day, currency)
  written_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_id, day, currency)
);
CREATE INDEX IF NOT EXISTS merchant_daily_totals_tag_idx
  ON merchant_daily_totals (barrier_tag, key_group);

-- The committed read contract: each key's value as of the latest COMPLETED checkpoint. It never
-- steps back during a recovery (only an operator's restore of an older savepoint rolls it back,
-- to that savepoint's values). Each sink subtask stages its changed keys' values at a checkpoint
-- barrier and moves them here when the checkpoint completes (announced on the channel
-- effonce_committed: LISTEN effonce_committed). The work per checkpoint is the keys that changed.
CREATE TABLE IF NOT EXISTS merchant_daily_totals_committed (
  merchant_id   TEXT    NOT NULL,
  day           DATE    NOT NULL,
  currency      CHAR(3) NOT NULL,
  total_minor   BIGINT  NOT NULL,
  payments      BIGINT  NOT NULL,
  checkpoint_id BIGINT  NOT NULL,  -- the completed checkpoint this value is from
  key_group     INTEGER NOT NULL,
  committed_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_id, day, currency)
);
CREATE INDEX IF NOT EXISTS merchant_daily_totals_committed_ckpt_idx
  ON merchant_daily_totals_committed (checkpoint_id, key_group);

-- Values staged at a checkpoint barrier, waiting for that checkpoint to complete; a restore
-- discards what was staged after the checkpoint it restores.
CREATE TABLE IF NOT EXISTS merchant_daily_totals_staged (
  checkpoint_id BIGINT  NOT NULL,
  merchant_id   TEXT    NOT NULL,
  day           DATE    NOT NULL,
  currency      CHAR(3) NOT NULL,
  total_minor   BIGINT  NOT NULL,
  payments      BIGINT  NOT NULL,
  key_group     INTEGER NOT NULL,
  PRIMARY KEY (checkpoint_id, merchant_id, day, currency)
);
CREATE INDEX IF NOT EXISTS merchant_daily_totals_staged_range_idx
  ON merchant_daily_totals_staged (key_group, checkpoint_id);

-- Changes rejected by deduplication as later than the acceptance horizon: a batch recount
-- adds them. One row per event id.
CREATE TABLE IF NOT EXISTS late_events (
  event_id     TEXT        NOT NULL PRIMARY KEY,
  merchant_id  TEXT        NOT NULL,
  day          DATE        NOT NULL,
  currency     CHAR(3)     NOT NULL,
  amount       BIGINT      NOT NULL,
  event_time   TIMESTAMPTZ NOT NULL,
  watermark    TIMESTAMPTZ,          -- the live watermark the copy was judged against
  floor        TIMESTAMPTZ,          -- the restored watermark floor it was judged against
  recorded_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Records the job could not use, with the reason. One row per topic/partition/offset.
CREATE TABLE IF NOT EXISTS dead_letters (
  topic        TEXT    NOT NULL,
  kafka_partition INTEGER NOT NULL,
  kafka_offset BIGINT  NOT NULL,
  reason       TEXT    NOT NULL,
  raw_value    TEXT,                 -- truncated to the job's size limit
  recorded_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (topic, kafka_partition, kafka_offset)
);

-- The sink's fence: which writer owns each key group of a sink table. A writer takes its key
-- groups with a token from the sequence (bigger than any before); every write transaction
-- locks its key groups' rows FOR SHARE and fails unless they all still carry its token.
CREATE SEQUENCE IF NOT EXISTS sink_fence_token;
CREATE TABLE IF NOT EXISTS sink_fences (
  sink_table   TEXT    NOT NULL,
  key_group    INTEGER NOT NULL,
  owner_token  BIGINT  NOT NULL,
  owner_job    TEXT    NOT NULL,     -- '<Flink job id>/<run id>': the run id is made when the job graph is built
  owner_task   TEXT    NOT NULL,     -- "subtask i of n, attempt a", for operators
  taken_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (sink_table, key_group)
);
