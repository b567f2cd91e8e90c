# Log compaction and logical replication: the publisher's cleaner ships the
# offsets it removed, and a subscriber removes the same records from its own
# segments (laid out differently: larger segments, so that the removed
# records sit in its LIVE segment, and out of offset order where a
# transaction committed after a later one), TOASTed values included.  After
# catch-up both show the same (partition, offset, key, value) rows and the
# same topics.offsets(), and verify is clean on both.  The subscriber's
# topic is compacted by policy too, and its own worker leaves the replica
# alone: it removes only what the publisher removed.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $pub = start_logical_node('publisher', '300ms');
my $sub = start_logical_node('subscriber', '300ms');

$pub->safe_psql('postgres', q{
SELECT topics.create_topic('c', 2, 'text', 'text',
    configs => '{"cleanup.policy": "compact", "segment.bytes": "32768",
                 "delete.retention.ms": "0", "min.cleanable.dirty.ratio": "1"}');
});
# a compacted topic whose own policy would clean it at once, were it not a
# replica; segments 128 times the publisher's
$sub->safe_psql('postgres', q{
SELECT topics.create_topic('c', 2, 'text', 'text',
    configs => '{"cleanup.policy": "compact", "segment.bytes": "4194304",
                 "delete.retention.ms": "0", "min.cleanable.dirty.ratio": "0.01"}');
});

# every key of 100 a new version per round (every seventh a TOASTed one),
# a tombstone, and a rolled-back batch: its offsets are gaps on both sides
my $round = 0;
sub produce_round
{
	$round++;
	$pub->safe_psql('postgres', qq{
SELECT count(*) FROM topics.produce_batch('c',
    (SELECT array_agg(CASE WHEN g % 7 = 0 THEN (SELECT string_agg(md5(g || ':$round:' || i), '') FROM generate_series(1, 80) i)
                           ELSE repeat('v', 100) || ':$round:' || g END) FROM generate_series(0, 99) g),
    (SELECT array_agg('k' || g) FROM generate_series(0, 99) g));
SELECT count(*) FROM topics.produce('c', NULL::text, 'k' || ($round * 13 % 100));
BEGIN;
SELECT count(*) FROM topics.produce('c', 'undone', 'k1');
ROLLBACK;
});
}

# records before the subscription come with the initial copy
produce_round() for 1 .. 3;

$pub->safe_psql('postgres', q{
CREATE PUBLICATION c_pub FOR TABLE c WITH (publish_via_partition_root = true)});
my $connstr = $pub->connstr('postgres');
$connstr =~ s/'/''/g;
$sub->safe_psql('postgres',
	qq{CREATE SUBSCRIPTION c_sub CONNECTION '$connstr' PUBLICATION c_pub});
$sub->wait_for_subscription_sync($pub, 'c_sub');

produce_round() for 4 .. 9;
# out of offset order on the subscriber: A takes a lower offset and commits
# after B, so the subscriber's segment is unordered; B supersedes A's key
# (two records of one partition in one batch: the first one is never the
# last record of its segment, which the publisher's cleaner would keep)
my $k2 = $pub->safe_psql('postgres', q{
SELECT key FROM c WHERE partition = (SELECT partition FROM c WHERE key = 'k5' LIMIT 1)
  AND key <> 'k5' LIMIT 1});
my $a = $pub->background_psql('postgres');
$a->query_safe(qq{BEGIN; SELECT count(*) FROM topics.produce_batch('c', ARRAY['late', 'late too'], ARRAY['k5', '$k2']);});
produce_round();
$a->query_safe('COMMIT');
$a->quit;
$pub->wait_for_catchup('c_sub');
is($sub->safe_psql('postgres', q{SELECT count(*) FROM c WHERE value = 'late'}), '1',
	'the late record reached the subscriber after the records above it');

my $rows = q{SELECT partition, "offset", key, md5(coalesce(value, '<null>')) FROM c ORDER BY 1, 2};
my $offsets = q{SELECT * FROM topics.offsets('c') ORDER BY 1};

# the replica is not compacted by its own worker, whatever its policy says
$sub->safe_psql('postgres', q{SELECT pg_sleep(1.5)});
is($sub->safe_psql('postgres', $rows), $pub->safe_psql('postgres', $rows),
	'before compaction: the same records on both sides');
is($sub->safe_psql('postgres', 'SELECT count(*) FROM topics.replica_removals'), '0',
	'nothing to remove on the subscriber before the publisher compacts');

# the subscriber's larger segments: each partition's records are all in
# its LIVE segment, which must roll before they can be removed
my $sealed = q{SELECT count(*) FROM topics.segment_info('c') WHERE state = 'sealed'};
is($sub->safe_psql('postgres', $sealed), '0', 'no sealed segment on the subscriber yet');
cmp_ok($pub->safe_psql('postgres', $sealed), '>', 4, 'sealed segments on the publisher');
# min.cleanable.dirty.ratio 1: as in Kafka, the publisher's worker does not
# compact on its own (more than the whole sealed log would have to be
# dirty), so that the removals below are topics.compact()'s
is($pub->safe_psql('postgres', q{
SELECT count(*) FROM topics.compaction_info('c') WHERE last_compaction IS NOT NULL}), '0',
	"at min.cleanable.dirty.ratio 1 the publisher's worker leaves its log alone");

# compact on the publisher, twice (the second pass takes the tombstones
# the first one kept, now that delete.retention.ms has passed)
my $removed = $pub->safe_psql('postgres', q{SELECT topics.compact('c')});
cmp_ok($removed, '>', 500, "the publisher's first pass removes records ($removed)");
produce_round() for 11 .. 13;
$removed = $pub->safe_psql('postgres', q{SELECT topics.compact('c')});
cmp_ok($removed, '>', 0, "the publisher's second pass removes records ($removed)");
$pub->wait_for_catchup('c_sub');

ok($sub->poll_query_until('postgres',
	q{SELECT count(*) = 0 FROM topics.replica_removals}),
	"the subscriber's worker applies the publisher's removals");
# readers see the same log once the last marker arrived
$pub->wait_for_catchup('c_sub');
is($sub->safe_psql('postgres', $rows), $pub->safe_psql('postgres', $rows),
	'after compaction: the same (partition, offset, key, value) on both sides');
is($sub->safe_psql('postgres', $offsets), $pub->safe_psql('postgres', $offsets),
	'the same log start, high watermark and last stable offset');
is($sub->safe_psql('postgres',
		q{SELECT string_agg(partition || ':' || "offset", ',' ORDER BY partition, "offset")
		  FROM (SELECT * FROM topics.fetch(NULL::c, 0, 0, 100000)
		        UNION ALL SELECT * FROM topics.fetch(NULL::c, 1, 0, 100000)) f}),
	$pub->safe_psql('postgres',
		q{SELECT string_agg(partition || ':' || "offset", ',' ORDER BY partition, "offset")
		  FROM (SELECT * FROM topics.fetch(NULL::c, 0, 0, 100000)
		        UNION ALL SELECT * FROM topics.fetch(NULL::c, 1, 0, 100000)) f}),
	'fetch returns the same offsets on both sides');
is($pub->safe_psql('postgres', q{SELECT count(*) FROM c WHERE value = 'late'}), '0',
	'the publisher removed the superseded late record');
is($sub->safe_psql('postgres', q{SELECT count(*) FROM c WHERE value = 'late'}), '0',
	'the subscriber removed it from its unordered segment');
cmp_ok($sub->safe_psql('postgres', q{SELECT count(*) FROM c}), '<',
	200 * 13, 'the subscriber holds fewer records than were produced');
cmp_ok($sub->safe_psql('postgres', $sealed), '>=', 2,
	"the subscriber's LIVE segments rolled to be rewritten");
is($pub->safe_psql('postgres', q{SELECT * FROM topics.verify('c')}), '',
	'verify is clean on the publisher');
is($sub->safe_psql('postgres', q{SELECT * FROM topics.verify('c')}), '',
	'verify is clean on the subscriber');

# the TOAST values of the removed records went too: what is left of the
# segments' TOAST tables is what the kept records point to
$sub->safe_psql('postgres', q{VACUUM});
is($sub->safe_psql('postgres', q{SELECT count(*) FROM c WHERE length(value) > 2000}),
	$pub->safe_psql('postgres', q{SELECT count(*) FROM c WHERE length(value) > 2000}),
	'the same TOASTed values on both sides');

# records produced after the compaction still arrive, at their offsets
produce_round();
$pub->wait_for_catchup('c_sub');
ok($sub->poll_query_until('postgres',
	qq{SELECT count(*) = 0 FROM topics.replica_removals}), 'nothing left to remove');
is($sub->safe_psql('postgres', $rows), $pub->safe_psql('postgres', $rows),
	'records after the compaction arrive at their offsets');

# the removals of a partition that is gone (dropped with its topic) go too
$sub->safe_psql('postgres', q{
INSERT INTO topics.replica_removals VALUES (4000000000::oid::regclass, '{[1,2)}')});
ok($sub->poll_query_until('postgres',
	q{SELECT count(*) = 0 FROM topics.replica_removals}),
	'the removals of a dropped partition are forgotten');

done_testing();
