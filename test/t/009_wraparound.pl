# Topics outlive transaction ID wraparound.  Records, rollbacks, a TOASTed
# value and a group's position are written at low xids; then the cluster's
# next xid jumps by 10^9 three times (pg_resetwal -x, with the zero-filled
# pg_xact segment its documentation asks for), each time after VACUUM FREEZE
# of every database.  By the end the old xids lie more than 2^31 behind, so
# without freezing they would read as "in the future" (and their commit log
# is gone): the records must still be there, byte for byte, rollbacks still
# invisible, and datfrozenxid must advance past them, which it can only do
# if VACUUM moves relfrozenxid of the topic's partitions.  Autovacuum must
# also find topics by itself: inserts reach the statistics.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('wraparound');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
autovacuum_naptime = 1
autovacuum_vacuum_insert_threshold = 100
});
$node->start;

$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('events', 2, 'text', 'jsonb');
});
# many small transactions, some rolled back, so that batches carry many xids
for my $i (1 .. 40)
{
	my $end = $i % 7 == 0 ? 'ROLLBACK' : 'COMMIT';
	$node->safe_psql('postgres', qq{
BEGIN;
SELECT count(*) FROM topics.produce_batch('events',
	(SELECT array_agg(jsonb_build_object('i', $i, 'j', j)) FROM generate_series(1, 25) j),
	(SELECT array_agg('k' || j) FROM generate_series(1, 25) j));
$end;
});
}
$node->safe_psql('postgres', q{
SELECT topics.produce('events', jsonb_build_object('big',
	(SELECT string_agg(md5(i::text), '') FROM generate_series(1, 4000) i)), 'big');
SELECT count(*) FROM topics.poll(NULL::events, 'auditors', max_records => 100);
});

my $checksum_sql = q{
SELECT count(*) || ':' || md5(string_agg(format('%s/%s/%s/%s/%s/%s', partition, "offset",
	"timestamp", key, value, headers), ',' ORDER BY partition, "offset"))
FROM events WHERE key IS DISTINCT FROM 'after'};
my $before = $node->safe_psql('postgres', $checksum_sql);
like($before, qr/^876:/, '35 committed transactions of 25 records and one large record');
my $fetched_sql = q{
SELECT string_agg(format('%s:%s', "offset", value->>'i'), ',')
FROM topics.fetch(NULL::events, 0, 0, 10000) WHERE key IS DISTINCT FROM 'after'};
my $fetched = $node->safe_psql('postgres', $fetched_sql);

# autovacuum finds topic partitions from their insert statistics
ok($node->poll_query_until('postgres', q{
SELECT bool_and(last_autovacuum IS NOT NULL) FROM pg_stat_user_tables
WHERE relname IN ('events_p0', 'events_p1')}),
	'autovacuum vacuums topic partitions after inserts');
# ... and analyzes them, sampling their segments (ANALYZE itself reads only
# the partition's own file, its metapage, which holds no rows; the counts
# need not be the final ones: autovacuum may have analyzed before the last
# inserts)
ok($node->poll_query_until('postgres', q{
SELECT bool_and(s.last_autoanalyze IS NOT NULL AND c.reltuples > 0)
FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
WHERE s.relname IN ('events_p0', 'events_p1')}),
	'autovacuum analyzes topic partitions, and finds their records in their segments');

# VACUUM VERBOSE reports each segment by its partition and number
my ($vrc, $vout, $verr) = $node->psql('postgres', 'VACUUM (VERBOSE) events');
like($verr, qr/INFO:  partition "events_p0", segment 0: resolved \d+ batches \(\d+ rolled back\), relfrozenxid \d+/,
	'VACUUM VERBOSE names a segment by its partition and number');

$node->safe_psql('postgres', 'ALTER DATABASE template0 ALLOW_CONNECTIONS true');

sub next_xid
{
	my ($stdout, $stderr) = run_command([ 'pg_controldata', $node->data_dir ]);
	$stdout =~ /^Latest checkpoint's NextXID:\s*(\d+):(\d+)$/m
	  or die "no NextXID in pg_controldata output";
	return ($1, $2);
}

my $start_xid = $node->safe_psql('postgres', 'SELECT txid_current() % 4294967296');
for my $round (1 .. 3)
{
	$node->command_ok([ 'vacuumdb', '--all', '--freeze', '--quiet',
		'-h', $node->host, '-p', $node->port ], "round $round: VACUUM FREEZE of every database");
	is($node->safe_psql('postgres', q{
SELECT count(*) FROM pg_class
WHERE relname IN ('events_p0', 'events_p1') AND age(relfrozenxid) < 1000}),
		'2', "round $round: VACUUM advanced relfrozenxid of both partitions");
	is($node->safe_psql('postgres', q{SELECT max(age(datfrozenxid)) < 1000 FROM pg_database}),
		't', "round $round: datfrozenxid advanced in every database");
	is($node->safe_psql('postgres', 'SELECT count(*) FROM topics.verify(\'events\')'), '0',
		"round $round: verify finds nothing");

	$node->stop;
	my ($epoch, $xid) = next_xid();
	my $new = $xid + 1_000_000_000;
	if ($new >= 4294967296)
	{
		$new -= 4294967296 - 3;
		$epoch++;
	}
	# the commit log page of the new xid must exist, zero-filled
	my $segment = sprintf('%s/pg_xact/%04X', $node->data_dir, int($new / 1048576));
	unless (-e $segment)
	{
		open my $fh, '>', $segment or die "could not create $segment: $!";
		binmode $fh;
		print $fh "\0" x 262144;
		close $fh;
	}
	$node->command_ok([ 'pg_resetwal', '-x', $new, '-e', $epoch, $node->data_dir ],
		"round $round: next xid set to $new");
	$node->start;

	is($node->safe_psql('postgres', $checksum_sql), $before,
		"round $round: every column of every record is unchanged");
	is($node->safe_psql('postgres', $fetched_sql), $fetched,
		"round $round: fetch returns the same records, rollbacks still invisible");
	$node->safe_psql('postgres', qq{
SELECT topics.produce('events', '{"round": $round}', 'after', partition => 0)});
}

my $now = $node->safe_psql('postgres', 'SELECT txid_current() % 4294967296');
cmp_ok(($now - $start_xid) % 4294967296, '>', 2**31,
	'the next xid is more than 2^31 past the one the records were written with');
$node->command_ok([ 'vacuumdb', '--all', '--freeze', '--quiet',
	'-h', $node->host, '-p', $node->port ], 'VACUUM FREEZE after the last jump');
is($node->safe_psql('postgres', q{SELECT max(age(datfrozenxid)) < 1000 FROM pg_database}),
	't', 'datfrozenxid is recent in every database');
is($node->safe_psql('postgres', q{
SELECT string_agg(value->>'round', ',' ORDER BY "offset") FROM events WHERE key = 'after'}),
	'1,2,3', 'records written across the jumps are all there');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.poll(NULL::events, 'auditors', max_records => 10000)}),
	'779', 'the group resumes after the 100 records it had committed');
is($node->safe_psql('postgres', 'SELECT count(*) FROM topics.verify(\'events\')'), '0',
	'verify finds nothing after wraparound');

$node->restart;
is($node->safe_psql('postgres', $fetched_sql),
	$fetched, 'after a restart (checkpointed pages, no hint bits needed) the records read the same');

$node->stop;
done_testing();
