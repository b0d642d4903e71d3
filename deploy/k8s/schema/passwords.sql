-- Sets the roles' passwords from the schema Job's environment (filled from the Secrets), so no
-- password is ever in a file of this repository or on a command line. Runs after roles.sql in
-- the same transaction. psql 15 or later (\getenv); an unset variable fails the statement.
-- PostgreSQL stores the password hashed (password_encryption), but a server that logs DDL
-- (log_statement = 'ddl' or 'all') logs these statements as sent.

\getenv relay_password EFFONCE_RELAY_PASSWORD
\getenv sink_password EFFONCE_SINK_PASSWORD
\getenv dashboard_password EFFONCE_DASHBOARD_PASSWORD

-- A Secret made from a file keeps the file's last newline; the relay and the sink strip the
-- password they read, so the role's password is stripped the same way.
SELECT btrim(:'relay_password', E' \t\r\n') AS relay_password,
       btrim(:'sink_password', E' \t\r\n') AS sink_password,
       btrim(:'dashboard_password', E' \t\r\n') AS dashboard_password \gset

ALTER ROLE effonce_relay PASSWORD :'relay_password';
ALTER ROLE effonce_sink PASSWORD :'sink_password';
ALTER ROLE effonce_dashboard PASSWORD :'dashboard_password';
