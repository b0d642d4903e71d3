-- Least-privilege roles. Idempotent: safe to apply twice. Passwords are set by the operator
-- (ALTER ROLE ... PASSWORD), never here; the roles can log in once one is set.

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'effonce_relay') THEN
    CREATE ROLE effonce_relay LOGIN REPLICATION;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'effonce_sink') THEN
    CREATE ROLE effonce_sink LOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'effonce_dashboard') THEN
    CREATE ROLE effonce_dashboard LOGIN;
  END IF;
END
$$;

-- Nobody gets anything by default through PUBLIC.
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;

-- The relay: logical replication of payments (pgoutput needs SELECT for the initial snapshot
-- and a publication it may create for the table).
GRANT USAGE ON SCHEMA public TO effonce_relay;
GRANT SELECT ON payments TO effonce_relay;

-- The job's sink: write the sink tables only.
GRANT USAGE ON SCHEMA public TO effonce_sink;
GRANT SELECT, INSERT, UPDATE, DELETE ON merchant_daily_totals TO effonce_sink;
GRANT SELECT, INSERT ON late_events TO effonce_sink;
GRANT SELECT, INSERT ON dead_letters TO effonce_sink;
GRANT SELECT, INSERT, UPDATE ON sink_fences TO effonce_sink;
GRANT USAGE, SELECT ON SEQUENCE sink_fence_token TO effonce_sink;

-- Dashboards: read the totals, nothing else.
GRANT USAGE ON SCHEMA public TO effonce_dashboard;
GRANT SELECT ON merchant_daily_totals TO effonce_dashboard;
