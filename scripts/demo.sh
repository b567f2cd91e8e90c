#!/usr/bin/env bash
# Set up pg_topics on this machine and show it working:
# install what is missing (Debian packages), build and install the
# extension, start a PostgreSQL instance in ./demo of the checkout with
# pg_topics preloaded, run a short demo, and leave the server running.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/scripts/common.sh"

port=${PGTOPICS_DEMO_PORT:-54329}
dir="$top/demo"

install_packages
build_and_install "$top"

if [ ! -d "$dir/data" ]; then
	echo "+++ creating a PostgreSQL $PG_MAJOR instance in $dir"
	mkdir -p "$dir"
	[ "$(id -u)" -eq 0 ] && { run_as_user true; chown "$(test_user)" "$dir"; }
	run_as_user "$PG_BINDIR/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
	cat >> "$dir/data/postgresql.conf" <<CONF
shared_preload_libraries = 'pg_topics'
port = $port
listen_addresses = 'localhost'
unix_socket_directories = '$dir'
CONF
fi
if ! run_as_user "$PG_BINDIR/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
	run_as_user "$PG_BINDIR/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null
fi

psql_demo() { run_as_user "$PG_BINDIR/psql" -X -h "$dir" -p "$port" -U postgres -d postgres "$@"; }

echo "+++ demo"
psql_demo -v ON_ERROR_STOP=1 -e <<'SQL'
CREATE EXTENSION IF NOT EXISTS pg_topics;
DROP TABLE IF EXISTS orders;
-- a topic partition is a table stored by the topic_log access method
CREATE TABLE orders (
    partition int NOT NULL DEFAULT 0,
    "offset" bigint NOT NULL DEFAULT -1,
    "timestamp" timestamptz NOT NULL DEFAULT '-infinity',
    key text, value jsonb, headers jsonb
) USING topic_log;
-- the log assigns offsets and timestamps
INSERT INTO orders (key, value) VALUES
    ('customer-1', '{"item": "book", "qty": 1}'),
    ('customer-2', '{"item": "pen", "qty": 10}')
RETURNING "offset", "timestamp", key, value;
-- a rolled-back transaction leaves a gap, never a visible record
BEGIN;
INSERT INTO orders (key, value) VALUES ('customer-3', '{"item": "lamp"}');
ROLLBACK;
INSERT INTO orders (key, value) VALUES ('customer-1', '{"item": "mug"}') RETURNING "offset";
SELECT "offset", key, value FROM orders ORDER BY "offset";
-- records are immutable
\set ON_ERROR_STOP off
UPDATE orders SET value = '{}';
\set ON_ERROR_STOP on
-- every page checks out
SELECT count(*) AS problems FROM topics.verify('orders');
SQL

cat <<EOF2

pg_topics is running (PostgreSQL $PG_MAJOR, data in $dir/data, log in $dir/server.log).
Connect with:
    psql -h localhost -p $port -U postgres postgres
Stop it with:
    $PG_BINDIR/pg_ctl -D $dir/data stop$( [ "$(id -u)" -eq 0 ] && echo "   (as user pgtopics: runuser -u pgtopics -- ...)")
EOF2
