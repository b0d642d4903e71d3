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
-- discards what was staged after the checkpoint it restores. A row with deleted set (and no
-- value) stages the key's removal.
CREATE TABLE IF NOT EXISTS merchant_daily_totals_staged (
  checkpoint_id BIGINT  NOT NULL,
  merchant_id   TEXT    NOT NULL,
  day           DATE    NOT NULL,
  currency      CHAR(3) NOT NULL,
  total_minor   BIGINT,
  payments      BIGINT,
  key_group     INTEGER NOT NULL,
  deleted       BOOLEAN NOT NULL DEFAULT false,
  PRIMARY KEY (checkpoint_id, merchant_id, day, currency)
);
-- Tables of 0.2.x and earlier: the staged removal (0.3.0).
ALTER TABLE merchant_daily_totals_staged ADD COLUMN IF NOT EXISTS deleted BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE merchant_daily_totals_staged ALTER COLUMN total_minor DROP NOT NULL;
ALTER TABLE merchant_daily_totals_staged ALTER COLUMN payments DROP NOT NULL;
-- The run that staged each row (0.3.0): a restore keeps what its lineage's runs staged.
ALTER TABLE merchant_daily_totals_staged ADD COLUMN IF NOT EXISTS staged_by TEXT;
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

-- >>> shared: the tables every flushable sink of a database shares, each row naming its sink
-- table. The sink's jar carries this block (SinkTableDdl), for sinks that create their tables.
-- The sink's fence: which writer owns each key group of a sink table. A writer takes its key
-- groups with a token from the sequence (bigger than any before); every write transaction
-- locks its key groups' rows FOR SHARE and fails unless they all still carry its token.
-- The takeover is conditional (docs/flushable-sink.md, "The protocol in detail"): it reads these rows, the progress and
-- the superseded runs in its own transaction and refuses an attempt older than what they record.
CREATE SEQUENCE IF NOT EXISTS sink_fence_token;
-- A number for each deployment of a job, taken where its graph is built (the run id starts with
-- d<number>-): a woken attempt of an earlier deployment is known to be the earlier.
CREATE SEQUENCE IF NOT EXISTS sink_deployment;
CREATE TABLE IF NOT EXISTS sink_fences (
  sink_table   TEXT    NOT NULL,
  key_group    INTEGER NOT NULL,
  owner_token  BIGINT  NOT NULL,
  owner_job    TEXT    NOT NULL,     -- '<Flink job id>/<run id>': the run id is made when the job graph is built
  owner_task   TEXT    NOT NULL,     -- "subtask i of n, attempt a", for operators
  taken_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (sink_table, key_group)
);
-- The attempt that took the key group (NULL on rows taken before the sink recorded attempts).
ALTER TABLE sink_fences ADD COLUMN IF NOT EXISTS owner_subtask     INTEGER;
ALTER TABLE sink_fences ADD COLUMN IF NOT EXISTS owner_parallelism INTEGER;
ALTER TABLE sink_fences ADD COLUMN IF NOT EXISTS owner_attempt     INTEGER;  -- Flink's attempt number
ALTER TABLE sink_fences ADD COLUMN IF NOT EXISTS owner_restored    BIGINT;   -- checkpoint it restored, 0: none
-- The execution graph that deployed the owner (one per JobManager leadership: attempt numbers start
-- again in a new one), and the newest checkpoint barrier the owner passed in the key group.
ALTER TABLE sink_fences ADD COLUMN IF NOT EXISTS owner_graph       TEXT;
ALTER TABLE sink_fences ADD COLUMN IF NOT EXISTS owner_barrier     BIGINT;
-- The owner's writer id, random: a database that went back in time can hand out a token again,
-- never a writer id, so every write checks both.
ALTER TABLE sink_fences ADD COLUMN IF NOT EXISTS owner_writer      TEXT;
-- The owner's lease: when it last took the key group or passed a barrier in it, by the database's
-- clock; NULL once it closed. A start without state refuses a range another run still holds.
ALTER TABLE sink_fences ADD COLUMN IF NOT EXISTS owner_seen_at     TIMESTAMPTZ;
-- The owner's count of write transactions (sink_writers) when it recorded its last barrier: fewer
-- there now means the rows and counts went back without the fence (a partial restore).
ALTER TABLE sink_fences ADD COLUMN IF NOT EXISTS owner_writes      BIGINT;
-- The oldest tag under which an attempt outside the owner's lineage may have written, as its
-- takeover found it; NULL when none, and once the owner passed a barrier (its restore flush ended).
-- An owner that dies before hands it on to the next takeover.
ALTER TABLE sink_fences ADD COLUMN IF NOT EXISTS owner_suspect_from BIGINT;

-- Each writer's count of write transactions the database acknowledged: every write transaction
-- advances its writer's count from the one the writer last saw acknowledged, and fails when the
-- database holds less (it went back in time: an asynchronous standby promoted, a backup restored).
-- A takeover drops the rows of writers that own no key group any more.
CREATE TABLE IF NOT EXISTS sink_writers (
  sink_table  TEXT   NOT NULL,
  writer      TEXT   NOT NULL,
  writes      BIGINT NOT NULL,
  started_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (sink_table, writer)
);

-- Runs a later deployment took key groups over from: an attempt of such a run that wakes up
-- after a pause is refused.
CREATE TABLE IF NOT EXISTS sink_superseded_runs (
  sink_table    TEXT NOT NULL,
  run           TEXT NOT NULL,     -- '<Flink job id>/<run id>'
  superseded_by TEXT NOT NULL,
  superseded_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (sink_table, run)
);

-- The newest barrier tag under which a live row of each key group of a sink table was deleted (a
-- deleted key, or a key a restore flush found stale). A deleted row leaves no tag in the live
-- table, so a restore from a checkpoint no newer than this runs the full flush, which sets every
-- key of restored state again.
CREATE TABLE IF NOT EXISTS sink_live_deletes (
  sink_table  TEXT    NOT NULL,
  key_group   INTEGER NOT NULL,
  barrier_tag BIGINT  NOT NULL,
  deleted_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (sink_table, key_group)
);

-- The savepoint barriers each key group's owners passed (a row per key group and savepoint). Flink
-- may restore the checkpoint before a completed savepoint by itself (a stop-with-savepoint that
-- fails); the takeover of such a restore, by the same run or a run deployed from its checkpoints,
-- sets erased_at to the checkpoint it went back to. A deployment from that savepoint then knows the
-- run's later commits and writes are another branch's, and repairs the range from state. A row no
-- restore erased goes once a restore reaches its savepoint.
CREATE TABLE IF NOT EXISTS sink_savepoint_barriers (
  sink_table  TEXT    NOT NULL,
  key_group   INTEGER NOT NULL,
  run         TEXT    NOT NULL,     -- '<Flink job id>/<run id>'
  savepoint   BIGINT  NOT NULL,     -- the savepoint's checkpoint id
  erased_at   BIGINT,               -- the checkpoint a later restore went back to; NULL: none did
  passed_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (sink_table, key_group, run, savepoint)
);
-- Attempts that restored a checkpoint below the ids their run had already handed out: the first
-- barrier an attempt passed, when it is above the next id after what it restored (a row per range,
-- run and restored checkpoint). A checkpoint between the two that the run completed before (a
-- savepoint: Flink restores checkpoints by itself, never savepoints) had its branch erased, even
-- when the database went back and forgot its barrier: a deployment from it repairs from state.
CREATE TABLE IF NOT EXISTS sink_restart_gaps (
  sink_table          TEXT    NOT NULL,
  key_group_first     INTEGER NOT NULL,
  key_group_last      INTEGER NOT NULL,
  run                 TEXT    NOT NULL,   -- '<Flink job id>/<run id>'
  restored_checkpoint BIGINT  NOT NULL,   -- 0: the attempt started without state
  first_barrier       BIGINT  NOT NULL,
  recorded_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (sink_table, key_group_first, key_group_last, run, restored_checkpoint)
);
-- How far the committed totals go, per key group of a sink table: written by the sink subtask
-- that owns the key group, in the transaction that commits a checkpoint for it. Dashboards read
-- the summary view committed_progress, not this table.
CREATE TABLE IF NOT EXISTS sink_progress (
  sink_table          TEXT    NOT NULL,
  key_group           INTEGER NOT NULL,
  checkpoint_id       BIGINT  NOT NULL,  -- the last checkpoint committed for this key group
  watermark           TIMESTAMPTZ,       -- event time through which its committed totals are complete
                                         -- (the subtask's watermark at that barrier; NULL: not known yet)
  final_through       DATE,              -- the last day that is final at that watermark
  day_zone            TEXT,              -- the job's totals.zone: days are dates in it
  committed_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
  restored_checkpoint BIGINT,            -- the checkpoint the latest restore started from
  restored_at         TIMESTAMPTZ,
  PRIMARY KEY (sink_table, key_group)
);
-- The run that committed checkpoint_id: an attempt of that run that restored an older checkpoint
-- is stale (Flink restores only the latest completed checkpoint of a run).
ALTER TABLE sink_progress ADD COLUMN IF NOT EXISTS committed_run TEXT;
-- The job's dedup.horizon: a change up to this far behind the watermark can still be accepted,
-- so the committed totals are complete only through watermark - horizon.
ALTER TABLE sink_progress ADD COLUMN IF NOT EXISTS horizon INTERVAL;
-- The newest savepoint of committed_run that completed after checkpoint_id: acknowledged, not
-- committed (Flink may still restore an older checkpoint by itself), but every write before its
-- barrier is durable, so a restore from it may flush incrementally. A commit of another run clears it.
ALTER TABLE sink_progress ADD COLUMN IF NOT EXISTS acknowledged_savepoint BIGINT;
-- The committing run's lineage: the runs its state descends from, each with the checkpoint it began
-- from ("<base> <run>;..."). Checkpoint ids of two runs are two timelines: a restore compares its
-- lineage with this one to find where they forked, and what was written after that is not its own.
ALTER TABLE sink_progress ADD COLUMN IF NOT EXISTS committed_lineage TEXT;
-- The newest checkpoint of committed_run this row still proves durable: a takeover by another run
-- restored this checkpoint, and may have written from there on before it committed (its flush, cut
-- part-way). NULL: the commit proves itself. The next commit clears it.
ALTER TABLE sink_progress ADD COLUMN IF NOT EXISTS proof_capped_at BIGINT;

-- Restores that found a range's commits behind the checkpoint they restored (a database that went
-- back in time, a lost completion notice, a new table): the sink rewrote the range's live and
-- committed rows from state, but a final row retired longer ago than sink.retired-retention is in no
-- state any more. The recount takes the final days after final_through_found as due, once each.
CREATE TABLE IF NOT EXISTS sink_repairs (
  sink_table          TEXT    NOT NULL,
  key_group_first     INTEGER NOT NULL,
  key_group_last      INTEGER NOT NULL,
  restored_checkpoint BIGINT  NOT NULL,
  final_through_found DATE,              -- the range's last final day as the database had it (NULL: none)
  repaired_at         TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- The run that repaired: checkpoint ids of two runs are two timelines, so a restore compares its
-- checkpoint only with repairs of its own run or of the run it restored (NULL: recorded before runs
-- were, compared with every restore). One row per range, checkpoint and run.
ALTER TABLE sink_repairs ADD COLUMN IF NOT EXISTS repaired_run TEXT;
ALTER TABLE sink_repairs DROP CONSTRAINT IF EXISTS sink_repairs_pkey;
CREATE UNIQUE INDEX IF NOT EXISTS sink_repairs_per_run
  ON sink_repairs (sink_table, key_group_first, restored_checkpoint, coalesce(repaired_run, ''));

-- Per sink table: the checkpoint every key group has committed, the event time through which the
-- committed totals are complete (the smallest watermark minus the horizon: no change with an
-- earlier event time can still be counted), the last day that is final, when the last commit and
-- the last restore happened. complete_through and final_through stay NULL until every key group
-- the job owns (sink_fences) has reported one.
CREATE OR REPLACE VIEW committed_progress AS
SELECT p.sink_table,
       min(p.checkpoint_id) AS checkpoint_id,
       CASE WHEN bool_and(p.watermark IS NOT NULL AND p.horizon IS NOT NULL)
                 AND count(*) >= max(f.owned)
            THEN min(p.watermark - p.horizon) END AS complete_through,
       CASE WHEN bool_and(p.final_through IS NOT NULL) AND count(*) >= max(f.owned)
            THEN min(p.final_through) END AS final_through,
       max(p.committed_at) AS committed_at,
       max(p.restored_at) AS last_restore_at,
       (array_agg(p.restored_checkpoint ORDER BY p.restored_at DESC NULLS LAST))[1]
         AS last_restored_checkpoint,
       count(*) AS key_groups,
       max(p.day_zone) AS day_zone,
       CASE WHEN bool_and(p.watermark IS NOT NULL) AND count(*) >= max(f.owned)
            THEN min(p.watermark) END AS watermark
FROM sink_progress p
LEFT JOIN (SELECT sink_table, count(*) AS owned FROM sink_fences GROUP BY sink_table) f
  ON f.sink_table = p.sink_table
GROUP BY p.sink_table;
-- <<< shared

-- The batch recount (late changes go to a batch recount: README.md, "How it works"): a merchant-day's totals
-- recomputed from the ledger, late changes included. Only the recount writes here; the stream's
-- writes and its restore flush never touch it.
CREATE TABLE IF NOT EXISTS merchant_daily_totals_recount (
  merchant_id   TEXT    NOT NULL,
  day           DATE    NOT NULL,
  currency      CHAR(3) NOT NULL,
  total_minor   BIGINT  NOT NULL,
  payments      BIGINT  NOT NULL,
  committed_minor BIGINT,                -- the committed total it replaced (NULL: the stream had none)
  late_events   BIGINT  NOT NULL,        -- late event ids of the key when it was recounted
  recounted_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_id, day, currency)
);

-- Each recounted day, once: when, and how many of its late events it saw (late_events only
-- grows, so a day with more is due again).
CREATE TABLE IF NOT EXISTS recounted_days (
  day           DATE        NOT NULL PRIMARY KEY,
  recounted_at  TIMESTAMPTZ NOT NULL,
  late_seen     BIGINT      NOT NULL,    -- late event ids of the day when it was recounted
  keys          INTEGER     NOT NULL,
  changed_keys  INTEGER     NOT NULL     -- keys whose recount differs from the committed total
);

-- What dashboards show per merchant-day: the recount where there is one and it still holds, the
-- committed total otherwise; day_final says the stream will not change the day any more.
CREATE OR REPLACE VIEW merchant_daily_totals_final AS
SELECT k.merchant_id, k.day, k.currency,
       CASE WHEN f.recount_holds THEN r.total_minor ELSE c.total_minor END AS total_minor,
       CASE WHEN f.recount_holds THEN r.payments ELSE c.payments END AS payments,
       CASE WHEN f.recount_holds THEN 'recount' ELSE 'committed' END AS source,
       COALESCE(k.day <= p.final_through, false) AS day_final,
       c.checkpoint_id,
       r.recounted_at
FROM (SELECT merchant_id, day, currency FROM merchant_daily_totals_committed
      UNION SELECT merchant_id, day, currency FROM merchant_daily_totals_recount) k
LEFT JOIN merchant_daily_totals_committed c USING (merchant_id, day, currency)
LEFT JOIN merchant_daily_totals_recount r USING (merchant_id, day, currency)
LEFT JOIN committed_progress p ON p.sink_table = 'merchant_daily_totals'
-- A recount holds while the stream's committed total is still the one it replaced: once the
-- stream changed it (an older savepoint restored re-opened the day and a payment was counted),
-- the recount misses that payment and the committed total is shown until the day is recounted.
CROSS JOIN LATERAL (SELECT r.merchant_id IS NOT NULL
                           AND c.total_minor IS NOT DISTINCT FROM r.committed_minor
                           AS recount_holds) f;
