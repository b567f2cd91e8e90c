# Maintenance never stops without a word, and does not write for nothing:
# - with no background worker slot for the launcher (max_worker_processes),
#   or none for its database worker, topics.maintenance says so and why,
#   the server log says it once (not per produce), and enforce_retention
#   fails with 55000 saying why instead of returning as if all were well;
# - a new topic's first segment is sized from retention_bytes at
#   create_topic, before any worker round;
# - on an idle published topic the worker's rounds log no markers.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use Time::HiRes qw(usleep);

# 10 kB of incompressible bytes per value (TOAST holds them), $n per call
sub large_values
{
	my ($n) = @_;
	return qq{(SELECT array_agg((SELECT string_agg(decode(md5(g || ':' || i), 'hex'), ''::bytea)
	FROM generate_series(1, 640) i)) FROM generate_series(1, $n) g)};
}

sub count_in_log
{
	my ($node, $re) = @_;
	my @hits = (slurp_file($node->logfile) =~ /$re/g);
	return scalar(@hits);
}

# a topic whose LIVE segment is over its share of retention_bytes, in a
# server whose worker cannot run: enforce_retention must say so
sub check_without_worker
{
	my ($node, $what, $problem_re, $log_re) = @_;
	$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('stuck', 1, 'text', 'bytea', retention_bytes => 200000);
SELECT topics.create_topic('idle', 1, 'text', 'text', retention_bytes => 200000);});
	# many produce calls, each finding its segment due and asking for a spare
	for my $i (1 .. 20)
	{
		$node->safe_psql('postgres',
			'SELECT count(*) FROM topics.produce_batch(\'stuck\', ' . large_values(4) . ')');
	}
	my ($running, $problem) = split /\|/, $node->safe_psql('postgres',
		q{SELECT running, problem FROM topics.maintenance});
	is($running, 'f', "$what: topics.maintenance says maintenance is not running");
	like($problem, $problem_re, "$what: and why");
	is(count_in_log($node, $log_re), 1, "$what: the server log says it once, not per produce");
	my ($ret, $out, $err) = $node->psql('postgres',
		q{SELECT * FROM topics.enforce_retention('stuck')},
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	like($err, qr/ERROR:  55000: cannot apply the retention of partition 0 of topic "stuck" because the pg_topics background worker is not running/,
		"$what: enforce_retention fails with 55000 instead of doing nothing");
	like($err, qr/DETAIL:  .*\Q$problem\E/, "$what: its detail says why");
	is($node->safe_psql('postgres', q{SELECT log_start_offset FROM topics.enforce_retention('idle')}), '0',
		"$what: enforce_retention still works where nothing needs the worker");
}

# --- no slot for the launcher at all ---
my $none = PostgreSQL::Test::Cluster->new('no_launcher');
$none->init;
$none->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
max_worker_processes = 0
});
$none->start;
check_without_worker($none, 'no slot for the launcher',
	qr/max_worker_processes left no background worker slot for the pg_topics launcher/,
	qr/max_worker_processes is too small for the pg_topics background worker/);
is($none->safe_psql('postgres', q{SELECT launcher_pid IS NULL AND last_round IS NULL FROM topics.maintenance}),
	't', 'no launcher pid and no round are shown');
$none->stop;

# --- a launcher, but no slot for its database worker ---
my $noslot = PostgreSQL::Test::Cluster->new('no_worker_slot');
$noslot->init;
$noslot->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
max_worker_processes = 1
max_logical_replication_workers = 0
pg_topics.worker_naptime = '100ms'
});
$noslot->start;
ok($noslot->poll_query_until('postgres',
		q{SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'pg_topics launcher'}),
	'the launcher runs');
# let it try (and fail) for a while: every round, and every produce's wake-up
usleep(500_000);
check_without_worker($noslot, 'no slot for the database worker',
	qr/The pg_topics launcher finds no free background worker slot for a database worker/,
	qr/pg_topics could not start its background worker for database \d+: no background worker slot is free/);
ok($noslot->safe_psql('postgres', q{SELECT launcher_pid IS NOT NULL AND problem_since IS NOT NULL FROM topics.maintenance}) eq 't',
	'the launcher pid and since when the problem lasts are shown');
$noslot->stop;

# --- a working server: the view, a new topic's first segment, idle markers ---
my $node = PostgreSQL::Test::Cluster->new('maintenance');
$node->init(allows_streaming => 'logical');
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
pg_topics.worker_naptime = '1h'
});
$node->start;
$node->safe_psql('postgres', q{CREATE EXTENSION pg_topics});
# the launcher's first round ran at startup; the next ones only on request
ok($node->poll_query_until('postgres', q{SELECT running AND launcher_pid IS NOT NULL AND problem IS NULL FROM topics.maintenance}),
	'topics.maintenance: running, with the launcher and no problem');

# produce right after create_topic, before any round: the first segment
# holds its share of retention_bytes (128 kB / 4), not pg_topics.segment_size
$node->safe_psql('postgres', q{SELECT topics.create_topic('fresh', 1, 'text', 'bytea', retention_bytes => 131072)});
for my $i (1 .. 20)
{
	$node->safe_psql('postgres',
		'SELECT count(*) FROM topics.produce_batch(\'fresh\', ' . large_values(5) . ')');
	usleep(50_000);
}
# (retention may have dropped the first segment since: then it counts as 0)
my ($first, $later) = split /\|/, $node->safe_psql('postgres', q{
SELECT coalesce(sum(pg_total_relation_size(oid)) FILTER (WHERE relname ~ '_0$'), 0),
	count(*) FILTER (WHERE relname !~ '_0$')
FROM pg_class WHERE relnamespace = 'topics_segments'::regnamespace
AND relname LIKE 'seg\_' || 'fresh_p0'::regclass::oid || '\_%'});
cmp_ok($first, '<', 400_000,
	"a new topic's first segment rolls at its share of retention_bytes ($first bytes of 1 MB produced)");
cmp_ok($later, '>=', 2, "the log went on in later segments ($later)");

$node->append_conf('postgresql.conf', qq{pg_topics.worker_naptime = '100ms'});
$node->reload;
ok($node->poll_query_until('postgres', q{
SELECT p.bytes < 131072 + 3 * 100 * 1024 AND p.log_start_offset > 0
FROM topics.partitions p WHERE p.topic = 'fresh'::regclass}),
	'and retention keeps the partition near retention_bytes');

# idle published topic: no marker while nothing changes
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_walinspect;
SELECT topics.create_topic('pub', 2, 'text', 'text');
CREATE PUBLICATION pub FOR TABLE pub;
SELECT count(*) FROM topics.produce('pub', 'x', partition => 0);
SELECT pg_create_logical_replication_slot('watch', 'test_decoding');});

# pg_walinspect's records from $lsn to the end of WAL: 15 has a function of
# its own for that; 16 and later read to the end when the end LSN is past it
my $wal_to_end = $node->safe_psql('postgres', 'SHOW server_version_num') >= 160000
  ? "pg_get_wal_records_info('%s', 'FFFFFFFF/FFFFFFFF')"
  : "pg_get_wal_records_info_till_end_of_wal('%s')";
sub wal_records_from { return sprintf($wal_to_end, $_[0]); }

# pg_topics STABLE records logged since $lsn (none if no WAL at all).  A
# checkpoint first, so that WAL is flushed past whatever was written after
# $lsn: pg_walinspect reads only flushed WAL, and a record the flush point
# cuts would not be found (a commit need not flush: synchronous_commit).
sub markers_since
{
	my ($lsn) = @_;
	$node->safe_psql('postgres', 'CHECKPOINT');
	return $node->safe_psql('postgres', qq{
SELECT CASE WHEN pg_current_wal_insert_lsn() = '$lsn' THEN 0 ELSE
	(SELECT count(*) FROM @{[ wal_records_from($lsn) ]}
	 WHERE resource_manager = 'pg_topics' AND record_type = 'STABLE') END});
}
# wait (up to the tests' timeout) until markers_since($lsn) is $want
sub wait_for_markers
{
	my ($lsn, $want) = @_;
	for (1 .. $PostgreSQL::Test::Utils::timeout_default * 10)
	{
		my $n = markers_since($lsn);
		return 1 if $want eq '>0' ? $n > 0 : $n == $want;
		usleep(100_000);
	}
	return 0;
}
sub round_after
{
	my ($ts) = @_;
	return $node->poll_query_until('postgres', qq{SELECT last_round > '$ts' FROM topics.maintenance});
}

# the first rounds send what they have not sent yet
my $ts = $node->safe_psql('postgres', q{SELECT clock_timestamp()});
round_after($ts);
$ts = $node->safe_psql('postgres', q{SELECT clock_timestamp()});
round_after($ts);
my $lsn = $node->safe_psql('postgres', q{SELECT pg_current_wal_insert_lsn()});
for my $i (1 .. 5)
{
	$ts = $node->safe_psql('postgres', q{SELECT clock_timestamp()});
	round_after($ts);
}
is(markers_since($lsn), '0', 'five worker rounds on an idle published topic log no marker');

# a rollback moves the stable offset with nobody committing: one marker
$lsn = $node->safe_psql('postgres', q{SELECT pg_current_wal_insert_lsn()});
$node->safe_psql('postgres', q{BEGIN; SELECT count(*) FROM topics.produce('pub', 'y', partition => 1); ROLLBACK;});
ok(wait_for_markers($lsn, '>0'), 'after a rollback the worker sends a marker');
# a new logical slot (a new subscription, a table sync) gets markers too
$ts = $node->safe_psql('postgres', q{SELECT clock_timestamp()});
round_after($ts);
$lsn = $node->safe_psql('postgres', q{SELECT pg_current_wal_insert_lsn()});
$node->safe_psql('postgres', q{SELECT pg_create_logical_replication_slot('late', 'test_decoding')});
ok(wait_for_markers($lsn, 2), 'a new logical slot gets one marker per published partition');
my $late = $node->safe_psql('postgres', q{
SELECT count(*) FROM pg_logical_slot_get_changes('late', NULL, NULL) WHERE data LIKE '%pg_topics.partitions%'});
cmp_ok($late, '>=', 2, 'and the new slot decodes them');
$node->safe_psql('postgres', q{SELECT pg_drop_replication_slot('late'); SELECT pg_drop_replication_slot('watch');});

$node->stop;
done_testing();
