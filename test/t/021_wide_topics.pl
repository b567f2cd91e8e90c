# Wide topics with default settings: a 1,000-partition topic is created,
# grown, produced to across all its partitions, consumed, truncated and
# dropped (by drop_topic and by DROP TABLE) without running out of the lock
# table; the segments a drop leaves to the worker go too.  A topic too wide
# to drop in one transaction is refused up front, at once or in steps,
# saying what to change.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use Time::HiRes qw(time);

my $node = PostgreSQL::Test::Cluster->new('wide');
$node->init;
# PostgreSQL's defaults where the test framework lowers them: the lock
# table is max_locks_per_transaction (64) times the number of backends
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
max_connections = 100
max_prepared_transactions = 0
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION pg_topics');
is($node->safe_psql('postgres', 'SHOW max_locks_per_transaction'), '64', 'default lock table');

# the segments of a topic's partitions, by the partitions' OIDs
sub segments_of
{
	my ($oids) = @_;
	return $node->safe_psql('postgres', qq{
SELECT count(*) FROM pg_class WHERE relnamespace = 'topics_segments'::regnamespace
AND relkind = 'r' AND split_part(relname, '_', 2)::oid = ANY ('{$oids}'::oid[])});
}

for my $drop ('drop_topic', 'DROP TABLE')
{
	my $start = time();
	$node->safe_psql('postgres', q{SELECT topics.create_topic('wide', 1000)});
	diag(sprintf('1000 partitions created in %.1f s', time() - $start));
	$node->safe_psql('postgres', q{SELECT topics.add_partitions('wide', 1010)});
	is($node->safe_psql('postgres', q{SELECT partitions FROM topics.topics WHERE topic = 'wide'::regclass}),
		'1010', 'a 1,000-partition topic is created and grown to 1,010');

	# one keyed batch reaches (nearly) every partition in one transaction
	is($node->safe_psql('postgres', q{
SELECT count(*), count(DISTINCT partition) > 990 FROM topics.produce_batch('wide',
	(SELECT array_agg(g::text) FROM generate_series(1, 8000) g)::jsonb[],
	(SELECT array_agg('k' || g) FROM generate_series(1, 8000) g))}),
		'8000|t', 'produce_batch writes to every partition in one transaction');
	is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.poll(NULL::wide, 'g', max_records => 100000)}),
		'8000', 'a poll reads them all');
	is($node->safe_psql('postgres', q{SELECT count(*) FROM wide}), '8000', 'and so does SQL');
	is($node->safe_psql('postgres', q{SELECT sum(high_watermark) FROM topics.offsets('wide')}),
		'8000', 'offsets sees every partition');

	$node->safe_psql('postgres', q{TRUNCATE wide});
	is($node->safe_psql('postgres', q{SELECT count(*) FROM wide}), '0', 'TRUNCATE of the wide topic works');

	# give every partition a spare segment too: the worst case for a drop
	my $oids = $node->safe_psql('postgres',
		q{SELECT string_agg(inhrelid::text, ',') FROM pg_inherits WHERE inhparent = 'wide'::regclass});
	ok($node->poll_query_until('postgres', qq{
SELECT count(*) >= 2020 FROM pg_class WHERE relnamespace = 'topics_segments'::regnamespace
AND relkind = 'r' AND split_part(relname, '_', 2)::oid = ANY ('{$oids}'::oid[])}),
		'the worker gave every partition a spare segment');

	$start = time();
	my ($ret, $out, $err) = $node->psql('postgres',
		$drop eq 'drop_topic' ? q{SELECT topics.drop_topic('wide')} : q{DROP TABLE wide});
	is($ret, 0, "$drop of a 1,010-partition topic with 2,020 segments works") or diag($err);
	diag(sprintf("$drop in %.1f s", time() - $start));
	is($node->safe_psql('postgres', q{SELECT to_regclass('wide') IS NULL}), 't', 'the topic is gone');
	ok($node->poll_query_until('postgres', qq{
SELECT count(*) = 0 FROM pg_class WHERE relnamespace = 'topics_segments'::regnamespace
AND relkind = 'r' AND split_part(relname, '_', 2)::oid = ANY ('{$oids}'::oid[])}),
		'the worker drops the segments the drop left to it');
}

# a topic no transaction could drop (or create) is never made: not at
# once, not in steps; refused before anything is created
my ($ret, $out, $err) = $node->psql('postgres', q{SELECT topics.create_topic('huge', 10000)},
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/ERROR:  53400: cannot create topic "huge" with 10000 partitions/,
	'a topic wider than one transaction can drop is refused with 53400');
like($err, qr/DETAIL:  Dropping a topic locks all of its partitions in one transaction, so with max_locks_per_transaction = 64 a topic can have at most about \d+ partitions/,
	'and the detail says why and how wide a topic can be');
is($node->safe_psql('postgres', q{SELECT to_regclass('huge') IS NULL}), 't', 'nothing was created');
$node->safe_psql('postgres', q{SELECT topics.create_topic('wide', 1000)});
($ret, $out, $err) = $node->psql('postgres', q{SELECT topics.add_partitions('wide', 2000)},
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/ERROR:  53400: cannot grow topic "wide" to 2000 partitions/,
	'growing a topic wider than one transaction can drop is refused with 53400');
like($err, qr/HINT:  Raise max_locks_per_transaction/, 'and the hint says what to change');
is($node->safe_psql('postgres', q{SELECT partitions FROM topics.topics WHERE topic = 'wide'::regclass}),
	'1000', 'the topic keeps its partitions');
($ret, $out, $err) = $node->psql('postgres', q{SELECT topics.drop_topic('wide')});
is($ret, 0, 'and can still be dropped') or diag($err);

$node->stop;
done_testing();
