#!/usr/bin/env bash
# Run the test suite on another PostgreSQL major, in a minimal Debian root
# made for the purpose with debootstrap: 17 in Debian 13 (trixie), 18 in
# Debian testing.  Usage (as root, on a Debian host):
#
#   scripts/test-major.sh 17
#
# The root gets the checkout (without .git), installs its own packages from
# Debian's registry and runs scripts/test.sh there with PG_MAJOR set and
# PGTOPICS_TEST_SCOPE=major: the build, the wire layer's unit tests, all of
# pg_regress and isolation, the TAP files listed in test/every_major (the
# ones that reach code guarded by version) and the demo.  docs/testing.md
# says why the rest is enough.  Nothing is kept after the run: the root is
# removed on every exit path.
#
# DEBIAN_MIRROR names another Debian mirror (default deb.debian.org).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
major=${1:?usage: test-major.sh MAJOR}
case "$major" in
	17) suite=trixie ;;
	18) suite=testing ;;
	*) echo "test-major.sh: no Debian release known for PostgreSQL $major" >&2; exit 1 ;;
esac
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if [ "$(id -u)" -ne 0 ]; then
	echo "test-major.sh: needs root (debootstrap and chroot)" >&2
	exit 1
fi
command -v debootstrap >/dev/null ||
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }

root=$(mktemp -d /var/tmp/pg_topics-pg$major.XXXXXX)
# the root's / (mktemp's directory is private) must let the test user in
chmod 755 "$root"
cleanup() {
	umount "$root/proc" 2>/dev/null || true
	umount "$root/pg_topics-shared" 2>/dev/null || true
	rm -rf --one-file-system "$root"
}
trap cleanup EXIT

started=$(date +%s)
echo "+++ PostgreSQL $major: making a Debian $suite root in $root"
if ! debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$root.debootstrap.log" 2>&1; then
	tail -n 30 "$root.debootstrap.log"
	rm -f "$root.debootstrap.log"
	echo "test-major.sh: debootstrap of $suite failed" >&2
	exit 1
fi
rm -f "$root.debootstrap.log"
mount -t proc proc "$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The root installs only what the suite names (recommended packages bring a
# mail server and systemd units, whose scripts fail in a bare chroot), and
# takes the mirror's release files as they are: a mirror of testing may
# serve files past their Valid-Until date, which debootstrap took anyway.
cat >"$root/etc/apt/apt.conf.d/90pg-topics-test" <<'EOF'
APT::Install-Recommends "false";
Acquire::Check-Valid-Until "false";
EOF
# runs beside another major's (scripts/test.sh): ports and the demo's turn
shared_env=()
if [ -n "${PGTOPICS_TEST_SHARED:-}" ]; then
	mkdir -p "$root/pg_topics-shared"
	mount --bind "$PGTOPICS_TEST_SHARED" "$root/pg_topics-shared"
	shared_env=(PG_TEST_PORT_DIR=/pg_topics-shared/portlock PGTOPICS_DEMO_LOCK=/pg_topics-shared/demo.lock)
fi
mkdir -p "$root/pg_topics"
tar -C "$top" --exclude=./.git --exclude=./demo --exclude=./bench/.work \
	--exclude=./tmp_check --exclude=./tmp_server_log --exclude='*.o' --exclude='*.bc' \
	--exclude='*.so' -cf - . | tar -C "$root/pg_topics" -xf -
echo "+++ PostgreSQL $major: root ready after $(( $(date +%s) - started )) s"

status=0
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
	PG_MAJOR="$major" PGTOPICS_TEST_SCOPE=major "${shared_env[@]}" \
	/pg_topics/scripts/test.sh || status=$?
echo "+++ PostgreSQL $major: $( [ $status -eq 0 ] && echo passed || echo FAILED ) after $(( $(date +%s) - started )) s"
exit $status
