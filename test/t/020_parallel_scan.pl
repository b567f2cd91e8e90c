# Parallel plans over topics: every record exactly once, whatever the
# plan.  Parallel workers share the blocks of a partition's segments, with
# and without the leader taking part, also when a Gather is rescanned; the
# answers equal a serial scan's (counts, the set of offsets, a checksum of
# the values).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('parallel');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
pg_topics.worker_naptime = '100ms'
pg_topics.segment_size = '64kB'
max_worker_processes = 16
max_parallel_workers = 8
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('r', 3, 'text', 'text');
});

# many small produce calls, so that each partition rolls over several
# segments as the worker adds spares
for my $round (1 .. 30)
{
	$node->safe_psql('postgres', qq{
SELECT count(*) FROM topics.produce_batch('r',
	(SELECT array_agg(repeat(md5(g::text), 10)) FROM generate_series(($round - 1) * 200, $round * 200 - 1) g),
	(SELECT array_agg('k' || g) FROM generate_series(($round - 1) * 200, $round * 200 - 1) g))});
	select(undef, undef, undef, 0.2);
}
# a rolled-back batch: its records must stay invisible to every participant
$node->safe_psql('postgres', q{
BEGIN;
SELECT count(*) FROM topics.produce_batch('r', ARRAY['gone1', 'gone2', 'gone3'], ARRAY['a', 'b', 'c']);
ROLLBACK;
});

my $segments = $node->safe_psql('postgres', q{
SELECT min((SELECT count(*) FROM pg_class
	WHERE relnamespace = 'topics_segments'::regnamespace AND relkind = 'r'
	AND relname LIKE 'seg\\_' || p::regclass::oid || '\\_%'))
FROM unnest(ARRAY['r_p0', 'r_p1', 'r_p2']) p});
cmp_ok($segments, '>=', 3, "each partition has several segments (at least $segments)");

my $serial_settings = q{SET max_parallel_workers_per_gather = 0;};
my $parallel_settings = q{
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
};

my @queries = (
	[ 'count per partition',
	  q{SELECT partition, count(*) FROM r GROUP BY 1 ORDER BY 1} ],
	[ 'count of one partition',
	  q{SELECT count(*) FROM r_p0} ],
	[ 'offsets are each returned once',
	  q{SELECT count(*), count(DISTINCT (partition, "offset")), sum("offset") FROM r} ],
	[ 'a checksum of keys and values',
	  q{SELECT sum(hashtext(key || ':' || value)::numeric), min("offset"), max("offset") FROM r} ],
	[ 'no rolled-back record',
	  q{SELECT count(*) FROM r WHERE value LIKE 'gone%'} ],
	[ 'a rescanned Gather (one per outer row)',
	  q{SELECT g, (SELECT count(*) FILTER (WHERE partition = g) FROM r) FROM generate_series(0, 2) g ORDER BY g} ],
);

for my $q (@queries)
{
	my ($what, $sql) = @$q;
	my $serial = $node->safe_psql('postgres', "$serial_settings $sql");
	for my $leader ('on', 'off')
	{
		my $settings = "$parallel_settings SET parallel_leader_participation = $leader;";
		my $plan = $node->safe_psql('postgres', "$settings EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $sql");
		like($plan, qr/Parallel Seq Scan/, "$what, leader $leader: a parallel plan");
		like($plan, qr/Workers Launched: [1-9]/, "$what, leader $leader: workers ran");
		is($node->safe_psql('postgres', "$settings $sql"), $serial,
			"$what, leader $leader: the same answer as a serial scan");
	}
}

# the whole log: the serial answer is what was produced
is($node->safe_psql('postgres', "$serial_settings SELECT count(*) FROM r"), '6000',
	'the serial scan sees every committed record');

$node->stop;
done_testing();
