#!/usr/bin/env bash
# scripts/demo.sh works wherever the checkout is.  A copy of the checkout goes
# into a fresh mode-0700 directory under a parent only its owner may enter
# (as a checkout in /root is, under root); then:
#  1. with the default port taken, demo.sh fails, naming the port and
#     PGTOPICS_DEMO_PORT;
#  2. with PGTOPICS_DEMO_PORT set to a free port it succeeds (what the first
#     run wrote does not pin the default port), and the server answers there
#     with the demo's records; a second run restarts it, keeping a topic a
#     user made in database postgres meanwhile; Kafka clients read
#     them (kcat, also in groups), and the kafka-python and confluent-kafka
#     examples of docs/kafka.md run there as written;
#  3. `demo.sh stop` stops it.
# The demo uses the extension as installed (PGTOPICS_DEMO_SKIP_BUILD=1):
# scripts/test.sh has just built and installed it.  Set PG_BINDIR to test
# against another installation of PostgreSQL 15.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/scripts/common.sh"
export PG_BINDIR PGTOPICS_DEMO_SKIP_BUILD=1
unset PGTOPICS_DEMO_DIR PGTOPICS_DEMO_PORT
# the demo's Kafka listener on a free port, not Kafka's own 9092
PGTOPICS_DEMO_KAFKA_PORT=$(perl -MIO::Socket::INET -e 'print IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1", LocalPort => 0)->sockport')
export PGTOPICS_DEMO_KAFKA_PORT

parent=$(mktemp -d /tmp/pg_topics-demo-test.XXXXXX)
chmod 0700 "$parent"
copy=$parent/checkout
mkdir -m 0700 "$copy"
tar -C "$top" --exclude=./.git --exclude=./demo --exclude=./bench/.work \
	--exclude=./tmp_check --exclude=./tmp_server_log -cf - . | tar -C "$copy" -xf -
dir=$(demo_dir "$copy")
out=$parent/out
listener=
cleanup() {
	[ -n "$listener" ] && kill "$listener" 2>/dev/null
	"$copy/scripts/demo.sh" stop >/dev/null 2>&1 || true
	rm -rf "$parent" "$dir"
	# ~pgtopics/pg_topics-demo, if no other demo is in it
	rmdir "$(dirname "$dir")" 2>/dev/null || true
}
trap cleanup EXIT

failures=0
check() {
	local what=$1
	shift
	if "$@"; then
		echo "ok - $what"
	else
		echo "not ok - $what"
		echo "--- demo.sh's output:"
		cat "$out"
		failures=$((failures + 1))
	fi
}

# 1. the default port, held by a listener (or by whatever holds it already)
perl -MIO::Socket::INET -e '
	my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1", LocalPort => 54329, ReuseAddr => 1);
	print $s ? "listening\n" : "taken\n";
	STDOUT->flush;
	sleep 600 if $s;' >"$parent/listener" &
listener=$!
for _ in $(seq 50); do [ -s "$parent/listener" ] && break; sleep 0.1; done
status=0
"$copy/scripts/demo.sh" >"$out" 2>&1 || status=$?
check "demo.sh fails when port 54329 is taken" [ "$status" -ne 0 ]
check "its message names the port" grep -q "port 54329 on localhost is taken" "$out"
check "... and how to choose another" grep -q "PGTOPICS_DEMO_PORT=54330 .*demo.sh" "$out"
kill "$listener" 2>/dev/null || true
listener=

# 2. another port, twice
port=$(perl -MIO::Socket::INET -e 'print IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1", LocalPort => 0)->sockport')
for run in first second; do
	status=0
	PGTOPICS_DEMO_PORT=$port "$copy/scripts/demo.sh" >"$out" 2>&1 || status=$?
	check "demo.sh succeeds on port $port ($run run)" [ "$status" -eq 0 ]
	check "it says where the data is ($run run)" grep -q "data in $dir/data" "$out"
	check "the server answers on port $port with the demo's 4 records ($run run)" \
		[ "$("$PG_BINDIR/psql" -X -Atq -h localhost -p "$port" -U postgres -d postgres -c 'SELECT count(*) FROM orders' 2>&1)" = 4 ]
	if [ $run = first ]; then
		# a user's own topic, next to the demo's
		"$PG_BINDIR/psql" -X -Atq -h localhost -p "$port" -U postgres -d postgres \
			-c "SELECT topics.create_topic('mine', 1, 'text', 'text')" -c "SELECT topics.produce('mine', 'kept'::text)" >/dev/null
	fi
done
check "the second run kept the user's topic in database postgres, with its record" \
	[ "$("$PG_BINDIR/psql" -X -Atq -h localhost -p "$port" -U postgres -d postgres -c 'SELECT value FROM mine' 2>&1)" = kept ]
kafka_records() { kcat -b "localhost:$PGTOPICS_DEMO_KAFKA_PORT" -C -t orders -e -q -f '%k\n' 2>/dev/null | sort | tr '\n' ' '; }
check "a Kafka consumer (kcat) reads the demo's 4 records at the Kafka port it names" \
	[ "$(kafka_records)" = "customer-1 customer-1 customer-2 customer-3 " ]
check "and the demo's output tells how" grep -q "kcat -b localhost:$PGTOPICS_DEMO_KAFKA_PORT -L" "$out"
# a balanced consumer in a new group, at the demo's settings (the initial
# rebalance delay of 3 s); three groups, which two listeners may serve
group_records() { timeout 60 kcat -b "localhost:$PGTOPICS_DEMO_KAFKA_PORT" -G "$1" -X auto.offset.reset=earliest -e -q -f '%k\n' orders 2>/dev/null | sort | tr '\n' ' '; }
for group in demo-test-a demo-test-b demo-test-c; do
	check "a kcat balanced consumer (-G $group) is assigned and reads the 4 records" \
		[ "$(group_records "$group")" = "customer-1 customer-1 customer-2 customer-3 " ]
done
# the Python examples of docs/kafka.md, as they are, at the demo's Kafka port
doc_example() {
	awk -v section="### $1" '
		$0 == section { in_section = 1; next }
		in_section && /^```python$/ { in_block = 1; next }
		in_block && /^```$/ { exit }
		in_block { print }' "$top/docs/kafka.md" |
		sed "s/localhost:9092/localhost:$PGTOPICS_DEMO_KAFKA_PORT/g"
}
run_example() {
	doc_example "$1" | timeout 120 /usr/bin/python3 - >"$parent/$1.out" 2>&1 ||
		{ cat "$parent/$1.out"; return 1; }
}
printed_records() { grep -cE "^[0-9]+ [0-9]+ b'customer-" "$parent/$1.out"; }
check "docs/kafka.md's kafka-python example runs against the demo" run_example kafka-python
check "... its producer is answered with where the record is stored" grep -qE "^stored at [0-9]+ [0-9]+ [0-9]+$" "$parent/kafka-python.out"
check "... and its consumer reads the demo's 4 records and that one" [ "$(printed_records kafka-python)" = 5 ]
check "docs/kafka.md's confluent-kafka example runs against the demo" run_example confluent-kafka
check "... its producer gets a delivery report" grep -qE "^delivered None [0-9]+ [0-9]+$" "$parent/confluent-kafka.out"
check "... its consumer is assigned the partitions" grep -q "^assigned \[TopicPartition" "$parent/confluent-kafka.out"
check "... and reads all 6 records" [ "$(printed_records confluent-kafka)" = 6 ]
check "the Kafka producers' records are rows of the topic in SQL" \
	[ "$("$PG_BINDIR/psql" -X -Atq -h localhost -p "$port" -U postgres -d postgres -c "SELECT string_agg(value->>'item', ',' ORDER BY key) FROM orders WHERE key IN ('customer-7', 'customer-8')" 2>&1)" = "kite,yo-yo" ]
# shipping committed each record it read, so its positions are just after
# the last record of each partition (a rolled-back offset may follow it)
positions=$("$PG_BINDIR/psql" -X -Atq -h localhost -p "$port" -U postgres -d postgres -c "
SELECT (SELECT count(*) > 0 FROM topics.consumer_lag WHERE group_name = 'billing' AND committed_offset IS NOT NULL),
       (SELECT count(*) = (SELECT count(DISTINCT partition) FROM orders) AND bool_and(l.committed_offset = r.next)
        FROM topics.consumer_lag l
        JOIN (SELECT partition, max(\"offset\") + 1 AS next FROM orders GROUP BY partition) r USING (partition)
        WHERE l.group_name = 'shipping')" 2>&1)
check "the groups' commits are their positions in topics.consumer_lag ($positions)" [ "$positions" = "t|t" ]
if [ "$(id -u)" -eq 0 ]; then
	check "under root the instance lies outside the checkout" [ "${dir#"$copy"/}" = "$dir" ]
	check "under root the server's user pgtopics owns it" [ "$(stat -c %U "$dir/data")" = pgtopics ]
fi

# 3. stop
"$copy/scripts/demo.sh" stop >"$out" 2>&1
check "demo.sh stop says it stopped the demo" grep -q "pg_topics demo stopped" "$out"
server_gone() { ! "$PG_BINDIR/pg_isready" -q -h localhost -p "$port"; }
check "the server is gone" server_gone

if [ $failures -ne 0 ]; then
	echo "demo test: $failures check(s) FAILED"
	exit 1
fi
echo "demo test: all checks passed"
