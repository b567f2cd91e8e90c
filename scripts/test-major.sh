#!/usr/bin/env bash
# Run the test suite on another PostgreSQL major, in a minimal Debian root
# made for the purpose with debootstrap: 17 in Debian 13 (trixie), 18 in
# Debian testing.  Usage (as root, on a Debian host):
#
#   scripts/test-major.sh 17
#
# or in two steps, the root made ahead while something else runs (as
# scripts/test.sh does while PostgreSQL 15's suite runs):
#
#   scripts/test-major.sh --prepare 17 ROOT     make the root only, in ROOT
#   PGTOPICS_TEST_ROOT=ROOT scripts/test-major.sh 17    run there
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
prepare=
if [ "${1:-}" = --prepare ]; then
	prepare=yes
	shift
fi
major=${1:?usage: test-major.sh [--prepare] MAJOR [ROOT]}
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
. "$top/scripts/debian-root.sh"

# A prepared root is marked ready when its last step is done; a run removes
# its root whatever happens, a --prepare only one it could not finish.
if [ -n "$prepare" ]; then
	root=${2:?usage: test-major.sh --prepare MAJOR ROOT}
	mkdir -p "$root"
	trap 'status=$?; [ $status -eq 0 ] || debian_root_remove "$root"; exit $status' EXIT
elif [ -n "${PGTOPICS_TEST_ROOT:-}" ]; then
	root=$PGTOPICS_TEST_ROOT
	trap 'debian_root_remove "$root"' EXIT
	[ -f "$root/pg_topics-ready" ] ||
		{ echo "test-major.sh: $root is not a root made by test-major.sh --prepare $major" >&2; exit 1; }
else
	root=$(mktemp -d /var/tmp/pg_topics-pg$major.XXXXXX)
	trap 'debian_root_remove "$root"' EXIT
fi

# The root: Debian's, the checkout (without .git), the packages
# scripts/test.sh installs first thing, and in 17's PostgreSQL 15 (below)
make_root() {
	local debootstrap_log old_bindir old missing previous lib path

	echo "+++ PostgreSQL $major: making a Debian $suite root in $root"
	debootstrap_log=$(mktemp /var/tmp/pg_topics-pg$major-debootstrap.XXXXXX)
	debian_root_make "$root" "$suite" "$mirror" "$debootstrap_log" ||
		{ rm -f "$debootstrap_log"; return 1; }
	rm -f "$debootstrap_log"
	mkdir -p "$root/pg_topics"
	tar -C "$top" --exclude=./.git --exclude=./demo --exclude=./bench/.work \
		--exclude=./tmp_check --exclude=./tmp_server_log --exclude='*.o' --exclude='*.bc' \
		--exclude='*.so' -cf - . | tar -C "$root/pg_topics" -xf -
	# (in 17's, before PostgreSQL 15 is copied, so that only what they lack
	# is copied: no library of Debian 12 stands in for one of Debian 13
	# where the test's LD_LIBRARY_PATH reaches programs of 17, pg_upgrade
	# and the servers it starts)
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		PG_MAJOR="$major" bash -c '. /pg_topics/scripts/common.sh && install_packages'

	# pg_upgrade and pg_dump from 15 (TAP 047_upgrade_major.pl) need
	# PostgreSQL 15 in the 17 root, and Debian 13 has none: the host's,
	# with the pg_topics build scripts/test.sh has just installed in it, is
	# copied to /opt/pg15 (the same layout under another prefix: PostgreSQL
	# finds its share and lib directories relative to its bin directory),
	# and the shared libraries its programs need that Debian 13 lacks
	# (Debian 12's ICU and LDAP sonames) to /opt/pg15/lib, which the test
	# puts in LD_LIBRARY_PATH for the 15 programs only: what ldd in the root
	# does not find, from the host, until it finds everything (a copied
	# library may need another one).  Its JIT provider stays behind (it
	# needs Debian 12's LLVM): without it, PostgreSQL runs without JIT.
	# PG_BINDIR names another 15 installation than Debian's.
	old_bindir=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
	if [ "$major" = 17 ] && [ -f "$old_bindir/postgres" ] &&
		[ -f "$("$old_bindir/pg_config" --pkglibdir)/pg_topics.so" ]; then
		old=/opt/pg15
		mkdir -p "$root$old/usr/lib/postgresql/15" "$root$old/usr/share/postgresql" "$root$old/lib"
		tar -C "$(dirname "$old_bindir")" --exclude='./lib/llvmjit*' --exclude=./lib/bitcode -cf - . |
			tar -C "$root$old/usr/lib/postgresql/15" -xf -
		cp -a "$("$old_bindir/pg_config" --sharedir)" "$root$old/usr/share/postgresql/15"
		missing= previous=
		while :; do
			missing=$(for f in "$root$old"/usr/lib/postgresql/15/bin/* "$root$old"/usr/lib/postgresql/15/lib/pg_topics.so; do
				chroot "$root" env LD_LIBRARY_PATH="$old/lib" ldd "${f#"$root"}" 2>/dev/null || true
			done | sed -n 's/^[[:space:]]*\([^[:space:]]*\) => not found$/\1/p' | sort -u | xargs)
			[ -z "$missing" ] && break
			[ "$missing" != "$previous" ] ||
				{ echo "test-major.sh: PostgreSQL 15 in the root still lacks $missing" >&2; return 1; }
			previous=$missing
			for lib in $missing; do
				# (awk reads it all: stopping early could kill ldconfig by
				# SIGPIPE, which pipefail and set -e would make the run's end)
				path=$(ldconfig -p | awk -v lib="$lib" '$1 == lib && /x86-64/ && path == "" { path = $NF } END { print path }')
				[ -n "$path" ] || { echo "test-major.sh: $lib, which PostgreSQL 15 needs, is not on this host" >&2; return 1; }
				cp -L "$path" "$root$old/lib/$lib"
			done
		done
		echo "+++ PostgreSQL $major: PostgreSQL 15 with pg_topics from $old_bindir in $old, with $(ls "$root$old/lib" | xargs)"
	elif [ "$major" = 17 ]; then
		echo "+++ PostgreSQL $major: no PostgreSQL 15 with pg_topics in $old_bindir: the upgrade from 15 is not tested"
	fi
	touch "$root/pg_topics-ready"
}

started=$(date +%s)
if [ ! -f "$root/pg_topics-ready" ]; then
	make_root
	echo "+++ PostgreSQL $major: root ready after $(( $(date +%s) - started )) s"
fi
[ -z "$prepare" ] || exit 0

old_env=()
[ ! -d "$root/opt/pg15" ] ||
	old_env=(PGTOPICS_OLD_BINDIR=/opt/pg15/usr/lib/postgresql/15/bin PGTOPICS_OLD_LIBS=/opt/pg15/lib)
# runs beside another major's (scripts/test.sh): ports and the demo's turn
shared_env=()
if [ -n "${PGTOPICS_TEST_SHARED:-}" ]; then
	mkdir -p "$root/pg_topics-shared"
	mount --bind "$PGTOPICS_TEST_SHARED" "$root/pg_topics-shared"
	shared_env=(PG_TEST_PORT_DIR=/pg_topics-shared/portlock PGTOPICS_DEMO_LOCK=/pg_topics-shared/demo.lock)
fi

status=0
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
	PG_MAJOR="$major" PGTOPICS_TEST_SCOPE=major "${shared_env[@]}" "${old_env[@]}" \
	/pg_topics/scripts/test.sh || status=$?
echo "+++ PostgreSQL $major: $( [ $status -eq 0 ] && echo passed || echo FAILED ) after $(( $(date +%s) - started )) s"
exit $status
