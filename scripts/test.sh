#!/usr/bin/env bash
# Run the whole pg_topics test suite on temporary instances:
# pg_regress (sql/), isolation (test/specs/), TAP (test/t/), and the
# benchmark's smoke mode.  Exits non-zero on any failure.
#
# Installs what is missing (Debian packages), builds and installs the
# extension (with sudo when not root), then runs the tests as an
# unprivileged user: PostgreSQL refuses to run as root.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/scripts/common.sh"

install_packages
build_and_install "$top"

# run from a copy the test user owns, so that root-owned checkouts work
work=$(mktemp -d /tmp/pg_topics-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
tar -C "$top" --exclude=./.git --exclude=./demo --exclude=./bench/.work -cf - . | tar -C "$work" -xf -
[ "$(id -u)" -eq 0 ] && { run_as_user true; chown -R pgtopics "$work"; }

status=0
run_as_user env PATH="$PG_BINDIR:$PATH" make -C "$work" PG_CONFIG="$PG_BINDIR/pg_config" installcheck || status=$?
if [ $status -ne 0 ]; then
	for f in "$work"/regression.diffs "$work"/output_iso/regression.diffs; do
		[ -f "$f" ] && { echo "=== $f"; cat "$f"; }
	done
	for f in "$work"/tmp_check/log/regress_log_*; do
		[ -f "$f" ] && { echo "=== $f (last 60 lines)"; tail -n 60 "$f"; }
	done
fi

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
