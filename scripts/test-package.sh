#!/usr/bin/env bash
# The Debian package, from source to a user's machine (as root, on Debian 12):
#  1. test/meta_check: META.json, the versions and the licence agree;
#  2. builds postgresql-15-pg-topics from a copy of the tree with
#     `dpkg-buildpackage -us -uc -b` (installing the Build-Depends this
#     machine lacks), and checks that it holds the library and every SQL file;
#  3. makes a fresh, minimal Debian 12 root with debootstrap in a temporary
#     directory and installs the .deb there with `apt-get install ./….deb`,
#     which pulls PostgreSQL 15 from Debian;
#  4. runs scripts/demo.sh there with PGTOPICS_DEMO_SKIP_BUILD=1, on the
#     installed extension, with no compiler or server headers in the root;
#     checks what the demo's server holds, and stops it;
#  5. starts the cluster the server package made there, and runs
#     docs/install.md's commands that enable pg_topics in it, as written;
#  6. installs the autopkgtest's Depends (debian/tests/control) there and
#     runs its test, debian/tests/installcheck: pg_regress and the isolation
#     tests against the installed package.
# Each step is timed.  Exits non-zero, naming the step, on any failure; the
# root (its /proc unmounted, the demo's server stopped) and every temporary
# file go on every exit path.  TMPDIR (default /var/tmp) holds the work
# directory: about 1.5 GB.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
me=test-package.sh
pg_major=15
suite=bookworm
mirror=http://deb.debian.org/debian
package=postgresql-$pg_major-pg-topics

if [ "$(id -u)" -ne 0 ]; then
	echo "$me: must run as root (debootstrap, chroot, apt-get)" >&2
	exit 1
fi

. "$top/scripts/debian-root.sh"
work=$(mktemp -d "${TMPDIR:-/var/tmp}/pg_topics-package.XXXXXX")
root=$work/root
logs=$work/logs
mkdir "$logs"
step=
log=
times=()

cleanup() {
	local status=$?
	trap - EXIT
	if [ $status -ne 0 ]; then
		echo "$me: FAILED at the step \"$step\" (exit status $status)" >&2
		if [ -n "$log" ] && [ -s "$log" ]; then
			echo "--- the end of its log, $(basename "$log"):" >&2
			tail -n 60 "$log" >&2
		fi
	fi
	if [ -d "$root/proc" ]; then
		# servers a failed step left running: stopped cleanly if they can be
		# (a killed postmaster leaves its System V shared memory behind)
		if mountpoint -q "$root/proc"; then
			if [ -x "$root/src/pg_topics/scripts/demo.sh" ]; then
				chroot "$root" /src/pg_topics/scripts/demo.sh stop >/dev/null 2>&1 || true
			fi
			if [ -x "$root/usr/bin/pg_ctlcluster" ]; then
				chroot "$root" pg_ctlcluster --force "$pg_major" main stop >/dev/null 2>&1 || true
			fi
		fi
	fi
	if ! debian_root_remove "$root"; then
		echo "$me: not removing $work" >&2
		status=1
	else
		rm -rf --one-file-system "$work"
	fi
	exit $status
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# begin NAME: a step starts (its output goes to logs/NAME.log); end: it passed
begin() {
	step=$1
	log=$logs/${1//[^A-Za-z0-9.]/_}.log
	step_start=$(date +%s)
	echo "+++ $me: $step"
}
end() {
	local seconds=$(($(date +%s) - step_start))
	times+=("$(printf '%-58s %4d s' "$step" "$seconds")")
	echo "    ok ($seconds s)"
}
# a command of the current step, its output into the step's log
logged() { "$@" >>"$log" 2>&1; }
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
fail() {
	echo "$me: $*" >&2
	exit 1
}
# a free TCP port on localhost (the root shares this machine's network)
free_port() {
	perl -MIO::Socket::INET -e 'print IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1", LocalPort => 0)->sockport'
}
sql_version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$top/pg_topics.control")
[ -n "$sql_version" ] || fail "pg_topics.control has no default_version"

# The tree without build products: what git tracks (and new files it does not
# ignore), or, outside a git checkout, everything but what builds and tests leave
copy_tree() {
	local dest=$1
	mkdir -p "$dest"
	if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$top" ls-files -z -co --exclude-standard | tar -C "$top" --null -T - -cf - | tar -C "$dest" -xf -
	else
		tar -C "$top" --exclude=./.git --exclude=./demo --exclude=./bench/.work \
			--exclude='./tmp_*' --exclude=./results --exclude=./output_iso --exclude=./log \
			--exclude='*.o' --exclude='*.so' --exclude='*.bc' -cf - . | tar -C "$dest" -xf -
	fi
}

begin "release metadata (test/meta_check)"
logged "$top/test/meta_check" "$top"
end

begin "build the .deb"
missing=()
for p in dpkg-dev debootstrap; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	logged apt-get update
	logged env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
src=$work/build/pg-topics
copy_tree "$src"
if ! (cd "$src" && dpkg-checkbuilddeps) >>"$log" 2>&1; then
	logged apt-get update
	logged env DEBIAN_FRONTEND=noninteractive apt-get build-dep -y --no-install-recommends "$src"
fi
# for PostgreSQL 15 only, whatever else this machine's packages support
(cd "$src" && PG_SUPPORTED_VERSIONS=$pg_major dpkg-buildpackage -us -uc -b -j"$(nproc)") >>"$log" 2>&1
debs=("$work"/build/"${package}"_*.deb)
[ -f "${debs[0]}" ] || fail "dpkg-buildpackage made no ${package}_*.deb"
deb=${debs[0]}
dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' >"$work/contents"
for f in "/usr/lib/postgresql/$pg_major/lib/pg_topics.so" "/usr/share/postgresql/$pg_major/extension/pg_topics.control" \
	$(cd "$top" && ls pg_topics--*.sql | sed "s|^|/usr/share/postgresql/$pg_major/extension/|"); do
	grep -qxF "$f" "$work/contents" || fail "$(basename "$deb") lacks $f"
done
echo "    $(basename "$deb"): $(dpkg-deb -f "$deb" Depends)"
end

begin "debootstrap a fresh Debian 12 root"
debian_root_make "$root" "$suite" "$mirror" "$log"
# a Debian 12 system as users have it: with its updates and security updates
# (the package wants the point release of postgresql-15 it was built against)
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb http://deb.debian.org/debian-security $suite-security main
EOF
end

begin "apt-get install ./$(basename "$deb")"
cp "$deb" "$root/tmp/"
logged in_root apt-get update
logged in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "./tmp/$(basename "$deb")"
in_root dpkg-query -W -f='${Status}\n' "$package" | grep -q "ok installed" || fail "$package is not installed in the root"
for p in gcc make "postgresql-server-dev-$pg_major"; do
	if in_root dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		fail "$p is installed in the root: the demo must work without building anything"
	fi
done
echo "    $(in_root dpkg-query -W -f='${Package} ${Version}, ' "$package" "postgresql-$pg_major")in $(du -sh --one-file-system "$root" | cut -f1)"
end

begin "the demo on the installed package"
copy_tree "$root/src/pg_topics"
port=$(free_port)
kafka_port=$(free_port)
[ "$kafka_port" != "$port" ] || kafka_port=$(free_port)
logged in_root PGTOPICS_DEMO_SKIP_BUILD=1 PGTOPICS_DEMO_PORT="$port" PGTOPICS_DEMO_KAFKA_PORT="$kafka_port" \
	/src/pg_topics/scripts/demo.sh
psql_root() {
	in_root runuser -u pgtopics -- "/usr/lib/postgresql/$pg_major/bin/psql" -X -Atq -v ON_ERROR_STOP=1 \
		-h localhost -p "$port" -U postgres -d postgres -c "$1"
}
# what the demo leaves: 4 records in 4 partitions, a topic that checks out,
# the package's library preloaded and the release's SQL installed
got=$(psql_root "SELECT count(*) FROM orders")
[ "$got" = 4 ] || fail "the demo's topic orders holds $got records, not 4"
got=$(psql_root "SELECT count(*) FROM topics.verify('orders')")
[ "$got" = 0 ] || fail "topics.verify('orders') finds $got problems"
got=$(psql_root "SELECT extversion FROM pg_extension WHERE extname = 'pg_topics'")
[ "$got" = "$sql_version" ] || fail "CREATE EXTENSION made pg_topics $got, not the release's $sql_version"
got=$(psql_root "SELECT setting FROM pg_settings WHERE name = 'shared_preload_libraries'")
[ "$got" = pg_topics ] || fail "shared_preload_libraries is \"$got\""
in_root bash -c "exec 3<>/dev/tcp/127.0.0.1/$kafka_port" 2>>"$log" ||
	fail "nothing listens on the demo's Kafka port $kafka_port"
logged in_root /src/pg_topics/scripts/demo.sh stop
[ -z "$(debian_root_pids "$root")" ] || fail "processes are left in the root after demo.sh stop: $(debian_root_pids "$root")"
end

begin "docs/install.md's setup of a Debian cluster"
# the cluster the server package made, as on a user's machine, running (on
# a free port); then the guide's commands as they are written, with sudo
# dropped (we are root) and sudo -u postgres as runuser
logged in_root pg_conftool "$pg_major" main set port "$(free_port)"
logged in_root pg_ctlcluster "$pg_major" main start
commands=$(sed -n '/^## Enable it in a cluster/,/^## /p' "$top/docs/install.md" |
	sed -n '/^```sh$/,/^```$/p' | sed '/^```/d; s/^sudo -u postgres /runuser -u postgres -- /; s/^sudo //; s/| sudo /| /')
[ -n "$commands" ] || fail "docs/install.md has no commands under \"Enable it in a cluster\""
echo "$commands" >>"$log"
logged in_root bash -euo pipefail -c "$commands"
got=$(in_root runuser -u postgres -- psql -X -Atq -v ON_ERROR_STOP=1 -d postgres \
	-c "SELECT topics.create_topic('t', partitions => 2)" \
	-c "INSERT INTO t (key, value) VALUES ('k', '{\"n\": 1}'), ('k', '{\"n\": 2}'), ('k', '{\"n\": 3}')" \
	-c "SELECT count(*) FROM t") 2>>"$log" || fail "topics do not work in the cluster docs/install.md set up"
[ "$(echo "$got" | tail -n 1)" = 3 ] || fail "the topic made in the cluster holds $(echo "$got" | tail -n 1) records, not 3"
logged in_root pg_ctlcluster "$pg_major" main stop
[ -z "$(debian_root_pids "$root")" ] || fail "processes are left in the root after pg_ctlcluster stop: $(debian_root_pids "$root")"
end

begin "the autopkgtest (debian/tests/installcheck)"
depends=$(sed -n 's/^Depends: *//p' "$top/debian/tests/control" | tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep -vx '@' | grep .)
# shellcheck disable=SC2086
logged in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $depends
logged in_root sh -c "cd /src/pg_topics && debian/tests/installcheck"
grep -q "All [0-9]* tests passed" "$log" || fail "the autopkgtest ran no tests"
end

echo "+++ $me: the package installs and works in a fresh root; times:"
printf '    %s\n' "${times[@]}"
