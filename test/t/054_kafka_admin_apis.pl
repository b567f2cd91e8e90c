# ListOffsets at every version Kafka 3.9 serves (0-9): v0's list of
# offsets, the special timestamps of v7-v9, flexible versions from v6; as
# kafka-python's and confluent-kafka's consumers ask it.  OffsetForLeaderEpoch
# (0-4): the log's one epoch, 0, ends at the last stable offset.  Both need
# SELECT on the topic.  DeleteRecords (0-2) and CreatePartitions (0-3), raw
# at every version and through kafka-python's and confluent-kafka's admin
# clients: SQL's rules and privileges, Kafka's error codes, and a fenced
# node's answers.  DescribeCluster (0-1) and DescribeLogDirs (0-4): the
# brokers, cluster id and controller Metadata answers; each readable
# partition's size on disk.  DescribeAcls (0-3): GRANTs as Kafka ACLs.
# SaslAuthenticate (0-2, flexible from 2) after SaslHandshake, with PLAIN.
# Clients act as role app (kafka_trust_role).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
my $node = PostgreSQL::Test::Cluster->new('admin_apis');
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_trust_role = 'app'
});
$node->start;
wait_for_kafka_listener($kport);
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE ROLE app LOGIN;
GRANT CREATE ON SCHEMA public TO app;
SELECT topics.create_topic('secret', 1, 'bytea', 'bytea');
SET ROLE app;
SELECT topics.create_topic('lo', 1, 'bytea', 'bytea');
SELECT count(*) FROM topics.produce_batch('lo', ARRAY['\x01', '\x02', '\x03']::bytea[]);
});
# the second three records are newer than a time between them
my $at_ms = $node->safe_psql('postgres',
	q{SELECT pg_sleep(0.05); SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint + 1});
$node->safe_psql('postgres', q{
SELECT pg_sleep(0.05);
SELECT count(*) FROM topics.produce_batch('lo', ARRAY['\x04', '\x05', '\x06']::bytea[]);
SELECT topics.delete_records('lo', 0, 1);
});

sub admin
{
	return kafka_script('admin_apis.py', $bootstrap, @_);
}

my ($at_offset, $at_time) = split /\|/, $node->safe_psql('postgres', qq{
SELECT "offset", floor(extract(epoch FROM "timestamp") * 1000)::bigint FROM lo
 WHERE "timestamp" >= to_timestamp($at_ms / 1000.0) ORDER BY "offset" LIMIT 1});
my ($max_offset, $max_time) = split /\|/, $node->safe_psql('postgres', q{
SELECT "offset", floor(extract(epoch FROM "timestamp") * 1000)::bigint FROM lo
 WHERE "timestamp" = (SELECT max("timestamp") FROM lo) ORDER BY "offset" LIMIT 1});
is($at_offset, 3, 'the time asked for falls between the two batches');

# ---- every version: latest 6, earliest 1 (records below 1 deleted), by
# time the first of the second batch, and partition 9 does not exist
my $lo = admin('list_offsets', 'lo', $at_ms);
is_deeply($lo->{0}, [
		{ partition => 0, error => 0, offsets => [6] },
		{ partition => 0, error => 0, offsets => [1] },
		{ partition => 0, error => 0, offsets => [$at_offset] },
		{ partition => 0, error => 0, offsets => [] },
		{ partition => 0, error => 0, offsets => [6] },
		{ partition => 9, error => 3, offsets => [] } ],
	'v0: one offset each, none for max_num_offsets 0, the end for a time no record reached, UNKNOWN_TOPIC_OR_PARTITION for a partition that is not');
for my $v (1 .. 9)
{
	my @epoch = $v >= 4 ? (leader_epoch => -1) : ();
	my @want = (
		{ partition => 0, error => 0, timestamp => -1, offset => 6, @epoch },
		{ partition => 0, error => 0, timestamp => -1, offset => 1, @epoch },
		{ partition => 0, error => 0, timestamp => $at_time + 0, offset => $at_offset + 0, @epoch });
	push @want, { partition => 0, error => 0, timestamp => $max_time + 0, offset => $max_offset + 0, @epoch }
	  if $v >= 7;
	push @want, { partition => 0, error => 0, timestamp => -1, offset => 1, @epoch }
	  if $v >= 8;
	push @want, { partition => 0, error => 0, timestamp => -1, offset => -1, @epoch }
	  if $v >= 9;
	push @want, { partition => 9, error => 3, timestamp => -1, offset => -1, @epoch };
	is_deeply($lo->{$v}, \@want, "v$v: latest, earliest, by time"
		  . ($v >= 7 ? ', newest time (-3)' : '')
		  . ($v >= 8 ? ', earliest local (-4)' : '')
		  . ($v >= 9 ? ', latest tiered (-5: none)' : ''));
}
is_deeply(admin('list_offsets_unknown', 0), { partition => 0, error => 3, offsets => [] },
	'v0: a topic that is not there');
is_deeply(admin('list_offsets_unknown', 7),
	{ partition => 0, error => 3, timestamp => -1, offset => -1, leader_epoch => -1 },
	'v7: a topic that is not there');
is(admin('list_offsets_v10'), 'closed', 'v10 is not offered: the connection closes');

# ---- OffsetForLeaderEpoch: epoch 0 ends at the last stable offset (6),
# another is not the log's (-1 -1), a current epoch above 0 is
# UNKNOWN_LEADER_EPOCH (75), partition 9 UNKNOWN_TOPIC_OR_PARTITION
my $le = admin('offset_for_leader_epoch', 'lo');
for my $v (0 .. 4)
{
	my @epoch = $v >= 1 ? (leader_epoch => 0) : ();
	my @none = $v >= 1 ? (leader_epoch => -1) : ();
	my @want = (
		{ error => 0, partition => 0, @epoch, end_offset => 6 },
		{ error => 0, partition => 0, @none, end_offset => -1 },
		{ error => 0, partition => 0, @none, end_offset => -1 });
	push @want, { error => 0, partition => 0, @epoch, end_offset => 6 },
	  { error => 75, partition => 0, @none, end_offset => -1 }
	  if $v >= 2;
	push @want, { error => 3, partition => 9, @none, end_offset => -1 };
	is_deeply($le->{$v}, \@want, "OffsetForLeaderEpoch v$v");
}

# ---- privileges: app may not read secret (29: TOPIC_AUTHORIZATION_FAILED)
is_deeply(admin('topic_errors', 'secret'), { list_offsets => 29, offset_for_leader_epoch => 29 },
	'without SELECT on the topic: TOPIC_AUTHORIZATION_FAILED');
$node->safe_psql('postgres', 'GRANT SELECT ON secret TO app');
is_deeply(admin('topic_errors', 'secret'), { list_offsets => 0, offset_for_leader_epoch => 0 },
	'with it, answered');

# ---- DeleteRecords
$node->safe_psql('postgres', q{
SET ROLE app;
SELECT topics.create_topic('gone', 2, 'bytea', 'bytea');
SELECT count(*) FROM topics.produce_batch('gone', ARRAY(SELECT '\x00'::bytea FROM generate_series(1, 10)), partition => 0);
SELECT topics.create_topic('grow', 1, 'bytea', 'bytea');
SELECT topics.create_topic('grow_kp', 1, 'bytea', 'bytea');
SELECT topics.create_topic('grow_ck', 1, 'bytea', 'bytea');
});
sub log_start
{
	return $node->safe_psql('postgres',
		"SELECT log_start_offset FROM topics.offsets('$_[0]') WHERE partition = 0");
}
is_deeply(admin('delete_records', 0, 'gone', '0:3'), [ [ 0, 3, 0 ] ],
	'v0: records below 3 go; the low watermark is 3');
is(log_start('gone'), 3, 'the log starts at 3');
is_deeply(admin('delete_records', 1, 'gone', '0:2'), [ [ 0, 3, 0 ] ],
	'v1: below the log start changes nothing');
is_deeply(admin('delete_records', 2, 'gone', '0:11', '0:-2', '5:0'),
	[ [ 0, -1, 1 ], [ 0, -1, 1 ], [ 5, -1, 3 ] ],
	'v2: past the high watermark or negative OFFSET_OUT_OF_RANGE, partition 5 UNKNOWN_TOPIC_OR_PARTITION');
is_deeply(admin('delete_records', 2, 'gone', '0:-1', '1:-1'), [ [ 0, 10, 0 ], [ 1, 0, 0 ] ],
	'v2: -1 deletes up to the high watermark');
is(log_start('gone'), 10, 'the log starts at its end');
is_deeply(admin('delete_records', 2, 'secret', '0:0'), [ [ 0, -1, 29 ] ],
	'without DELETE on the topic: TOPIC_AUTHORIZATION_FAILED');
is_deeply(admin('delete_records', 1, 'no_such_topic', '0:0'), [ [ 0, -1, 3 ] ],
	'a topic that is not there');

# ---- CreatePartitions
sub partitions
{
	return $node->safe_psql('postgres', "SELECT count(*) FROM topics.offsets('$_[0]')");
}
is_deeply(admin('create_partitions', 0, 'true', 'grow:3'), [ [ 'grow', 0, undef ] ],
	'v0 validate_only: accepted');
is(partitions('grow'), 1, 'and nothing changed');
is_deeply(admin('create_partitions', 1, 'false', 'grow:3'), [ [ 'grow', 0, undef ] ],
	'v1: grown to 3');
is(partitions('grow'), 3, 'the topic has 3 partitions');
my $same = admin('create_partitions', 2, 'false', 'grow:3', 'grow:2', 'no_such_topic:4', 'secret:4');
is_deeply([ map { [ $_->[0], $_->[1] ] } @$same ],
	[ [ 'grow', 37 ], [ 'grow', 37 ], [ 'no_such_topic', 3 ], [ 'secret', 29 ] ],
	'v2: the same count or fewer INVALID_PARTITIONS, an unknown topic UNKNOWN_TOPIC_OR_PARTITION, '
	  . 'one not owned TOPIC_AUTHORIZATION_FAILED');
like($same->[0][2], qr/has 3 partitions/, 'with a message');
is_deeply([ map { [ $_->[0], $_->[1] ] } @{ admin('create_partitions', 3, 'false', 'grow:5:999999:3') } ],
	[ [ 'grow', 39 ] ], 'v3: an assignment to another broker INVALID_REPLICA_ASSIGNMENT');
is(partitions('grow'), 3, 'and nothing changed');
is_deeply(admin('clients_create_partitions', 'grow_kp', 4, 'grow_ck', 3), {
		kafka_python => [ [ 'grow_kp', 0 ] ],
		kafka_python_shrink => 'InvalidPartitionsError',
		confluent_kafka => 'ok',
		confluent_kafka_shrink => 'INVALID_PARTITIONS' },
	"kafka-python's and confluent-kafka's admin clients grow topics and cannot shrink them");
is(partitions('grow_kp') . ' ' . partitions('grow_ck'), '4 3', 'the topics have grown');

# ---- DescribeCluster: the brokers, cluster id and controller of Metadata
my $sysid = $node->safe_psql('postgres', 'SELECT system_identifier FROM pg_control_system()');
my $cluster = admin('describe_cluster', 1, 'true');
my $node_id = $cluster->{controller};
isnt($node_id, -1, 'DescribeCluster v1: a controller');
is_deeply($cluster, {
		throttle => 0, error => 0, message => undef, endpoint_type => 1,
		cluster_id => "pg_topics-$sysid", controller => $node_id,
		brokers => [ [ $node_id, '127.0.0.1', $kport, undef ] ],
		operations => (1 << 5) | (1 << 8) | (1 << 12) },
	'DescribeCluster v1: one broker, this node, the cluster id of the system identifier, '
	  . 'DESCRIBE, IDEMPOTENT_WRITE and CREATE (app may create topics)');
is(admin('describe_cluster', 0, 'false')->{operations}, -2147483648,
	'v0: authorized operations only when asked');
is_deeply([ @{ admin('describe_cluster', 1, 'false', 2) }{qw(error brokers)} ], [ 114, [] ],
	'v1: the controllers endpoint type is MISMATCHED_ENDPOINT_TYPE');

# ---- DescribeLogDirs: the partitions app may read, with their sizes
my %bytes = map { split /\|/ } split /\n/, $node->safe_psql('postgres',
	q{SELECT topic::text || ':' || partition, bytes FROM topics.partitions
	   WHERE topic IN ('lo'::regclass, 'gone'::regclass)});
my $all = admin('describe_log_dirs', 4);
my $dir = $all->{results}[0];
is_deeply([ sort keys %{ $dir->{topics} } ],
	[ qw(gone grow grow_ck grow_kp lo secret) ],
	'v4, every topic: those app may read (secret since its GRANT)');
is_deeply($dir->{topics}{lo}, { 0 => [ $bytes{'lo:0'}, 0, 0 ] }, 'lo: its size as topics.partitions has it');
ok($bytes{'lo:0'} > 0, 'which is not 0');
is($dir->{log_dir}, 'data directory', 'app may not read data_directory: the words');
ok($dir->{total_bytes} > 0 && $dir->{usable_bytes} > 0 && $dir->{usable_bytes} <= $dir->{total_bytes},
	'v4: the file system\'s total and usable bytes');
for my $v (0 .. 3)
{
	my $some = admin('describe_log_dirs', $v, 'gone:1,0,7', 'no_such_topic:0', 'lo:0');
	is_deeply($some->{results}[0]{topics},
		{ gone => { 0 => [ $bytes{'gone:0'}, 0, 0 ], 1 => [ $bytes{'gone:1'}, 0, 0 ] },
		  lo => { 0 => [ $bytes{'lo:0'}, 0, 0 ] } },
		"v$v, topics named: their partitions, without those that are not there");
}
$node->safe_psql('postgres', 'REVOKE SELECT ON secret FROM app');
ok(!exists admin('describe_log_dirs', 2)->{results}[0]{topics}{secret},
	'a topic app may not read is left out');

# ---- DescribeAcls: GRANTs as ACLs (READ 3, WRITE 4, CREATE 5, DELETE 6,
# ALTER 7, DESCRIBE 8; ALLOW 3), of the topics app may read
$node->safe_psql('postgres', q{CREATE ROLE bob; GRANT INSERT ON lo TO bob; GRANT SELECT ON grow TO PUBLIC;});
my @app_topic = map { [ 'User:app', '*', $_, 3 ] } (3, 4, 6, 7, 8);
for my $v (0 .. 3)
{
	my @pattern = $v >= 1 ? (3) : ();
	is_deeply(admin('describe_acls', $v, 2, 'lo', 3, '-', 1),
		[ [ 2, 'lo', @pattern, [ @app_topic, [ 'User:bob', '*', 4, 3 ], [ 'User:bob', '*', 8, 3 ] ] ] ],
		"v$v: topic lo: its owner app READ, WRITE, DELETE, ALTER, DESCRIBE; bob (INSERT) WRITE, DESCRIBE");
}
is_deeply(admin('describe_acls', 3, 2, 'grow', 3, 'User:*', 3),
	[ [ 2, 'grow', 3, [ [ 'User:*', '*', 3, 3 ] ] ] ],
	'GRANT ... TO PUBLIC is User:*; principal and operation filters');
is_deeply(admin('describe_acls', 2, 4, '-', 1, 'User:app', 1),
	[ [ 4, 'kafka-cluster', 3, [ [ 'User:app', '*', 5, 3 ] ] ] ],
	'the cluster: CREATE for a role with CREATE on the Kafka schema');
my $every = admin('describe_acls', 2, 1, '-', 1, '-', 1);
is_deeply([ map { $_->[1] } @$every ], [ qw(gone grow grow_ck grow_kp lo kafka-cluster) ],
	'every resource: the cluster and the topics app may read (not secret)');
is_deeply(admin('describe_acls', 2, 2, 'lo', 3, '-', 1, 2), [], 'DENY: none');
is(admin('describe_acls', 1, 0, '-', 3, '-', 1)->{error}, 42, 'an UNKNOWN filter: INVALID_REQUEST');
is_deeply(admin('clients_describe_acls', 'lo'), {
		acls => [ [ 'User:app', 'ALTER' ], [ 'User:app', 'DELETE' ], [ 'User:app', 'DESCRIBE' ],
			[ 'User:app', 'READ' ], [ 'User:app', 'WRITE' ], [ 'User:bob', 'DESCRIBE' ],
			[ 'User:bob', 'WRITE' ] ],
		error => 'NoError' },
	"kafka-python's describe_acls");

# ---- InitProducerId at every version: a new producer id, epoch 0; with a
# transactional id, its producer, each use at the next epoch
is_deeply(admin('init_producer_id', '-'), { map { ($_ => [ 0, 1, 0 ]) } 0 .. 5 },
	'InitProducerId v0-5: a producer id, epoch 0');
is_deeply(admin('init_producer_id', 'tx'), { map { ($_ => [ 0, 1, $_ ]) } 0 .. 5 },
	'InitProducerId v0-5 with a transactional id: its producer, the epoch bumped at each use');

# ---- a fenced node: DeleteRecords NOT_LEADER_OR_FOLLOWER, CreatePartitions
# NOT_CONTROLLER; reads answered
$node->safe_psql('postgres', q{
ALTER SYSTEM SET default_transaction_read_only = on;
SELECT pg_reload_conf();});
$node->poll_query_until('postgres', q{SELECT current_setting('default_transaction_read_only') = 'on'})
  or die 'the server did not reload its settings';
# every listener process reloads on its own, at once
sleep 1;
is_deeply(admin('delete_records', 2, 'gone', '0:-1'), [ [ 0, -1, 6 ] ],
	'fenced: DeleteRecords NOT_LEADER_OR_FOLLOWER');
is_deeply(admin('create_partitions', 3, 'false', 'grow:6'), [ [ 'grow', 41, undef ] ],
	'fenced: CreatePartitions NOT_CONTROLLER');
is(partitions('grow'), 3, 'and nothing changed');
is(admin('describe_cluster', 0, 'false')->{controller}, -1, 'fenced: DescribeCluster names no controller');
is_deeply(admin('init_producer_id', '-')->{4}, [ 15, 0, -1 ], 'fenced: InitProducerId v4 COORDINATOR_NOT_AVAILABLE');
is_deeply(admin('topic_errors', 'lo'), { list_offsets => 0, offset_for_leader_epoch => 0 },
	'fenced: ListOffsets and OffsetForLeaderEpoch answered');
$node->safe_psql('postgres', q{
ALTER SYSTEM RESET default_transaction_read_only;
SELECT pg_reload_conf();});
$node->poll_query_until('postgres', q{SELECT current_setting('default_transaction_read_only') = 'off'})
  or die 'the server did not reload its settings';
sleep 1;

# ---- the clients
is_deeply(admin('clients_offsets', 'lo', $at_ms), {
		kafka_python => { beginning => 1, end => 6, by_time => [ $at_offset, $at_time ] },
		confluent_kafka => { low => 1, high => 6, by_time => $at_offset } },
	"kafka-python's and confluent-kafka's consumers find the same offsets");

# ---- SASL: SaslAuthenticate at every version, flexible v2 included
for my $v (0 .. 2)
{
	my $u = admin('sasl_unexpected', $v);
	is_deeply([ $u->{error}, $u->{after} ], [ 34, 'closed' ],
		"SaslAuthenticate v$v without a handshake: ILLEGAL_SASL_STATE, and the connection closes");
}
$node->safe_psql('postgres', q{
SET password_encryption = 'scram-sha-256';
ALTER ROLE app PASSWORD 'apppw';
ALTER SYSTEM SET pg_topics.kafka_auth = 'plain';
SELECT pg_reload_conf();});
$node->poll_query_until('postgres', q{SELECT current_setting('pg_topics.kafka_auth') = 'plain'})
  or die 'the server did not reload its settings';
sleep 1;
for my $v (0 .. 2)
{
	my $lifetime = $v >= 1 ? 0 : undef;
	is_deeply(admin('sasl_plain', $v, 'app', 'apppw'), {
			handshake => [ 0, ['PLAIN'] ],
			authenticate => [ 0, undef, 0, $lifetime ],
			describe_cluster => 0 },
		"PLAIN with SaslAuthenticate v$v: authenticated, and served");
	is_deeply(admin('sasl_plain', $v, 'app', 'wrong')->{authenticate},
		[ 58, 'Authentication failed: invalid credentials', 0, $lifetime ],
		"v$v, a wrong password: SASL_AUTHENTICATION_FAILED");
}

$node->stop;
done_testing();
