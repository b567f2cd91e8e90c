# Failover without acknowledged loss: a primary with a synchronous standby
# and pg_topics.wait_for_sync_standby = on.
#
# 1. A commit whose synchronous-replication wait was cancelled is visible on
#    the primary but not confirmed: consumers (fetch, poll) do not get it
#    until the standby has it; without the setting they would.
# 2. Producers (synchronous and local commits) and a consumer group run
#    while every process of the primary is killed; the standby is promoted.
#    Every acknowledged record is there with its offset and value, every
#    record the consumer saw is there, the group's acknowledged positions
#    are there, and new records get offsets no one was given before.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use PgTopicsTest;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
pg_topics.wait_for_sync_standby = on
});
$primary->start;
$primary->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('events', 3, 'text', 'text');
SELECT count(*) FROM topics.poll(NULL::events, 'g', consumer => 'c');
});
my $standby = start_sync_standby($primary, 'standby');

# --- 1. a cancelled synchronous-replication wait ---------------------------

$standby->stop;
my ($out, $err) = ('', '');
my $producer = IPC::Run::start(
	[ 'psql', '-XAtq', '-d', $primary->connstr('postgres'), '-c',
	  q{SELECT "offset" FROM topics.produce('events', 'unconfirmed'::text, partition => 0)} ],
	'>', \$out, '2>', \$err);
ok($primary->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event = 'SyncRep' AND query LIKE '%unconfirmed%'}),
	'the producer waits for the stopped standby');
$primary->safe_psql('postgres',
	q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep' AND query LIKE '%unconfirmed%'});
$producer->finish;
like($err, qr/canceling wait for synchronous replication/,
	'the cancelled wait warns the producer: its commit is not acknowledged');
chomp $out;
like($out, qr/^\d+$/, 'the record is committed locally');
is($primary->safe_psql('postgres',
	q{SELECT count(*) FROM events WHERE value = 'unconfirmed'}), '1',
	'plain SQL on the primary sees the locally committed record');

my ($ret, $stdout, $stderr) = $primary->psql('postgres', qq{
SET statement_timeout = '1s';
SELECT value FROM topics.fetch(NULL::events, 0, $out);});
like($stderr, qr/canceling statement due to statement timeout/,
	'fetch does not return a record the synchronous standby has not confirmed');
my $position_sql = q{
SELECT committed_offset FROM topics.consumer_lag WHERE group_name = 'g' AND partition = 0};
my $position_before = $primary->safe_psql('postgres', $position_sql);
($ret, $stdout, $stderr) = $primary->psql('postgres', q{
SET statement_timeout = '1s';
SELECT value FROM topics.poll(NULL::events, 'g', consumer => 'c');});
like($stderr, qr/canceling statement due to statement timeout/,
	'neither does poll');
is($primary->safe_psql('postgres', $position_sql), $position_before,
	'the failed poll moved no position');
is($primary->safe_psql('postgres', qq{
SET pg_topics.wait_for_sync_standby = off;
SELECT value FROM topics.fetch(NULL::events, 0, $out);}),
	'unconfirmed', 'without the setting, fetch would have returned it');

# a reader waiting for the standby sleeps until the standby's confirmation
# wakes it, as a synchronous commit does (no polling), and returns then
my ($wout, $werr) = ('', '');
my $waiter = IPC::Run::start(
	[ 'psql', '-XAtq', '-d', $primary->connstr('postgres'), '-c',
	  qq{SELECT value FROM topics.fetch(NULL::events, 0, $out)} ],
	'>', \$wout, '2>', \$werr);
my $wait_sql = q{SELECT pid FROM pg_stat_activity
WHERE query LIKE '%topics.fetch(NULL::events%' AND state = 'active' AND wait_event_type = 'Extension'};
ok($primary->poll_query_until('postgres', "SELECT count(*) = 1 FROM ($wait_sql) w"),
	'a fetch waits for the standby');
my $wpid = $primary->safe_psql('postgres', $wait_sql);
# a second reader needs the same WAL position, where PostgreSQL's queue
# keeps one waiter: it waits behind a position of its own
my ($wout2, $werr2) = ('', '');
my $waiter2 = IPC::Run::start(
	[ 'psql', '-XAtq', '-d', $primary->connstr('postgres'), '-c',
	  qq{SELECT value FROM topics.fetch(NULL::events, 0, $out)} ],
	'>', \$wout2, '2>', \$werr2);
ok($primary->poll_query_until('postgres', "SELECT count(*) = 2 FROM ($wait_sql) w"),
	'a second fetch waits too');
sub wakeups
{
	open my $st, '<', "/proc/$wpid/status" or return -1;
	while (<$st>) { return $1 if /^voluntary_ctxt_switches:\s+(\d+)/; }
	return -1;
}
my $w0 = wakeups();
sleep 2;
my $w1 = wakeups();
cmp_ok($w1 - $w0, '<', 50, 'and sleeps meanwhile (' . ($w1 - $w0) . ' wake-ups in 2 s)');

$standby->start;
$waiter->finish;
$waiter2->finish;
is($wout, "unconfirmed\n", 'once the standby has it, the waiting fetch returns it');
is($wout2, "unconfirmed\n", 'and so does the second one');
is($primary->safe_psql('postgres', qq{SELECT value FROM topics.fetch(NULL::events, 0, $out)}),
	'unconfirmed', 'and so does a new fetch');
$primary->wait_for_catchup('standby');

# --- 2. failover under load ------------------------------------------------

# Producers print "ack <partition> <offset> <value>" after COMMIT returned.
# Producers 1-3 commit synchronously; producer 4 with synchronous_commit =
# local, so its commits are never acknowledged by the standby: consumers
# must still not see one the standby lacks.
my (@harness, @outfile);
for my $p (1 .. 4)
{
	my $script = $p == 4 ? "SET synchronous_commit = local;\n" : '';
	for my $i (1 .. 30000)
	{
		$script .= "BEGIN;\n";
		$script .= "SELECT partition AS p, \"offset\" AS o FROM topics.produce('events', 'v$p-$i'::text, 'k$p-$i'::text) \\gset\n";
		$script .= "COMMIT;\n\\echo ack :p :o v$p-$i\n";
	}
	(my $h, $outfile[$p]) = start_psql_script($primary, "producer$p", $script);
	push @harness, $h;
}

# The consumer prints every record it got ("got ..."), and "acked" after
# each COMMIT returned.
my $consumer_script = '';
for my $i (1 .. 3000)
{
	$consumer_script .= "BEGIN;\n";
	$consumer_script .= "SELECT 'got ' || partition || ' ' || \"offset\" || ' ' || value FROM topics.poll(NULL::events, 'g', consumer => 'c', max_records => 50, wait => '100ms');\n";
	$consumer_script .= "COMMIT;\n\\echo acked\n";
}
my ($consumer, $consumer_out) = start_psql_script($primary, 'consumer', $consumer_script);
push @harness, $consumer;

# Lines of $file matching $re, so far
sub count_lines
{
	my ($file, $re) = @_;
	open my $fh, '<', $file or return 0;
	my $n = grep { /$re/ } <$fh>;
	close $fh;
	return $n;
}
# let them run for a while, and until the checks below have something to
# check (3 s may be too short on a busy machine), then crash the primary
sleep 3;
my $deadline = time + 120;
sleep 1 while time < $deadline
  && (count_lines($consumer_out, qr/^got /) <= 100
	|| (grep { count_lines($outfile[$_], qr/^ack /) } 1 .. 3) < 3
	|| count_lines($outfile[1], qr/^ack /) + count_lines($outfile[2], qr/^ack /)
	+ count_lines($outfile[3], qr/^ack /) <= 100);
kill9_server($primary);
$_->finish for @harness;

$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()');

my %there;
for my $row (split /\n/, $standby->safe_psql('postgres',
	q{SELECT partition || ' ' || "offset" || ' ' || value FROM events}))
{
	my ($p, $o, $v) = split / /, $row;
	$there{"$p $o"} = $v;
}

my ($acked, $missing, @max_acked) = (0, 0, (-1) x 3);
for my $p (1 .. 3)
{
	open my $fh, '<', $outfile[$p] or die;
	while (<$fh>)
	{
		next unless /^ack (\d+) (\d+) (\S+)$/;
		$acked++;
		$missing++ unless defined $there{"$1 $2"} && $there{"$1 $2"} eq $3;
		$max_acked[$1] = $2 if $2 > $max_acked[$1];
	}
}
cmp_ok($acked, '>', 100, "the synchronous producers got $acked commits acknowledged");
is($missing, 0, 'every acknowledged record is on the promoted standby, with its offset and value');

my ($seen, $vanished, $acked_polls) = (0, 0, 0);
my @acked_position = (undef) x 3;
my @pending_position = (undef) x 3;
open my $cofh, '<', $consumer_out or die;
while (<$cofh>)
{
	if (/^got (\d+) (\d+) (\S+)$/)
	{
		$seen++;
		$vanished++ unless defined $there{"$1 $2"} && $there{"$1 $2"} eq $3;
		$pending_position[$1] = $2 + 1;
	}
	elsif (/^acked$/)
	{
		$acked_polls++;
		for my $p (0 .. 2)
		{
			$acked_position[$p] = $pending_position[$p] if defined $pending_position[$p];
		}
	}
}
cmp_ok($seen, '>', 100, "the consumer got $seen records before the crash");
is($vanished, 0, 'no record the consumer got is missing after the failover');

my %committed = map { split /:/ } split /,/, $standby->safe_psql('postgres', q{
SELECT string_agg(partition || ':' || committed_offset, ',')
FROM topics.consumer_lag WHERE group_name = 'g' AND committed_offset IS NOT NULL});
my $behind = 0;
for my $p (0 .. 2)
{
	next unless defined $acked_position[$p];
	$behind++ unless defined $committed{$p} && $committed{$p} >= $acked_position[$p];
}
is($behind, 0, 'every acknowledged group position is on the promoted standby');

# producers and the group continue without reusing an offset
my $reused = 0;
for my $p (0 .. 2)
{
	my $o = $standby->safe_psql('postgres',
		qq{SELECT "offset" FROM topics.produce('events', 'after'::text, partition => $p)});
	$reused++ if $o <= $max_acked[$p] || defined $there{"$p $o"};
}
is($reused, 0, 'new records get offsets no one was given before');
my $early = 0;
for my $row (split /\n/, $standby->safe_psql('postgres', q{
SELECT partition || ' ' || min("offset")
FROM topics.poll(NULL::events, 'g', consumer => 'c', max_records => 100000)
GROUP BY partition}))
{
	my ($p, $first) = split / /, $row;
	$early++ if defined $committed{$p} && $first < $committed{$p};
}
is($early, 0, 'the group continues from its committed positions on the new primary');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('events')}), '0',
	'verify finds nothing wrong after the failover');

$standby->stop;
done_testing();
