#!/usr/bin/env bash
# Run the whole pg_topics test suite on temporary instances:
# pg_regress (sql/), isolation (test/specs/), TAP (test/t/), the demo
# (test/demo_test.sh) and the benchmark's smoke mode.  Exits non-zero on any
# failure, including an internal error, assertion failure, PANIC or crash
# in a server log that the test does not declare (docs/testing.md).
#
# On Debian 12 as root it then runs librdkafka's own test suite against the
# listener, that of Debian 12's librdkafka and that of Debian 13's
# (scripts/test-librdkafka.sh bookworm trixie; PGTOPICS_TEST_LIBRDKAFKA lists
# the releases instead, PGTOPICS_TEST_SKIP_LIBRDKAFKA=1 skips it), and the
# suite for PostgreSQL 17 and 18, each in a Debian root of its own
# (scripts/test-major.sh; PGTOPICS_TEST_MAJORS lists them, empty for none).
# PGTOPICS_TEST_SCOPE=major is that run: all of pg_regress and isolation,
# the TAP files of test/every_major, the demo.
#
# Installs what is missing (Debian packages), builds the extension with
# assertions (make CASSERT=1) and installs it (with sudo when not root),
# checks that the source tree keeps its layers (make check-layers),
# then runs the tests as an unprivileged user: PostgreSQL refuses to run as
# root.  `make install` (or scripts/demo.sh) puts the normal build back.
# PG_MAJOR and PG_BINDIR name the PostgreSQL to test with (scripts/common.sh);
# arguments go to `make installcheck` (e.g. PROVE_TESTS=test/t/001_crash.pl).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/scripts/common.sh"
source "$top/scripts/debian-root.sh"
scope=${PGTOPICS_TEST_SCOPE:-all}
started=$(date +%s)

if [ "$scope" = all ]; then
	install_packages $FUZZ_PACKAGES
	# Node.js and npm: TAP 058 installs kafkajs from npm's registry
	install_node
	install_packages $KAFKA_GO_PACKAGES ||
		echo "+++ $KAFKA_GO_PACKAGES not installable: TAP 056 and 057 skip"
else
	install_packages
fi
build_and_install "$top" CASSERT=1
make -C "$top" -s PG_CONFIG="$PG_BINDIR/pg_config" CASSERT=1 check-layers
# released SQL scripts never change, and the library serves every release
make -C "$top" -s PG_CONFIG="$PG_BINDIR/pg_config" CASSERT=1 check-release-sql
# the Kafka wire layer's unit tests, and its parser under libFuzzer for a while
make -C "$top" -s PG_CONFIG="$PG_BINDIR/pg_config" CASSERT=1 check-wire
if [ "$scope" = all ]; then
	make -C "$top" -s PG_CONFIG="$PG_BINDIR/pg_config" CASSERT=1 fuzz-wire FUZZ_SECONDS=${FUZZ_SECONDS:-20}
fi
# What follows PostgreSQL 15's suite on Debian 12 as root: librdkafka's own
# test suite against the listener, the Debian package in a fresh Debian 12
# root, and the suite on the other majors, each in a Debian root of its own
# (below).  The host packages they need are installed now, one apt-get at a
# time, so that none waits for (or trips over) another's dpkg lock.  The
# majors' roots and librdkafka's builds are made while 15's suite runs, which
# mostly waits (for servers, replicas, timeouts), at the lowest CPU and I/O
# priority, so that its tests keep the machine; what is not ready when the
# suite ends is waited for, and what failed is made again by the step that
# needs it.
librdkafka=
package=
majors=
if [ "$scope" = all ] && [ "$(id -u)" -eq 0 ] && [ "$(default_pg_major)" = 15 ]; then
	[ -n "${PGTOPICS_TEST_SKIP_LIBRDKAFKA:-}" ] || librdkafka=yes
	[ -n "${PGTOPICS_TEST_SKIP_PACKAGE:-}" ] || package=yes
	majors=${PGTOPICS_TEST_MAJORS-17 18}
fi
ahead=
ahead_pids=()
if [ -n "$librdkafka$package$majors" ]; then
	install_packages $LIBRDKAFKA_BUILD_PACKAGES dpkg-dev debootstrap
	if [ -n "$package" ] && ! (cd "$top" && dpkg-checkbuilddeps) >/dev/null 2>&1; then
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq --no-install-recommends "$top" >/dev/null
	fi
	ahead=$(mktemp -d /var/tmp/pg_topics-ahead.XXXXXX)
	chmod 755 "$ahead"
	if [ -n "$librdkafka" ]; then
		# shellcheck disable=SC2086
		nice -n 19 ionice -c 2 -n 7 "$top/scripts/test-librdkafka.sh" --build-only "$ahead/librdkafka" \
			${PGTOPICS_TEST_LIBRDKAFKA:-bookworm trixie} >"$ahead/librdkafka.log" 2>&1 &
		ahead_pids+=($!)
	fi
	for major in $majors; do
		nice -n 19 ionice -c 2 -n 7 "$top/scripts/test-major.sh" --prepare "$major" "$ahead/pg$major" \
			>"$ahead/pg$major.log" 2>&1 &
		ahead_pids+=($!)
	done
fi
# the roots of the majors (unless their runs removed them) and the builds
remove_ahead() {
	[ -n "$ahead" ] && [ -d "$ahead" ] || return 0
	for major in $majors; do
		debian_root_remove "$ahead/pg$major" || return 0
	done
	rm -rf --one-file-system "$ahead"
}

# on another major: the TAP files that reach code guarded by version
if [ "$scope" = major ] && [ $# -eq 0 ]; then
	set -- PROVE_TESTS="$(sed -e 's/#.*//' "$top/test/every_major" | xargs)"
fi

# run from a copy the test user owns, so that root-owned checkouts work
work=$(mktemp -d /tmp/pg_topics-test.XXXXXX)
trap 'rm -rf "$work"; remove_ahead' EXIT
tar -C "$top" --exclude=./.git --exclude=./demo --exclude=./bench/.work \
	--exclude=./tmp_check --exclude=./tmp_server_log -cf - . | tar -C "$work" -xf -
[ "$(id -u)" -eq 0 ] && { run_as_user true; chown -R pgtopics "$work"; }

# What failed, named again in the last line: CI shows a run's tail.
status=0
failed=()
fail() {
	status=1
	failed+=("$1")
}
run_as_user env PATH="$PG_BINDIR:$PATH" make -C "$work" PG_CONFIG="$PG_BINDIR/pg_config" installcheck "$@" \
	2>&1 | tee "$work/installcheck.out" || status=$?
if [ $status -ne 0 ]; then
	# pg_regress's and isolation's failed tests, and prove's
	for t in $(sed -n -e 's/^not ok [0-9]* *[-+] *\([A-Za-z0-9_-]*\).*/\1/p' \
		-e 's/^ *\(test \)\{0,1\}\([A-Za-z0-9_-]*\)  *\.\.\. FAILED.*/\2/p' \
		-e 's|^\(test/t/[0-9A-Za-z_]*\.pl\)  *(Wstat.*|\1|p' "$work/installcheck.out"); do
		failed+=("$t")
	done
	[ ${#failed[@]} -gt 0 ] || failed+=("make installcheck")
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
if [ -n "${PGTOPICS_DEMO_LOCK:-}" ]; then
	# another major's run beside this one wants the demo's port too
	flock "$PGTOPICS_DEMO_LOCK" "$top/test/demo_test.sh" || fail demo
else
	"$top/test/demo_test.sh" || fail demo
fi

if [ $status -eq 0 ] && [ "$scope" = all ] && [ -x "$top/bench/run" ]; then
	echo "+++ benchmark smoke run"
	run_as_user env PATH="$PG_BINDIR:$PATH" "$work/bench/run" --smoke || fail "benchmark smoke run"
fi
echo "+++ PostgreSQL $PG_MAJOR: $(( $(date +%s) - started )) s"

# The work made ahead, done: waited for (it is done by now unless 15's suite
# was quick), its output shown where the step that uses it reports
ahead_status=()
for pid in "${ahead_pids[@]}"; do
	if wait "$pid"; then ahead_status+=(0); else ahead_status+=(1); fi
done

# librdkafka's own test suite (Debian's source package, built outside the
# tree) against the listener of the build just installed; its allow list is
# test/librdkafka/.  It runs the suites of Debian 12's librdkafka (bookworm:
# 2.0.2) and Debian 13's (trixie: 2.8.0), each built on its own;
# PGTOPICS_TEST_LIBRDKAFKA names other releases (e.g. "bookworm" alone).
# Beside it, the Debian package is built and installed into a fresh Debian 12
# root, and the other majors run, side by side: all of them wait more than
# they compute.  The majors share a directory of port locks
# (PostgreSQL::Test::Cluster's) and take turns at the demo, whose port is
# fixed; each one's output follows when all are done.
if [ -n "$package" ]; then
	package_log=$(mktemp /var/tmp/pg_topics-package.XXXXXX)
	"$top/scripts/test-package.sh" >"$package_log" 2>&1 &
	package_pid=$!
fi
major_pids=()
shared=
i=0
[ -z "$librdkafka" ] || i=1
if [ -n "$majors" ]; then
	shared=$(mktemp -d /var/tmp/pg_topics-majors.XXXXXX)
	chmod 755 "$shared"
	mkdir -m 1777 "$shared/portlock"
	for major in $majors; do
		root=
		cat "$ahead/pg$major.log" >"$shared/pg$major.log"
		if [ "${ahead_status[$i]}" = 0 ]; then
			root=$ahead/pg$major
		else
			echo "+++ PostgreSQL $major: the root made ahead failed (above); making it again" >>"$shared/pg$major.log"
			debian_root_remove "$ahead/pg$major" || true
		fi
		PGTOPICS_TEST_SHARED=$shared PGTOPICS_TEST_ROOT=$root \
			"$top/scripts/test-major.sh" "$major" >>"$shared/pg$major.log" 2>&1 &
		major_pids+=($!)
		i=$((i + 1))
	done
fi
if [ -n "$librdkafka" ]; then
	echo "+++ librdkafka's own test suite against the listener"
	cat "$ahead/librdkafka.log"
	built=
	[ "${ahead_status[0]}" != 0 ] || built=$ahead/librdkafka
	rdk_failed=$(mktemp /var/tmp/pg_topics-librdkafka.XXXXXX)
	# shellcheck disable=SC2086
	if ! PGTOPICS_LIBRDKAFKA_FAILED=$rdk_failed PGTOPICS_LIBRDKAFKA_BUILT=$built \
		"$top/scripts/test-librdkafka.sh" ${PGTOPICS_TEST_LIBRDKAFKA:-bookworm trixie}; then
		what=$(paste -s -d ';' "$rdk_failed" | sed 's/;/; /g')
		fail "librdkafka's suite (${what:-before its tests})"
	fi
	rm -f "$rdk_failed"
fi
if [ -n "$package" ]; then
	wait "$package_pid" || fail "the Debian package"
	echo "+++ the Debian package in a fresh Debian 12 root"
	cat "$package_log"
	rm -f "$package_log"
fi

if [ -n "$shared" ]; then
	i=0
	for major in $majors; do
		if ! wait "${major_pids[$i]}"; then
			what=$(sed -n 's/^pg_topics: tests FAILED: //p' "$shared/pg$major.log" | tail -n 1)
			fail "PostgreSQL $major (${what:-before its tests})"
		fi
		i=$((i + 1))
	done
	for major in $majors; do
		echo "=== PostgreSQL $major (scripts/test-major.sh $major)"
		cat "$shared/pg$major.log"
	done
	rm -rf "$shared"
fi

if [ $status -eq 0 ]; then
	echo "pg_topics: all tests passed"
else
	echo "pg_topics: tests FAILED: $(IFS=,; echo "${failed[*]:-?}" | sed 's/,/, /g')"
fi
exit $status
