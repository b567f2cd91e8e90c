# Burrow (Debian's burrow 1.2.1), the consumer lag monitor, against the
# Kafka listener: it reads the groups' positions from __consumer_offsets and
# the partitions' ends with ListOffsets, and its HTTP API reports the lag
# topics.consumer_lag shows, for a group a Kafka client (kafka-python)
# committed and one SQL committed, before and after more records and
# commits.  Two of its clusters watch the one listener: one at Burrow's
# default kafka-version (0.8: ListOffsets v0, Fetch v0 of MessageSets), one
# at 2.1.0, the newest it knows.  Burrow needs ZooKeeper for itself; one
# runs here on loopback, from Debian's libzookeeper-java.
use strict;
use warnings;
use HTTP::Tiny;
use IO::Socket::INET;
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use PgTopicsTest;

my $burrow = '/usr/bin/Burrow';
my $java = '/usr/bin/java';
my $zookeeper_jar = '/usr/share/java/zookeeper.jar';
plan skip_all => 'Burrow (burrow) is not installed' unless -x $burrow;
plan skip_all => 'ZooKeeper (libzookeeper-java) is not installed' unless -r $zookeeper_jar;
plan skip_all => 'Java (default-jre-headless) is not installed' unless -x $java;

my $dir = PostgreSQL::Test::Utils::tempdir();

# Wait until something listens on 127.0.0.1:$port (dies after $seconds)
sub wait_for_port
{
	my ($port, $what, $seconds) = @_;
	for (1 .. $seconds * 10)
	{
		my $sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port, Proto => 'tcp');
		if ($sock)
		{
			close($sock);
			return;
		}
		usleep(100_000);
	}
	die "$what does not listen on port $port after $seconds s";
}

# ZooKeeper, standalone, on loopback, without its admin server (port 8080)
my $started = time;
my $zkport = PostgreSQL::Test::Cluster::get_free_port();
mkdir "$dir/zookeeper";
PostgreSQL::Test::Utils::append_to_file("$dir/zoo.cfg", qq{tickTime=2000
dataDir=$dir/zookeeper
clientPort=$zkport
clientPortAddress=127.0.0.1
admin.enableServer=false
});
my ($zk, $bw);
# stopped however the test ends
END
{
	$bw->kill_kill if $bw;
	$zk->kill_kill if $zk;
}
$zk = IPC::Run::start([ $java, '-Xmx64m', '-cp', $zookeeper_jar,
		'org.apache.zookeeper.server.ZooKeeperServerMain', "$dir/zoo.cfg" ],
	'>', "$dir/zookeeper.out", '2>&1');
wait_for_port($zkport, 'ZooKeeper', 60);
note sprintf('ZooKeeper started in %.1f s', time - $started);

my $node = PostgreSQL::Test::Cluster->new('burrow');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_group_initial_rebalance_delay = 0
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('watched', 3, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('watched', (SELECT array_agg('v' || g) FROM generate_series(1, 10) g), partition => 0);
SELECT count(*) FROM topics.produce_batch('watched', (SELECT array_agg('v' || g) FROM generate_series(1, 6) g), partition => 1);
SELECT count(*) FROM topics.produce_batch('watched', (SELECT array_agg('v' || g) FROM generate_series(1, 8) g), partition => 2);
-- a group SQL reads and commits
SELECT count(*) FROM topics.poll(NULL::watched, 'sql-group', max_records => 1);
SELECT topics.commit('watched', 'sql-group', 1, 4);
});
wait_for_kafka_listener($kport);

# a group a Kafka client commits: kafka-python, two partitions
kafka_script('clients.py', $bootstrap, 'kp_group', 'watched', 'kafka-group', 0, 7, 'burrow');
kafka_script('clients.py', $bootstrap, 'kp_group', 'watched', 'kafka-group', 2, 2, 'burrow');

# Burrow: two clusters on the one listener, at two kafka-versions, each with
# a consumer of __consumer_offsets; broker offsets refreshed every second
my $httpport = PostgreSQL::Test::Cluster::get_free_port();
my $clusters = '';
for my $c ([ 'default', '' ], [ 'v210', 'kafka-version="2.1.0"' ])
{
	my ($name, $version) = @$c;
	$clusters .= qq{
[client-profile.$name]
client-id="burrow-$name"
$version

[cluster.$name]
class-name="kafka"
servers=[ "$bootstrap" ]
client-profile="$name"
topic-refresh=5
offset-refresh=1

[consumer.$name]
class-name="kafka"
cluster="$name"
servers=[ "$bootstrap" ]
client-profile="$name"
};
}
mkdir "$dir/burrow";
PostgreSQL::Test::Utils::append_to_file("$dir/burrow/burrow.toml", qq{
[general]
pidfile="$dir/burrow.pid"

[logging]
filename="$dir/burrow.log"
level="info"

[zookeeper]
servers=[ "127.0.0.1:$zkport" ]
timeout=6
root-path="/burrow"
$clusters
[httpserver.default]
address="127.0.0.1:$httpport"

[storage.default]
class-name="inmemory"
intervals=10
min-distance=1
});
$started = time;
$bw = IPC::Run::start([ $burrow, '-config-dir', "$dir/burrow" ],
	'>', "$dir/burrow.out", '2>&1');
wait_for_port($httpport, 'Burrow', 60);

my $http = HTTP::Tiny->new(timeout => 10);

# Burrow's lag of $group on cluster $cluster: "topic/partition" => current
# lag of each partition it has a position of, and its total
sub burrow_lag
{
	my ($cluster, $group) = @_;
	my $res = $http->get("http://127.0.0.1:$httpport/v3/kafka/$cluster/consumer/$group/lag");
	# HTTP::Tiny's 599: no answer, Burrow is gone
	return 'Burrow does not answer' if $res->{status} == 599;
	return undef unless $res->{success};
	my $status = decode_json($res->{content})->{status};
	my %lag = map { ("$_->{topic}/$_->{partition}" => $_->{current_lag}) }
	  grep { defined $_->{end} } @{ $status->{partitions} };
	return { partitions => \%lag, total => $status->{totallag} };
}

# the same from topics.consumer_lag
sub sql_lag
{
	my ($group) = @_;
	my %lag = map { split /\|/ } split /\n/, $node->safe_psql('postgres', qq{
SELECT topic::text || '/' || partition, lag FROM topics.consumer_lag
WHERE group_name = '$group' AND committed_offset IS NOT NULL});
	my $total = 0;
	$total += $_ for values %lag;
	return { partitions => \%lag, total => $total };
}

# Burrow's answer, once it equals topics.consumer_lag's (or the last one
# after 60 s, or at once when Burrow is gone)
sub burrow_agrees
{
	my ($cluster, $group) = @_;
	my $want = sql_lag($group);
	my $got;
	for (1 .. 120)
	{
		$got = burrow_lag($cluster, $group);
		return $got if defined $got && (!ref $got || eq_deeply_json($got, $want));
		usleep(500_000);
	}
	return $got;
}

sub eq_deeply_json
{
	my ($x, $y) = @_;
	my $json = JSON::PP->new->canonical;
	return $json->encode($x) eq $json->encode($y);
}

for my $cluster ('default', 'v210')
{
	for my $group ('kafka-group', 'sql-group')
	{
		is_deeply(burrow_agrees($cluster, $group), sql_lag($group),
			"Burrow ($cluster kafka-version) reports $group\'s lag as topics.consumer_lag does");
	}
}
note sprintf('Burrow agreed in %.1f s', time - $started);
is_deeply(sql_lag('kafka-group')->{partitions}, { 'watched/0' => 3, 'watched/2' => 6 },
	'which is the lag the Kafka client committed');

# more records, and a later commit: Burrow follows
$started = time;
$node->safe_psql('postgres', q{
SELECT count(*) FROM topics.produce_batch('watched', (SELECT array_agg('w' || g) FROM generate_series(1, 5) g), partition => 0);
SELECT topics.commit('watched', 'sql-group', 1, 6);
});
kafka_script('clients.py', $bootstrap, 'kp_group', 'watched', 'kafka-group', 0, 12, 'burrow');
for my $cluster ('default', 'v210')
{
	for my $group ('kafka-group', 'sql-group')
	{
		is_deeply(burrow_agrees($cluster, $group), sql_lag($group),
			"after more records and commits, Burrow ($cluster) still reports $group\'s lag as topics.consumer_lag does");
	}
}
note sprintf('Burrow followed in %.1f s', time - $started);
is_deeply(sql_lag('kafka-group')->{partitions}, { 'watched/0' => 3, 'watched/2' => 6 },
	'(12 of 15 records, and 2 of 8)');

$bw->signal('TERM');
$bw->finish;
$zk->kill_kill;
undef $bw;
undef $zk;
my $log = PostgreSQL::Test::Utils::slurp_file("$dir/burrow.log");
my @problems = grep { /"level":"(warn|error|dpanic|panic|fatal)"/ } split /\n/, $log;
is_deeply(\@problems, [], 'Burrow logged no warning or error');
unlike(PostgreSQL::Test::Utils::slurp_file($node->logfile), qr/closing Kafka connection/,
	'the listener closed no connection for a protocol reason');

$node->stop;
done_testing();
