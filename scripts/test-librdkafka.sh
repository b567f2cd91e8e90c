#!/usr/bin/env bash
# librdkafka's own test suite against the Kafka listener (as root, on Debian
# 12, after scripts/test.sh has installed pg_topics into PostgreSQL 15):
#
#   scripts/test-librdkafka.sh [SUITE...]      SUITE: bookworm (default), trixie
#
# For each Debian release named, it
#  1. fetches librdkafka's Debian source package of that release with
#     `apt-get source`, through a deb-src line of its own (a sources list in
#     the work directory: the machine's apt configuration is not touched),
#     into a work directory under TMPDIR (default /var/tmp);
#  2. builds the library and the suite's test-runner there, as the
#     unprivileged user pgtopics (nothing of it enters the source tree);
#  3. starts a PostgreSQL server of its own (PG_BINDIR's, with the pg_topics
#     installed there) as pgtopics, with the Kafka listener on a free
#     loopback port, topics created on first use with 4 partitions (the
#     suite's "default" scenario: Kafka's defaults, num.partitions=4);
#  4. runs the tests of the allow list test/librdkafka/allow-VERSION.txt
#     (VERSION: the upstream version of the source package), a test-runner
#     per test number, PGTOPICS_LIBRDKAFKA_JOBS (default 4) at a time, with
#     TEST_KAFKA_VERSION=2.4.0 and in quick mode (-Q); those of the suite's
#     "noautocreate" scenario after a reload that turns
#     pg_topics.kafka_auto_create_topics off;
#  5. prints each test's outcome and time, the pass count, and every broker
#     test not run with its reason (test/librdkafka/excluded-VERSION.txt).
#
# It fails if an allowed test fails, if the two lists do not name every
# broker test of the suite exactly once (a new suite's tests must be sorted
# first), or if the server log shows a crash, an assertion failure or a
# PANIC.  PGTOPICS_LIBRDKAFKA_ALL=1 runs every broker test instead, allowed
# or not, and fails on nothing but the lists: how to sort a new suite's tests.
# PGTOPICS_LIBRDKAFKA_TESTS="0092 0081_admin ..." runs the broker tests named
# (by name or number) so, allowed or not: how to try excluded tests again
# once what they need has landed.
# PGTOPICS_LIBRDKAFKA_PGPORT and PGTOPICS_LIBRDKAFKA_KAFKA_PORT choose the
# server's ports (default: free ones).  PGTOPICS_LIBRDKAFKA_FAILED names a
# file to which a line is added for each suite with failed tests ("2.8.0:
# 0011_produce_batch ...") and for a crash in the server log.
# Needs: Debian's package registry (deb.debian.org, or DEBIAN_MIRROR), about
# 300 MB under TMPDIR, and 2 to 4 minutes to build per release.
#
#   scripts/test-librdkafka.sh --build-only DIR [SUITE...]
#
# does steps 1 and 2 alone, into DIR/SUITE; a later run with
# PGTOPICS_LIBRDKAFKA_BUILT=DIR takes each release built there instead of
# building it again (scripts/test.sh builds them while PostgreSQL 15's suite
# runs).  The run leaves DIR as it found it, apart from the tests' own files.
set -eEuo pipefail
# a command that fails the run says where (set -e alone exits silently)
trap 'echo "test-librdkafka.sh: line $LINENO: a command failed with status $?" >&2' ERR

top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/scripts/common.sh"
me=test-librdkafka.sh
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# the broker version the tests assume: it decides which tests run (each
# names the oldest broker it needs); see docs/testing.md
kafka_version=2.4.0
test_timeout=300
jobs=${PGTOPICS_LIBRDKAFKA_JOBS:-4}
# running tests to sort them (every one, or those named): outcomes are
# reported, not failed on
sorting=${PGTOPICS_LIBRDKAFKA_ALL:-}${PGTOPICS_LIBRDKAFKA_TESTS:-}

if [ "$(id -u)" -ne 0 ]; then
	echo "$me: must run as root (apt-get, and the server runs as pgtopics)" >&2
	exit 1
fi
build_only=
if [ "${1:-}" = --build-only ]; then
	build_only=${2:?usage: $me --build-only DIR [SUITE...]}
	shift 2
fi
[ $# -gt 0 ] || set -- bookworm

# what librdkafka's configure and build need (scripts/common.sh)
install_packages $LIBRDKAFKA_BUILD_PACKAGES
run_as_user true

# fetch_and_build SUITE DIR: librdkafka's source package of Debian SUITE
# into DIR, built there as pgtopics (steps 1 and 2); sets src to its tree
fetch_and_build() {
	local suite=$1 dir=$2 apt_opts build_start
	mkdir -p "$dir/lists/partial"
	echo "deb-src $mirror $suite main" >"$dir/sources.list"
	apt_opts=(-o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$dir/lists" -o APT::Sandbox::User=root)
	echo "+++ $me: librdkafka of Debian $suite: apt-get source"
	apt-get "${apt_opts[@]}" update -qq
	(cd "$dir" && apt-get "${apt_opts[@]}" source -qq librdkafka >"$dir/source.log" 2>&1) ||
		{ tail -n 20 "$dir/source.log"; echo "$me: apt-get source librdkafka ($suite) failed" >&2; return 1; }
	src=$(find "$dir" -mindepth 1 -maxdepth 1 -type d -name 'librdkafka-*' | head -n 1)
	chown -R pgtopics "$dir"
	echo "+++ $me: building librdkafka ${src##*/librdkafka-} and its test-runner"
	build_start=$(date +%s)
	if ! run_as_user bash -c "cd '$src' && ./configure --disable-gssapi >'$dir/build.log' 2>&1 &&
		make -j$(nproc) libs >>'$dir/build.log' 2>&1 && make -j$(nproc) -C tests build >>'$dir/build.log' 2>&1"; then
		tail -n 40 "$dir/build.log"
		echo "$me: the build of librdkafka ${src##*/librdkafka-} failed" >&2
		return 1
	fi
	echo "    built in $(($(date +%s) - build_start)) s"
}

if [ -n "$build_only" ]; then
	mkdir -p "$build_only"
	chmod 755 "$build_only"
	for suite in "$@"; do
		rm -rf --one-file-system "${build_only:?}/$suite"
		fetch_and_build "$suite" "$build_only/$suite"
		touch "$build_only/$suite/built"
	done
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/var/tmp}/pg_topics-librdkafka.XXXXXX")
chmod 755 "$work"
pgdata=
cleanup() {
	local status=$?
	trap - EXIT
	if [ -n "$pgdata" ] && [ -f "$pgdata/postmaster.pid" ]; then
		run_as_user "$PG_BINDIR/pg_ctl" -D "$pgdata" -m fast stop >/dev/null 2>&1 || true
	fi
	rm -rf --one-file-system "$work"
	exit $status
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() {
	perl -MIO::Socket::INET -e 'print IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1", LocalPort => 0)->sockport'
}
psql_admin() {
	run_as_user "$PG_BINDIR/psql" -X -q -h "$work/sock" -p "$pgport" -d postgres -v ON_ERROR_STOP=1 "$@"
}
# every listener process reloads on its own, at once
reload_with() {
	psql_admin -c "$1" -c 'SELECT pg_reload_conf()' >/dev/null
	sleep 1
}

# run_tests SCENARIO JOBS NUMBERS: a test-runner for each test number, JOBS
# at a time: the tests mostly wait (for rebalances, timeouts, linger), and
# each has topics and groups of its own.  Each one's output goes to
# $dir/NUM-SCENARIO.log, its exit status and seconds to NUM-SCENARIO.rc.
run_tests() {
	local scenario=$1 jobs=$2 numbers=$3
	[ -n "$numbers" ] || return 0
	if [ "$scenario" = noautocreate ]; then
		reload_with 'ALTER SYSTEM SET pg_topics.kafka_auto_create_topics = off'
	else
		reload_with 'ALTER SYSTEM RESET pg_topics.kafka_auto_create_topics'
	fi
	echo "$numbers" | run_as_user env SRC="$src" DIR="$dir" SCENARIO="$scenario" \
		KAFKA_VERSION="$kafka_version" TIMEOUT="$test_timeout" \
		xargs -P "$jobs" -I NUM bash -c '
			t0=$(date +%s)
			cd "$SRC/tests" || exit 1
			# (a failed test aborts its runner: the outcome is read
			# from the log, and bash need not say "Aborted")
			{ TESTS=NUM TEST_SCENARIO=$SCENARIO TEST_KAFKA_VERSION=$KAFKA_VERSION \
				RDKAFKA_TEST_CONF=$DIR/test.conf LD_LIBRARY_PATH=../src:../src-cpp \
				timeout -k 10 $TIMEOUT ./test-runner -L -Q >"$DIR/NUM-$SCENARIO.log" 2>&1; rc=$?; } 2>/dev/null
			echo "$rc $(($(date +%s) - t0))" >"$DIR/NUM-$SCENARIO.rc"'
}

# outcome NAME SCENARIO: PASSED, FAILED or TIMEOUT, from its test-runner's
# summary table ("| NAME | STATE | TIME |"); a runner that failed an
# assertion aborts before its table: FAILED, or TIMEOUT when it was stopped
outcome() {
	local name=$1 scenario=$2 n=${1:0:4} rc secs state
	read -r rc secs <"$dir/$n-$scenario.rc" || { rc=?; secs=?; }
	# (awk reads the whole log: were it to stop at the row, sed could be
	# killed by SIGPIPE writing the rest, and pipefail would fail the run)
	state=$(sed -e 's/\x1b\[[0-9;]*m//g' "$dir/$n-$scenario.log" |
		awk -F'|' -v t="$name" '{ gsub(/ /, "", $2); gsub(/ /, "", $3) }
			$2 == t && state == "" { state = $3 } END { print state }')
	if [ -z "$state" ]; then
		case "$rc" in
			124|137) state=TIMEOUT ;;
			*) state=FAILED ;;
		esac
	fi
	echo "$state $secs"
}

# The server: one for every release, each test's topics are its own
pgport=${PGTOPICS_LIBRDKAFKA_PGPORT:-$(free_port)}
kport=${PGTOPICS_LIBRDKAFKA_KAFKA_PORT:-$(free_port)}
pgdata=$work/pgdata
mkdir -m 700 "$pgdata"
mkdir "$work/sock"
chown pgtopics "$pgdata" "$work/sock"
run_as_user "$PG_BINDIR/initdb" -D "$pgdata" -A trust -U pgtopics >/dev/null
cat >>"$pgdata/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$work/sock'
port = $pgport
shared_preload_libraries = 'pg_topics'
pg_topics.kafka_port = $kport
pg_topics.kafka_listen_addresses = '127.0.0.1'
pg_topics.kafka_auto_create_topics = on
pg_topics.kafka_default_partitions = 4
# Kafka's default (3 s): consumers a test subscribes together get their
# partitions in one rebalance; with none, one may take every partition
# first and then, not polled while the test polls the other, hold the
# rebalance back (0118_commit_rebalance failed so when four tests ran at
# once)
pg_topics.kafka_group_initial_rebalance_delay = 3000
EOF
echo "+++ $me: PostgreSQL $PG_MAJOR ($PG_BINDIR) with the Kafka listener on 127.0.0.1:$kport"
run_as_user "$PG_BINDIR/pg_ctl" -D "$pgdata" -l "$pgdata/server.log" -w start >/dev/null
psql_admin -c 'CREATE EXTENSION pg_topics'

status=0
for suite in "$@"; do
	started=$(date +%s)
	dir=$work/$suite
	mkdir -p "$dir"
	built=${PGTOPICS_LIBRDKAFKA_BUILT:-}
	if [ -n "$built" ] && [ -f "$built/$suite/built" ]; then
		src=$(find "$built/$suite" -mindepth 1 -maxdepth 1 -type d -name 'librdkafka-*' | head -n 1)
		echo "+++ $me: librdkafka ${src##*/librdkafka-} of Debian $suite, built ahead in $built/$suite"
	else
		fetch_and_build "$suite" "$dir"
	fi
	chown pgtopics "$dir"
	version=${src##*/librdkafka-}
	allow=$top/test/librdkafka/allow-$version.txt
	excluded=$top/test/librdkafka/excluded-$version.txt
	[ -f "$allow" ] && [ -f "$excluded" ] ||
		{ echo "$me: librdkafka $version ($suite) has no lists test/librdkafka/{allow,excluded}-$version.txt" >&2; status=1; continue; }

	# The broker tests of the suite (those without TEST_F_LOCAL or
	# TEST_F_MANUAL), each with the scenario it needs, from test.c's table
	python3 - "$src/tests/test.c" >"$dir/broker-tests" <<'EOF'
import re, sys
s = open(sys.argv[1]).read()
s = s[s.index('struct test tests[] = {'):]
for m in re.finditer(r'_TEST\((\w+),(.*?)\)\s*,\s*(?=_TEST|#|/\*|\{NULL)', s, re.S):
    name, rest = m.group(1), m.group(2)
    flags = rest.split(',')[0]
    if 'TEST_F_LOCAL' in flags or 'TEST_F_MANUAL' in flags:
        continue
    scen = re.search(r'\.scenario\s*=\s*"([^"]*)"', rest)
    print(name, scen.group(1).split(',')[0] if scen else 'default')
EOF
	# every broker test in exactly one of the lists
	names() { sed -e 's/#.*//' "$1" | awk 'NF { print $1 }' | sort; }
	problems=$( (names "$allow"; names "$excluded") | sort | uniq -d | sed 's/$/: named twice/';
		comm -23 <(awk '{ print $1 }' "$dir/broker-tests" | sort) <( (names "$allow"; names "$excluded") | sort -u) |
			sed 's/$/: in neither list/';
		comm -13 <(awk '{ print $1 }' "$dir/broker-tests" | sort) <( (names "$allow"; names "$excluded") | sort -u) |
			sed 's/$/: not a broker test of this suite/')
	if [ -n "$problems" ]; then
		echo "$me: test/librdkafka lists of $version:" >&2
		echo "$problems" >&2
		status=1
		continue
	fi

	if [ -n "${PGTOPICS_LIBRDKAFKA_TESTS:-}" ]; then
		awk -v want="$PGTOPICS_LIBRDKAFKA_TESTS" \
			'BEGIN { n = split(want, w) } { for (i = 1; i <= n; i++) if ($1 == w[i] || substr($1, 1, 4) == w[i]) { print $1; next } }' \
			"$dir/broker-tests" >"$dir/to-run"
		[ -s "$dir/to-run" ] ||
			{ echo "$me: no broker test of librdkafka $version is named by PGTOPICS_LIBRDKAFKA_TESTS" >&2; status=1; continue; }
	elif [ -n "$sorting" ]; then
		awk '{ print $1 }' "$dir/broker-tests" >"$dir/to-run"
	else
		names "$allow" >"$dir/to-run"
	fi
	echo "metadata.broker.list=127.0.0.1:$kport" >"$dir/test.conf"
	chown pgtopics "$dir/test.conf"
	for scenario in default noautocreate; do
		numbers=$(join <(sort "$dir/to-run") <(sort "$dir/broker-tests") |
			awk -v s="$scenario" '$2 == s { print substr($1, 1, 4) }' | sort -u)
		run_tests "$scenario" "$jobs" "$numbers"
	done
	reload_with 'ALTER SYSTEM RESET pg_topics.kafka_auto_create_topics'

	# The outcome of each test meant to run.  A test that failed runs once
	# more, alone: on this 2-core machine under CI's load some of the
	# suite's timing assertions miss (a librdkafka test, not pg_topics,
	# decides how long a step may take).  One that passes then is reported
	# as such, with the end of its first output, and does not fail the run;
	# one that fails twice does.
	passed=0 failed=() retried=()
	while read -r name <&3; do
		scenario=$(awk -v t="$name" '$1 == t { print $2 }' "$dir/broker-tests")
		n=${name:0:4}
		read -r state secs < <(outcome "$name" "$scenario")
		note=
		if [ "$state" != PASSED ] && [ -z "$sorting" ]; then
			mv "$dir/$n-$scenario.log" "$dir/$n-$scenario.first.log"
			first=$state
			run_tests "$scenario" 1 "$n"
			read -r state secs < <(outcome "$name" "$scenario")
			note="  (first run $first, see below; then run alone)"
			retried+=("$n-$scenario")
		fi
		reason=$(sed -n "s/^$name[[:space:]]*#[[:space:]]*//p" "$excluded")
		printf '    %-48s %-8s %4s s%s\n' "$name" "$state" "$secs" "${reason:+  (excluded: $reason)}$note"
		if [ "$state" = PASSED ]; then
			passed=$((passed + 1))
		elif [ -z "$sorting" ]; then
			failed+=("$name")
		fi
	done 3<"$dir/to-run"
	[ ${#retried[@]} -eq 0 ] || reload_with 'ALTER SYSTEM RESET pg_topics.kafka_auto_create_topics'
	for r in "${retried[@]}"; do
		echo "--- the end of ${r%%-*}'s first run ($r):"
		tail -n 30 "$dir/$r.first.log" | sed -e 's/\x1b\[[0-9;]*m//g'
	done
	total=$(wc -l <"$dir/to-run")
	echo "+++ $me: librdkafka $version ($suite): $passed of $total passed, $(wc -l <"$dir/broker-tests") broker tests in the suite, $(($(date +%s) - started)) s"
	if [ -z "$sorting" ]; then
		echo "    not run (test/librdkafka/excluded-$version.txt):"
		sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$excluded" |
			sed -e 's/^\([^[:space:]]*\)[[:space:]]*#[[:space:]]*/\1: /' -e 's/^/      /'
	fi
	if [ ${#failed[@]} -gt 0 ]; then
		echo "$me: librdkafka $version: allowed tests failed: ${failed[*]}" >&2
		[ -z "${PGTOPICS_LIBRDKAFKA_FAILED:-}" ] ||
			echo "$version: ${failed[*]}" >>"$PGTOPICS_LIBRDKAFKA_FAILED"
		for name in "${failed[@]}"; do
			echo "--- the end of ${name:0:4}'s output:" >&2
			tail -n 30 "$dir/${name:0:4}-"*.log | sed -e 's/\x1b\[[0-9;]*m//g' >&2
		done
		status=1
	fi
done

# whatever the tests did, the server must not have crashed or asserted
if grep -E 'TRAP:|PANIC:|terminated by signal|server process .* was terminated' "$pgdata/server.log" >&2; then
	echo "$me: the server log shows a crash or an assertion failure (above)" >&2
	[ -z "${PGTOPICS_LIBRDKAFKA_FAILED:-}" ] ||
		echo "a crash or an assertion failure in the server log" >>"$PGTOPICS_LIBRDKAFKA_FAILED"
	status=1
fi
exit $status
