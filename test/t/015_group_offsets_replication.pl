# Consumer-group positions over logical replication: publishing
# topics.consumer_offsets next to a topic ships every committed position
# (initial sync and streamed commits, seeks, deleted groups, a Kafka
# consumer's negative commits), the
# subscriber's cache follows without a restart, local group writes there are
# refused while it is a replica, its copy of the log stays compacted, and
# after the publisher is gone a group resumes on the subscriber exactly
# where it stopped: no record twice, none skipped.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $orders = q{SELECT topics.create_topic('orders', 4, 'text', 'text')};
my $pub = start_logical_node('publisher', '200ms', $orders);
my $sub = start_logical_node('subscriber', '200ms', $orders);
# the publisher listens for Kafka clients too, for their commits
my $kport = PostgreSQL::Test::Cluster::get_free_port();
$pub->append_conf('postgresql.conf', qq{
pg_topics.kafka_port = $kport
pg_topics.kafka_listen_addresses = '127.0.0.1'
});
$pub->restart;
wait_for_kafka_listener($kport);

my $positions_sql = q{
SELECT coalesce(string_agg(format('%s/%s/%s', group_name, partition, committed_offset), ','
                           ORDER BY group_name, partition), '')
FROM topics.consumer_lag WHERE committed_offset IS NOT NULL};
my $groups_sql = q{
SELECT coalesce(string_agg(group_name, ',' ORDER BY group_name), '') FROM topics.consumer_groups};

# positions committed before the subscription: they come with the initial sync
$pub->safe_psql('postgres', q{
SELECT count(*) FROM topics.produce_batch('orders',
    (SELECT array_agg('v' || g) FROM generate_series(1, 2000) g),
    (SELECT array_agg('k' || g) FROM generate_series(1, 2000) g));
SELECT count(*) FROM topics.poll(NULL::orders, 'billing', consumer => 'c1', max_records => 300);
SELECT count(*) FROM topics.poll(NULL::orders, 'audit', max_records => 1);
SELECT topics.commit('orders', 'audit', 2, 17);
SELECT count(*) FROM topics.poll(NULL::orders, 'temp', max_records => 5);
});

# the subscriber's cache is loaded (and empty) before anything arrives, so
# what follows must reach it through apply, not through a reload
is($sub->safe_psql('postgres', $positions_sql), '', 'no positions on the subscriber yet');

$pub->safe_psql('postgres', q{
CREATE PUBLICATION topics_pub FOR TABLE orders, topics.consumer_offsets
    WITH (publish_via_partition_root = true);
});
my $connstr = $pub->connstr('postgres');
$connstr =~ s/'/''/g;
$sub->safe_psql('postgres',
	qq{CREATE SUBSCRIPTION topics_sub CONNECTION '$connstr' PUBLICATION topics_pub});
$sub->wait_for_subscription_sync($pub, 'topics_sub');

my $pub_positions = $pub->safe_psql('postgres', $positions_sql);
like($pub_positions, qr{^audit/1/1,audit/2/17,billing/0/300,temp/2/5$}, 'the publisher has positions');
is($sub->safe_psql('postgres', $positions_sql), $pub_positions,
	'the initial sync brings every committed position');
is($sub->safe_psql('postgres', $groups_sql), 'audit,billing,temp',
	'the subscriber lists the publisher\'s groups');

# streamed: polls, a seek, a rolled-back poll, a deleted group
$pub->safe_psql('postgres', q{
SELECT count(*) FROM topics.poll(NULL::orders, 'billing', consumer => 'c1', max_records => 500);
SELECT topics.seek('orders', 'audit', 2, 40);
BEGIN;
SELECT count(*) FROM topics.poll(NULL::orders, 'billing', consumer => 'c1', max_records => 100);
ROLLBACK;
SELECT topics.delete_group('orders', 'temp');
});
$pub->wait_for_catchup('topics_sub');
$pub_positions = $pub->safe_psql('postgres', $positions_sql);
unlike($pub_positions, qr{temp}, 'the deleted group is gone on the publisher');
like($pub_positions, qr{^audit/1/1,audit/2/40,}, 'the seek moved audit');
is($sub->safe_psql('postgres', $positions_sql), $pub_positions,
	'streamed commits, seeks and deletions reach the subscriber\'s positions');
is($sub->safe_psql('postgres', $groups_sql), 'audit,billing',
	'a group deleted on the publisher is gone on the subscriber');

# a Kafka consumer's negative commits (kafkajs's resetOffsets commits -2)
# are positions like any other: kept, replicated, compacted and loaded as
# committed
kafka_script('group_apis.py', "127.0.0.1:$kport", 'negative_commits', 'orders', 'kneg');
$pub->wait_for_catchup('topics_sub');
$pub_positions = $pub->safe_psql('postgres', $positions_sql);
like($pub_positions, qr{,kneg/0/-2,kneg/1/-1,kneg-v2/0/-2$},
	'the publisher keeps the negative offsets a Kafka consumer committed');
is($sub->safe_psql('postgres', $positions_sql), $pub_positions,
	'they reach the subscriber as committed');

# positions of a topic the subscriber does not have yet are kept in its log
# and show up once it creates the topic; renaming a topic works on both
# sides (the subscriber gets the re-recorded positions from the publisher)
$pub->safe_psql('postgres', q{
SELECT topics.create_topic('late', 2, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('late', ARRAY['a', 'b', 'c'], partition => 1);
SELECT count(*) FROM topics.poll(NULL::late, 'latecomer', max_records => 2);
});
$pub->wait_for_catchup('topics_sub');
$sub->safe_psql('postgres', q{SELECT topics.create_topic('late', 2, 'text', 'text')});
# renaming a topic re-records its positions under the new name; the
# subscriber renames its own topic (this one is not published, only its
# positions are)
$pub->safe_psql('postgres', q{ALTER TABLE late RENAME TO renamed});
$pub->wait_for_catchup('topics_sub');
$sub->safe_psql('postgres', q{ALTER TABLE late RENAME TO renamed});
my $named_sql = q{
SELECT string_agg(format('%s/%s/%s/%s', topic, group_name, partition, committed_offset), ','
                  ORDER BY topic::text, group_name, partition)
FROM topics.consumer_lag WHERE committed_offset IS NOT NULL};
my $pub_named = $pub->safe_psql('postgres', $named_sql);
like($pub_named, qr{renamed/latecomer/1/2}, 'the publisher has positions of the new, renamed topic');
is($sub->safe_psql('postgres', $named_sql), $pub_named,
	'positions of a topic created later on the subscriber appear there, and follow renames on both sides');
$sub->safe_psql('postgres', q{ALTER TABLE renamed RENAME TO late});
$pub->safe_psql('postgres', q{ALTER TABLE renamed RENAME TO late});
$pub->wait_for_catchup('topics_sub');
is($sub->safe_psql('postgres', $positions_sql), $pub->safe_psql('postgres', $positions_sql),
	'after renaming back, the positions still agree');
$pub_positions = $pub->safe_psql('postgres', $positions_sql);

# local group writes would take the publisher's offsets: refused
for my $call (
	q{SELECT count(*) FROM topics.poll(NULL::orders, 'billing', consumer => 'c1')},
	q{SELECT topics.commit('orders', 'billing', 0, 1)},
	q{SELECT topics.seek('orders', 'billing', 0, 1)},
	q{SELECT topics.reset_group('orders', 'billing', 'earliest')},
	q{SELECT topics.delete_group('orders', 'billing')})
{
	my ($ret, $stdout, $stderr) = $sub->psql('postgres',
		"\\set VERBOSITY verbose\n$call");
	like($stderr,
		qr/ERROR:  55000: cannot change consumer group positions while "topics.consumer_offsets" is a logical replica/,
		"refused on the replica: $call");
}
is($sub->safe_psql('postgres', $positions_sql), $pub_positions,
	'the refused calls changed nothing');

# many commits: the publisher compacts its log by copying positions
# forward; the subscriber must not copy (it is a replica) but drops what
# those copies supersede
$pub->safe_psql('postgres', join('', map {
	"SELECT count(*) FROM topics.poll(NULL::orders, 'group$_', max_records => 1);\n" } 1 .. 20));
for my $round (1 .. 6)
{
	$pub->safe_psql('postgres', qq{
DO \$\$
BEGIN
    FOR i IN 1 .. 4000 LOOP
        PERFORM topics.commit('orders', 'group' || (1 + i % 20), (i / 20) % 4, (i * $round) % 400);
    END LOOP;
END
\$\$;
});
}
$pub->wait_for_catchup('topics_sub');
my $segments_sql = q{
SELECT count(*) FROM pg_class c WHERE c.relnamespace = 'topics_segments'::regnamespace
AND c.relname LIKE 'seg\_' || 'topics.consumer_offsets'::regclass::oid || '\_%'};
ok($pub->poll_query_until('postgres', "SELECT ($segments_sql) <= 3"),
	'the publisher compacts consumer_offsets');
ok($sub->poll_query_until('postgres', "SELECT ($segments_sql) <= 4"),
	'the subscriber\'s copy of consumer_offsets is compacted too');
$pub->wait_for_catchup('topics_sub');
$pub_positions = $pub->safe_psql('postgres', $positions_sql);
like($pub_positions, qr{group9/0/}, 'the publisher has the new groups');
is($sub->safe_psql('postgres', $positions_sql), $pub_positions,
	'after 24,000 commits and compaction on both sides the positions agree');
my $log_bounds = q{SELECT min("offset") || '-' || max("offset") FROM topics.consumer_offsets};
my ($sub_min, $sub_max, $pub_min, $pub_max);
# the publisher's worker may still copy positions forward (a compaction
# pass): compare once the subscriber has caught up with what was read
for (1 .. 60)
{
	($pub_min, $pub_max) = split /-/, $pub->safe_psql('postgres', $log_bounds);
	$pub->wait_for_catchup('topics_sub');
	($sub_min, $sub_max) = split /-/, $sub->safe_psql('postgres', $log_bounds);
	last if $sub_max eq $pub_max;
	sleep 1;
}
cmp_ok($sub_min, '>', 0, "the subscriber dropped superseded segments (its log starts at $sub_min)");
is($sub_max, $pub_max, 'the subscriber never wrote into its replica: the same last offset as the publisher');
is($sub->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('topics.consumer_offsets')}),
	'0', 'verify finds nothing wrong in the subscriber\'s consumer_offsets');

# the subscriber's log alone gives the same positions after a restart
$sub->restart;
is($sub->safe_psql('postgres', $positions_sql), $pub_positions,
	'after a restart the subscriber loads the same positions from its log');

# failover: the publisher is gone, the subscriber takes over
my $committed = $sub->safe_psql('postgres', q{
SELECT string_agg(format('%s:%s', partition, coalesce(committed_offset, 0)), ',' ORDER BY partition)
FROM topics.consumer_lag
WHERE group_name = 'billing' AND coalesce(committed_offset, 0) < high_watermark});
like($committed, qr{^1:284,2:0,3:0$}, 'billing has read partition 0 to its end and partition 1 in part');
$pub->stop;
$sub->safe_psql('postgres', q{
ALTER SUBSCRIPTION topics_sub DISABLE;
ALTER SUBSCRIPTION topics_sub SET (slot_name = NONE);
DROP SUBSCRIPTION topics_sub;
});
my $resumed = $sub->safe_psql('postgres', q{
CREATE TABLE got AS
SELECT partition, "offset" FROM topics.poll(NULL::orders, 'billing', consumer => 'c1', max_records => 100000);
SELECT string_agg(format('%s:%s', partition, first), ',' ORDER BY partition)
FROM (SELECT partition, min("offset") AS first FROM got GROUP BY partition) f;
});
is($resumed, $committed,
	'the group resumes on the subscriber at its committed offsets (earliest where it had none)');
is($sub->safe_psql('postgres', q{
SELECT count(*) FROM topics.poll(NULL::orders, 'billing', consumer => 'c1')}),
	'0', 'the resumed poll committed: the next one has nothing left');
is($sub->safe_psql('postgres', q{
SELECT count(*) = count(DISTINCT (partition, "offset")) FROM got}),
	't', 'no record came twice');
my $total_read = $sub->safe_psql('postgres', q{SELECT count(*) FROM got});
my $unread_at_failover = 0;
for my $pc (split /,/, $committed)
{
	my ($p, $c) = split /:/, $pc;
	$unread_at_failover += $sub->safe_psql('postgres',
		"SELECT count(*) FROM orders WHERE partition = $p AND \"offset\" >= $c");
}
is($total_read, $unread_at_failover,
	'the resumed poll returns every record after the committed offsets, once');

# the group is writable here now: the next commit continues the log
$sub->safe_psql('postgres', q{SELECT topics.commit('orders', 'audit', 2, 41)});
like($sub->safe_psql('postgres', $positions_sql), qr{^audit/1/1,audit/2/41,},
	'after detaching, groups commit on the subscriber');

$sub->stop;
done_testing();
