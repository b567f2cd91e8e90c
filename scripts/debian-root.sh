# Minimal Debian roots for tests, made with debootstrap and removed without
# a trace.  Sourced (as root) by scripts/test-package.sh (a fresh Debian 12
# where the package is installed) and scripts/test-major.sh (Debian 13 and
# testing, for PostgreSQL 17 and 18).
#
#   debian_root_make ROOT SUITE MIRROR LOG
#	debootstraps SUITE into the empty directory ROOT (output to LOG) and
#	readies it for tests: /proc mounted, the host's resolv.conf, no service
#	started by a package's scripts, no recommended packages, and release
#	files taken past their Valid-Until date (a mirror of testing serves
#	some, which debootstrap took anyway).  Fails with the end of LOG.
#
#   debian_root_remove ROOT
#	stops every process running in ROOT (TERM, then KILL), unmounts
#	whatever is mounted under it, innermost first (debootstrap mounts /proc
#	and /sys while it installs, and may leave them when interrupted), and
#	removes it, never crossing into another file system.  Fails, removing
#	nothing, if something stays mounted.  Safe on a half-made root.

# Processes whose root directory is ROOT
debian_root_pids() {
	local root=$1 p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"
	done
	return 0
}

debian_root_make() {
	local root=$1 suite=$2 mirror=$3 log=$4
	command -v debootstrap >/dev/null || {
		apt-get update -qq &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
	}
	if ! timeout 900 debootstrap --variant=minbase "$suite" "$root" "$mirror" >>"$log" 2>&1; then
		tail -n 30 "$log" >&2
		echo "debootstrap of Debian $suite into $root failed" >&2
		return 1
	fi
	# the root's / must let the tests' unprivileged user in
	chmod 755 "$root"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	# A package's scripts start no service inside the root: a server package
	# would start its cluster on port 5432 of this machine's network.
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	# Only what the tests name is installed (recommended packages bring a
	# mail server and systemd units, whose scripts fail in a bare root).
	cat >"$root/etc/apt/apt.conf.d/90pg-topics-test" <<'EOF'
APT::Install-Recommends "false";
Acquire::Check-Valid-Until "false";
EOF
	mount -t proc proc "$root/proc"
}

debian_root_remove() {
	local root=$1 pids mnt
	[ -d "$root" ] || return 0
	pids=$(debian_root_pids "$root")
	if [ -n "$pids" ]; then
		# shellcheck disable=SC2086
		kill -TERM $pids 2>/dev/null || true
		for _ in $(seq 20); do
			[ -n "$(debian_root_pids "$root")" ] || break
			sleep 0.5
		done
		pids=$(debian_root_pids "$root")
		# shellcheck disable=SC2086
		[ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
		sleep 1
	fi
	for mnt in $(awk -v root="$root/" 'index($2, root) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount "$mnt" || umount -l "$mnt" || true
	done
	if grep -q " $root/" /proc/mounts; then
		echo "something is still mounted under $root; it stays" >&2
		return 1
	fi
	rm -rf --one-file-system "$root"
}
