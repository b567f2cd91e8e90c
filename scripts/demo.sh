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
# the library is preloaded: a freshly installed build needs a (re)start
if run_as_user "$PG_BINDIR/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
	run_as_user "$PG_BINDIR/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w restart >/dev/null
else
	run_as_user "$PG_BINDIR/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null
fi

psql_demo() { run_as_user "$PG_BINDIR/psql" -X -h "$dir" -p "$port" -U postgres -d postgres "$@"; }

echo "+++ demo"
psql_demo -v ON_ERROR_STOP=1 -e <<'SQL'
-- the demo database starts afresh each time
DROP TABLE IF EXISTS orders_db;
DROP EXTENSION IF EXISTS pg_topics CASCADE;
CREATE EXTENSION pg_topics;
-- a topic with 4 partitions, text keys and jsonb values
SELECT topics.create_topic('orders', partitions => 4, value_type => 'jsonb');
-- the key picks the partition (Kafka's partitioner); the log assigns the offset
SELECT * FROM topics.produce('orders', '{"item": "book"}', key => 'customer-1');
SELECT * FROM topics.produce_batch('orders',
    ARRAY['{"item": "pen"}', '{"item": "mug"}']::jsonb[], ARRAY['customer-2', 'customer-1']);
INSERT INTO orders (key, value) VALUES ('customer-3', '{"item": "lamp"}') RETURNING partition, "offset";
-- the outbox pattern without an outbox: a row and its event commit together, or not at all
CREATE TABLE orders_db (id int PRIMARY KEY, item text);
BEGIN;
INSERT INTO orders_db VALUES (1, 'chair');
SELECT * FROM topics.produce('orders', '{"item": "chair", "id": 1}', key => 'customer-1');
ROLLBACK;
-- a consumer reads one partition in offset order; the rolled-back record is a gap
SELECT "offset", key, value FROM topics.fetch(NULL::orders, 1, 0);
SELECT * FROM topics.offsets('orders');
-- records are immutable
\set ON_ERROR_STOP off
UPDATE orders SET value = '{}';
\set ON_ERROR_STOP on
-- analysts query the topic like any table
SELECT partition, count(*), max("timestamp") > now() - interval '1 minute' AS recent FROM orders GROUP BY partition ORDER BY partition;
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
