#!/usr/bin/env bash
# Set up pg_topics on this machine and show it working: install what is
# missing (Debian packages), build and install the extension, start a
# PostgreSQL instance with pg_topics preloaded, run a short demo, and leave
# the server running.  `./scripts/demo.sh stop` stops it.
#
# Settings, from the environment (applied on every run):
#   PGTOPICS_DEMO_PORT   the server's port on localhost (default 54329)
#   PGTOPICS_DEMO_KAFKA_PORT
#                        the port of its Kafka listener on localhost
#                        (default 9092; 0 turns the listener off)
#   PGTOPICS_DEMO_DIR    the instance's directory (default ./demo in the
#                        checkout; under root, where the server runs as user
#                        pgtopics: ~pgtopics/pg_topics-demo/<checkout path>)
#   PGTOPICS_DEMO_SKIP_BUILD=1
#                        install no packages and build nothing: use the
#                        extension as installed (scripts/test.sh, which has
#                        just built it, sets this)
#   PG_BINDIR            PostgreSQL 15's programs (default Debian's,
#                        /usr/lib/postgresql/15/bin)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/scripts/common.sh"
me=$0
# the server's user may not be allowed into the caller's directory
cd /

port=${PGTOPICS_DEMO_PORT:-54329}
if ! [[ $port =~ ^[0-9]+$ ]] || [ "$port" -lt 1 ] || [ "$port" -gt 65535 ]; then
	echo "demo.sh: PGTOPICS_DEMO_PORT must be a port number (1 to 65535), not \"$port\"" >&2
	exit 1
fi
kafka_port=${PGTOPICS_DEMO_KAFKA_PORT:-9092}
if ! [[ $kafka_port =~ ^[0-9]+$ ]] || [ "$kafka_port" -gt 65535 ]; then
	echo "demo.sh: PGTOPICS_DEMO_KAFKA_PORT must be a port number (0 to 65535), not \"$kafka_port\"" >&2
	exit 1
fi
dir=$(demo_dir "$top")
data=$dir/data
log=$dir/server.log

pg_ctl_demo() { run_as_user "$PG_BINDIR/pg_ctl" -D "$data" "$@"; }
# how the commands we print run as the server's user
as_user() { [ "$(id -u)" -ne 0 ] || echo "runuser -u pgtopics -- "; }
running() { [ -f "$data/PG_VERSION" ] && pg_ctl_demo status >/dev/null 2>&1; }
# the Kafka port the running demo server listens on
kafka_port_running() {
	run_as_user "$PG_BINDIR/psql" -X -Atq -h "$dir" -p "$(sed -n 4p "$data/postmaster.pid")" -U postgres -d postgres \
		-c 'SHOW pg_topics.kafka_port' 2>/dev/null || true
}

if [ "${1:-}" = stop ]; then
	if running; then
		pg_ctl_demo -w stop >/dev/null
		echo "pg_topics demo stopped (data kept in $data; remove $dir to start afresh)"
	else
		echo "the pg_topics demo is not running (data in $data)"
	fi
	exit 0
elif [ $# -gt 0 ]; then
	echo "usage: $me [stop]" >&2
	exit 2
fi

# Something other than the demo's own server listening on localhost:$1
# (IPv4 or IPv6)
port_taken() {
	local p=$1 addr
	if running && [ "$(sed -n 4p "$data/postmaster.pid")" = "$p" ]; then
		return 1
	fi
	for addr in 127.0.0.1 ::1; do
		if (exec 3<>"/dev/tcp/$addr/$p") 2>/dev/null; then
			return 0
		fi
	done
	return 1
}

port_advice() {
	cat >&2 <<EOF
demo.sh: port $port on localhost is taken by another program, so the demo's server cannot listen there.
Choose another port with PGTOPICS_DEMO_PORT, for example:
    PGTOPICS_DEMO_PORT=$((port == 65535 ? 54330 : port + 1)) $me
EOF
	# under root, earlier versions of this script kept the instance in ./demo
	if [ "$data" != "$top/demo/data" ] && [ -f "$top/demo/data/postmaster.pid" ]; then
		echo "(An instance in $top/demo, from an earlier version of this script, may be the one running: stop it with $(as_user)$PG_BINDIR/pg_ctl -D $top/demo/data stop)" >&2
	fi
}

if [ "${PGTOPICS_DEMO_SKIP_BUILD:-}" != 1 ]; then
	install_packages
	build_and_install "$top"
fi

if [ ! -f "$data/PG_VERSION" ]; then
	echo "+++ creating a PostgreSQL $PG_MAJOR instance in $dir"
	mkdir -p "$dir"
	if [ "$(id -u)" -eq 0 ]; then
		chown pgtopics: "$dir"
		if ! runuser -u pgtopics -- test -w "$dir"; then
			echo "demo.sh: user pgtopics, which runs the demo's server, cannot enter $dir (a directory above it is closed to it); set PGTOPICS_DEMO_DIR to a directory it can use" >&2
			exit 1
		fi
	fi
	run_as_user "$PG_BINDIR/initdb" -D "$data" -A trust -U postgres >/dev/null
	echo "include = 'pg_topics_demo.conf'" | run_as_user tee -a "$data/postgresql.conf" >/dev/null
fi
# The demo's settings live in a file of their own, rewritten on every run, so
# that PGTOPICS_DEMO_PORT always applies.  (Instances made by earlier versions
# of this script set the port in postgresql.conf: an include at its end wins.)
grep -q "^include = 'pg_topics_demo.conf'" "$data/postgresql.conf" ||
	echo "include = 'pg_topics_demo.conf'" | run_as_user tee -a "$data/postgresql.conf" >/dev/null
run_as_user tee "$data/pg_topics_demo.conf" >/dev/null <<CONF
# Written by scripts/demo.sh on every run: set PGTOPICS_DEMO_PORT to change the port
shared_preload_libraries = 'pg_topics'
port = $port
listen_addresses = 'localhost'
unix_socket_directories = '$dir'
# Kafka clients (kcat, kafka-python, confluent-kafka, Java) connect here
pg_topics.kafka_port = $kafka_port
pg_topics.kafka_listen_addresses = 'localhost'
CONF

if port_taken "$port"; then
	port_advice
	exit 1
fi
if [ "$kafka_port" -ne 0 ] && port_taken "$kafka_port" &&
	! { running && pg_ctl_demo status >/dev/null 2>&1 && [ "$(kafka_port_running)" = "$kafka_port" ]; }; then
	echo "demo.sh: port $kafka_port on localhost is taken by another program, so the demo's Kafka listener cannot listen there." >&2
	echo "Choose another port with PGTOPICS_DEMO_KAFKA_PORT (0 turns the listener off), for example:" >&2
	echo "    PGTOPICS_DEMO_KAFKA_PORT=$((kafka_port == 65535 ? 9093 : kafka_port + 1)) $me" >&2
	exit 1
fi

# the library is preloaded: a freshly installed build needs a (re)start
log_size=$(stat -c %s "$log" 2>/dev/null || echo 0)
if running; then action=restart; else action=start; fi
if ! pg_ctl_demo -l "$log" -w "$action" >/dev/null; then
	echo "demo.sh: the demo's server did not start; the end of its log, $log:" >&2
	tail -c +$((log_size + 1)) "$log" | tail -n 15 >&2
	if grep -q "Address already in use" < <(tail -c +$((log_size + 1)) "$log"); then
		port_advice
	fi
	exit 1
fi

psql_demo() { run_as_user "$PG_BINDIR/psql" -X -h "$dir" -p "$port" -U postgres -d postgres "$@"; }

# The demo makes its topic orders and its table orders_db again on every run,
# and leaves everything else in the database alone: a table of those names
# that the demo did not make (it marks its own with a comment) stops it.
demo_mark="made by scripts/demo.sh"
foreign=$(psql_demo -Atq -v ON_ERROR_STOP=1 -c "
SELECT string_agg(name, ' and ') FROM unnest(ARRAY['orders', 'orders_db']) name
WHERE to_regclass('public.' || name) IS NOT NULL
  AND obj_description(to_regclass('public.' || name), 'pg_class') IS DISTINCT FROM '$demo_mark'")
if [ -n "$foreign" ]; then
	echo "demo.sh: database postgres of the demo's instance has tables the demo did not make (or an earlier version of demo.sh made): $foreign; the demo would replace them, so it does not run." >&2
	echo "Rename or drop them, or keep the demo in another instance with PGTOPICS_DEMO_DIR; the server is running (port $port)." >&2
	exit 1
fi

echo "+++ demo"
psql_demo -v ON_ERROR_STOP=1 -v mark="$demo_mark" -e <<'SQL'
-- the demo's own topic and table are made again; other topics stay
CREATE EXTENSION IF NOT EXISTS pg_topics;
DROP TABLE IF EXISTS orders_db;
SELECT topics.drop_topic('orders') WHERE to_regclass('public.orders') IS NOT NULL;
-- a topic with 4 partitions, text keys and jsonb values
SELECT topics.create_topic('orders', partitions => 4, value_type => 'jsonb');
COMMENT ON TABLE orders IS :'mark';
-- the key picks the partition (Kafka's partitioner); the log assigns the offset
SELECT * FROM topics.produce('orders', '{"item": "book"}', key => 'customer-1');
SELECT * FROM topics.produce_batch('orders',
    ARRAY['{"item": "pen"}', '{"item": "mug"}']::jsonb[], ARRAY['customer-2', 'customer-1']);
INSERT INTO orders (key, value) VALUES ('customer-3', '{"item": "lamp"}') RETURNING partition, "offset";
-- the outbox pattern without an outbox: a row and its event commit together, or not at all
CREATE TABLE orders_db (id int PRIMARY KEY, item text);
COMMENT ON TABLE orders_db IS :'mark';
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

cat <<EOF

pg_topics is running (PostgreSQL $PG_MAJOR on port $port; data in $data, log in $log).
Connect with:
    psql -h localhost -p $port -U postgres postgres
Stop it with:
    $me stop
or:
    $(as_user)$PG_BINDIR/pg_ctl -D $data stop
Another port: PGTOPICS_DEMO_PORT=54330 $me
EOF
if [ "$kafka_port" -ne 0 ]; then
	cat <<EOF
Kafka clients connect to localhost:$kafka_port, for example:
    kcat -b localhost:$kafka_port -L
    echo '{"item": "kite"}' | kcat -b localhost:$kafka_port -P -t orders -k customer-4
    kcat -b localhost:$kafka_port -C -t orders -e
(docs/kafka.md shows kafka-python, confluent-kafka and Java clients too)
EOF
fi
