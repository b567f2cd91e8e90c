# Kafka protocol rules that clients depend on: Fetch answers within
# max_bytes and partition_max_bytes (only the first record of the first
# partition with records may go over), OffsetCommit stores any offset and
# poll and Kafka consumers reset from one outside the log, ApiVersions
# lists Produce from v0 so that librdkafka compresses, transactional
# producers find their coordinator and get their producer at once,
# DescribeGroups agrees with ListGroups, and a member whose role may no
# longer log in loses its group at its next request.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use JSON::PP;

my $node = PostgreSQL::Test::Cluster->new('kafka_protocol');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_group_initial_rebalance_delay = 0
password_encryption = 'scram-sha-256'
});
$node->start;
wait_for_kafka_listener($kport);
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('wide', 4, 'bytea', 'bytea');
DO $$
BEGIN
	FOR p IN 0 .. 3 LOOP
		PERFORM topics.produce_batch('wide',
			ARRAY(SELECT convert_to(repeat(chr(65 + p), 200000), 'UTF8')
				  FROM generate_series(1, 3)), partition => p);
	END LOOP;
END $$;
SELECT topics.create_topic('pos', 2, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('pos', ARRAY['a', 'b', 'c', 'd', 'e'], partition => 0);
SELECT count(*) FROM topics.produce_batch('pos', ARRAY['f', 'g', 'h', 'i', 'j'], partition => 1);
SELECT topics.create_topic('zipped', 1, 'bytea', 'bytea');
CREATE ROLE mallory LOGIN PASSWORD 'mallorypw';
GRANT SELECT ON pos TO mallory;
});
my @psql = ('psql', '-X', '-h', $node->host, '-p', $node->port, '-d', 'postgres');

sub proto
{
	return kafka_script('protocol.py', $bootstrap, @_);
}

# ---- Fetch within max_bytes and partition_max_bytes: each partition of
# topic wide holds three records of 200,000 bytes
sub records_of
{
	my ($answer) = @_;
	return [ map { $_->[3] } @{ $answer->{partitions} } ];
}

sub bytes_of
{
	my ($answer) = @_;
	my $sum = 0;
	$sum += $_->[2] for @{ $answer->{partitions} };
	return $sum;
}

my $f = proto('fetch_sizes', 'wide', 300000, 1048576, 0, 0, 0, 0);
note("Fetch max_bytes 300000 over four partitions: answer of $f->{size} bytes, records "
	  . bytes_of($f));
is_deeply(records_of($f), [ 1, 0, 0, 0 ],
	'max_bytes 300000: one record of the first partition, none of the others (no second first record)');
ok(bytes_of($f) <= 300000 && $f->{size} <= 300000 + 512,
	"the records' bytes stay within max_bytes ($f->{size} bytes answered)");

$f = proto('fetch_sizes', 'wide', 10000000, 100000, 0, 0, 0, 0);
note("Fetch partition_max_bytes 100000: answer of $f->{size} bytes");
is_deeply(records_of($f), [ 1, 0, 0, 0 ],
	'partition_max_bytes 100000: the first partition answers its first record though larger, the others nothing');

$f = proto('fetch_sizes', 'wide', 10000000, 100000, 3, 0, 0, 0);
is_deeply(records_of($f), [ 0, 1, 0, 0 ],
	'the first partition that has records is the one whose first record may go over');

$f = proto('fetch_sizes', 'wide', 100000, 1048576, 0, 0, 0, 0);
is_deeply(records_of($f), [ 1, 0, 0, 0 ],
	'a first record larger than max_bytes is answered alone');

my $ck = proto('ck_fetch_budget', 'wide', 4, 300000, 12);
note("confluent-kafka with fetch.max.bytes 300000: $ck->{records} records in $ck->{seconds} s");
is($ck->{records}, 12,
	'a confluent-kafka consumer with fetch.max.bytes 300000 reads all twelve records');
ok(!$ck->{invalid_size}, 'and librdkafka never sees an answer larger than it asked for');

# ---- OffsetCommit stores any offset, as Kafka does
is_deeply(proto('commit', 'tool', 'pos', '0:1000', '1:3'), [ [ 0, 0 ], [ 1, 0 ] ],
	'OffsetCommit of an offset past the high watermark is stored');
is_deeply(proto('committed', 'tool', 'pos', 2), [ [ 0, 1000, 0 ], [ 1, 3, 0 ] ],
	'and OffsetFetch answers it');
is($node->safe_psql('postgres',
		q{SELECT string_agg(partition || ':' || committed_offset, ',' ORDER BY partition) FROM topics.consumer_lag WHERE group_name = 'tool'}),
	'0:1000,1:3', 'topics.consumer_lag shows it');
is($node->safe_psql('postgres',
		q{SELECT string_agg(partition || ':' || "offset", ',' ORDER BY partition, "offset") FROM topics.poll(NULL::pos, 'tool', max_records => 100)}),
	'0:0,0:1,0:2,0:3,0:4,1:3,1:4',
	'poll resets a position past the end by pg_topics.auto_offset_reset (earliest) and reads on');
is($node->safe_psql('postgres',
		q{SELECT string_agg(partition || ':' || committed_offset, ',' ORDER BY partition) FROM topics.consumer_lag WHERE group_name = 'tool'}),
	'0:5,1:5', 'and stores where it got to');

proto('commit', 'tool', 'pos', '0:1000');
is($node->safe_psql('postgres', q{
SET pg_topics.auto_offset_reset = latest;
SELECT count(*) FROM topics.poll(NULL::pos, 'tool', max_records => 100);
SELECT committed_offset FROM topics.consumer_lag WHERE group_name = 'tool' AND partition = 0}),
	"0\n5", 'with latest, poll moves such a position to the high watermark and reads nothing');
proto('commit', 'tool', 'pos', '0:1000');
my ($rc, $out, $err) = $node->psql('postgres', q{
SET pg_topics.auto_offset_reset = error;
SELECT count(*) FROM topics.poll(NULL::pos, 'tool', max_records => 100)});
like($err, qr/consumer group "tool" has no valid position in partition 0 of topic "pos"/,
	'with error, poll refuses it');

$node->safe_psql('postgres', q{SELECT topics.delete_records('pos', 1, 2)});
is_deeply(proto('commit', 'tool2', 'pos', '0:1000', '1:0'), [ [ 0, 0 ], [ 1, 0 ] ],
	'OffsetCommit below the log start is stored too');
is_deeply(proto('ck_group_reads', 'pos', 'tool2', 'earliest', 8),
	[ [ 0, 0 ], [ 0, 1 ], [ 0, 2 ], [ 0, 3 ], [ 0, 4 ], [ 1, 2 ], [ 1, 3 ], [ 1, 4 ] ],
	'a Kafka consumer of the group resets from positions outside the log by its auto.offset.reset');

is_deeply(proto('commit', 'tool', 'pos', '0:-2'), [ [ 0, 0 ] ], 'OffsetCommit of -2 is stored');
is_deeply(proto('committed', 'tool', 'pos', 2), [ [ 0, -2, 0 ], [ 1, 5, 0 ] ],
	'OffsetFetch answers it back, and the other partition\'s position');
is($node->safe_psql('postgres',
		q{SELECT string_agg(partition || ':' || coalesce(committed_offset::text, 'none'), ',' ORDER BY partition) FROM topics.consumer_lag WHERE group_name = 'tool'}),
	'0:-2,1:5', 'as topics.consumer_lag shows');
is_deeply(proto('ck_group_reads', 'pos', 'tool', 'earliest', 5),
	[ [ 0, 0 ], [ 0, 1 ], [ 0, 2 ], [ 0, 3 ], [ 0, 4 ] ],
	'a Kafka consumer of the group takes it for no position and resets by its auto.offset.reset');
is_deeply(proto('commit', 'tool', 'pos', '7:3'), [ [ 7, 3 ] ],
	'a partition that does not exist is UNKNOWN_TOPIC_OR_PARTITION');
($rc, $out, $err) = $node->psql('postgres', q{SELECT topics.commit('pos', 'tool', 0, 1000)});
like($err, qr/offset 1000 is out of range for partition 0 of topic "pos"/,
	'topics.commit still refuses an offset outside the log');

# ---- Produce: listed from v0 (v0-2 and their message formats:
# 053_kafka_message_formats.pl)
is(proto('api_versions')->{0}[0], 0, 'ApiVersions lists Produce from version 0');

for my $codec ([ 'gzip', 1 ], [ 'snappy', 2 ], [ 'lz4', 3 ])
{
	my ($name, $id) = @$codec;
	my $sent = proto('ck_compressed', 'zipped', $name, 50);
	is_deeply($sent->{codecs}, [$id],
		"confluent-kafka with compression.type $name sends $name batches ($sent->{batches} seen on the wire)");
	is($sent->{delivered}, 50, "and all 50 records are acknowledged") or diag(encode_json($sent));
	is($node->safe_psql('postgres', qq{
SELECT count(*) FROM zipped
WHERE convert_from(key, 'UTF8') LIKE '$name-%'
  AND value = convert_to(repeat(replace(convert_from(key, 'UTF8'), '-', ' record ') || ' ', 40), 'UTF8')}),
		'50', "the $name records are stored as produced");
}

# ---- transactional producers are served (TAP 066 tests transactions)
is(proto('find_coordinator', 'tx-1', 1), 0,
	"FindCoordinator of a transactional id names this node");
is(proto('find_coordinator', 'g', 0), 0, 'so does a group\'s');
is(proto('init_producer_id', 'tx-1'), 0, 'InitProducerId with a transactional id');
my $tx = proto('ck_init_transactions', 20);
note("init_transactions() took $tx->{seconds} s: " . ($tx->{error} // 'no error'));
is($tx->{error}, undef, "confluent-kafka's init_transactions() succeeds");
ok($tx->{seconds} < 10, "at once ($tx->{seconds} s)");

# ---- DescribeGroups and ListGroups agree on a group with positions only
$node->safe_psql('postgres', q{SELECT count(*) FROM topics.poll(NULL::pos, 'sqlgroup', max_records => 1)});
my $g = proto('groups', 'sqlgroup');
ok((grep { $_->[0] eq 'sqlgroup' && $_->[1] eq 'consumer' } @{ $g->{listed} }),
	'ListGroups lists a group with positions only as a consumer group');
is_deeply($g->{described}, [ 0, 'Empty', 'consumer' ],
	'DescribeGroups reports it Empty, of protocol type consumer');

# ---- a member whose role may no longer log in loses its group at its
# next request, whichever it is
sub members
{
	my ($group) = @_;
	return $node->safe_psql('postgres',
		qq{SELECT count(*) FROM topics.group_members WHERE group_name = '$group'});
}
for my $case ([ 'heartbeat', 'mg1', 'ALTER ROLE mallory NOLOGIN', 'ALTER ROLE mallory LOGIN', 'lost LOGIN' ],
	[ 'sync', 'mg2', 'REVOKE CONNECT ON DATABASE postgres FROM PUBLIC',
		'GRANT CONNECT ON DATABASE postgres TO PUBLIC', 'lost CONNECT' ],
	[ 'leave', 'mg3', 'REVOKE ALL ON pos FROM mallory; DROP ROLE mallory', '', 'was dropped' ])
{
	my ($request, $group, $take, $give, $what) = @$case;
	my $r = proto('member_role_lost', 'mallory', $group, 'pos', $request, @psql, '-qAt',
		'-c', "SELECT count(*) FROM topics.group_members WHERE group_name = '$group'",
		'-c', $take);
	is_deeply($r, { joined => 0, shown => [1], after => 'closed' },
		"a member whose role $what: its $request request closes the connection");
	is(members($group), '0', 'and it is no longer a member of its group');
	$node->safe_psql('postgres', $give) if $give ne '';
}
ok($node->log_contains(qr/role "mallory" may no longer use this Kafka connection/),
	'the server log says why');

done_testing();
