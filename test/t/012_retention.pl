# Retention: old records leave whole segments at a time, by bytes, by time
# and on request, while producers and readers keep going; readers never
# see a torn or missing record inside the retained range; the disk space
# (TOAST included) goes back to the filesystem; a crash in the middle of a
# segment drop leaves a consistent log that the worker finishes cleaning.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use IPC::Run;
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('retention');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
pg_topics.worker_naptime = '200ms'
pg_topics.segment_size = '64kB'
# enough buffers for a fetch to keep pages pinned (tests default to 1MB)
shared_buffers = '32MB'
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('bybytes', 1, 'text', 'text', retention_bytes => 400000);
SELECT topics.create_topic('bytime', 1, 'text', 'text', retention => '2 seconds');
SELECT topics.create_topic('manual', 1, 'text', 'bytea');
});

sub segments_of
{
	my ($partition) = @_;
	return $node->safe_psql('postgres', qq{
SELECT count(*) FROM pg_class WHERE relnamespace = 'topics_segments'::regnamespace
AND relname LIKE 'seg\\_' || '$partition'::regclass::oid || '\\_%'});
}

# --- by bytes, under concurrent produce and fetch ---
# one producer: offsets are dense, and record n has key 'k<n>' and a
# 300-byte value derived from n, so a reader can check every record
my ($position, $read, $jumps, $bad) = (0, 0, 0, '');
for my $round (1 .. 40)
{
	$node->safe_psql('postgres', qq{
SELECT count(*) FROM topics.produce_batch('bybytes',
	(SELECT array_agg(repeat(md5(g::text), 10)) FROM generate_series(($round - 1) * 250, $round * 250 - 1) g),
	(SELECT array_agg('k' || g) FROM generate_series(($round - 1) * 250, $round * 250 - 1) g))});
	# a slow reader: retention passes it now and then
	next if $round % 4 != 0;
	# as a consumer does: a read that retention overtook (between looking
	# at the log start and fetching) starts again from the new log start
	my $rows;
	for my $attempt (1 .. 5)
	{
		my $start = $node->safe_psql('postgres',
			q{SELECT log_start_offset FROM topics.offsets('bybytes')});
		if ($position < $start) { $position = $start; $jumps++; }
		my ($ret, $err);
		($ret, $rows, $err) = $node->psql('postgres', qq{
SELECT "offset", key, value = repeat(md5("offset"::text), 10)
FROM topics.fetch(NULL::bybytes, 0, $position, 600)});
		last if $ret == 0;
		die "fetch failed: $err" unless $err =~ /is out of range for partition 0/;
	}
	for my $line (split /\n/, $rows)
	{
		my ($offset, $key, $ok) = split /\|/, $line;
		$bad .= "offset $offset read at position $position; " if $offset != $position;
		$bad .= "offset $offset has key $key; " if $key ne "k$offset";
		$bad .= "offset $offset has a torn value; " if $ok ne 't';
		$position = $offset + 1;
		$read++;
	}
}
continue
{
	usleep(50_000);
}
is($bad, '', "readers saw every retained record, intact and in order ($read reads)");
cmp_ok($jumps, '>', 0, "retention passed the slow reader ($jumps times), which went on from the log start");

ok($node->poll_query_until('postgres', q{
SELECT log_start_offset > 5000 FROM topics.offsets('bybytes')}),
	'the worker moved the log start as the partition outgrew retention_bytes');
my ($bytes, $start, $hw) = split /\|/, $node->safe_psql('postgres', q{
SELECT p.bytes, o.log_start_offset, o.high_watermark FROM topics.partitions p, topics.offsets('bybytes') o
WHERE p.topic = 'bybytes'::regclass});
cmp_ok($bytes, '<', 400000 + 3 * 100 * 1024,
	"the partition keeps about retention_bytes plus a segment ($bytes bytes)");
is($hw, 10000, 'nothing produced was lost at the end of the log');
# (the worker may still be moving the log start: compare in one statement)
ok($node->poll_query_until('postgres', q{
SELECT min("offset") = (SELECT log_start_offset FROM topics.offsets('bybytes')) FROM bybytes}),
	'SQL sees the log from its start');
my ($ret, $out, $err) = $node->psql('postgres', q{SELECT * FROM topics.fetch(NULL::bybytes, 0, 0)});
like($err, qr/offset 0 is out of range for partition 0 of topic "bybytes"/,
	'fetch below the log start fails with the out-of-range error');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('bybytes')}), '0',
	'verify finds nothing after retention');

# --- by bytes, with large values: one call of 100 values of 10 kB (TOAST
# holds nearly all of the bytes), and nothing produced afterwards: the
# call goes on in new segments as each fills, the worker rolls the last one
# by its size on disk, and retention applies with no produce to notice ---
$node->safe_psql('postgres', q{SELECT topics.create_topic('large', 1, 'text', 'bytea', retention_bytes => 300000)});
$node->safe_psql('postgres', q{
SELECT count(*) FROM topics.produce_batch('large',
	(SELECT array_agg((SELECT string_agg(decode(md5(g || ':' || i), 'hex'), ''::bytea) FROM generate_series(1, 640) i))
	 FROM generate_series(1, 100) g))});
ok($node->poll_query_until('postgres', q{
SELECT log_start_offset > 0 AND bytes < 300000 + 2 * 100 * 1024 FROM topics.partitions WHERE topic = 'large'::regclass}),
	'retention_bytes applies to large values produced in one call, without a later produce');
my ($large_bytes, $large_segments) = split /\|/, $node->safe_psql('postgres', q{
SELECT p.bytes, (SELECT count(*) FROM pg_class c WHERE c.relnamespace = 'topics_segments'::regnamespace
	AND c.relname LIKE 'seg\_' || 'large_p0'::regclass::oid || '\_%')
FROM topics.partitions p WHERE p.topic = 'large'::regclass});
note "large: $large_bytes bytes in $large_segments segments";
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('large')}), '0',
	'verify accepts a call spread over several segments');
is($node->safe_psql('postgres', q{
SELECT count(*) = (SELECT high_watermark - log_start_offset FROM topics.offsets('large'))
	AND bool_and(length(value) = 10240) FROM large}), 't',
	'every record above the log start is there, whole');

# --- truly concurrent: two producers, segments rolling, retention and a
# reader all at once; then a crash in the middle of it ---
$node->safe_psql('postgres', q{SELECT topics.create_topic('busy', 1, 'text', 'text', retention_bytes => 300000)});
my $produce = $node->basedir . '/produce.sql';
open my $pf, '>', $produce or die;
print $pf "SELECT count(*) FROM (SELECT 'c' || random() AS k FROM generate_series(1, 100)) s, "
  . "LATERAL topics.produce('busy', repeat(md5(s.k), 10), s.k) p;\n";
close $pf;

# $rate: transactions per second of the two producers together (0: as fast as they go)
sub start_producers
{
	my ($secs, $rate) = @_;
	return IPC::Run::start(
		[ 'pgbench', '-n', '-f', $produce, '-c', '2', '-T', $secs,
		  ($rate ? ('-R', $rate) : ()),
		  '-h', $node->host, '-p', $node->port, 'postgres' ],
		'>', \my $o, '2>', \my $e);
}

# 3,000 records a second: the reader (a psql per read of at most 100 records)
# falls behind, and jumps to the log start when retention passes it
my $producers = start_producers(6, 30);
my ($cpos, $cread, $cjumps, $cbad) = (0, 0, 0, '');
my $deadline = time + 5.5;
# (on a loaded machine a psql call takes longer: read on until the reader
# has read enough to show it reads between jumps, within 20 s more)
while (time < $deadline || ($cread <= 200 && time < $deadline + 20))
{
	my ($r, $rows, $e) = $node->psql('postgres', qq{
SELECT "offset", value = repeat(md5(key), 10) FROM topics.fetch(NULL::busy, 0, $cpos, 100)});
	if ($e =~ /out of range/)
	{
		$cpos = $node->safe_psql('postgres', q{SELECT log_start_offset FROM topics.offsets('busy')});
		$cjumps++;
		next;
	}
	$cbad .= "fetch failed: $e; " if $r != 0;
	for my $line (split /\n/, $rows)
	{
		my ($offset, $ok) = split /\|/, $line;
		$cbad .= "offset $offset read at position $cpos; " if $offset != $cpos;
		$cbad .= "offset $offset is torn; " if $ok ne 't';
		$cpos = $offset + 1;
		$cread++;
	}
	usleep(20_000);
}
$producers->finish;
is($cbad, '', "with two producers, rolling segments and retention, a reader got every record in order ($cread reads, $cjumps jumps)");
cmp_ok($cread, '>', 200, 'the reader read between its jumps');
ok($node->poll_query_until('postgres', q{SELECT log_start_offset > 0 FROM topics.offsets('busy')}),
	'retention kept up with the producers');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('busy')}), '0', 'verify finds nothing');

$producers = start_producers(30, 0);
sleep 2;
$node->stop('immediate');
$producers->kill_kill;
$node->start;
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('busy')}), '0',
	'after a crash during produce, rolls and retention, verify finds nothing');
my ($n, $distinct, $lo, $hi, $start_after, $hw_after) = split /\|/, $node->safe_psql('postgres', q{
SELECT count(*), count(DISTINCT "offset"), min("offset"), max("offset"), o.log_start_offset, o.high_watermark
FROM busy, topics.offsets('busy') o GROUP BY o.log_start_offset, o.high_watermark});
is($distinct, $n, 'no offset is used twice');
cmp_ok($lo, '>=', $start_after, 'no record below the log start is visible');
cmp_ok($hi, '<', $hw_after, 'every record is below the high watermark');
is($node->safe_psql('postgres', q{SELECT count(*) FROM busy WHERE value <> repeat(md5(key), 10)}), '0',
	'no record is torn');
$node->safe_psql('postgres', q{SELECT count(*) FROM topics.produce('busy', 'after the crash')});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM topics.verify('busy')}),
	'producing goes on after the crash');

# --- by time ---
my $produced_at = time;
$node->safe_psql('postgres', q{SELECT count(*) FROM topics.produce_batch('bytime', ARRAY['old1', 'old2', 'old3'])});
# nobody produces: the worker rolls the idle LIVE segment (after a quarter
# of the retention) and drops it once its newest record is old enough
ok($node->poll_query_until('postgres', q{SELECT log_start_offset = 3 FROM topics.offsets('bytime')}),
	'records older than the retention leave with their segment, even in an idle topic');
# the documented bound: retention + a quarter of it + two worker rounds
# (2 s + 0.5 s + 0.4 s here), with room for a slow machine
my $gone_after = time - $produced_at;
cmp_ok($gone_after, '<', 2 + 0.5 + 0.4 + 15,
	sprintf('they left within the bound, with room for a busy machine (%.1f s after they were produced)', $gone_after));
is($node->safe_psql('postgres', q{SELECT count(*) FROM bytime}), '0', 'none of them is left');
# a record behind an empty LIVE segment, on a topic whose retention leaves
# the checks time (on 'bytime' it would be gone 2 s after it came)
$node->safe_psql('postgres', q{
SELECT topics.create_topic('bytime_slow', 1, 'text', 'text', retention => '20 seconds');
SELECT topics.produce('bytime_slow', 'new');
});
ok($node->poll_query_until('postgres', q{
SELECT count(*) > 0 FROM topics.segments WHERE topic = 'bytime_slow'::regclass AND state = 'sealed'}),
	'the worker seals the idle segment that holds the record');
is($node->safe_psql('postgres', q{
SELECT string_agg(value, ',') FROM bytime_slow;
SELECT string_agg(value, ',') FROM topics.poll(NULL::bytime_slow, 'g');}), "new
new",
	'only the recent record is left, a scan steps over the empty LIVE segment, and a new group starts at the log start (auto_offset_reset = earliest)');

# --- on request, with TOAST, and the disk space returned ---
$node->safe_psql('postgres', q{
SELECT count(*) FROM topics.produce_batch('manual',
	(SELECT array_agg((SELECT string_agg(decode(md5(g || ':' || i), 'hex'), ''::bytea) FROM generate_series(1, 12000) i))
	 FROM generate_series(1, 10) g));
SELECT count(*) FROM topics.produce_batch('manual', (SELECT array_agg('\x00'::bytea) FROM generate_series(1, 10)));
});
# each call went to the LIVE segment; make the next one roll
$node->safe_psql('postgres', q{SELECT count(*) FROM topics.produce_batch('manual', (SELECT array_agg('\x01'::bytea) FROM generate_series(1, 3000)))});
ok($node->poll_query_until('postgres', q{SELECT count(*) > 0 FROM pg_class WHERE relnamespace = 'topics_segments'::regnamespace}),
	'segments exist');
my $files = $node->safe_psql('postgres', q{
SELECT string_agg(pg_relation_filepath(c.oid) || ' ' || pg_relation_filepath(c.reltoastrelid), ' ')
FROM pg_class c WHERE c.relnamespace = 'topics_segments'::regnamespace
AND c.relname LIKE 'seg\_' || 'manual_p0'::regclass::oid || '\_0'});
my @files = map { $node->data_dir . "/$_" } split / /, $files;
my $disk_before = 0;
$disk_before += -s $_ for grep { -e $_ } @files;
# (a call goes on in the next segment once its segment is full: the first
# one holds the first large value, 192 kB, in its TOAST table)
cmp_ok($disk_before, '>', 150_000, "the first segment holds a large value, TOAST included ($disk_before bytes)");

is($node->safe_psql('postgres', q{SELECT topics.delete_records('manual', 0, 15)}), '15',
	'delete_records returns the new log start');
is($node->safe_psql('postgres', q{SELECT min("offset") || '/' || count(*) FROM manual}), '15/3005',
	'records below the new log start are gone at once, the rest stay');
ok($node->poll_query_until('postgres', q{SELECT log_start_offset = 15 FROM topics.offsets('manual')}),
	'the log start is where delete_records put it');
$node->safe_psql('postgres', q{SELECT topics.delete_records('manual', 0, 20)});
ok($node->poll_query_until('postgres', qq{
SELECT count(*) = 0 FROM pg_class WHERE relnamespace = 'topics_segments'::regnamespace
AND relname = 'seg_' || 'manual_p0'::regclass::oid || '_0'}),
	'the segment wholly below the log start is dropped');
# the catalog row goes at the worker's commit, the files right after it
for (1 .. 300)
{
	last unless grep { -e $_ && -s $_ > 0 } @files;
	usleep(100_000);
}
my @left = grep { -e $_ && -s $_ > 0 } @files;
is(scalar(@left), 0, 'its files, TOAST included, are gone from the filesystem');

($ret, $out, $err) = $node->psql('postgres', q{SELECT topics.delete_records('manual', 0, 1000000)});
like($err, qr/offset 1000000 is out of range for partition 0 of topic "manual"/, 'deleting past the high watermark fails');
($ret, $out, $err) = $node->psql('postgres', q{SELECT topics.delete_records('manual', 5, 10)});
like($err, qr/partition 5 of topic "manual" does not exist/, 'an unknown partition fails');

# --- a query reading through fetch keeps the segments its records are on
# until it ends: retention moves the log start at once, and drops those
# segments afterwards; the query's remaining rows are all there ---
$node->safe_psql('postgres', q{
SELECT topics.create_topic('held', 1, 'text', 'text');
CREATE TABLE held_go ();});
my $held_segments = q{
SELECT string_agg(substring(relname FROM '_(\d+)$'), ',' ORDER BY substring(relname FROM '_(\d+)$')::int)
FROM pg_class WHERE relnamespace = 'topics_segments'::regnamespace AND relkind = 'r'
AND relname LIKE 'seg\_' || 'held_p0'::regclass::oid || '\_%'};
my $held_hw = 0;
while ($held_hw < 20000
	&& scalar(split /,/, $node->safe_psql('postgres', $held_segments)) < 5)
{
	$node->safe_psql('postgres', qq{
SELECT count(*) FROM topics.produce_batch('held',
	(SELECT array_agg(lpad(g::text, 6, '0') || repeat('x', 300)) FROM generate_series($held_hw, $held_hw + 99) g))});
	$held_hw += 100;
	usleep(50_000);
}
like($node->safe_psql('postgres', $held_segments), qr/^0,1,2,/, "the log has rolled over segments ($held_hw records)");
my ($held_reader, $held_out) = PgTopicsTest::start_psql_script($node, 'held_reader', q{
BEGIN;
DECLARE c CURSOR FOR SELECT "offset", left(value, 6) FROM topics.fetch(NULL::held, 0, 0, 150);
FETCH 1 FROM c;
DO $$ BEGIN WHILE NOT EXISTS (SELECT FROM held_go) LOOP PERFORM pg_sleep(0.02); END LOOP; END $$;
FETCH ABSOLUTE 150 FROM c;
COMMIT;
});
ok($node->poll_query_until('postgres', q{
SELECT count(*) = 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%held_go%' AND pid <> pg_backend_pid()}),
	'a query reading the first segment through fetch is open');
is($node->safe_psql('postgres', qq{SELECT topics.delete_records('held', 0, $held_hw)}), $held_hw,
	'delete_records moves the log start past every record');
my @held_left = split /,/, $node->safe_psql('postgres', $held_segments);
ok($held_left[0] eq '0' && !grep({ $_ eq '1' || $_ eq '2' } @held_left),
	"the segment the open query reads stays, the ones after it are dropped at once (@held_left)");
$node->safe_psql('postgres', q{INSERT INTO held_go DEFAULT VALUES});
$held_reader->finish;
is(slurp_file($held_out), "0|000000\n149|000149\n",
	'the open query reads its records to the end, whole, after retention passed them');
$node->safe_psql('postgres', q{SELECT * FROM topics.enforce_retention('held')});
unlike($node->safe_psql('postgres', $held_segments), qr/^0,/,
	'once the query ends, retention drops its segment');
$node->safe_psql('postgres', q{SELECT topics.drop_topic('held'); DROP TABLE held_go;});

# --- a crash in the middle of a segment drop ---
# fill the LIVE segment past its size, so that the next call rolls
$node->safe_psql('postgres', q{SELECT count(*) FROM topics.produce_batch('manual', (SELECT array_agg(decode(repeat('ab', 100), 'hex')) FROM generate_series(1, 1000)))});
my $cut = $node->safe_psql('postgres', q{SELECT high_watermark FROM topics.offsets('manual')});
$node->safe_psql('postgres', q{SELECT count(*) FROM topics.produce_batch('manual', (SELECT array_agg('\x03'::bytea) FROM generate_series(1, 10)))});
my $hw_before = $node->safe_psql('postgres', q{SELECT high_watermark FROM topics.offsets('manual')});
is($node->safe_psql('postgres', qq{SELECT count(*) FROM manual WHERE "offset" >= $cut}), '10',
	'a new segment starts at the cut');
# the log start moves and the segment is retired at once; its drop is
# part of the transaction, which is still open when the server dies
my $crasher = IPC::Run::start(
	[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c',
	  "BEGIN; SELECT topics.delete_records('manual', 0, $cut); CHECKPOINT; SELECT pg_sleep(600);" ],
	'>', \my $crash_out, '2>', \my $crash_err);
ok($node->poll_query_until('postgres', q{
SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep'}),
	'a transaction that dropped a segment is open');
$node->stop('immediate');
$crasher->kill_kill;
$node->start;
is($node->safe_psql('postgres', q{SELECT high_watermark FROM topics.offsets('manual')}), $hw_before,
	'after a crash during a segment drop the log ends where it did');
my $crash_start = $node->safe_psql('postgres', q{SELECT log_start_offset FROM topics.offsets('manual')});
is($crash_start, $cut, 'the log start moved for good before the crash');
is($node->safe_psql('postgres', qq{SELECT min("offset") || '/' || count(*) FROM manual}), "$cut/10",
	'records start at the log start');
# segment numbers grow along the log, and a record's TID carries its
# segment's (block >> 17): no segment before the first record's may remain
# (the worker may meanwhile have rolled the LIVE one and added spares)
ok($node->poll_query_until('postgres', q{
SELECT count(*) = 0 FROM pg_class WHERE relnamespace = 'topics_segments'::regnamespace
AND relname LIKE 'seg\_' || 'manual_p0'::regclass::oid || '\_%'
AND split_part(relname, '_', 3)::bigint <
    (SELECT min((ctid::text::point)[0]::bigint >> 17) FROM manual)}),
	'the worker finishes the drop the crash interrupted (no segment below the log start remains)');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('manual')}), '0',
	'verify finds nothing');

# --- a partition's segments move with it to another tablespace ---
my $tsdir = PostgreSQL::Test::Utils::tempdir;
$node->safe_psql('postgres', qq{CREATE TABLESPACE elsewhere LOCATION '$tsdir'});
$node->safe_psql('postgres', q{ALTER TABLE manual_p0 SET TABLESPACE elsewhere});
like($node->safe_psql('postgres', q{
SELECT count(*) FILTER (WHERE t.spcname IS DISTINCT FROM 'elsewhere') || '/' || count(*)
FROM pg_class c LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace
WHERE c.relnamespace = 'topics_segments'::regnamespace
AND c.relname LIKE 'seg\_' || 'manual_p0'::regclass::oid || '\_%'}), qr{^0/[1-9]\d*$},
	'ALTER TABLE ... SET TABLESPACE moves the partition\'s segments too');
is($node->safe_psql('postgres', q{SELECT min("offset") || '/' || count(*) FROM manual}), "$cut/10",
	'and the records read the same');
# ... also when a role moves all its tables (segments belong to the bootstrap superuser)
$node->safe_psql('postgres', q{
CREATE ROLE mover;
ALTER TABLE manual_p0 OWNER TO mover;
GRANT CREATE ON TABLESPACE elsewhere TO mover;
SET ROLE mover;
ALTER TABLE ALL IN TABLESPACE elsewhere OWNED BY mover SET TABLESPACE pg_default;
RESET ROLE;
DROP TABLESPACE elsewhere;});
is($node->safe_psql('postgres', q{SELECT min("offset") || '/' || count(*) FROM manual}), "$cut/10",
	'ALTER TABLE ALL IN TABLESPACE takes the segments along, and the records read the same');

# --- DROP TABLE takes every segment with it ---
$node->safe_psql('postgres', q{DROP TABLE bybytes});
is($node->safe_psql('postgres', q{
SELECT count(*) FROM pg_class c WHERE c.relnamespace = 'topics_segments'::regnamespace
AND NOT EXISTS (SELECT 1 FROM pg_class p WHERE c.relname LIKE 'seg\_' || p.oid || '\_%' AND p.relnamespace <> c.relnamespace)}),
	'0', 'dropping a topic drops its segments');

$node->stop;
done_testing();
