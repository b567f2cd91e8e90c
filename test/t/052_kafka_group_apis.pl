# The group APIs at the versions old and new clients send: sarama's
# default OffsetCommit v0/v1 and OffsetFetch v0, a member's JoinGroup,
# SyncGroup, Heartbeat and LeaveGroup at flexible versions, OffsetCommit
# v8 and OffsetFetch v8 of many groups, ListGroups' state and type
# filters, DescribeGroups v5, DeleteGroups and OffsetDelete (refused while
# a member holds the group or subscribes to the topic, and for another
# role's group; a static member's group as soon as its session timeout
# has passed), negative commits answered back, static membership and the
# instance ids topics.group_members shows, written byte by byte
# (test/kafka/group_apis.py).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('kafka_group_apis');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_group_initial_rebalance_delay = 0
});
$node->start;
wait_for_kafka_listener($kport);
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('orders', 2, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('orders', ARRAY['a', 'b', 'c', 'd', 'e'], partition => 0);
SELECT count(*) FROM topics.produce_batch('orders', ARRAY['f', 'g', 'h', 'i', 'j'], partition => 1);
});

sub api
{
	return kafka_script('group_apis.py', $bootstrap, @_);
}

sub position
{
	my ($group, $partition) = @_;
	return $node->safe_psql('postgres',
		"SELECT coalesce(max(committed_offset)::text, 'none') FROM topics.group_offset_info() "
		  . "WHERE topic = 'orders'::regclass AND group_name = '$group' AND partition = $partition");
}

# ---- sarama's defaults: OffsetCommit v0 and v1, OffsetFetch v0
my $s = api('sarama_defaults', 'orders', 'sarama');
is_deeply($s->{commit_v0}, [ [ 0, 0 ] ], 'OffsetCommit v0 (no generation or member) is stored');
is_deeply($s->{commit_v1}, [ [ 1, 0 ] ], 'OffsetCommit v1 outside a group (generation -1) is stored');
is(position('sarama', 0), '3', 'the v0 commit is the group\'s position of partition 0');
is(position('sarama', 1), '4', 'the v1 commit is its position of partition 1');
is_deeply(
	$s->{fetch_v0},
	[ [ 0, 3, 'zero', 0 ], [ 1, 4, '', 0 ], [ 7, -1, '', 3 ] ],
	'OffsetFetch v0 reads both back with their metadata; a partition the topic lacks is UNKNOWN_TOPIC_OR_PARTITION');
is_deeply($s->{unknown_group_v2}, [ [ [ 0, -1, '', 0 ] ], 0 ],
	'OffsetFetch v2 of a group without positions: -1, no error');

# ---- OffsetCommit metadata that is not text comes back byte for byte
my $b = api('binary_metadata', 'orders', 'bin');
is_deeply([ $b->{commit_v2}, $b->{commit_v8}, $b->{commit_v8_binary} ],
	[ [ [ 0, 0 ], [ 1, 0 ] ], [ [ 0, 0 ], [ 1, 0 ] ], [ [ 0, 0 ] ] ],
	'OffsetCommit v2 and v8 of metadata with NUL bytes and invalid UTF-8 are stored');
is_deeply($b->{fetch_v1}, [ [ 1, '610062', 0 ], [ 2, 'fffe00', 0 ] ],
	'OffsetFetch v1 answers "a\\0b" and "\\xff\\xfe\\0" byte for byte');
is_deeply($b->{fetch_v6_text}, [ [ 3, '636166c3a9', 0 ], [ 4, '', 0 ] ],
	'OffsetFetch v6 (flexible) answers UTF-8 text as it came, and a null metadata as ""');
is_deeply($b->{fetch_v6}, [ [ 5, '00000080', 0 ] ],
	'OffsetFetch v6 answers metadata committed by v8 (compact string) byte for byte');
is($node->safe_psql('postgres', q{
SELECT string_agg(format('%s %s', key->>'partition', value->'metadata'), E'\n' ORDER BY "offset")
FROM topics.consumer_offsets WHERE key->>'group' = 'bin'}),
	qq{0 {"base64": "YQBi"}\n1 {"base64": "//4A"}\n0 "caf\xc3\xa9"\n1 ""\n0 {"base64": "AAAAgA=="}},
	'the position records keep text metadata as a string and other bytes as {"base64": ...}');
is_deeply($b->{commit_v8_max}, [ [ 0, 0 ], [ 1, 12 ] ],
	'OffsetCommit: 4096 two-byte characters of metadata are stored, 4097 bytes are OFFSET_METADATA_TOO_LARGE');
is_deeply($b->{fetch_v1_max}, [ [ 6, 4096, 1 ], [ -1, 0, 0 ] ],
	'OffsetFetch v1 answers the 8192 bytes; the refused commit stored nothing');

# ---- negative commits: kept with their metadata and answered back, as
# Kafka does (kafkajs's resetOffsets commits -2); poll and topics.consumer_lag
# take them for no position
my $n = api('negative_commits', 'orders', 'neg');
is_deeply($n->{commit_v8}, [ [ 0, 0 ], [ 1, 0 ] ], 'OffsetCommit v8 of -2 and -1 is stored');
is_deeply($n->{fetch_v6}, [ [ 0, -2, 'to-earliest', 0 ], [ 1, -1, 'to-none', 0 ] ],
	'OffsetFetch v6 answers -2 and -1 back with their metadata');
is_deeply($n->{fetch_v1}, $n->{fetch_v6}, 'so does OffsetFetch v1');
is_deeply($n->{fetch_v8}, { neg => [ 0, [ [ 0, -2, 0 ], [ 1, -1, 0 ] ] ] }, 'and OffsetFetch v8');
is_deeply($n->{commit_v2}, [ [ 0, 0 ] ], 'OffsetCommit v2 of -2 by a group without positions is stored');
is_deeply($n->{fetch_v2}, [ [ [ 0, -2, 'v2-meta', 0 ], [ 1, -1, '', 0 ] ], 0 ],
	'OffsetFetch v2 answers it, and no position (-1) for the partition not committed');
is($node->safe_psql('postgres', q{
SELECT string_agg(format('%s %s %s', key->>'partition', value->>'offset', value->>'metadata'), ',' ORDER BY "offset")
FROM topics.consumer_offsets WHERE key->>'group' = 'neg'}),
	'0 -2 to-earliest,1 -1 to-none', 'the position records hold the negative offsets and their metadata');
is($node->safe_psql('postgres', q{
SELECT string_agg(format('%s %s %s', partition, committed_offset, lag), ',' ORDER BY partition)
FROM topics.consumer_lag WHERE group_name = 'neg'}),
	'0 -2 5,1 -1 5',
	'topics.consumer_lag shows the offsets committed, and the lag from where the group starts (earliest)');
is($node->safe_psql('postgres', q{
SET pg_topics.auto_offset_reset = latest;
SELECT string_agg(format('%s %s %s', partition, committed_offset, lag), ',' ORDER BY partition)
FROM topics.consumer_lag WHERE group_name = 'neg'}),
	'0 -2 0,1 -1 0', 'with latest, from the high watermark');
my ($rc, $out, $err) = $node->psql('postgres', q{SELECT topics.commit('orders', 'neg', 0, -2)});
like($err, qr/offset -2 is out of range for partition 0 of topic "orders"/,
	'topics.commit still refuses a negative offset');
($rc, $out, $err) = $node->psql('postgres', q{
SET pg_topics.auto_offset_reset = error;
SELECT count(*) FROM topics.poll(NULL::orders, 'neg', max_records => 100)});
like($err, qr/consumer group "neg" has no valid position in partition \d of topic "orders"/,
	'poll takes a negative position for none: with error, it refuses it');
is($node->safe_psql('postgres', q{
SELECT count(*) FROM topics.poll(NULL::orders, 'neg', max_records => 100);
SELECT string_agg(format('%s %s %s', partition, committed_offset, lag), ',' ORDER BY partition)
FROM topics.consumer_lag WHERE group_name = 'neg'}),
	"10\n0 5 0,1 5 0", 'with earliest, poll reads both partitions from their start and stores where it got to');
is($node->safe_psql('postgres', q{
SET pg_topics.auto_offset_reset = latest;
SELECT count(*) FROM topics.poll(NULL::orders, 'neg-v2', max_records => 100);
SELECT string_agg(format('%s %s', partition, committed_offset), ',' ORDER BY partition)
FROM topics.consumer_lag WHERE group_name = 'neg-v2'}),
	"0\n0 5,1 5", 'with latest, poll moves a negative position to the high watermark');

# ---- a member at flexible versions, and DeleteGroups and OffsetDelete
# a group with positions only (committed outside any group)
api('sarama_defaults', 'orders', 'idle');
my $g = api('flexible_group', 'orders', 'flex', 'idle');
is($g->{join_new}, 79, 'JoinGroup v6 of a new member: MEMBER_ID_REQUIRED, with its id');
is_deeply($g->{join}, [ 0, 'consumer', 'range', JSON::PP::true, 1 ],
	'JoinGroup v9 with that id: joined as the leader, protocol type and name answered');
is_deeply([ @{ $g->{sync} }[ 0 .. 2 ] ], [ 0, 'consumer', 'range' ],
	'SyncGroup v5 answers the protocol type and name');
ok($g->{sync_is_assignment}, 'SyncGroup v5 hands the leader its own assignment back');
is($g->{heartbeat}, 0, 'Heartbeat v4 (flexible) of the member');
is_deeply($g->{commit_v8}, [ [ 0, 0 ] ], 'OffsetCommit v8 (flexible) with the generation');
is_deeply(
	$g->{fetch_v8},
	{ flex => [ 0, [ [ 0, 2, 0 ], [ 1, -1, 0 ] ] ],
	  idle => [ 0, [ [ 0, 3, 0 ], [ 1, 4, 0 ] ] ],
	  '' => [ 24, [] ] },
	'OffsetFetch v8 answers each of three groups on its own (an empty id: INVALID_GROUP_ID)');
is_deeply($g->{list_v5_classic}{flex}, [ 'consumer', 'Stable', 'classic' ],
	'ListGroups v5: the member\'s group is a classic consumer group, Stable');
is_deeply($g->{list_v5_classic}{idle}, [ 'consumer', 'Empty', 'classic' ],
	'ListGroups v5: a group with positions only is Empty');
is_deeply($g->{list_v5_consumer}, {}, 'ListGroups v5 of type "consumer" (KIP-848): none');
is_deeply([ sort keys %{ $g->{list_v4_stable} } ], ['flex'],
	'ListGroups v4 filtered by state (case aside): only the Stable group');
is_deeply($g->{list_v0}{flex}, [ 'consumer', undef, undef ], 'ListGroups v0 lists it too');
is_deeply([ @{ $g->{describe_v5} }[ 0 .. 3 ] ], [ 0, 'Stable', 'consumer', 'range' ],
	'DescribeGroups v5 (flexible)');
is_deeply($g->{offset_delete_member}, [ 0, [ [ 0, 86 ] ] ],
	'OffsetDelete of a topic a member subscribes to: GROUP_SUBSCRIBED_TO_TOPIC');
is_deeply($g->{delete_member}, { flex => 68 }, 'DeleteGroups of a group with a member: NON_EMPTY_GROUP');
is($g->{leave_v4}[0], 0, 'LeaveGroup v4 (flexible, a batch of members)');
is_deeply($g->{leave_v4}[1], [ [ $g->{leave_v4}[1][0][0], undef, 0 ] ],
	'LeaveGroup v4 answers its one member');
is($g->{describe_after_leave}[1], 'Empty', 'the group is Empty after its member left');
is_deeply($g->{offset_delete}, [ 0, [ [ 0, 0 ], [ 9, 3 ] ] ],
	'OffsetDelete without members: the position goes; a partition the topic lacks is UNKNOWN_TOPIC_OR_PARTITION');
is_deeply($g->{fetch_after_offset_delete}, [ [ 0, -1, '', 0 ] ],
	'OffsetFetch after OffsetDelete: no position');
is_deeply($g->{delete}, { flex => 69, idle => 0, 'nobody-here' => 69, '' => 24 },
	'DeleteGroups v2: a group with positions goes; one with none left and one never seen are GROUP_ID_NOT_FOUND');
is(position('idle', 1), 'none', 'the deleted group has no position left');
is_deeply($g->{delete_again_v0}, { flex => 69 }, 'DeleteGroups v0: GROUP_ID_NOT_FOUND');
is_deeply($g->{offset_delete_gone}, [ 69, [] ], 'OffsetDelete of a group that is gone: GROUP_ID_NOT_FOUND');

# ---- static membership, byte by byte
my $x = api('static_raw', 'orders', 'static-raw');
is_deeply($x->{join}, [ 0, [ [ $x->{join}[1][0][0], 'x' ] ] ],
	'JoinGroup v5 of a static member: joined at once (no MEMBER_ID_REQUIRED), its instance id answered');
is($x->{sync}, 0, 'SyncGroup v3 of the static leader');
is_deeply($x->{rejoin}, [ 0, JSON::PP::true, JSON::PP::true, JSON::PP::true, JSON::PP::true, JSON::PP::true ],
	'the instance joins again without its member id: a new member id, the same generation (no rebalance), still the leader, skip_assignment, the members with their instance ids');
is($x->{heartbeat_old}, 82, 'the old member id is fenced: FENCED_INSTANCE_ID');
is($x->{heartbeat_new}, 0, 'the new member id heartbeats');
is_deeply($x->{commit_old_v7}, [ [ 0, 82 ] ], 'OffsetCommit v7 of the old member id: FENCED_INSTANCE_ID');
is_deeply($x->{sync_new}, [ 0, JSON::PP::true ], 'SyncGroup of the new member id: the assignment it had');
is($x->{join_old}, 82, 'JoinGroup of the old member id with the instance id: FENCED_INSTANCE_ID');
is_deeply([ @{ $x->{describe} }[ 0 .. 1 ] ], [ 0, 'Stable' ], 'the group stayed Stable');
is_deeply($x->{leave_wrong_member}[1], [ [ $x->{leave_wrong_member}[1][0][0], 'x', 82 ] ],
	'LeaveGroup v3 of the instance with its old member id: FENCED_INSTANCE_ID');
is_deeply($x->{leave_by_instance}[1], [ [ '', 'x', 0 ] ], 'LeaveGroup v3 by instance id alone: it leaves');
is($x->{describe_after}, 'Dead', 'the group is gone with its only member (no positions)');

# ---- DeleteGroups as soon as a static member's session timeout has passed:
# the member is gone then, not at the group tick up to 100 ms later
my $gone = api('delete_after_session', 'orders', 'gone');
is_deeply($gone->{commit}, [ [ 0, 0 ] ], 'the static member commits (its last request)');
is_deeply($gone->{delete_early}, { gone => 68 },
	'DeleteGroups 4 s after a static member\'s last request (6 s session timeout): NON_EMPTY_GROUP');
is_deeply($gone->{delete}, { gone => 0 },
	'DeleteGroups as soon as its session timeout has passed: the member is expired, the group deleted');
is(position('gone', 0), 'none', 'the group\'s position went with it');

# ---- topics.group_members shows a static member's instance id, and NULL
# for a dynamic member and a member of SQL
my $left = api('members_left', 'orders', 'held');
$node->safe_psql('postgres', q{SELECT count(*) FROM topics.poll(NULL::orders, 'held-sql', 'sql-member', max_records => 1)});
is($node->safe_psql('postgres', q{
SELECT string_agg(format('%s %s %s %s', group_name, member, coalesce(instance_id, 'NULL'), partitions),
	E'\n' ORDER BY group_name)
FROM topics.group_members WHERE group_name LIKE 'held-%'}),
	"held-dynamic $left->{dynamic} NULL {0,1}\nheld-sql sql-member NULL {0,1}\nheld-static $left->{static} held-x {0,1}",
	'topics.group_members: instance_id is the static member\'s group.instance.id, NULL for a dynamic member and a member of SQL');

# ---- static membership with confluent-kafka: a member killed and started
# again with its instance id gets its partitions back, and the other member
# sees no rebalance
my $r = api('static_restart', 'orders', 'static-ck');
note(explain($r));
ok($r->{stable}, 'two static members share the two partitions');
ok($r->{back}, 'the restarted member is assigned partitions');
is_deeply($r->{after}{a}, $r->{before}{a}, 'the restarted member gets the partitions it had');
is_deeply($r->{after}{b}, $r->{before}{b}, 'the other member keeps its partitions');
is_deeply($r->{b_events_after_restart}, [],
	'the other member\'s rebalance callbacks are not called (no revoke, no assign)');
is_deeply($r->{a2_events}, [ [ 'assign', $r->{before}{a} ] ],
	'the restarted member is assigned once');

# ---- a negative position is re-recorded under its topic's new name, and
# loaded from the log after a restart
api('negative_commits', 'orders', 'renamed-neg');
$node->safe_psql('postgres', q{ALTER TABLE orders RENAME TO orders_renamed});
$node->restart;
wait_for_kafka_listener($kport);
is($node->safe_psql('postgres', q{
SELECT string_agg(format('%s %s', partition, committed_offset), ',' ORDER BY partition)
FROM topics.group_offset_info() WHERE group_name = 'renamed-neg' AND topic = 'orders_renamed'::regclass}),
	'0 -2,1 -1', 'negative positions follow a rename of their topic and a restart');

done_testing();
