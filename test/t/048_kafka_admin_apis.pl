# ListOffsets at every version Kafka 3.9 serves (0-9): v0's list of
# offsets, the special timestamps of v7-v9, flexible versions from v6; as
# kafka-python's and confluent-kafka's consumers ask it.  OffsetForLeaderEpoch
# (0-4): the log's one epoch, 0, ends at the last stable offset.  Both need
# SELECT on the topic.  Clients act as role app (kafka_trust_role).
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

# ---- the clients
is_deeply(admin('clients_offsets', 'lo', $at_ms), {
		kafka_python => { beginning => 1, end => 6, by_time => [ $at_offset, $at_time ] },
		confluent_kafka => { low => 1, high => 6, by_time => $at_offset } },
	"kafka-python's and confluent-kafka's consumers find the same offsets");

$node->stop;
done_testing();
