# The harness fails a test whose server log shows an internal error, an
# assertion failure, a PANIC, a crashed server process or a resource leak
# that the test does not declare: PgTopicsServerLog finds each kind and
# nothing else, test/check_server_log (pg_regress and isolation logs) and
# PgTopicsTest (TAP nodes) find an XX000 and a backend killed by a signal
# in a real server's log, and accept exactly what a test declares.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use PgTopicsServerLog qw(log_problems);
use IPC::Run;
use File::Basename qw(dirname);

my $checker = dirname(__FILE__) . '/../check_server_log';

# --- each kind of problem, in a log written as pg_regress's instances write it ---
my $dir = PostgreSQL::Test::Utils::tempdir();
my $ts = '2026-01-01 00:00:00.000 UTC';
open my $fh, '>', "$dir/synthetic.log" or die $!;
print $fh <<"LOG";
$ts client backend[11] [unknown] LOG:  00000: connection received: host=[local]
$ts client backend[11] pg_regress/01_a ERROR:  22023: an ordinary error
$ts client backend[11] pg_regress/01_a ERROR:  XX000: could not find the thing
$ts client backend[11] pg_regress/01_a LOCATION:  thing_find, thing.c:12
$ts client backend[11] pg_regress/01_a STATEMENT:  SELECT thing()
$ts client backend[12] pg_regress/02_b ERROR:  XX001: invalid page in block 3
TRAP: FailedAssertion("count > 0", File: "src/fetch.c", Line: 99, PID: 13)
postgres: postgres contrib_regression [local] SELECT(ExceptionalCondition+0x7b)[0x55]
$ts client backend[13] pg_regress/03_c LOG:  00000: statement: SELECT 1
$ts postmaster[10] LOG:  00000: server process (PID 13) was terminated by signal 6: Aborted
$ts postmaster[10] DETAIL:  Failed process was running: SELECT broken()
$ts client backend[14] pg_regress/04_d PANIC:  58P01: could not open file "x"
$ts client backend[15] pg_regress/05_e WARNING:  01000: relcache reference leak: relation "t" not closed
$ts background worker[16] LOG:  00000: background worker "w" (PID 16) exited with exit code 1
$ts postmaster[10] LOG:  00000: background worker "pg_topics" (PID 17) exited with exit code 2
$ts client backend[18] pg_regress/06_f WARNING:  01000: the word leak in an ordinary warning is still a leak
$ts client backend[19] pg_regress/07_g ERROR:  P0001: XX000: a message that only quotes XX000
LOG
close $fh;
my @found = log_problems("$dir/synthetic.log");
is_deeply(
	[ map { "$_->{line} " . ($_->{app} // '-') } @found ],
	[ '3 pg_regress/01_a', '6 pg_regress/02_b', '7 pg_regress/03_c', '10 pg_regress/03_c',
	  '12 pg_regress/04_d', '13 pg_regress/05_e', '15 -', '16 pg_regress/06_f' ],
	'each kind of problem is found, with the test it belongs to, and nothing else');
is_deeply($found[0]{context},
	[ "$ts client backend[11] pg_regress/01_a LOCATION:  thing_find, thing.c:12",
	  "$ts client backend[11] pg_regress/01_a STATEMENT:  SELECT thing()" ],
	'an error comes with where it was raised and the statement');
is_deeply($found[2]{context},
	[ 'postgres: postgres contrib_regression [local] SELECT(ExceptionalCondition+0x7b)[0x55]' ],
	'an assertion failure comes with its backtrace');

# --- a real server: an internal error and a backend killed by a signal ---
my $node = PostgreSQL::Test::Cluster->new('logcheck');
$node->init;
$node->start;
my $connstr = $node->connstr('postgres') . ' application_name=pg_regress/fake_test';
my ($stdout, $stderr);
IPC::Run::run([ 'psql', '-X', '-d', $connstr, '-c',
		q{DO $$BEGIN RAISE EXCEPTION 'broken invariant' USING ERRCODE = 'XX000'; END$$} ],
	'>', \$stdout, '2>', \$stderr);
like($stderr, qr/broken invariant/, 'the statement fails with the internal error');

my $sleeper = IPC::Run::start([ 'psql', '-X', '-d', $connstr, '-c', 'SELECT pg_sleep(600)' ],
	'>', \my $sleep_out, '2>', \my $sleep_err);
$node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = 'pg_regress/fake_test'})
  or die 'the sleeping session did not start';
my $pid = $node->safe_psql('postgres',
	q{SELECT pid FROM pg_stat_activity WHERE application_name = 'pg_regress/fake_test'});
kill 'ABRT', $pid;
$sleeper->finish;
# the test framework's nodes do not restart after a crash: wait until the
# postmaster is gone, and tell the framework so
my $postmaster = $node->{_pid};
for (my $i = 0; $i < 100 * $PostgreSQL::Test::Utils::timeout_default && kill(0, $postmaster); $i++)
{
	select(undef, undef, undef, 0.01);
}
ok(!kill(0, $postmaster), 'the server shut down after the crash');
$node->{_pid} = undef;

my @undeclared = PgTopicsTest::undeclared_log_problems($node);
is(scalar(@undeclared), 2, 'the node\'s log shows two problems no test declared');
like($undeclared[0]{text}, qr/ERROR:  XX000: broken invariant/, 'the first is the internal error');
like($undeclared[1]{text}, qr/\(PID $pid\) was terminated by signal 6/, 'the second is the killed backend');
is($undeclared[1]{app}, 'pg_regress/fake_test', 'which is the test\'s own');

# check_server_log: undeclared, then declared in the test's file
mkdir "$dir/sql";
PostgreSQL::Test::Utils::append_to_file("$dir/sql/fake_test.sql", "SELECT 1;\n");
my $out;
IPC::Run::run([ 'perl', $checker, "--tests=$dir/sql", $node->logfile ], '>', \$out, '2>&1');
isnt($?, 0, 'check_server_log fails on problems the test does not declare');
like($out, qr/not declared by the test \(fake_test\):\n.*XX000: broken invariant/,
	'it shows the internal error and names the test');
like($out, qr/not declared by the test \(fake_test\):\n.*terminated by signal 6/,
	'it shows the killed backend');
PostgreSQL::Test::Utils::append_to_file("$dir/sql/fake_test.sql",
	"-- server log may show: /XX000: broken invariant/ this test raises it on purpose\n");
IPC::Run::run([ 'perl', $checker, "--tests=$dir/sql", $node->logfile ], '>', \$out, '2>&1');
isnt($?, 0, 'one declared problem does not cover the other');
PostgreSQL::Test::Utils::append_to_file("$dir/sql/fake_test.sql",
	"-- server log may show: /terminated by signal 6/ this test kills a backend on purpose\n");
IPC::Run::run([ 'perl', $checker, "--tests=$dir/sql", $node->logfile ], '>', \$out, '2>&1');
is($?, 0, 'check_server_log passes once the test declares both');
like($out, qr/declared by fake_test: this test kills a backend on purpose/, 'and says what it accepted');

# PgTopicsTest: declared for this node, so that this test passes as a whole
expect_in_log($node, qr/XX000: broken invariant/, 'this test raises it on purpose');
is(scalar(PgTopicsTest::undeclared_log_problems($node)), 1, 'a declaration covers its own problem only');
expect_in_log($node, qr/\(PID $pid\) was terminated by signal 6/, 'this test kills the backend on purpose');
is(scalar(PgTopicsTest::undeclared_log_problems($node)), 0, 'declared problems do not fail the test');

done_testing();
