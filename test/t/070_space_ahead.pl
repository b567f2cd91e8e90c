# Space taken ahead of the LIVE segment's tail (docs/architecture.md §3):
# writers add zero pages to a segment's file ahead of need and take them
# without writing them first.  kill -9 of the server while three producers
# write with produce_batch; after restart every acknowledged record is
# there, offsets are dense but for transactions cut by the crash,
# topics.verify is clean, and pageinspect shows zero pages only after the
# last initialized page.  At most 32 of them (the space ahead) wherever
# no crash came between, or every write before it was committed; a crash
# inside a long transaction leaves more (its pages whose WAL had not
# reached disk), which a backend walks back over once.  A physical standby
# replays the same records, is promoted and written to.  Retention by bytes
# still holds, and a segment rolls when its records fill it, not when the
# space taken ahead does.
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
wal_keep_size = '2GB'
pg_topics.worker_naptime = '200ms'
checkpoint_timeout = 30s
shared_buffers = '32MB'
# WAL of a transaction that has not committed stays unflushed for seconds
wal_buffers = '64MB'
wal_writer_delay = '10s'
autovacuum = off
});
$primary->start;

# 't': segments of 36 pages, so that many roll during the test.  Writers
# add an eighth of a segment's pages ahead, within its size: 30 pages take
# 3 more, 33 the last 3, so that the file reaches the size while its pages
# (plus the one of the TOAST index, which counts too) do not.
$primary->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE EXTENSION pageinspect;
SELECT topics.create_topic('t', partitions => 1, key_type => 'text', value_type => 'bytea',
    configs => '{"segment.bytes": "294912", "segment.ms": "3600000"}');
SELECT topics.create_topic('big', partitions => 1, key_type => 'text', value_type => 'bytea');
});
my $roll_blocks = 36;

$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;

# Per segment of topic $topic: its state, the blocks of its file, its last
# initialized page, its zero pages and the zero pages before that page
# (pd_upper is 0 only on an all-zero page, PageIsNew)
sub segment_pages
{
	my ($node, $topic) = @_;
	my $rows = $node->safe_psql('postgres', qq{
SELECT s.segment, s.state, n.nblocks, p.last_init, p.zeros, p.zeros_inside, n.other
FROM topics.segments s,
  LATERAL (SELECT (pg_relation_size(s.relation) / 8192)::int AS nblocks,
                  (pg_total_relation_size(s.relation) - pg_relation_size(s.relation)) / 8192 AS other) n,
  LATERAL (SELECT max(b) FILTER (WHERE NOT z) AS last_init,
                  count(*) FILTER (WHERE z) AS zeros,
                  count(*) FILTER (WHERE z AND b < (SELECT max(b2) FROM generate_series(0, n.nblocks - 1) b2
                                                    WHERE (page_header(get_raw_page(s.relation::text, b2))).upper <> 0)) AS zeros_inside
           FROM generate_series(0, n.nblocks - 1) b,
                LATERAL (SELECT (page_header(get_raw_page(s.relation::text, b))).upper = 0 AS z) zz) p
WHERE s.topic = '$topic'::regclass AND s.relation IS NOT NULL AND s.state <> 'spare'
ORDER BY s.segment});
	my @segs;
	for my $row (split /\n/, $rows)
	{
		my ($segment, $state, $nblocks, $last, $zeros, $inside, $other) = split /\|/, $row;
		# used: the size a roll counts (the TOAST table and its index too)
		push @segs, { segment => $segment, state => $state, nblocks => $nblocks,
			last_init => $last, zeros => $zeros, inside => $inside,
			used => $last + 1 + $other, disk => $nblocks + $other };
	}
	return @segs;
}

# Zero pages only after the last initialized page, always; and with
# $bounded, at most 32 of them, the most space a writer takes ahead: where
# no crash came between, or every write before it was committed (a crash
# also leaves the pages whose WAL had not reached disk as zero pages, any
# number of them, before the space ahead)
sub check_zero_runs
{
	my ($node, $topic, $what, $bounded) = @_;
	my @segs = segment_pages($node, $topic);
	my @inside = grep { $_->{inside} > 0 } @segs;
	is(scalar(@inside), 0, "$what: no zero page before a segment's last initialized page")
	  or diag(join ', ', map { "segment $_->{segment}: $_->{inside}" } @inside);
	if ($bounded)
	{
		my @long = grep { $_->{zeros} > 32 } @segs;
		is(scalar(@long), 0, "$what: at most 32 zero pages after a segment's tail")
		  or diag(join ', ', map { "segment $_->{segment}: $_->{zeros}" } @long);
	}
	return @segs;
}

# kill -9 of $node, wait for its processes to be gone, start it again
sub crash_and_restart
{
	my ($node) = @_;
	kill9_server($node);
	$node->start;
}

# Sealed segments hold what they were configured to: a segment rolls when
# its records fill its size, whatever space was taken ahead of them.  (A
# writer measures its records before writing them, by an upper bound of
# their size: so the call's records must be few for the segment to end
# within a page of its size, and the producers here write at most 300 a
# call.)
sub check_sealed_full
{
	my ($node, $topic, $blocks, $what) = @_;
	my @sealed = grep { $_->{state} eq 'sealed' } segment_pages($node, $topic);
	my @short = grep { $_->{used} < $blocks - 1 } @sealed;
	ok(@sealed > 0, "$what: segments were sealed (" . scalar(@sealed) . ')');
	is(scalar(@short), 0, "$what: every sealed segment holds its size in records")
	  or diag(join ', ', map { "segment $_->{segment}: $_->{used} pages" } @short);
}

# --- the writers take space ahead, and a roll does not count it ---

# a fresh segment, written to one call at a time by this session, until
# its file reached the roll size through the space taken ahead while its
# records did not: the roll (the worker's, enforce_retention's) waits
my $value = "decode(repeat('ab', 100), 'hex')";
my $live_before = $primary->safe_psql('postgres',
	q{SELECT segment FROM topics.segments WHERE topic = 't'::regclass AND state = 'live'});
my ($ahead_seen, $waited) = (0, 0);
for my $i (1 .. 200)
{
	$primary->safe_psql('postgres',
		"SELECT count(*) FROM topics.produce_batch('t', (SELECT array_agg($value) FROM generate_series(1, 20)))");
	my ($live) = grep { $_->{state} eq 'live' } segment_pages($primary, 't');
	next unless defined $live && $live->{segment} == $live_before;
	$ahead_seen = 1 if $live->{zeros} > 1;
	if ($live->{disk} >= $roll_blocks && $live->{used} < $roll_blocks)
	{
		$primary->safe_psql('postgres', q{SELECT count(*) FROM topics.enforce_retention('t')});
		is($primary->safe_psql('postgres',
				q{SELECT segment FROM topics.segments WHERE topic = 't'::regclass AND state = 'live'}),
			$live_before, 'a segment whose file reached its size only through the space taken ahead does not roll');
		$waited = 1;
		last;
	}
}
ok($ahead_seen, 'writers take more than one page ahead of the tail');
ok($waited, 'a segment file reached its roll size before its records did');

# --- kill -9 under heavy producers ---

# Each producer runs transactions of produce_batch; psql prints
# "ack <key> <n>" after each COMMIT returns, so the output lists exactly
# the acknowledged ones.  Two share 't'; a third writes larger calls to
# 'big', whose segment takes 32 pages ahead at a time.
my $nproducers = 3;
my $ntxn = 4000;
my (@harness, @outfile, %plan);
srand(70);
for my $p (1 .. $nproducers)
{
	my $script = '';
	for my $i (1 .. $ntxn)
	{
		my $key = "p$p-$i";
		my $n = 1 + int(rand($p == 3 ? 1000 : 300));
		my $topic = $p == 3 ? 'big' : 't';
		$plan{$key} = $n;
		$script .= "SELECT count(*) FROM topics.produce_batch('$topic', (SELECT array_agg($value) FROM generate_series(1, $n)), (SELECT array_agg('$key'::text) FROM generate_series(1, $n))) \\g /dev/null\n";
		$script .= "\\echo ack $key $n\n";
	}
	my $file = $primary->basedir . "/producer$p.sql";
	open my $fh, '>', $file or die;
	print $fh $script;
	close $fh;
	$outfile[$p] = $primary->basedir . "/producer$p.out";
	push @harness, IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $primary->connstr('postgres'), '-f', $file ],
		'>', $outfile[$p], '2>', $primary->basedir . "/producer$p.err");
}

sleep 2;
my $deadline = time + 120;
while (time < $deadline)
{
	my $acks = 0;
	for my $file (grep { defined } @outfile)
	{
		open my $fh, '<', $file or next;
		$acks += grep { /^ack / } <$fh>;
		close $fh;
	}
	last if $acks > 300;
	sleep 1;
}
crash_and_restart($primary);
$_->finish for @harness;

# before anything writes again: what crash recovery left (the calls the
# crash cut may have left their pages zero, before the space ahead)
my @after_crash = check_zero_runs($primary, 't', 'after crash recovery');
note("zero pages after the tail after the crash: " . join(" ", map { $_->{zeros} } @after_crash));
@after_crash = check_zero_runs($primary, 'big', 'after crash recovery, large segment');
note("zero pages after the tail of the large segment after the crash: " . join(" ", map { $_->{zeros} } @after_crash));

my %acked;
for my $p (1 .. $nproducers)
{
	open my $fh, '<', $outfile[$p] or die;
	while (<$fh>)
	{
		$acked{$1} = $2 if /^ack (\S+) (\d+)$/;
	}
	close $fh;
}
ok(scalar(keys %acked) > 100, 'producers acknowledged transactions before the crash: ' . scalar(keys %acked));

my %found;
for my $row (split /\n/, $primary->safe_psql('postgres',
		q{SELECT key, count(*) FROM (SELECT key FROM t UNION ALL SELECT key FROM big) r WHERE key LIKE 'p%' GROUP BY key}))
{
	my ($key, $count) = split /\|/, $row;
	$found{$key} = $count;
}
my @missing = grep { ($found{$_} // 0) != $acked{$_} } keys %acked;
is(scalar(@missing), 0, 'every acknowledged record is there exactly once')
  or diag("missing or wrong: @missing[0 .. ($#missing < 9 ? $#missing : 9)]");
my @partial = grep { !defined $plan{$_} || $found{$_} != $plan{$_} } keys %found;
is(scalar(@partial), 0, 'every visible call is complete (all or nothing)');

# dense: the only gaps are the calls the crash cut (one per producer)
my ($total, $distinct, $minoff, $maxoff) = split /\|/, $primary->safe_psql('postgres',
	'SELECT count(*), count(DISTINCT "offset"), min("offset"), max("offset") FROM t');
is($total, $distinct, 'no offset is used twice');
my $gaps = $maxoff - $minoff + 1 - $total;
ok($gaps <= 300 * 2, "offsets are dense but for the calls the crash cut ($gaps missing)");
my ($btotal, $bdistinct, $bspan) = split /\|/, $primary->safe_psql('postgres',
	'SELECT count(*), count(DISTINCT "offset"), coalesce(max("offset") - min("offset") + 1, 0) FROM big');
is($btotal, $bdistinct, 'no offset is used twice in the large segment');
ok($bspan - $btotal <= 1000, 'offsets of the large segment are dense but for the call the crash cut (' . ($bspan - $btotal) . ' missing)');

is($primary->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('t')}), '0',
	'verify finds nothing after crash recovery');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('big')}), '0',
	'verify finds nothing in the large segment after crash recovery');

# the log goes on, into the space the crash left ahead
$primary->safe_psql('postgres',
	"SELECT count(*) FROM generate_series(0, 14) c, LATERAL topics.produce_batch('t', (SELECT array_agg($value) FROM generate_series(1, 200)), (SELECT array_agg('after' || (c * 200 + g)) FROM generate_series(1, 200) g))");
is($primary->safe_psql('postgres', q{SELECT count(*) FROM t WHERE key LIKE 'after%' AND "offset" > } . $maxoff),
	'3000', 'offsets continue after the crash');
check_zero_runs($primary, 't', 'after writing again');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('t')}), '0',
	'verify finds nothing after writing again');
check_sealed_full($primary, 't', $roll_blocks, 'primary');

# 'big': the default segment size, where writers take 32 pages at a time
# (on 15 with posix_fallocate, from 16 with ExtendBufferedRelBy)
my $max_ahead = 0;
for my $c (1 .. 40)
{
	$primary->safe_psql('postgres',
		"SELECT count(*) FROM topics.produce_batch('big', (SELECT array_agg($value) FROM generate_series(1, 1000)), (SELECT array_agg('big$c-' || g) FROM generate_series(1, 1000) g))");
	my ($live) = grep { $_->{state} eq 'live' } segment_pages($primary, 'big');
	$max_ahead = $live->{zeros} if $live->{zeros} > $max_ahead;
}
ok($max_ahead > 8 && $max_ahead <= 32, "a large segment takes up to 32 pages ahead at once (seen: $max_ahead)");
# the pages the first crash left zero are written over by now
check_zero_runs($primary, 'big', 'large segment', 1);

# A crash after every write was committed (synchronous_commit is on: the
# commits flushed all WAL before them): recovery brings back every page,
# and the zero pages after the tail are only the space taken ahead.
crash_and_restart($primary);
check_zero_runs($primary, 'big', 'after a crash with every write committed, large segment', 1);
check_zero_runs($primary, 't', 'after a crash with every write committed');
is($primary->safe_psql('postgres', q{SELECT count(*), max("offset") - min("offset") + 1 FROM big WHERE key LIKE 'big%'}),
	'40000|40000', 'every record written to the large segment is there, offsets dense');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('big')}), '0',
	'verify finds nothing in the large segment');

# --- a crash inside a long transaction ---

# A transaction that wrote 320 pages into a fresh segment and has not
# committed: its WAL need not have reached disk (nobody commits, the WAL
# writer sleeps long), and writers grow the file without flushing it.
# Replay brings back a prefix of the pages, at least every page whose WAL
# had been flushed, and the rest come back as zero pages: a run after the
# tail that may be far longer than the space taken ahead.  (The WAL writer
# or a checkpoint may still flush before the kill: then the run is shorter;
# the note says how long it was.)  The tail is found all the same, and a
# backend walks back over the run once, not on every call.
$primary->safe_psql('postgres', q{
SELECT topics.create_topic('long', partitions => 1, key_type => 'text', value_type => 'bytea');
SELECT count(*) FROM topics.produce_batch('long', ARRAY['\x00'::bytea]);
});
# the worker's spare segment for it, committed before, not during
$primary->poll_query_until('postgres',
	q{SELECT count(*) > 0 FROM topics.segments WHERE topic = 'long'::regclass AND state = 'spare'})
  or die 'no spare segment';
sleep 1;
my ($long) = start_psql_script($primary, 'long', "BEGIN;
SELECT count(*) FROM topics.produce_batch('long', (SELECT array_agg($value) FROM generate_series(1, 25000)));
SELECT 'written';
SELECT pg_sleep(600);
");
$primary->poll_query_until('postgres', q{SELECT count(*) > 0 FROM pg_stat_activity WHERE query LIKE '%pg_sleep(600)%' AND state = 'active' AND pid <> pg_backend_pid()})
  or die 'the long transaction did not get to its sleep';
my $long_seg = $primary->safe_psql('postgres',
	q{SELECT relation::oid FROM topics.segments WHERE topic = 'long'::regclass AND state = 'live'});
# the last page whose every change was flushed (its LSN, that of its last
# change, at or before the flush position): replay must bring it back
my ($flushed_page, $unflushed) = split /\|/, $primary->safe_psql('postgres', qq{
SELECT coalesce(max(b), 1), pg_current_wal_insert_lsn() - pg_current_wal_flush_lsn()
FROM generate_series(1, (pg_relation_size($long_seg) / 8192)::int - 1) b,
     LATERAL page_header(get_raw_page('$long_seg'::regclass::text, b)) h
WHERE h.upper <> 0 AND h.lsn <= pg_current_wal_flush_lsn()});
note("WAL not yet flushed when the server is killed: $unflushed bytes");
my ($long_live) = grep { $_->{state} eq 'live' } segment_pages($primary, 'long');
ok($long_live->{last_init} > 250, "the long transaction wrote its pages ($long_live->{last_init})");
crash_and_restart($primary);
$long->finish;
my @long_segs = check_zero_runs($primary, 'long', 'after a crash inside a long transaction');
my ($long_after) = grep { $_->{state} eq 'live' } @long_segs;
note("zero pages after the tail after the crash inside a long transaction: $long_after->{zeros} "
	  . "(tail $long_after->{last_init}, before the crash $long_live->{last_init}, flushed up to page $flushed_page)");
ok($long_after->{last_init} >= $flushed_page && $long_after->{last_init} <= $long_live->{last_init},
	'recovery brought back every page whose WAL was flushed, and no page the transaction did not write');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM long}), '1',
	'the long transaction left nothing behind');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('long')}), '0',
	'verify finds nothing after the crash inside a long transaction');

# The offset the log goes on at: after the crash, the records of the long
# transaction that recovery brought back (their WAL had reached disk) keep
# their offsets, as gaps, so the next record comes after them; when none
# came back (the WAL writer had not flushed them) it is 1.
my $resume = $primary->safe_psql('postgres', q{SELECT high_watermark FROM topics.offsets('long')});
ok($resume >= 1 && $resume <= 25001, "the log goes on at offset $resume, after the transaction's records recovery brought back");

# One session: its first produce walks back from the file's end over every
# zero page (buffer accesses to the segment, counted inside a transaction
# block); its next produce and fetch, in later transactions, start from the
# tail it found: the produce reads only it, the fetch it and the pages of
# its records (and the metapage).
my @reads = split /\n/, $primary->safe_psql('postgres', qq{
BEGIN;
SELECT pg_stat_get_xact_blocks_fetched($long_seg);
SELECT "offset" FROM topics.produce_batch('long', ARRAY['\\x01'::bytea]);
SELECT pg_stat_get_xact_blocks_fetched($long_seg);
COMMIT;
BEGIN;
SELECT pg_stat_get_xact_blocks_fetched($long_seg);
SELECT "offset" FROM topics.produce_batch('long', ARRAY['\\x02'::bytea]);
SELECT pg_stat_get_xact_blocks_fetched($long_seg);
COMMIT;
BEGIN;
SELECT pg_stat_get_xact_blocks_fetched($long_seg);
SELECT count(*) FROM topics.fetch(NULL::long, 0, $resume, max_records => 10);
SELECT pg_stat_get_xact_blocks_fetched($long_seg);
COMMIT;
});
note("blocks read: first produce $reads[0]..$reads[2], second $reads[3]..$reads[5], fetch $reads[6]..$reads[8]");
is("$reads[1] $reads[4] $reads[7]", "$resume " . ($resume + 1) . ' 2',
	'the log goes on after the crash inside a long transaction');
ok($reads[2] - $reads[0] > $long_after->{zeros},
	'the first call of a backend walks back over the zero pages after the tail ('
	  . ($reads[2] - $reads[0]) . ' blocks)');
ok($reads[5] - $reads[3] <= 4, 'the next produce in that backend reads the tail it found ('
	  . ($reads[5] - $reads[3]) . ' blocks)');
ok($reads[8] - $reads[6] <= 10 + log($long_after->{last_init} + 1) / log(2),
	'a fetch in that backend seeks to its records and reads them and the tail it found ('
	  . ($reads[8] - $reads[6]) . ' blocks)');
check_zero_runs($primary, 'long', 'after writing again after a crash inside a long transaction');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('long')}), '0',
	'verify finds nothing after writing again after the crash inside a long transaction');

# --- the standby replays the same log ---

my $content = q{SELECT string_agg("offset" || ':' || coalesce(key, '') || ':' || md5(value), ',' ORDER BY "offset")
FROM topics.fetch(NULL::t, 0, 0, max_records => 100000000)};
$primary->wait_for_catchup($standby);
my $on_primary = $primary->safe_psql('postgres', $content);
is($standby->safe_psql('postgres', $content), $on_primary, 'the standby fetches the same records');
(my $content_big = $content) =~ s/NULL::t\b/NULL::big/;
is($standby->safe_psql('postgres', $content_big), $primary->safe_psql('postgres', $content_big),
	'the standby fetches the same records of the large segment');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('t')}), '0',
	'verify on the standby finds nothing');
check_zero_runs($standby, 't', 'standby', 1);
ok(!$standby->log_contains('inconsistent page found'), 'wal_consistency_checking found no difference');

# promoted, it takes over the log where the primary left it
$primary->stop;
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die;
$standby->safe_psql('postgres',
	"SELECT count(*) FROM generate_series(0, 24) c, LATERAL topics.produce_batch('t', (SELECT array_agg($value) FROM generate_series(1, 200)), (SELECT array_agg('promoted' || (c * 200 + g)) FROM generate_series(1, 200) g))");
my ($ptotal, $pdistinct) = split /\|/, $standby->safe_psql('postgres',
	'SELECT count(*), count(DISTINCT "offset") FROM t');
is($ptotal, $pdistinct, 'the promoted standby uses no offset twice');
is($standby->safe_psql('postgres',
		q{SELECT max("offset") - min("offset") + 1 FROM t WHERE key LIKE 'promoted%'}),
	'5000', "the promoted standby's records have dense offsets");
ok($standby->safe_psql('postgres', q{SELECT min("offset") FROM t WHERE key LIKE 'promoted%'}) > $maxoff,
	'the promoted standby continues after the primary');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('t')}), '0',
	'verify on the promoted standby finds nothing');
check_zero_runs($standby, 't', 'promoted standby', 1);
check_sealed_full($standby, 't', $roll_blocks, 'promoted standby');

# --- retention by bytes counts what is on disk ---

# 2 MB of retention: segments of a quarter of it (64 pages)
$standby->safe_psql('postgres', q{
SELECT topics.create_topic('r', partitions => 1, key_type => 'text', value_type => 'bytea',
    retention_bytes => 2097152);
});
for (1 .. 12)
{
	$standby->safe_psql('postgres',
		"SELECT count(*) FROM generate_series(1, 25) c, LATERAL topics.produce_batch('r', (SELECT array_agg($value) FROM generate_series(1, 200)), (SELECT array_agg('r' || c || '-' || g) FROM generate_series(1, 200) g))");
}
$standby->safe_psql('postgres', q{SELECT count(*) FROM topics.enforce_retention('r')});
my ($kept, $sealed_bytes) = split /\|/, $standby->safe_psql('postgres', q{
SELECT sum(bytes), max(bytes) FILTER (WHERE state = 'sealed')
FROM topics.segments WHERE topic = 'r'::regclass AND state IN ('live', 'sealed')});
ok($kept <= 2097152 + $sealed_bytes, "retention by bytes keeps at most retention_bytes and one segment ($kept bytes)");
ok($standby->safe_psql('postgres', q{SELECT min("offset") FROM r}) > 0, 'retention dropped the oldest records');
check_zero_runs($standby, 'r', 'retention', 1);
check_sealed_full($standby, 'r', 64, 'retention');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('r')}), '0',
	'verify finds nothing after retention');

# --- verify reports a zero page before the tail ---

# zero block 2 of a sealed segment of 'r' on disk: a run of zero pages
# that hides the pages after it, which nothing of this release writes
my ($seg_file, $seg_name) = split /\|/, $standby->safe_psql('postgres', q{
SELECT pg_relation_filepath(relation), relation FROM topics.segments
WHERE topic = 'r'::regclass AND state = 'sealed' ORDER BY segment DESC LIMIT 1});
$standby->stop;
open my $segfh, '+<', $standby->data_dir . "/$seg_file" or die "could not open $seg_file: $!";
binmode $segfh;
seek $segfh, 2 * 8192, 0 or die;
print $segfh "\0" x 8192;
close $segfh;
$standby->start;
is($standby->safe_psql('postgres', q{SELECT block || ': ' || problem FROM topics.verify('r')}),
	'2: all-zero pages 2 to 2 come before initialized page 3; zero pages may only follow the last initialized page',
	'verify reports a zero page before the last initialized page');

$standby->stop;
done_testing();
