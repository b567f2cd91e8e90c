# Kafka clients that list every node as a bootstrap server follow the
# primary from node to node by themselves, however many times it moves.
#
# Two servers, each with a Kafka listener and the same topic, and
# pg_topics.kafka_brokers naming both; only one runs at a time, as only a
# primary listens.  The primary moves four times (one server stops, the
# other starts), while these clients run: a confluent-kafka (librdkafka)
# acks=all producer and consumer group member, a kafka-python producer and
# consumer group member.  After each move every client must go on at the
# new node within seconds (measured and printed), and every record a
# producer was told is stored is at the partition and offset it was told.
# (Failover itself, with replication and pg_auto_failover, is
# 045_kafka_failover.pl; this one is about how clients find the brokers.)
#
# Metadata lists both nodes, each with a node id of its own, derived from
# its address: clients keep both addresses, and ask the other when one is
# gone.  (With one id for every node, librdkafka renamed that broker to the
# new address and forgot the old one: after the second move it never found
# the primary again; kafka-python never followed at all.)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use JSON::PP;
use Time::HiRes qw(time);
use PgTopicsTest;
use PgTopicsKafkaClients;

my %kport = map { $_ => PostgreSQL::Test::Cluster::get_free_port() } qw(a b);
my $bootstrap = "127.0.0.1:$kport{a},127.0.0.1:$kport{b}";
my %node;
foreach my $name (qw(a b))
{
	my $n = PostgreSQL::Test::Cluster->new("node_$name");
	$n->init;
	$n->append_conf('postgresql.conf', kafka_node_conf($kport{$name}) . qq{
pg_topics.kafka_brokers = '$bootstrap'
pg_topics.kafka_group_initial_rebalance_delay = 0
});
	$n->start;
	$n->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('events', 2, 'bytea', 'bytea');});
	$node{$name} = $n;
}

# what a node's Metadata says: brokers (id host:port) and the leaders
my %meta = map {
	my ($ok, $out, $err) = kcat_run("127.0.0.1:$kport{$_}", '', '-L', '-J');
	$_ => decode_json($out)
} qw(a b);
my %id = map { $_ => $meta{$_}{controllerid} } qw(a b);
isnt($id{a}, $id{b}, "each node is a broker of its own ($id{a}, $id{b})");
foreach my $name (qw(a b))
{
	is_deeply([ sort map { "$_->{id} $_->{name}" } @{ $meta{$name}{brokers} } ],
		[ sort("$id{a} 127.0.0.1:$kport{a}", "$id{b} 127.0.0.1:$kport{b}") ],
		"node $name lists both nodes as brokers, each at its address");
}
my ($ret, $out, $err) = $node{a}->psql('postgres',
	q{ALTER SYSTEM SET pg_topics.kafka_brokers = '127.0.0.1:9092,node2.example.com'});
like($err, qr/invalid value for parameter "pg_topics.kafka_brokers".*\n.*"node2.example.com" is not host:port/,
	'pg_topics.kafka_brokers takes only host:port entries');
$node{b}->stop;

my $dir = PostgreSQL::Test::Utils::tempdir;
my @clients = (
	[ 'ck_producer', 'ckp', 'events' ],
	[ 'ck_consumer', 'ckc', 'events', 'ck_group' ],
	[ 'kp_producer', 'kpp', 'events' ],
	[ 'kp_consumer', 'kpc', 'events', 'kp_group' ]);
my %working = (ckp => 'ack', ckc => 'rec', kpp => 'ack', kpc => 'rec');
my @harnesses = start_kafka_clients($bootstrap, $dir, @clients);
my $started = wait_for_events_after($dir, 0, 120, %working);
is(scalar(keys %$started), 4, 'every client works on the first node')
  or diag explain $started;

my $up = 'a';
for my $move (1 .. 4)
{
	my $to = $up eq 'a' ? 'b' : 'a';
	my $t0 = time;
	$node{$up}->stop('immediate');
	$node{$to}->start;
	wait_for_kafka_listener($kport{$to});
	my $t_up = time;
	my $after = wait_for_events_after($dir, $t_up, 90, %working);
	is(scalar(keys %$after), 4, "move $move (to node $to): every client goes on at the new node")
	  or diag explain $after;
	diag(sprintf('move %d: node %s listening %.1f s after node %s stopped; then acknowledged or '
			  . 'consumed again after: %s', $move, $to, $t_up - $t0, $up,
			join(', ', map { sprintf('%s %.1f s', $_, $after->{$_}) } sort keys %$after)));
	$up = $to;
}

stop_kafka_clients($dir, @harnesses);
my $down = $up eq 'a' ? 'b' : 'a';
$node{$down}->start;

# every acknowledged record is where its producer was told
my %stored;
foreach my $name (qw(a b))
{
	foreach my $row (split /\n/, $node{$name}->safe_psql('postgres',
			q{SELECT encode(key, 'escape') || ' ' || partition || ' ' || "offset" FROM events}))
	{
		my ($key, $where) = split / /, $row, 2;
		$stored{$key}{$where} = 1;
	}
}
foreach my $p (qw(ckp kpp))
{
	my @events = client_events($dir, $p);
	my @acks = grep { $_->{ev} eq 'ack' } @events;
	my @misplaced = grep { !$stored{ $_->{key} }{"$_->{p} $_->{o}"} } @acks;
	is(scalar(@misplaced), 0,
		sprintf('%s: each of its %d acknowledged records is stored where it was told', $p, scalar @acks))
	  or diag explain [ @misplaced[ 0 .. ($#misplaced < 4 ? $#misplaced : 4) ] ];
	my @fatal = grep { $_->{ev} eq 'error' && $_->{fatal} } @events;
	is(scalar(@fatal), 0, "$p: no fatal error") or diag explain \@fatal;
	my ($flushed) = grep { $_->{ev} eq 'flushed' } @events;
	is($flushed && $flushed->{left}, 0, "$p: every record it sent was delivered in the end");
}

$node{$_}->stop foreach qw(a b);
done_testing();
