# Consumer groups under chaos: workers of one group loop
# BEGIN; poll; insert results; COMMIT while a chaos loop terminates random
# workers and starts new ones, and producers keep writing.  Every record
# must be processed exactly once, two members never process one partition
# at the same time, and every partition is served.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use IPC::Run;
use Time::HiRes qw(time usleep);

my $node = PostgreSQL::Test::Cluster->new('groups');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
max_connections = 40
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('t', partitions => 4, key_type => 'text', value_type => 'text');
CREATE TABLE done (value text, partition int, pid int, xid xid8, at timestamptz);
});

# producers: 4 x 60 transactions of 10 keyed records
my $nproducers = 4;
my @producers;
for my $p (1 .. $nproducers)
{
	my $script = '';
	for my $i (1 .. 60)
	{
		my $values = join(',', map { "'p$p-$i-$_'" } 1 .. 10);
		my $keys = join(',', map { "'k$p-$i-$_'" } 1 .. 10);
		$script .= "SELECT count(*) FROM topics.produce_batch('t', ARRAY[$values], ARRAY[$keys]);\n";
		$script .= "SELECT pg_sleep(0.1);\n";
	}
	# from a file, so that every statement commits on its own
	my $file = $node->basedir . "/producer$p.sql";
	open my $pf, '>', $file or die;
	print $pf $script;
	close $pf;
	push @producers, IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-f', $file ],
		'>', '/dev/null', '2>', $node->basedir . "/producer$p.err");
}

# a worker: poll, record, commit, in a loop; errors (40001, termination) are fine
my $worker_script = $node->basedir . '/worker.sql';
open my $fh, '>', $worker_script or die;
print $fh "SET application_name = 'worker';\n";
for (1 .. 3000)
{
	print $fh "BEGIN;\n";
	print $fh "INSERT INTO done SELECT value, partition, pg_backend_pid(), pg_current_xact_id(), clock_timestamp() FROM topics.poll(NULL::t, 'g', max_records => 7, wait => '50 ms');\n";
	print $fh "COMMIT;\n";
}
close $fh;
my @workers;
sub start_worker
{
	push @workers, IPC::Run::start(
		[ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-f', $worker_script ],
		'>', '/dev/null', '2>', '/dev/null');
}
start_worker() for 1 .. 3;

# chaos: terminate a random worker and start another, while producers run
my $terminated = 0;
my $deadline = time() + 60;
my $produced = 4 * 60 * 10;
# (at least five terminations, also when the producers finish first)
while (time() < $deadline
	   && ($terminated < 5
		   || $node->safe_psql('postgres', 'SELECT count(*) FROM t') < $produced))
{
	usleep(400_000);
	my $pid = $node->safe_psql('postgres',
		q{SELECT pid FROM pg_stat_activity WHERE application_name = 'worker' ORDER BY random() LIMIT 1});
	if ($pid)
	{
		$node->safe_psql('postgres', "SELECT pg_terminate_backend($pid)");
		$terminated++;
		start_worker();
	}
}
$_->finish for @producers;
ok(!$_->result, 'producer finished cleanly') for @producers;
ok($terminated >= 5, "the chaos loop terminated workers ($terminated)");

# let the surviving workers drain the topic
$node->poll_query_until('postgres', "SELECT count(*) >= $produced FROM done")
  or diag('workers did not drain the topic');
$node->safe_psql('postgres', q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'worker'});
$_->finish for @workers;

is($node->safe_psql('postgres', 'SELECT count(*) FROM t'), $produced, 'every record was produced');
is($node->safe_psql('postgres', 'SELECT count(DISTINCT value) FROM done'), $produced,
	'every record was processed');
is($node->safe_psql('postgres', 'SELECT count(*) - count(DISTINCT value) FROM done'), '0',
	'no record was processed twice');
is($node->safe_psql('postgres', 'SELECT count(DISTINCT partition) FROM done'), '4',
	'every partition was served');
is($node->safe_psql('postgres', 'SELECT count(DISTINCT pid) > 3 FROM done'), 't',
	'several members did the work');

# ownership: the transactions that processed a partition never overlap in time
is($node->safe_psql('postgres', q{
WITH iv AS (SELECT partition, xid, pid, min(at) AS s, max(at) AS e FROM done GROUP BY 1, 2, 3)
SELECT count(*) FROM iv a JOIN iv b
  ON a.partition = b.partition AND a.xid < b.xid AND a.pid <> b.pid AND a.s <= b.e AND b.s <= a.e}),
	'0', 'two members never processed one partition at once');

# committed positions survive a restart (the cache is refilled from the log)
my $lag_before = $node->safe_psql('postgres',
	q{SELECT string_agg(partition || ':' || committed_offset, ',' ORDER BY partition) FROM topics.consumer_lag WHERE group_name = 'g'});
$node->restart;
my $lag_after = $node->safe_psql('postgres',
	q{SELECT string_agg(partition || ':' || committed_offset, ',' ORDER BY partition) FROM topics.consumer_lag WHERE group_name = 'g'});
is($lag_after, $lag_before, 'committed positions are the same after a restart');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.poll(NULL::t, 'g')}), '0',
	'the group resumes where it was: nothing is delivered again');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('topics.consumer_offsets')}), '0',
	'the log of positions is healthy');

$node->stop;
done_testing();
