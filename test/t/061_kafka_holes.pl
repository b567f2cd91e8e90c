# Readers step over holes, offsets no record holds: inside a batch (its
# records carry offset deltas), between batches, pages and segments,
# wider than a Kafka batch's 32-bit offset deltas, and rolled back at the
# end before the last stable offset.  Holes are made as a restore makes
# them (preserve mode), as compaction will.  Checked against what SQL sees:
# fetch, next_offset and offsets_for_times from every offset, then Kafka
# clients (kafka-python 2.0.2 at Fetch v4+ and at 0.10's Fetch v2 of magic
# 1 messages, confluent-kafka on librdkafka) reading from offsets inside
# each kind of hole, the record batches and message sets Fetch answers at
# every version, and ListOffsets by time.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('kafka_holes');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport));
$node->start;
wait_for_kafka_listener($kport);

# segments of 4 pages, so that the records below fill several
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('holes', 1, 'text', 'text', configs => '{"segment.bytes": "32768"}');
CREATE FUNCTION ts(o bigint) RETURNS timestamptz LANGUAGE sql IMMUTABLE
    AS $$SELECT '2026-01-01 00:00:00+00'::timestamptz + least(o, 100000) * interval '1 second'$$;
});
# a roll needs a spare segment, which the worker makes
sub wait_for_spare
{
	$node->poll_query_until('postgres',
		q{SELECT count(*) > 0 FROM topics.segment_info('holes') WHERE state = 'spare'})
	  or die 'no spare segment';
}
wait_for_spare();

sub restore
{
	my ($offsets, $value) = @_;
	$node->safe_psql('postgres', qq{
SET session_replication_role = replica;
INSERT INTO holes (partition, "offset", "timestamp", key, value)
SELECT 0, o, ts(o), 'k' || o, $value FROM unnest($offsets) o;});
}

# one batch with holes inside (0, 1, 5, 9); a hole between batches (10..19)
restore('ARRAY[0, 1, 5, 9]::bigint[]', q{'v' || o});
restore('ARRAY[20, 21, 30]::bigint[]', q{'v' || o});
# every third offset over two segments' pages; then, after the roll, the
# next segment starts (its base offset) inside a hole
restore('(SELECT array_agg(100 + 3 * i) FROM generate_series(0, 299) i)::bigint[]',
	q{repeat('x', 200)});
wait_for_spare();
restore('ARRAY[1200, 1201]::bigint[]', q{'v' || o});
# rolled-back offsets, a hole of more than 2^31 offsets, and a rolled-back
# tail before the last stable offset
$node->safe_psql('postgres', q{
SET session_replication_role = replica;
BEGIN;
INSERT INTO holes (partition, "offset", "timestamp", key, value)
SELECT 0, o, ts(o), 'gone', 'gone' FROM unnest(ARRAY[1202, 1203]) o;
ROLLBACK;});
restore('ARRAY[3000000000, 3000000001]::bigint[]', q{'v' || o});
$node->safe_psql('postgres', q{
BEGIN; INSERT INTO holes (key, value) VALUES ('gone', 'c'), ('gone', 'd'), ('gone', 'e'); ROLLBACK;});

my $hw = $node->safe_psql('postgres',
	q{SELECT high_watermark || '|' || last_stable_offset FROM topics.offsets('holes')});
is($hw, '3000000005|3000000005', 'the high watermark and last stable offset are past the rolled-back tail');
$hw = 3000000005;
my @segs = split /\n/, $node->safe_psql('postgres', q{
SELECT base_offset FROM topics.segment_info('holes') WHERE state IN ('sealed', 'live')
ORDER BY segment});
cmp_ok(scalar(@segs), '>=', 2, 'the log holds several segments (' . join(',', @segs) . ')');
my $seg_base = $segs[1];
is($node->safe_psql('postgres', qq{SELECT count(*) FROM holes WHERE "offset" = $seg_base}), '0',
	"the second segment starts inside a hole ($seg_base)");
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('holes')}), '0',
	'verify accepts the holes');

my @truth = split /\n/, $node->safe_psql('postgres',
	q{SELECT "offset" FROM holes ORDER BY "offset"});
sub from
{
	my ($start) = @_;
	return [ grep { $_ >= $start } @truth ];
}

# ---- SQL readers, from every offset of the small ones and each hole kind
my $wrong = $node->safe_psql('postgres', qq{
WITH f AS (SELECT f FROM generate_series(0, 1205) f
           UNION ALL SELECT unnest(ARRAY[1206, 2000, 2999999999, 3000000000, 3000000001,
                                         3000000002, 3000000004, 3000000005]::bigint[])),
     t AS (SELECT f, (SELECT min("offset") FROM holes WHERE "offset" >= f) AS next FROM f)
SELECT count(*) FILTER (WHERE next IS DISTINCT FROM
                        (SELECT min("offset") FROM topics.fetch(NULL::holes, 0, f, 1))),
       count(*) FILTER (WHERE coalesce(next, $hw) <> topics.next_offset('holes', 0, f)),
       count(*) FILTER (WHERE f NOT IN (1202, 1203) AND
                        (SELECT min("offset") FROM holes WHERE "timestamp" >= ts(f)) IS DISTINCT FROM
                        (SELECT "offset" FROM topics.offsets_for_times('holes', ts(f)))),
       count(*) FILTER (WHERE (SELECT count(*) FROM holes WHERE "offset" >= f AND "offset" < f + 40)
                           <> (SELECT count(*) FROM holes WHERE "offset" + 0 >= f AND "offset" + 0 < f + 40))
FROM t});
is($wrong, '0|0|0|0',
	'fetch, next_offset, offsets_for_times and offset seeks from each offset find the next record');
is($node->safe_psql('postgres', q{
WITH RECURSIVE r(pos, n) AS (
    SELECT 0::bigint, 0
    UNION ALL
    SELECT coalesce((SELECT max("offset") + 1 FROM topics.fetch(NULL::holes, 0, r.pos, 13)),
                    topics.next_offset('holes', 0, r.pos)), r.n + 1
    FROM r WHERE r.pos < 3000000005)
SELECT max(pos), max(n) FROM r}), '3000000005|25',
	'fetch in steps of 13 records reads through every hole to the high watermark');

# ---- Kafka clients from offsets inside each kind of hole
my %starts = (
	'inside a batch' => 2,
	'between batches' => 10,
	'between pages' => 101,
	'at a segment boundary' => $seg_base,
	'in rolled-back offsets' => 1202,
	'inside a hole wider than 2^31' => 2000,
	'at the last record' => 3000000001);
for my $kind (sort { $starts{$a} <=> $starts{$b} } keys %starts)
{
	my $start = $starts{$kind};
	my $kp = kafka_script('holes.py', $bootstrap, 'kp_read', 'holes', $start, $hw);
	is_deeply($kp, { offsets => from($start), position => $hw },
		"kafka-python from $start ($kind): every record after it, and on to the end");
	my $ck = kafka_script('holes.py', $bootstrap, 'ck_read', 'holes', $start);
	delete $ck->{position};		# the last record's, not where it fetches
	is_deeply($ck, { offsets => from($start), eof => $hw },
		"confluent-kafka from $start ($kind): every record after it, and the end of the partition");
}
# in the rolled-back tail, a consumer moves to the last stable offset (a
# batch without records: kafka-python 2.0.2 fails on one, its bug #2132)
my $ck = kafka_script('holes.py', $bootstrap, 'ck_read', 'holes', 3000000003);
is_deeply([ $ck->{offsets}, $ck->{eof} ], [ [], $hw ],
	'confluent-kafka in the rolled-back tail reaches the end of the partition');

# ---- what Fetch answers: one batch from the fetch offset, its records
# at their offsets, its lastOffsetDelta reaching where the reader stopped
for my $version (4, 11, 12)
{
	my $answer = kafka_script('holes.py', $bootstrap, 'batches', $version, 'holes', 2);
	is_deeply($answer->{batches}, [ [ 2, 2147483647, [ grep { $_ < 2147483650 } @{ from(2) } ] ] ],
		"Fetch v$version at 2: a batch based at 2 with the records after it, as far as 32-bit deltas reach");
}
my $answer = kafka_script('holes.py', $bootstrap, 'batches', 4, 'holes', 1300);
is_deeply($answer->{batches}, [ [ 3000000000, 4, [ 3000000000, 3000000001 ] ] ],
	'Fetch in a hole wider than 2^31: the batch starts at the next record, and reaches past the rolled-back tail');
$answer = kafka_script('holes.py', $bootstrap, 'batches', 4, 'holes', 3000000002);
is_deeply($answer->{batches}, [ [ 3000000002, 2, [] ] ],
	'Fetch in the rolled-back tail: a batch without records up to the last stable offset');

# the old formats carry each message's offset; below only rolled-back
# offsets they answer nothing (a consumer of them waits for a record)
for my $version (0 .. 3)
{
	$answer = kafka_script('holes.py', $bootstrap, 'batches', $version, 'holes', 2);
	is_deeply([ map { $_->[0] } @{ $answer->{batches} } ], from(2),
		"Fetch v$version at 2: a message per record, at its offset");
	$answer = kafka_script('holes.py', $bootstrap, 'batches', $version, 'holes', 3000000002);
	is_deeply($answer->{batches}, [], "Fetch v$version in the rolled-back tail: no messages");
}
is_deeply(kafka_script('holes.py', $bootstrap, 'kp_read', 'holes', 2, 3000000002, '0.10'),
	{ offsets => from(2), position => 3000000002 },
	'kafka-python as a 0.10 client (Fetch v2, magic 1) from a hole: every record, up to the last');

# ---- ListOffsets by time: a time inside a hole finds the next record
# (rolled-back records count, as aborted ones do in Kafka's time index:
# SQL's offsets_for_times above was checked outside them)
my %times = (2 => 5, 10 => 20, 31 => 100, 1205 => 3000000000);
my @ms = map { 1767225600000 + 1000 * $_ } sort { $a <=> $b } keys %times;
my @want = map { $times{$_} } sort { $a <=> $b } keys %times;
my $kt = kafka_script('holes.py', $bootstrap, 'kp_times', 'holes', @ms);
is_deeply([ map { $_->[0] } @$kt ], \@want, 'kafka-python offsets_for_times in holes: the next record');
is_deeply(kafka_script('holes.py', $bootstrap, 'ck_times', 'holes', @ms), \@want,
	'confluent-kafka offsets_for_times in holes: the next record');

$node->stop;
done_testing();
