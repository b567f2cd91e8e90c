# Consume -> transform -> produce in one transaction is exactly-once:
# two members of a group read topic "in", write one record per input to
# topic "out", and roll back a third of their transactions at random.
# Every input must appear in "out" exactly once.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use IPC::Run;

my $node = PostgreSQL::Test::Cluster->new('transform');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_topics'\n");
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('t_in', partitions => 3, key_type => 'text', value_type => 'text');
SELECT topics.create_topic('t_out', partitions => 2, key_type => 'text', value_type => 'text');
SELECT count(*) FROM topics.produce_batch('t_in',
    (SELECT array_agg('v' || i) FROM generate_series(1, 3000) i),
    (SELECT array_agg('k' || i) FROM generate_series(1, 3000) i));
});

my $script = '';
for (1 .. 400)
{
	$script .= "BEGIN;\n";
	$script .= "SELECT count(*) FROM topics.produce_batch('t_out', (SELECT array_agg('out:' || value) FROM topics.poll(NULL::t_in, 'transform', max_records => 13)));\n";
	$script .= "SELECT random() < 0.33 AS rollback \\gset\n";
	$script .= "\\if :rollback\nROLLBACK;\n\\echo rolled-back\n\\else\nCOMMIT;\n\\endif\n";
}
my $file = $node->basedir . '/worker.sql';
open my $fh, '>', $file or die;
print $fh $script;
close $fh;

my @out = ('', '');
my @workers = map {
	IPC::Run::start([ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-f', $file ],
		'>', \$out[$_ - 1], '2>', $node->basedir . "/worker$_.err")
} 1 .. 2;
$_->finish for @workers;
my $rolled_back = 0;
$rolled_back += () = $_ =~ /rolled-back/g for @out;

# whatever is left (the last transactions may have rolled back)
$node->safe_psql('postgres', q{
SELECT count(*) FROM topics.produce_batch('t_out', (SELECT array_agg('out:' || value) FROM topics.poll(NULL::t_in, 'transform', max_records => 100000)));
});

is($node->safe_psql('postgres', q{SELECT count(*) FROM t_out}), '3000', 'one output per input');
is($node->safe_psql('postgres', q{SELECT count(DISTINCT value) FROM t_out}), '3000', 'no input transformed twice');
is($node->safe_psql('postgres',
	q{SELECT count(*) FROM t_in i WHERE NOT EXISTS (SELECT 1 FROM t_out o WHERE o.value = 'out:' || i.value)}),
	'0', 'no input lost');
ok($rolled_back > 100, "workers rolled back transactions at random ($rolled_back)");

$node->stop;
done_testing();
