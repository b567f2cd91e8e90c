# Long-poll: fetch with wait returns within milliseconds of the commit that
# makes records available, holds no lock that blocks drop_topic while it
# sleeps, and ends at once on cancel and statement_timeout.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use Time::HiRes qw(time usleep);

my $node = PostgreSQL::Test::Cluster->new('poll');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_topics'\n");
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('t', partitions => 2, value_type => 'text');
CREATE TABLE woke (at timestamptz, n int);
});

# wake-up latency: the reader records when fetch returned, the producer
# when it started to commit
my @latencies;
# Wait until a session other than ours sleeps in a long poll (a fixed
# pause would be too short on a busy machine)
sub wait_for_sleeper
{
	$node->poll_query_until('postgres', q{
SELECT count(*) = 1 FROM pg_stat_activity
WHERE state = 'active' AND wait_event_type = 'Extension' AND query LIKE '%wait =>%'
  AND pid <> pg_backend_pid()})
	  or die 'no session sleeps in a long poll';
}

for my $round (1 .. 5)
{
	my $from = $node->safe_psql('postgres', q{SELECT high_watermark FROM topics.offsets('t') WHERE partition = 0});
	my $reader = $node->background_psql('postgres');
	$reader->query_until(qr/started/, qq{
\\echo started
DO \$\$ DECLARE n int; BEGIN SELECT count(*) INTO n FROM topics.fetch(NULL::t, 0, $from, wait => '30 s'); INSERT INTO woke VALUES (clock_timestamp(), n); END \$\$;
});
	wait_for_sleeper();
	my $t0 = $node->safe_psql('postgres', q{
BEGIN;
SELECT count(*) FROM topics.produce('t', 'wake up', partition => 0);
SELECT clock_timestamp();
COMMIT;
});
	$t0 = (split /\n/, $t0)[-1];
	$reader->quit;
	my $ms = $node->safe_psql('postgres',
		"SELECT round(extract(epoch FROM (SELECT max(at) FROM woke) - '$t0'::timestamptz) * 1000, 1)");
	push @latencies, $ms;
}
my $got = $node->safe_psql('postgres', 'SELECT count(*), sum(n) FROM woke');
is($got, '5|5', 'every waiting fetch returned the record it waited for');
my @sorted = sort { $a <=> $b } @latencies;
diag("long-poll wake-up latency (ms, commit start to fetch return): @latencies; median $sorted[2]");
ok($sorted[-1] < 5000, "every wake-up came well before the 30 s wait ended (worst $sorted[-1] ms)");

# a commit on the other partition does not satisfy a waiter, and the wait ends empty
my $start = time();
my $n = $node->safe_psql('postgres', q{SELECT count(*) FROM topics.fetch(NULL::t, 1, 0, wait => '300 ms')});
my $elapsed = time() - $start;
is($n, '0', 'fetch with nothing to read returns empty');
ok($elapsed >= 0.29, 'and only after the wait');

# a drop does not wait for a sleeping reader (fetch or poll), and the reader
# learns of it at once (42P01); drop_topic and DROP TABLE alike
for my $case (
	[ 'fetch', 'drop_topic', q{SELECT count(*) FROM topics.fetch(NULL::doomed, 0, 0, wait => '60 s');} ],
	[ 'fetch', 'DROP TABLE', q{SELECT count(*) FROM topics.fetch(NULL::doomed, 0, 0, wait => '60 s');} ],
	[ 'poll', 'drop_topic', q{SELECT count(*) FROM topics.poll(NULL::doomed, 'g', wait => '60 s');} ],
	[ 'poll', 'DROP TABLE', q{SELECT count(*) FROM topics.poll(NULL::doomed, 'g', wait => '60 s');} ],
	[ 'poll in a transaction', 'drop_topic', q{BEGIN; SELECT count(*) FROM topics.poll(NULL::doomed, 'g', wait => '60 s'); COMMIT;} ])
{
	my ($reader, $drop, $sql) = @$case;
	my $fn = $reader =~ /^poll/ ? 'poll' : 'fetch';
	$node->safe_psql('postgres', q{SELECT topics.create_topic('doomed', 3)});
	my $sleeper = $node->background_psql('postgres', on_error_stop => 0);
	$sleeper->query_until(qr/started/, "\\echo started\n$sql\n");
	wait_for_sleeper();
	$start = time();
	my ($ret, $out, $err) = $node->psql('postgres', "SET lock_timeout = '5s'; "
		. ($drop eq 'drop_topic' ? q{SELECT topics.drop_topic('doomed')} : q{DROP TABLE doomed}));
	is($ret, 0, "$drop does not wait for a long-polling $reader") or diag($err);
	ok(time() - $start < 3, "$drop returns at once");
	$start = time();
	$sleeper->quit;
	ok(time() - $start < 5, "the $reader stops waiting when its topic is dropped ($drop)");
	like($sleeper->{stderr}, qr/ERROR:  topic was dropped while $fn was waiting/, 'and says why');
}

# cancel and statement_timeout end the sleep at once
$start = time();
my ($ret, $out, $err) = $node->psql('postgres',
	q{SET statement_timeout = '200ms'; SELECT count(*) FROM topics.fetch(NULL::t, 1, 0, wait => '60 s')});
$elapsed = time() - $start;
like($err, qr/canceling statement due to statement timeout/, 'statement_timeout ends a long poll');
ok($elapsed < 10, "promptly ($elapsed s)");

my $victim = $node->background_psql('postgres', on_error_stop => 0);
$victim->query_until(qr/started/, q{
\echo started
SELECT count(*) FROM topics.fetch(NULL::t, 1, 0, wait => '60 s');
});
wait_for_sleeper();
$start = time();
$node->safe_psql('postgres',
	q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%wait => ''60 s''%' AND pid <> pg_backend_pid()});
$victim->quit;
$elapsed = time() - $start;
ok($elapsed < 10, "pg_cancel_backend ends a long poll promptly ($elapsed s)");

$node->stop;
done_testing();
