# produce_batch's memory beyond its input array does not grow with the
# batch: a backend producing a million records peaks a few megabytes above
# one that only builds the same array (before chunking, ~250 MB above).
# Peaks are the backend's VmHWM from /proc, so the test needs Linux.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

plan skip_all => 'needs /proc/<pid>/status (Linux)' unless -r '/proc/self/status';

my $node = PostgreSQL::Test::Cluster->new('batch_memory');
$node->init;
# shared buffers a backend touches count in its resident size: keep them few
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
shared_buffers = 16MB
work_mem = 4MB
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('m', 2, 'text', 'text');
});

my $n = 1_000_000;
my $array = "array_fill('0123456789abcdef'::text, ARRAY[$n])";
my $peak = q{SELECT (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'),
	'VmHWM:\s+(\d+) kB'))[1]};

# each in a fresh backend: the array alone, then the array produced
my ($count_a, $array_kb) = split /\n/, $node->safe_psql('postgres',
	"SELECT array_length($array, 1);\n$peak");
my ($count_p, $produce_kb) = split /\n/, $node->safe_psql('postgres',
	"SELECT count(*) FROM topics.produce_batch('m', $array, partition => 0);\n$peak");
is($count_a, $n, 'array built');
is($count_p, $n, 'every record produced');
is($node->safe_psql('postgres', 'SELECT count(*) FROM m'), $n, 'every record stored');

my $extra_mb = ($produce_kb - $array_kb) / 1024;
note "array alone: ${array_kb} kB, produce_batch: ${produce_kb} kB, extra: ${extra_mb} MB";
cmp_ok($extra_mb, '<', 64,
	'produce_batch of a million records needs less than 64 MB beyond its array');

$node->stop;
done_testing();
