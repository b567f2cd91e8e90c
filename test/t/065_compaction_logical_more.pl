# Log compaction and logical replication, more of it: a chain publisher ->
# mid -> last, where mid, itself a subscriber, publishes the topics and
# passes the removals on once it has applied them; a segment losing every
# other record (more removed ranges than one XLOG_TOPIC_LOG_REMOVED record
# carries, so the cleaner logs several); and kill -9 of the subscriber
# while its worker rewrites its segments, each in a transaction of its own,
# once with a segment held by a reader, so that the crash comes between two
# segments' commits.  Each ends with the same (partition, offset, key,
# value) rows and topics.offsets() on all three servers and verify clean.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use PgTopicsTest;

my $pub = start_logical_node('publisher', '300ms');
# the walsender of a subscriber killed with -9 lets its slot go soon
$pub->append_conf('postgresql.conf', "wal_sender_timeout = '3s'");
$pub->reload;
my $mid = start_logical_node('mid', '200ms');
my $last = start_logical_node('last', '300ms');

# the same topics on every server, segmented differently: the publisher's
# cleaner runs only when asked (topics.compact)
my %segment_bytes = (publisher => [32768, 262144, 32768, 131072],
	mid => [65536, 65536, 32768, 32768], last => [4194304, 4194304, 4194304, 32768]);
for my $node ($pub, $mid, $last)
{
	my ($c, $w, $k, $e) = @{ $segment_bytes{ $node->name } };
	$node->safe_psql('postgres', qq{
SELECT topics.create_topic('c', 2, 'text', 'text',
    configs => '{"cleanup.policy": "compact", "segment.bytes": "$c",
                 "delete.retention.ms": "0", "min.cleanable.dirty.ratio": "1"}');
SELECT topics.create_topic('w', 1, 'text', 'text',
    configs => '{"cleanup.policy": "compact", "segment.bytes": "$w",
                 "min.cleanable.dirty.ratio": "1"}');
SELECT topics.create_topic('k', 2, 'text', 'text',
    configs => '{"cleanup.policy": "compact", "segment.bytes": "$k",
                 "min.cleanable.dirty.ratio": "1"}');
SELECT topics.create_topic('e', 1, 'text', 'text',
    configs => '{"cleanup.policy": "compact", "segment.bytes": "$e",
                 "min.cleanable.dirty.ratio": "1"}');
});
}

# every key of 100 a new version per round, a tombstone, a rolled-back
# batch: its offsets are gaps on every side
# (values of $width md5 strings: 40 make a value of 1280 bytes)
sub produce_round
{
	my ($topic, $round, $width) = @_;
	$width //= 3;
	$pub->safe_psql('postgres', qq{
SELECT count(*) FROM topics.produce_batch('$topic',
    (SELECT array_agg((SELECT string_agg(md5(g || ':' || i), '') FROM generate_series(1, $width) i)
                      || ':$round:' || g) FROM generate_series(0, 99) g),
    (SELECT array_agg('k' || g) FROM generate_series(0, 99) g));
SELECT count(*) FROM topics.produce('$topic', NULL::text, 'k' || ($round * 13 % 100));
BEGIN;
SELECT count(*) FROM topics.produce('$topic', 'undone', 'k1');
ROLLBACK;
});
}

sub connstr
{
	my ($node) = @_;
	my $connstr = $node->connstr('postgres');
	$connstr =~ s/'/''/g;
	return $connstr;
}

produce_round('c', $_) for 1 .. 2;
for my $node ($pub, $mid)
{
	$node->safe_psql('postgres', q{
CREATE PUBLICATION chain FOR TABLE c, w, k, e WITH (publish_via_partition_root = true)});
}
$mid->safe_psql('postgres', 'CREATE SUBSCRIPTION mid_sub CONNECTION \''
	  . connstr($pub) . '\' PUBLICATION chain');
$mid->wait_for_subscription_sync($pub, 'mid_sub');
$last->safe_psql('postgres', 'CREATE SUBSCRIPTION last_sub CONNECTION \''
	  . connstr($mid) . '\' PUBLICATION chain');
$last->wait_for_subscription_sync($mid, 'last_sub');

my %rows = map {
	$_ => qq{SELECT partition, "offset", key, md5(coalesce(value, '<null>')) FROM $_ ORDER BY 1, 2}
} qw(c w k e);
my %offsets = map { $_ => qq{SELECT * FROM topics.offsets('$_') ORDER BY 1} } qw(c w k e);

# every removal applied on mid and on last, every record arrived
sub settle
{
	my ($what) = @_;
	$pub->wait_for_catchup('mid_sub');
	ok($mid->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM topics.replica_removals}),
		"$what: mid applies the publisher's removals");
	$mid->wait_for_catchup('last_sub');
	ok($last->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM topics.replica_removals}),
		"$what: last applies the removals mid passed on");
	# the last markers, for readers on both
	$pub->wait_for_catchup('mid_sub');
	$mid->wait_for_catchup('last_sub');
}

# the same log on all three
sub same
{
	my ($topic, $what) = @_;
	my $rows = $pub->safe_psql('postgres', $rows{$topic});
	my $offsets = $pub->safe_psql('postgres', $offsets{$topic});
	for my $node ($mid, $last)
	{
		my $name = $node->name;
		is($node->safe_psql('postgres', $rows{$topic}), $rows,
			"$what: the same (partition, offset, key, value) on $name");
		is($node->safe_psql('postgres', $offsets{$topic}), $offsets,
			"$what: the same offsets() on $name");
	}
	is($_->safe_psql('postgres', qq{SELECT * FROM topics.verify('$topic')}), '',
		"$what: verify is clean on " . $_->name) for ($pub, $mid, $last);
}

# (a) the chain: what the publisher's cleaner removes, mid removes and
# logs again for last
produce_round('c', $_) for 3 .. 8;
settle('chain, before compaction');
my $before = $last->safe_psql('postgres', 'SELECT count(*) FROM c');
my $removed = $pub->safe_psql('postgres', q{SELECT topics.compact('c')});
cmp_ok($removed, '>', 300, "chain: the publisher's pass removes records ($removed)");
produce_round('c', $_) for 9 .. 10;
$removed = $pub->safe_psql('postgres', q{SELECT topics.compact('c')});
cmp_ok($removed, '>', 0, "chain: the publisher's second pass removes records ($removed)");
settle('chain');
same('c', 'chain');
cmp_ok($last->safe_psql('postgres', 'SELECT count(*) FROM c'), '<', $before,
	'chain: last holds fewer records than before the compaction');

# (b) one segment loses every other record: a key rewritten at every
# other offset, each time superseded, between records of their own keys
for my $round (1 .. 3)
{
	$pub->safe_psql('postgres', qq{
SELECT count(*) FROM topics.produce_batch('w',
    (SELECT array_agg('w:$round:' || g) FROM generate_series(1, 3000) g),
    (SELECT array_agg(CASE WHEN g % 2 = 0 THEN 'same' ELSE 'u:$round:' || g END)
       FROM generate_series(1, 3000) g));
});
}
my $first_end = $pub->safe_psql('postgres', q{
SELECT min(base_offset) FROM topics.segment_info('w') WHERE base_offset > 0 AND state <> 'spare'});
cmp_ok($first_end, '>', 1100, "many records: the first segment holds $first_end offsets");
$removed = $pub->safe_psql('postgres', q{SELECT topics.compact('w')});
my $holes = $pub->safe_psql('postgres', qq{
SELECT count(*) FROM (SELECT "offset" - lag("offset") OVER (ORDER BY "offset") AS step
                      FROM w WHERE "offset" < $first_end) s WHERE step > 1});
cmp_ok($holes, '>', 512,
	"many records: the first segment has $holes holes (more than 512 removed ranges; $removed records removed)");
settle('many removed ranges');
same('w', 'many removed ranges');

# (d) a subscriber's segment that loses every record: one applied
# transaction of 100 records of 1280 bytes spans several of mid's and
# last's 32 kB segments, and those in the middle hold no marker batch (a
# replica writes one at the end of each applied transaction); when the
# publisher removes all their records, they keep none either
produce_round('e', $_, 40) for 1 .. 3;
settle('segments emptied, before compaction');
my $marker_less = $mid->safe_psql('postgres', q{
SELECT count(*) FROM topics.segment_info('e') WHERE state = 'sealed'});
cmp_ok($marker_less, '>=', 6, "segments emptied: mid holds $marker_less sealed segments");
$removed = $pub->safe_psql('postgres', q{SELECT topics.compact('e')});
cmp_ok($removed, '>=', 150, "segments emptied: the publisher's pass removes $removed records");
settle('segments emptied');
same('e', 'segments emptied');
# readers step over the emptied segments as the publisher's do
for my $q (q{SELECT string_agg("offset"::text, ',') FROM topics.fetch(NULL::e, 0, 0)},
	q{SELECT string_agg(topics.next_offset('e', 0, o)::text, ',') FROM generate_series(0, 300, 7) o},
	q{SELECT "offset" FROM topics.offsets_for_times('e', '-infinity')})
{
	my $want = $pub->safe_psql('postgres', $q);
	is($_->safe_psql('postgres', $q), $want,
		'segments emptied: ' . (split /\(/, $q)[0] . '... the same on ' . $_->name)
	  for ($mid, $last);
}

# (c) kill -9 of mid while its worker rewrites segments, a few times: the
# postmaster and every child at once, gone before the restart
sub crash_mid
{
	kill9_server($mid);
	$mid->start;
}

my $count_k = q{SELECT count(*) FROM k};
my $kills_pending = 0;
for my $round (1 .. 4)
{
	produce_round('k', 10 * $round + $_, 40) for 1 .. 4;
	$pub->wait_for_catchup('mid_sub');
	$pub->safe_psql('postgres', q{SELECT topics.compact('k')});
	# the crash comes anywhere from before the removals arrive to after
	# mid's pass (a round every 200 ms; a pass is short: the held segment
	# below makes sure of a crash inside one)
	usleep(int(rand(400_000)));
	crash_mid();
	# still there after the restart: the crash came before the pass's end
	$kills_pending++
	  if $mid->safe_psql('postgres', 'SELECT count(*) FROM topics.replica_removals') > 0;
}
note("$kills_pending of 4 kills came before mid's pass ended");

# and three times between two segments' commits: a reader holds one of
# mid's sealed segments, so the worker rewrites the others, commits them,
# and leaves the row; the crash comes then, and the next round finishes
for my $i (1 .. 3)
{
	my $first = 100 * $i + 1;
	produce_round('k', 100 * $i + $_, 40) for 1 .. 4;
	$pub->wait_for_catchup('mid_sub');
	ok($mid->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM topics.replica_removals}),
		"held $i: nothing pending before");
	# the segment holding the first records of round $first, which the
	# later rounds supersede
	my $held = $mid->safe_psql('postgres', qq{
SELECT relation FROM topics.segment_info('k')
WHERE partition = 0 AND state = 'sealed'
  AND base_offset <= (SELECT min("offset") FROM k WHERE partition = 0 AND value LIKE '%:$first:%')
ORDER BY base_offset DESC LIMIT 1});
	isnt($held, '', "held $i: a sealed segment holds round $first");
	my $reader = $mid->background_psql('postgres');
	$reader->query_safe("BEGIN; LOCK TABLE $held IN ACCESS SHARE MODE");
	my $mid_before = $mid->safe_psql('postgres', $count_k);
	$pub->safe_psql('postgres', q{SELECT topics.compact('k')});
	$pub->wait_for_catchup('mid_sub');
	ok($mid->poll_query_until('postgres',
		qq{SELECT count(*) < $mid_before FROM k}),
		"held $i: mid rewrote the segments no one holds");
	ok($mid->poll_query_until('postgres',
		q{SELECT count(*) = 1 FROM topics.replica_removals}),
		"held $i: the removals of the held partition stay");
	crash_mid();
	eval { $reader->quit };
	ok($mid->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM topics.replica_removals}),
		"held $i: after the crash, the next round finishes");
	is($mid->safe_psql('postgres', q{SELECT * FROM topics.verify('k')}), '',
		"held $i: verify is clean on mid");
}
settle('kill -9');
same('k', 'kill -9');

done_testing();
