#!/usr/bin/env bash
# Run the whole pg_topics test suite on temporary instances:
# pg_regress (sql/), isolation (test/specs/), TAP (test/t/), the demo
# (test/demo_test.sh) and the benchmark's smoke mode.  Exits non-zero on any
# failure, including an internal error, assertion failure, PANIC or crash
# in a server log that the test does not declare (docs/testing.md).
#
# Installs what is missing (Debian packages), builds the extension with
# assertions (make CASSERT=1) and installs it (with sudo when not root),
# checks that the source tree keeps its layers (make check-layers),
# then runs the tests as an unprivileged user: PostgreSQL refuses to run as
# root.  `make install` (or scripts/demo.sh) puts the normal build back.
# PG_BINDIR may name another installation of PostgreSQL 15 to test with;
# arguments go to `make installcheck` (e.g. PROVE_TESTS=test/t/001_crash.pl).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/scripts/common.sh"

install_packages
build_and_install "$top" CASSERT=1
make -C "$top" -s PG_CONFIG="$PG_BINDIR/pg_config" check-layers
# the Kafka wire layer's unit tests, and its parser under libFuzzer for a while
make -C "$top" -s PG_CONFIG="$PG_BINDIR/pg_config" check-wire
make -C "$top" -s PG_CONFIG="$PG_BINDIR/pg_config" fuzz-wire FUZZ_SECONDS=${FUZZ_SECONDS:-20}

# run from a copy the test user owns, so that root-owned checkouts work
work=$(mktemp -d /tmp/pg_topics-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
tar -C "$top" --exclude=./.git --exclude=./demo --exclude=./bench/.work \
	--exclude=./tmp_check --exclude=./tmp_server_log -cf - . | tar -C "$work" -xf -
[ "$(id -u)" -eq 0 ] && { run_as_user true; chown -R pgtopics "$work"; }

status=0
run_as_user env PATH="$PG_BINDIR:$PATH" make -C "$work" PG_CONFIG="$PG_BINDIR/pg_config" installcheck "$@" \
	2>&1 | tee "$work/installcheck.out" || status=$?
if [ $status -ne 0 ]; then
	for f in "$work"/regression.diffs "$work"/output_iso/regression.diffs; do
		[ -f "$f" ] && { echo "=== $f"; cat "$f"; }
	done
	# the logs of the TAP files that failed (prove's summary names them),
	# with the server logs of their nodes
	for t in $(sed -n 's|^test/t/\([0-9A-Za-z_]*\)\.pl  *(Wstat.*|\1|p' "$work/installcheck.out"); do
		f="$work/tmp_check/log/regress_log_$t"
		[ -f "$f" ] && { echo "=== $f (last 200 lines)"; tail -n 200 "$f"; }
		for f in "$work"/tmp_check/log/"$t"_*.log; do
			[ -f "$f" ] && { echo "=== $f (last 60 lines)"; tail -n 60 "$f"; }
		done
	done
fi

echo "+++ the demo, from a checkout only its owner can enter"
"$top/test/demo_test.sh" || status=1

if [ $status -eq 0 ] && [ -x "$top/bench/run" ]; then
	echo "+++ benchmark smoke run"
	run_as_user env PATH="$PG_BINDIR:$PATH" "$work/bench/run" --smoke || status=$?
fi

if [ $status -eq 0 ]; then
	echo "pg_topics: all tests passed"
else
	echo "pg_topics: tests FAILED"
fi
exit $status
