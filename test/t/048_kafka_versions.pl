# ApiVersions, Metadata and FindCoordinator at every version Apache Kafka
# 3.9 serves (flexible ones included), asked byte by byte and read to their
# last byte: topic ids the same across versions, restarts and on a physical
# standby, a topic asked for by id, authorized operations from GRANTs,
# FindCoordinator's batches; kafka-python and librdkafka negotiate the
# versions they know and work with them; and none of it closes a
# connection for a protocol reason.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('kafka_versions');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_group_initial_rebalance_delay = 0
});
$node->start;
wait_for_kafka_listener($kport);
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('orders', 2, 'bytea', 'bytea');
SELECT topics.create_topic('events', 1, 'bytea', 'bytea');
CREATE ROLE reader LOGIN;
GRANT SELECT ON orders TO reader;
});

sub versions
{
	return kafka_script('versions.py', $bootstrap, @_);
}

# ---- ApiVersions: the ranges offered, in v0 and in the flexible v3 and v4
for my $v (0, 3, 4)
{
	my $a = versions('api_versions', $v);
	is($a->{error}, 0, "ApiVersions v$v answers");
	is_deeply(
		[ map { join '-', @{ $a->{apis}{$_} } } qw(0 3 10 18) ],
		[ '0-11', '0-12', '0-5', '0-4' ],
		"ApiVersions v$v: Produce 0-11, Metadata 0-12, FindCoordinator 0-5, ApiVersions 0-4");
}

# ---- Metadata at every version
my $node_id = versions('metadata', 1, 'orders')->{controller};
my %ids;
for my $v (0 .. 12)
{
	my $m = versions('metadata', $v, 'orders', 'nope');
	my ($orders, $nope) = @{ $m->{topics} };
	is_deeply(
		[
			$orders->{name}, $orders->{error},
			scalar @{ $orders->{partitions} },
			$orders->{partitions}[1]{leader},
			"@{ $orders->{partitions}[1]{replicas} }",
			$nope->{error}
		],
		[ 'orders', 0, 2, $node_id, "$node_id", 3 ],
		"Metadata v$v: a topic's partitions and leader, an unknown topic");
	like($m->{cluster_id}, qr/^pg_topics-\d+$/, "Metadata v$v: the cluster id")
	  if $v >= 2;
	$ids{ $orders->{id} } = 1 if $v >= 10;
	is($orders->{partitions}[0]{epoch}, -1, "Metadata v$v: no leader epoch")
	  if $v >= 7;
	if ($v >= 8)
	{
		# the owner (the trust role, a superuser): READ, WRITE, CREATE,
		# DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS
		is($orders->{operations}, (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7)
			| (1 << 8) | (1 << 10) | (1 << 11),
			"Metadata v$v: the owner's authorized operations on a topic");
	}
	if ($v >= 8 && $v <= 10)
	{
		# DESCRIBE, IDEMPOTENT_WRITE, CREATE
		is($m->{cluster_operations}, (1 << 8) | (1 << 12) | (1 << 5),
			"Metadata v$v: the cluster's authorized operations");
	}
}
my @ids = keys %ids;
is(scalar @ids, 1, 'Metadata v10-12 give the topic one id');
my $orders_id = $ids[0];
like($orders_id, qr/^[0-9a-f]{12}8[0-9a-f]{3}[89ab][0-9a-f]{15}$/,
	'the topic id is a UUID of version 8');

# every topic: [] in v0, null from v1
for my $v (0, 1, 9, 12)
{
	my $m = versions('metadata', $v);
	# __consumer_offsets too, to the superuser the listener trusts
	is(join(',', sort map { $_->{name} } @{ $m->{topics} }), '__consumer_offsets,events,orders',
		"Metadata v$v lists every topic");
}

# by id (v12): the topic, and an id no topic has
my $m = versions('metadata', 12, "id:$orders_id",
	'id:00000000000000000000000000000007');
is_deeply(
	[ map { [ $_->{name}, $_->{error} ] } @{ $m->{topics} } ],
	[ [ 'orders', 0 ], [ undef, 100 ] ],
	'Metadata v12 by id: the topic, and UNKNOWN_TOPIC_ID with a null name');

# authorized operations from GRANTs: a role that may only SELECT
$node->append_conf('postgresql.conf', "pg_topics.kafka_trust_role = 'reader'\n");
$node->reload;
$node->poll_query_until('postgres',
	q{SELECT setting = 'reader' FROM pg_settings WHERE name = 'pg_topics.kafka_trust_role'})
  or die;
my $ops;
for (1 .. 50)
{
	$m = versions('metadata', 10, 'orders');
	$ops = $m->{topics}[0]{operations};
	last if $ops == ((1 << 3) | (1 << 8) | (1 << 10));
	select(undef, undef, undef, 0.2);
}
is($ops, (1 << 3) | (1 << 8) | (1 << 10), 'a role that may SELECT: READ, DESCRIBE and DESCRIBE_CONFIGS');
is($m->{cluster_operations}, (1 << 8) | (1 << 12),
	'a role that may not create topics: no CREATE on the cluster');
is(scalar @{ versions('metadata', 12)->{topics} }, 1,
	'a role sees only the topics it may SELECT');
$node->append_conf('postgresql.conf', "pg_topics.kafka_trust_role = ''\n");
$node->reload;

# ---- FindCoordinator: one key (v0-3), batches (v4, v5)
for my $v (0 .. 5)
{
	my @keys = $v >= 4 ? ('g1', 'g2') : ('g1');
	my $c = versions('find_coordinator', $v, 0, @keys);
	is_deeply(
		[ map { [ $_->{key}, $_->{error}, $_->{node}, $_->{port} ] } @$c ],
		[ map { [ $_, 0, $node_id, $kport ] } @keys ],
		"FindCoordinator v$v: every group's coordinator");
}
my $c = versions('find_coordinator', 4, 1, 'txn');
is_deeply([ $c->[0]{error}, $c->[0]{node}, $c->[0]{port} ], [ 0, $node_id, $kport ],
	"FindCoordinator v4: a transactional id's coordinator");

# ---- real clients: the versions they negotiate now (Debian 12's
# librdkafka 2.0.2 knows Metadata up to v4 and FindCoordinator up to v2,
# kafka-python 2.0.2 picks by the broker version it infers), and that
# they work
my $cl = versions('clients', 'orders');
note 'kafka-python sends Metadata v' . join(',', @{ $cl->{kafka_python}{metadata} })
  . ', FindCoordinator v' . join(',', @{ $cl->{kafka_python}{find_coordinator} });
note 'librdkafka sends Metadata v' . join(',', @{ $cl->{librdkafka}{metadata} })
  . ', FindCoordinator v' . join(',', @{ $cl->{librdkafka}{find_coordinator} })
  . ', ApiVersions v' . join(',', @{ $cl->{librdkafka}{api_versions} });
ok($cl->{kafka_python}{read} >= 1 && $cl->{librdkafka}{read} >= 1,
	'kafka-python and librdkafka produce and read in a group');

# ---- topic ids across a restart and on a physical standby (whose
# listener starts when it is promoted)
$node->restart;
wait_for_kafka_listener($kport);
is(versions('metadata', 12, 'orders')->{topics}[0]{id},
	$orders_id, 'a topic keeps its id across a restart');
$node->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('kafka_versions_standby');
$standby->init_from_backup($node, 'base', has_streaming => 1);
my $sport = PostgreSQL::Test::Cluster::get_free_port();
$standby->append_conf('postgresql.conf', "pg_topics.kafka_port = $sport\n");
$standby->start;
$node->wait_for_catchup($standby);
my $cluster_id = versions('metadata', 12)->{cluster_id};

# nothing of it closed a connection for a protocol reason
ok( !$node->log_contains(
		qr/closing Kafka connection from .*(ApiVersions|Metadata|FindCoordinator)/),
	'no connection closed for a protocol reason');

$node->stop;
$standby->promote;
wait_for_kafka_listener($sport);
$m = kafka_script('versions.py', "127.0.0.1:$sport", 'metadata', 12, 'orders');
is($m->{topics}[0]{id}, $orders_id, 'a promoted physical standby gives the topic its id');
is($m->{cluster_id}, $cluster_id, 'and the cluster id');
$standby->stop;

done_testing();
