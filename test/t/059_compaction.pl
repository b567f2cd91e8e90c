# Log compaction under crashes: kill -9 of the server while topics.compact()
# rewrites segments, again and again; after each restart topics.verify()
# finds nothing, every key's newest record is at its offset with its value,
# keyless records all stay, and no record comes back or appears.  A
# physical standby (wal_consistency_checking on our resource manager and
# the full-page images) ends with the primary's log, and a standby query
# reading a segment being swapped is cancelled as for TRUNCATE.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use IPC::Run;
use Time::HiRes qw(usleep);

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
wal_consistency_checking = 'pg_topics'
wal_keep_size = '1GB'
pg_topics.worker_naptime = '200ms'
# slow enough that a kill lands in the middle of a pass (a page written
# costs 20: about 10 ms a page)
pg_topics.compaction_cost_delay = '10ms'
pg_topics.compaction_cost_limit = 20
});
$primary->start;
$primary->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('c', 1, 'text', 'text',
    configs => '{"cleanup.policy": "compact", "segment.bytes": "32768",
                 "min.cleanable.dirty.ratio": "1"}');
});

$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', qq{
max_standby_streaming_delay = '1s'
hot_standby_feedback = off
});
$standby->start;

# A round: every key of 200 gets a new version (every seventh key a large,
# TOASTed one), a few keys a tombstone, one keyless record, then the LIVE
# segment rolls so that the round is sealed and dirty.
my $round = 0;
sub produce_round
{
	$round++;
	$primary->safe_psql('postgres', qq{
SELECT count(*) FROM topics.produce_batch('c',
    (SELECT array_agg(CASE WHEN g % 7 = 0 THEN (SELECT string_agg(md5(g || ':$round:' || i), '') FROM generate_series(1, 80) i)
                           ELSE repeat('v', 100) || ':$round:' || g END) FROM generate_series(0, 199) g),
    (SELECT array_agg('k' || g) FROM generate_series(0, 199) g));
SELECT count(*) FROM topics.produce('c', NULL::text, 'k' || ($round * 13 % 200));
-- a compacted topic refuses keyless records: this one was written before
-- the policy was compact (restores and replication bring such records too)
BEGIN;
SELECT topics.alter_topic_configs('c', '{"cleanup.policy": "delete"}');
SELECT count(*) FROM topics.produce('c', 'keyless $round');
SELECT topics.alter_topic_configs('c', '{"cleanup.policy": "compact"}');
COMMIT;
SELECT count(*) FROM topics.enforce_retention('c');
});
}

# what must never go: each key's newest record, and every keyless record
my $must_keep = q{
CREATE TABLE IF NOT EXISTS must_keep ("offset" bigint, key text, value text);
TRUNCATE must_keep;
INSERT INTO must_keep
SELECT DISTINCT ON (key) "offset", key, value FROM c WHERE key IS NOT NULL ORDER BY key, "offset" DESC;
INSERT INTO must_keep SELECT "offset", key, value FROM c WHERE key IS NULL;
CREATE TABLE IF NOT EXISTS all_before ("offset" bigint, key text, value text);
TRUNCATE all_before;
INSERT INTO all_before SELECT "offset", key, value FROM c;
};
my $lost = q{SELECT count(*) FROM must_keep m WHERE NOT EXISTS
  (SELECT 1 FROM c WHERE c."offset" = m."offset" AND c.key IS NOT DISTINCT FROM m.key
   AND c.value IS NOT DISTINCT FROM m.value)};
my $strangers = q{SELECT count(*) FROM c WHERE NOT EXISTS
  (SELECT 1 FROM all_before b WHERE b."offset" = c."offset" AND b.key IS NOT DISTINCT FROM c.key
   AND b.value IS NOT DISTINCT FROM c.value)};

produce_round() for 1 .. 3;

# kill -9 while topics.compact() runs, at a different point each time
srand(59);
my $in_pass = 0;
for my $i (1 .. 6)
{
	produce_round();
	produce_round();
	$primary->safe_psql('postgres', $must_keep);
	my $before = $primary->safe_psql('postgres', 'SELECT count(*) FROM c');
	my ($harness) = start_psql_script($primary, "compact$i",
		"SELECT topics.compact('c');\n" x 3);
	usleep(int(rand(400_000)));
	kill9_server($primary);
	$harness->finish;
	# no answer from the first call: the kill came before its commit
	$in_pass++ if -z $primary->basedir . "/compact$i.out";
	$primary->start;
	is($primary->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('c')}), '0',
		"crash $i: verify finds nothing");
	is($primary->safe_psql('postgres', $lost), '0',
		"crash $i: every key's newest record and every keyless record is there");
	is($primary->safe_psql('postgres', $strangers), '0',
		"crash $i: every record is one written before, unchanged");
	my $after = $primary->safe_psql('postgres', 'SELECT count(*) FROM c');
	ok($after <= $before, "crash $i: records $before before, $after after");
}

ok($in_pass >= 2, "$in_pass of 6 kills came while topics.compact() ran");

# one pass to the end: exactly what must stay (and the last record of a
# segment all of whose records are superseded)
$primary->safe_psql('postgres', $must_keep);
my $removed = $primary->safe_psql('postgres', q{SELECT topics.compact('c')});
is($primary->safe_psql('postgres', $lost), '0', 'after a whole pass every newest record is there');
# (a record superseded only by one in the LIVE segment stays, as in Kafka)
is($primary->safe_psql('postgres', q{
SELECT count(*) FROM c o, (SELECT base_offset FROM topics.segments
                           WHERE topic = 'c'::regclass AND state = 'live') l
WHERE EXISTS (SELECT 1 FROM c n WHERE n.key = o.key AND n."offset" > o."offset"
              AND n."offset" < l.base_offset)
  AND o."offset" + 1 NOT IN (SELECT base_offset FROM topics.segments WHERE topic = 'c'::regclass)}),
	'0', 'below the LIVE segment nothing superseded is left');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('c')}), '0',
	'verify finds nothing after the whole pass');

# the standby: the same log, byte for byte, after replaying every swap
my $content = q{SELECT count(*), md5(string_agg(concat_ws('|', partition, "offset", "timestamp", key, value, headers), ',' ORDER BY "offset")) FROM c};
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', $content), $primary->safe_psql('postgres', $content),
	'the standby holds the primary\'s compacted log');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('c')}), '0',
	'verify on the standby finds nothing');
is($standby->safe_psql('postgres', q{SELECT string_agg(s.base_offset || ':' || pg_relation_filenode(s.relation), ',' ORDER BY s.base_offset) FROM topics.segments s}),
	$primary->safe_psql('postgres', q{SELECT string_agg(s.base_offset || ':' || pg_relation_filenode(s.relation), ',' ORDER BY s.base_offset) FROM topics.segments s}),
	'the standby reads the same segment files');

# a standby query holding a sealed segment while the primary swaps it: the
# swap's AccessExclusiveLock is replayed after max_standby_streaming_delay,
# cancelling the query, as for TRUNCATE
produce_round();
produce_round();
$primary->wait_for_catchup($standby);
my ($reader, $reader_out) = start_psql_script($standby, 'standby_reader', q{
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM c;
SELECT pg_sleep(30);
SELECT 'reader done';
COMMIT;
});
usleep(500_000);
$removed = $primary->safe_psql('postgres', q{SELECT topics.compact('c')});
ok($removed > 0, "the primary compacted again ($removed records)");
$primary->wait_for_catchup($standby);
$reader->finish;
my $reader_err = slurp_file($standby->basedir . '/standby_reader.err');
like($reader_err, qr/conflict with recovery/, 'the standby reader of a swapped segment was cancelled');
is($standby->safe_psql('postgres', $content), $primary->safe_psql('postgres', $content),
	'the standby caught up past the swap');

# the worker compacts on its own when the dirty ratio is exceeded
$primary->safe_psql('postgres', q{SELECT topics.alter_topic_configs('c', '{"min.cleanable.dirty.ratio": "0.5"}')});
produce_round();
produce_round();
my $worker_done = 0;
for (1 .. 300)
{
	if ($primary->safe_psql('postgres', q{SELECT dirty_ratio < 0.5 FROM topics.partitions WHERE topic = 'c'::regclass}) eq 't')
	{
		$worker_done = 1;
		last;
	}
	usleep(100_000);
}
ok($worker_done, 'the background worker compacted the dirty segments');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('c')}), '0',
	'verify finds nothing after the worker\'s pass');

$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', $content), $primary->safe_psql('postgres', $content),
	'the standby holds the worker\'s compacted log too');

$standby->stop;
$primary->stop;
done_testing();
