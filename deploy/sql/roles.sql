-- Least-privilege roles. Idempotent: safe to apply twice, and to many databases of one server.
-- Roles are cluster-wide, grants are per database: apply this file in every database the
-- components use. It needs a superuser (REPLICATION can only be granted by one).
-- Passwords are set by the operator (ALTER ROLE ... PASSWORD), never here; the roles can log
-- in once one is set (or wherever pg_hba.conf trusts them).

DO $$
DECLARE
  r text;
BEGIN
  FOREACH r IN ARRAY ARRAY['effonce_relay', 'effonce_sink', 'effonce_dashboard', 'effonce_recount',
                          'effonce_republish'] LOOP
    BEGIN
      EXECUTE format('CREATE ROLE %I LOGIN', r);
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL;  -- exists already, perhaps created at the same moment by another database's apply
    END;
  END LOOP;
END
$$;

-- Attributes are enforced on every apply, so a role created by hand with more power is cut back.
ALTER ROLE effonce_relay LOGIN REPLICATION NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;
ALTER ROLE effonce_sink LOGIN NOREPLICATION NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;
ALTER ROLE effonce_dashboard LOGIN NOREPLICATION NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;
ALTER ROLE effonce_recount LOGIN NOREPLICATION NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;
ALTER ROLE effonce_republish LOGIN NOREPLICATION NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;

-- Nobody gets anything by default through PUBLIC, and nobody creates objects in public.
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM PUBLIC;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;

-- Start from nothing, so a grant removed from this file is also removed from the database.
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM effonce_relay, effonce_sink, effonce_dashboard,
  effonce_recount, effonce_republish;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM effonce_relay, effonce_sink, effonce_dashboard,
  effonce_recount, effonce_republish;

DO $$
BEGIN
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO effonce_relay, effonce_sink, effonce_dashboard, effonce_recount, effonce_republish',
                 current_database());
END
$$;
GRANT USAGE ON SCHEMA public TO effonce_relay, effonce_sink, effonce_dashboard, effonce_recount,
  effonce_republish;

-- The relay: logical decoding of payments. REPLICATION lets it create its slot and stream;
-- SELECT lets it take the initial snapshot. Creating a publication needs ownership of the
-- table, so the publication is created here and the relay uses it as it is (Debezium:
-- publication.name=effonce_payments, publication.autocreate.mode=disabled).
GRANT SELECT ON payments TO effonce_relay;
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'effonce_payments') THEN
    CREATE PUBLICATION effonce_payments FOR TABLE payments;
  END IF;
END
$$;

-- The job's sink: writes the sink tables only, never reads the ledger.
--   merchant_daily_totals: absolute upserts, the flush reads the tag index and deletes stale keys;
--   late_events, dead_letters: insert-if-absent by natural key (and read back for the recount);
--   sink_fences: take key groups (upsert), check them FOR SHARE (needs UPDATE), reset (DELETE);
--   sink_fence_token: nextval for a new owner token; sink_deployment: nextval for a new deployment,
--   raised to the database's clock (setval needs UPDATE).
GRANT SELECT, INSERT, UPDATE, DELETE ON merchant_daily_totals TO effonce_sink;
--   merchant_daily_totals_staged / _committed: the committed read contract (stage, move, roll back).
GRANT SELECT, INSERT, UPDATE, DELETE ON merchant_daily_totals_staged TO effonce_sink;
GRANT SELECT, INSERT, UPDATE, DELETE ON merchant_daily_totals_committed TO effonce_sink;
GRANT SELECT, INSERT ON late_events TO effonce_sink;
GRANT SELECT, INSERT ON dead_letters TO effonce_sink;
GRANT SELECT, INSERT, UPDATE, DELETE ON sink_fences TO effonce_sink;
--   sink_superseded_runs: a takeover from another run records it (insert-if-absent).
GRANT SELECT, INSERT ON sink_superseded_runs TO effonce_sink;
--   sink_writers: a takeover adds its writer and drops retired ones; each write advances its count.
GRANT SELECT, INSERT, UPDATE, DELETE ON sink_writers TO effonce_sink;
GRANT USAGE, SELECT ON SEQUENCE sink_fence_token TO effonce_sink;
GRANT USAGE, SELECT, UPDATE ON SEQUENCE sink_deployment TO effonce_sink;
--   sink_progress: each commit records how far its key groups' committed totals go.
GRANT SELECT, INSERT, UPDATE, DELETE ON sink_progress TO effonce_sink;
--   sink_repairs: a restore that rewrote a range from state records it (insert-if-absent).
GRANT SELECT, INSERT ON sink_repairs TO effonce_sink;
--   sink_live_deletes: a deletion of live rows records its tag; a reset drops the range's.
GRANT SELECT, INSERT, UPDATE, DELETE ON sink_live_deletes TO effonce_sink;
--   sink_savepoint_barriers: a savepoint barrier records its key groups; a takeover marks or drops
--   them; a reset drops the range's.
GRANT SELECT, INSERT, UPDATE, DELETE ON sink_savepoint_barriers TO effonce_sink;
--   sink_restart_gaps: an attempt's first barrier records how far above what it restored it is.
GRANT SELECT, INSERT, UPDATE ON sink_restart_gaps TO effonce_sink;

-- The sink's sessions, bounded on the server's side: a task manager cut from the database in the
-- middle of a transaction would otherwise hold its fence locks until TCP notices (about 2 h 11 min
-- by default), and the next attempt's takeover would wait that long. The server ends a transaction
-- left idle for 20 s, a lock wait gives up after 60 s (the sink retries it), and keepalives find a
-- silent peer in about 30 s. The sink's connections ask for the same (RetryingSession; the first
-- bound is the job's sink.idle-in-transaction-timeout, 20 s unless set).
ALTER ROLE effonce_sink SET idle_in_transaction_session_timeout = '20s';
ALTER ROLE effonce_sink SET lock_timeout = '60s';
ALTER ROLE effonce_sink SET tcp_keepalives_idle = 10;
ALTER ROLE effonce_sink SET tcp_keepalives_interval = 5;
ALTER ROLE effonce_sink SET tcp_keepalives_count = 4;

-- Only the sink announces commits on effonce_committed: any other login could send a forged
-- notice (a checkpoint that never committed) to every listening dashboard.
REVOKE EXECUTE ON FUNCTION pg_notify(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pg_notify(text, text) TO effonce_sink;

-- Dashboards: read the totals (live and committed), the final answer per merchant-day and the
-- progress, nothing else; the views read their tables with their owner's rights. LISTEN on
-- effonce_committed needs no grant.
GRANT SELECT ON merchant_daily_totals TO effonce_dashboard;
GRANT SELECT ON merchant_daily_totals_committed TO effonce_dashboard;
GRANT SELECT ON merchant_daily_totals_final TO effonce_dashboard;
GRANT SELECT ON committed_progress TO effonce_dashboard;

-- The batch recount: reads the ledger and what the stream committed, never writes them; writes
-- its own two tables only.
GRANT SELECT ON payments TO effonce_recount;
GRANT SELECT ON late_events TO effonce_recount;
GRANT SELECT ON merchant_daily_totals_committed TO effonce_recount;
GRANT SELECT ON committed_progress TO effonce_recount;
GRANT SELECT ON sink_repairs TO effonce_recount;
GRANT SELECT, INSERT, UPDATE, DELETE ON merchant_daily_totals_recount TO effonce_recount;
GRANT SELECT, INSERT, UPDATE, DELETE ON recounted_days TO effonce_recount;

-- The dead-letter republish (RepublishCommand): reads dead_letters, writes nothing here (what it
-- chooses goes to Kafka).
GRANT SELECT ON dead_letters TO effonce_republish;
