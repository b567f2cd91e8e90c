# Shared by scripts/demo.sh and scripts/test.sh: packages, build, users.

# The PostgreSQL major to build for and run: PG_MAJOR, else the one this
# Debian release ships (12: 15, 13: 17, testing: 18), else 15.  PG_BINDIR
# may name another installation of that major (its pg_config builds and
# installs the extension there).
default_pg_major() {
	local codename=
	[ -r /etc/os-release ] && codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	case "$codename" in
		bookworm) echo 15 ;;
		trixie) echo 17 ;;
		forky|sid) echo 18 ;;
		*) echo 15 ;;
	esac
}
PG_MAJOR=${PG_MAJOR:-$(default_pg_major)}
PG_BINDIR=${PG_BINDIR:-/usr/lib/postgresql/$PG_MAJOR/bin}
PACKAGES="build-essential postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR \
libipc-run-perl postgresql-$PG_MAJOR-pgq3 postgresql-$PG_MAJOR-auto-failover procps python3-psycopg2 gnuplot-nox sudo \
zlib1g-dev liblz4-dev libzstd-dev libsnappy-dev libssl-dev kcat python3-kafka python3-confluent-kafka"
# the wire layer's fuzzer (scripts/test.sh runs it on Debian 12 only)
FUZZ_PACKAGES="clang libclang-rt-14-dev"
# Debian 12's Go clients and Burrow, with the ZooKeeper Burrow needs (TAP 056
# and 057, which skip without them; scripts/test.sh installs them on Debian 12)
KAFKA_GO_PACKAGES="golang-go golang-github-shopify-sarama-dev golang-github-segmentio-kafka-go-dev \
burrow libzookeeper-java default-jre-headless"
# what librdkafka's configure and build need (RapidJSON: the tests that check
# the statistics' JSON), and apt-get source's unpacking (test-librdkafka.sh)
LIBRDKAFKA_BUILD_PACKAGES="dpkg-dev zlib1g-dev liblz4-dev libzstd-dev libssl-dev rapidjson-dev python3 perl"

sudo_if_needed() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# The user that runs PostgreSQL: yourself, or a dedicated one under root
test_user() {
	if [ "$(id -u)" -eq 0 ]; then echo pgtopics; else id -un; fi
}

run_as_user() {
	if [ "$(id -u)" -eq 0 ]; then
		id pgtopics >/dev/null 2>&1 || useradd --create-home --shell /bin/bash pgtopics
		runuser -u pgtopics -- "$@"
	else
		"$@"
	fi
}

# install_packages [MORE PACKAGES...]
install_packages() {
	local missing=()
	for p in $PACKAGES "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "+++ installing ${missing[*]}"
		sudo_if_needed apt-get update -qq
		sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	fi
}

# Node.js and npm, which TAP 058 needs to install kafkajs from npm's
# registry: the machine's own if it has both (a Node.js that bundles npm
# conflicts with Debian's npm package), else Debian's
install_node() {
	command -v node >/dev/null && command -v npm >/dev/null && return 0
	install_packages nodejs npm
}

# build_and_install DIR [MAKE VARIABLES...], e.g. CASSERT=1 for the test build
build_and_install() {
	local dir=$1
	shift
	echo "+++ building pg_topics"
	make -C "$dir" -s PG_CONFIG="$PG_BINDIR/pg_config" "$@"
	sudo_if_needed make -C "$dir" -s PG_CONFIG="$PG_BINDIR/pg_config" "$@" install >/dev/null
}

# Where the demo instance of the checkout in $1 lives: PGTOPICS_DEMO_DIR, or
# ./demo in the checkout, or under root (whose checkout the server's user
# may not be able to enter) a directory of its own in that user's home
demo_dir() {
	local top=$1 home path
	if [ -n "${PGTOPICS_DEMO_DIR:-}" ]; then
		echo "$PGTOPICS_DEMO_DIR"
	elif [ "$(id -u)" -eq 0 ]; then
		run_as_user true
		home=$(getent passwd pgtopics | cut -d: -f6)
		path=${top#/}
		echo "$home/pg_topics-demo/${path//\//-}"
	else
		echo "$top/demo"
	fi
}
