# ANALYZE (and so autovacuum) works on a partition of more than 1 GB.  Core's
# ANALYZE prefetches the blocks it samples from the partition's own relation,
# which holds only a metapage while the records live in segments; md.c refuses
# a block past the first 1 GB file of a relation whose first file is not full,
# so ANALYZE of such a partition failed ("previous segment is only 1 blocks").
# Also checked: the planner's row estimate afterwards, and that fetch and
# verify see the whole log.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('analyze_large');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'pg_topics'
max_wal_size = 4GB
checkpoint_timeout = 1h
fsync = off
});
$node->start;

# 1,500-byte values stay inline (no TOAST), so about 5 records fill a page:
# 760,000 records are more than 131,072 pages (one 1 GB file)
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('big', 1, 'text', 'bytea');
});
for my $part (0 .. 3)
{
	$node->safe_psql('postgres', qq{
INSERT INTO big (key, value)
SELECT 'k' || i, convert_to(repeat(md5(i::text), 47), 'UTF8')
FROM generate_series($part * 190000 + 1, ($part + 1) * 190000) i;
});
}
my $pages = $node->safe_psql('postgres', q{
SELECT (sum(pg_relation_size(c.oid)) / 8192)::bigint FROM pg_class c
WHERE c.relnamespace = 'topics_segments'::regnamespace AND c.relkind = 'r'});
cmp_ok($pages, '>', 131072, "the partition's segments hold more than one file's pages ($pages)");

my ($ret, $out, $err) = $node->psql('postgres', 'ANALYZE big');
is($ret, 0, 'ANALYZE of a partition over 1 GB succeeds');
is($err, '', 'and says nothing');
is($node->safe_psql('postgres', q{
SELECT count(*) > 0 FROM pg_stats WHERE tablename = 'big_p0' AND attname = 'key'}),
	't', 'it collected statistics');

my ($estimate) = $node->safe_psql('postgres', 'EXPLAIN SELECT * FROM big') =~ /rows=(\d+)/;
cmp_ok(abs($estimate - 760000), '<', 76000,
	"the planner's estimate afterwards is within 10% of the 760,000 records ($estimate)");

is($node->safe_psql('postgres', q{
SELECT count(*) FROM topics.fetch(NULL::big, 0, 759000)}), '1000',
	'fetch reads the end of the log');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('big')}), '0',
	'verify finds nothing');

$node->stop;
done_testing();
