# Committed group positions stay small: tens of thousands of commits, made
# while another session holds a transaction (and so an old snapshot) open
# the whole time, leave topics.consumer_offsets at a few segments, and a commit
# at the end touches no more pages than one at the start.  After a
# restart every group resumes at its last committed position, so
# compaction kept the latest record of every key.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use Time::HiRes qw(time);

my $node = PostgreSQL::Test::Cluster->new('compaction');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
pg_topics.worker_naptime = '200ms'
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('ticks', 4, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('ticks', (SELECT array_agg('t' || g) FROM generate_series(1, 40000) g),
	(SELECT array_agg('k' || g) FROM generate_series(1, 40000) g));
SELECT count(*) FROM topics.poll(NULL::ticks, 'early', max_records => 10);
});

# the pages a commit touches, once its session's caches are warm: what
# stays the same while the positions pile up (a timed rate would be the
# benchmark's job, and flaky here)
sub commit_buffers
{
	my $explain = q{EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT topics.commit('ticks', 'group1', 1, 7)};
	my @buffers = $node->safe_psql('postgres', "$explain;\n$explain;") =~ /Buffers: shared ([^\n]*)/g;
	my $pages = 0;
	$pages += $_ for $buffers[-1] =~ /(?:hit|read)=(\d+)/g;
	return $pages;
}

# the old snapshot: a transaction that stays open through all the commits
my $holder = $node->background_psql('postgres');
$holder->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
$holder->query_safe('SELECT count(*) FROM topics.topics');

my $script = $node->basedir . '/commit.sql';
open my $fh, '>', $script or die;
print $fh "\\set p random(0, 3)\n\\set g random(1, 20)\n\\set o random(0, 5000)\n";
print $fh "SELECT topics.commit('ticks', 'group' || :g, :p, :o);\n";
close $fh;
# the groups exist once they have polled
$node->safe_psql('postgres', join('', map { "SELECT count(*) FROM topics.poll(NULL::ticks, 'group$_', max_records => 1);\n" } 1 .. 20));

sub offsets_bytes
{
	return $node->safe_psql('postgres', q{
SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c
WHERE c.relnamespace = 'topics_segments'::regnamespace
AND c.relname LIKE 'seg\_' || 'topics.consumer_offsets'::regclass::oid || '\_%'});
}

sub commits
{
	my ($n) = @_;
	my $start = time;
	$node->command_ok([ 'pgbench', '-n', '-f', $script, '-c', '2', '-t', $n / 2,
		'-h', $node->host, '-p', $node->port, 'postgres' ], "$n commits");
	return $n / (time - $start);
}

my $rate_start = commits(10000);
my $pages_start = commit_buffers();
my $bytes_start = offsets_bytes();
for my $i (1 .. 4)
{
	commits(10000);
}
my $rate_end = commits(10000);
my $pages_end = commit_buffers();
# let the worker catch up with the last segment
ok($node->poll_query_until('postgres', q{
SELECT count(*) <= 3 FROM pg_class c WHERE c.relnamespace = 'topics_segments'::regnamespace
AND c.relname LIKE 'seg\_' || 'topics.consumer_offsets'::regclass::oid || '\_%'}),
	'compaction keeps consumer_offsets at a few segments');
my $bytes_end = offsets_bytes();
note sprintf('consumer_offsets: %d bytes after 10k commits, %d after 60k; %.0f commits/s at the start, %.0f at the end',
	$bytes_start, $bytes_end, $rate_start, $rate_end);
cmp_ok($bytes_end, '<', 4 * 1024 * 1024,
	"60,000 commits under an old snapshot leave consumer_offsets small ($bytes_end bytes; uncompacted it would be about 10 MB)");
cmp_ok($pages_start, '>', 0, "a commit's pages are counted ($pages_start)");
cmp_ok($pages_end, '<=', $pages_start + 2,
	"a commit touches as many pages after 60,000 commits as after 10,000 ($pages_start, then $pages_end)");
$holder->quit;

# every position survives compaction and a restart
my $positions_sql = q{
SELECT string_agg(format('%s/%s/%s', group_name, partition, committed_offset), ',' ORDER BY group_name, partition)
FROM topics.consumer_lag};
my $before = $node->safe_psql('postgres', $positions_sql);
like($before, qr{^early/0/}, 'a group committed before all the others is still there');
$node->restart;
is($node->safe_psql('postgres', $positions_sql), $before,
	'after a restart every group and partition is back at its last committed position');

$node->stop;
done_testing();
