# The Go clients Debian packages, against the Kafka listener: sarama
# (golang-github-shopify-sarama-dev) with its default Version (0.8.2: Produce
# and Fetch v0 with MessageSets, OffsetCommit v1) and with 1.0.0 and 2.2.0
# (the newest it knows), and kafka-go (golang-github-segmentio-kafka-go-dev).
# The programs of test/kafka/go/ are built here, offline, from Debian's Go
# packages; each checks what it sees and exits non-zero when a check fails,
# and what they did is compared with what SQL shows: the records and their
# offsets, and the positions their groups committed, which a restarted
# consumer goes on from without reading a record again.
use strict;
use warnings;
use File::Basename qw(dirname);
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use PgTopicsTest;

my $gopath = '/usr/share/gocode';
my $go = '/usr/bin/go';
plan skip_all => 'Go (golang-go) is not installed' unless -x $go;
plan skip_all => 'sarama (golang-github-shopify-sarama-dev) is not installed'
  unless -d "$gopath/src/github.com/Shopify/sarama";
plan skip_all => 'kafka-go (golang-github-segmentio-kafka-go-dev) is not installed'
  unless -d "$gopath/src/github.com/segmentio/kafka-go";

# Debian's packages in GOPATH mode, nothing fetched; the build cache is ours
my $bin = PostgreSQL::Test::Utils::tempdir();
my $src = dirname(__FILE__) . '/../kafka/go';
my %goenv = (GOPATH => $gopath, GO111MODULE => 'off', GOFLAGS => '', GOPROXY => 'off',
	GOCACHE => "$bin/cache", CGO_ENABLED => '0', HOME => $bin);
for my $program (qw(sarama kafkago))
{
	my $started = time;
	my ($out, $err) = ('', '');
	local @ENV{ keys %goenv } = values %goenv;
	# "." in the program's directory: GOPATH mode takes no absolute path
	IPC::Run::run([ $go, 'build', '-o', "$bin/$program", '.' ],
		init => sub { chdir "$src/$program" or die "$src/$program: $!" },
		'>', \$out, '2>', \$err, IPC::Run::timeout(600))
	  or BAIL_OUT("building $program: $err");
	note sprintf('built %s in %.1f s', $program, time - $started);
}

my $node = PostgreSQL::Test::Cluster->new('go_clients');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $listener = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_group_initial_rebalance_delay = 0
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('sarama_t', 3, 'text', 'text');
SELECT topics.create_topic('kafkago_t', 3, 'text', 'text');
});
wait_for_kafka_listener($kport);

# Run a Go program of test/kafka/go/: its JSON answer, or undef when it
# failed (its errors are shown)
sub go_run
{
	my ($program, @args) = @_;
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([ "$bin/$program", @args ], '>', \$out, '2>', \$err,
		IPC::Run::timeout(180));
	if (!$ok)
	{
		diag("$program @args failed: $err");
		return undef;
	}
	return decode_json($out);
}

# the records of a program's answer (none when it failed)
sub records_of
{
	my ($answer) = @_;
	return $answer ? $answer->{records} // [] : [];
}

# "partition/offset key value" of records, sorted, as the programs give them;
# a failed program's answer is not records
sub listed
{
	my (@answers) = @_;
	return 'a program failed' if grep { !defined $_ } @answers;
	return join("\n", sort map { "$_->{partition}/$_->{offset} $_->{key} $_->{value}" }
		  map { @{ records_of($_) } } @answers);
}

# the same of a topic's rows, those whose value starts with $prefix
sub rows
{
	my ($topic, $prefix) = @_;
	return join("\n", sort split /\n/, $node->safe_psql('postgres', qq{
SELECT format('%s/%s %s %s', partition, "offset", key, value) FROM $topic
WHERE value LIKE '$prefix%'}));
}

# a group's committed positions in SQL: partition => offset
sub committed
{
	my ($group, $topic) = @_;
	return { map { split /\|/ } split /\n/, $node->safe_psql('postgres', qq{
SELECT partition, committed_offset FROM topics.consumer_lag
WHERE group_name = '$group' AND topic = '$topic'::regclass AND committed_offset IS NOT NULL}) };
}

# the end of every partition that has records: partition => offset
sub ends
{
	my ($topic) = @_;
	return { map { split /\|/ } split /\n/, $node->safe_psql('postgres', qq{
SELECT partition, high_watermark FROM topics.offsets('$topic') WHERE high_watermark > 0}) };
}

# sarama: each Version produces, consumes and reads in a group
for my $version ('default', '1.0.0', '2.2.0')
{
	my $tag = "sarama-$version";
	my $started = time;
	my $p = go_run('sarama', $listener, $version, 'produce', 'sarama_t', 12, $tag);
	ok($p, "sarama $version: a SyncProducer sends 12 records");
	is(listed($p), rows('sarama_t', "$tag-"),
		"sarama $version: each at the partition and offset it was told, as SQL has it");

	my $c = go_run('sarama', $listener, $version, 'consume', 'sarama_t');
	is(listed($c), rows('sarama_t', ''),
		"sarama $version: partition consumers read every record from the oldest offsets");

	# a member reads 5 records and leaves; the next one goes on from there
	my $group = "sarama-group-$version";
	my $first = go_run('sarama', $listener, $version, 'group', $group, 'sarama_t', 5);
	is(scalar @{ records_of($first) }, 5, "sarama $version: a group member reads 5 records");
	my $fc = $first ? $first->{committed} : {};
	my %first_committed = map { $_ => $fc->{$_} } grep { $fc->{$_} >= 0 } keys %$fc;
	is_deeply($first ? committed($group, 'sarama_t') : 'no answer', \%first_committed,
		"sarama $version: its commits are the group's positions in topics.consumer_lag");
	my $second = go_run('sarama', $listener, $version, 'group', $group, 'sarama_t', 1000);
	ok(@{ records_of($second) }, "sarama $version: a member started again reads on");
	is(listed($first, $second), rows('sarama_t', ''),
		"sarama $version: the two members read every record once, none again after the restart");
	is_deeply($second ? committed($group, 'sarama_t') : 'no answer', ends('sarama_t'),
		"sarama $version: the group's positions are at the ends of the partitions");
	note sprintf('sarama %s: %.1f s', $version, time - $started);
}

# sarama's admin client (it needs Version 0.10 or later)
for my $version ('1.0.0', '2.2.0')
{
	my $adm = go_run('sarama', $listener, $version, 'admin', 'sarama_t', "sarama-group-$version");
	ok($adm, "sarama $version: ClusterAdmin describes the cluster, the topic and the group");
	is($adm->{partitions}, 3, "sarama $version: DescribeTopics finds 3 partitions");
	is($adm->{group_protocol_type}, 'consumer', "sarama $version: ListConsumerGroups lists the group");
	is_deeply($adm->{committed}, committed("sarama-group-$version", 'sarama_t'),
		"sarama $version: ListConsumerGroupOffsets gives the positions SQL shows");
	# sarama's ListTopics and DescribeConfig ask DescribeConfigs
	ok($adm->{describe_configs_offered}, "sarama $version: the listener offers DescribeConfigs");
	is($adm->{listed_partitions}, 3, "sarama $version: ListTopics lists the topic");
	is($adm->{configs}{'retention.ms'},
		$node->safe_psql('postgres', q{SELECT value FROM topics.topic_configs
WHERE topic = 'sarama_t'::regclass AND name = 'retention.ms'}),
		"sarama $version: DescribeConfig gives the topic's retention.ms");
}

# kafka-go: a Writer, a Conn's ReadPartitions, and a Reader in a group that
# is closed and started again; every connection through a counting proxy
{
	my $started = time;
	my $parts = go_run('kafkago', $listener, 'partitions', 'kafkago_t');
	is_deeply($parts->{partitions}, [ 0, 1, 2 ], 'kafka-go: Conn.ReadPartitions finds 3 partitions');
	is($parts->{connections}, 1, 'on one connection');

	my $w = go_run('kafkago', $listener, 'write', 'kafkago_t', 30, 'kafka-go');
	is($w->{written}, 30, 'kafka-go: a Writer writes 30 records');
	is($node->safe_psql('postgres', q{SELECT count(*) FROM kafkago_t WHERE value LIKE 'kafka-go-%'}),
		30, 'SQL has them');
	ok($w->{requests}{'0 v2'}, 'with Produce v2 (MessageSets of magic 1)');

	my $r1 = go_run('kafkago', $listener, 'read', 'kafkago_t', 'kafka-go-group', 10);
	is(scalar @{ records_of($r1) }, 10, 'kafka-go: a Reader of a group reads 10 records, committing each');
	ok($r1->{requests}{'1 v2'}, 'with Fetch v2');
	my %r1_committed;
	$r1_committed{ $_->{partition} } = $_->{offset} + 1 for @{ records_of($r1) };
	is_deeply($r1 ? committed('kafka-go-group', 'kafkago_t') : 'no answer', \%r1_committed,
		'its commits are the group\'s positions in topics.consumer_lag');

	my $r2 = go_run('kafkago', $listener, 'read', 'kafkago_t', 'kafka-go-group', 20);
	is(listed($r1, $r2), rows('kafkago_t', ''),
		'a Reader started again reads the other 20, none again');
	ok($r2 && !$r2->{more}, 'and nothing more');
	is($r2->{idle_connections}, 0,
		'waiting 2 s for more in its fetches, it opens no connection (no reconnecting loop)');
	ok($r2 && $r2->{connections} < 20,
		'it opens few connections in all (' . ($r2 ? $r2->{connections} : 'no answer') . ')');
	is_deeply($r2 ? committed('kafka-go-group', 'kafkago_t') : 'no answer', ends('kafkago_t'),
		'the group\'s positions are at the ends of the partitions');
	note sprintf('kafka-go: %.1f s', time - $started);
}

unlike(PostgreSQL::Test::Utils::slurp_file($node->logfile), qr/closing Kafka connection/,
	'the listener closed no connection for a protocol reason');

$node->stop;
done_testing();
