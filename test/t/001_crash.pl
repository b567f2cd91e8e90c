# Crash safety: kill -9 the whole server during concurrent produce, restart,
# and check that every acknowledged record is there exactly once, no offset
# is used twice, gaps are only where a transaction did not commit, and
# topics.verify() finds nothing.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use IPC::Run;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
checkpoint_timeout = 30s
});
$node->start;

$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('t', partitions => 1, key_type => 'text', value_type => 'text');
});

# Each producer runs a psql script of transactions; after each COMMIT
# returns, psql prints "ack <key> <n>", so the output lists exactly the
# acknowledged transactions.  Some transactions roll back on purpose.
my $nproducers = 4;
my $ntxn = 3000;
my (@harness, @outfile, %plan);
srand(42);
for my $p (1 .. $nproducers)
{
	my $script = '';
	for my $i (1 .. $ntxn)
	{
		my $key = "p$p-$i";
		my $n = 1 + int(rand(40));
		my $commit = rand() < 0.8;
		$plan{$key} = $n;
		$script .= "BEGIN;\n";
		if ($i % 2)
		{
			$script .= "INSERT INTO t (key, value) SELECT '$key', repeat(md5(g::text), 1 + g % 7) FROM generate_series(1, $n) g;\n";
		}
		else
		{
			$script .= "COPY t (key, value) FROM stdin;\n";
			$script .= "$key\tv$_\n" for 1 .. $n;
			$script .= "\\.\n";
		}
		$script .= $commit ? "COMMIT;\n\\echo ack $key $n\n" : "ROLLBACK;\n\\echo rolled $key $n\n";
	}
	my $file = $node->basedir . "/producer$p.sql";
	open my $fh, '>', $file or die;
	print $fh $script;
	close $fh;
	$outfile[$p] = $node->basedir . "/producer$p.out";
	push @harness, IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-f', $file ],
		'>', $outfile[$p], '2>', $node->basedir . "/producer$p.err");
}

# let them run for a while, and until enough is acknowledged to check (3 s
# may be too short on a busy machine), then crash every server process at
# once
sleep 3;
my $deadline = time + 120;
while (time < $deadline)
{
	my $acks = 0;
	for my $file (grep { defined } @outfile)
	{
		open my $fh, '<', $file or next;
		$acks += grep { /^ack / } <$fh>;
		close $fh;
	}
	last if $acks > 100;
	sleep 1;
}
kill9_server($node);
$_->finish for @harness;

# restart (crash recovery)
$node->start;

my (%acked, %notacked);
for my $p (1 .. $nproducers)
{
	open my $fh, '<', $outfile[$p] or die;
	while (<$fh>)
	{
		$acked{$1} = $2 if /^ack (\S+) (\d+)$/;
		$notacked{$1} = $2 if /^rolled (\S+) (\d+)$/;
	}
	close $fh;
}
ok(scalar(keys %acked) > 50, 'producers acknowledged transactions before the crash: ' . scalar(keys %acked));

# what survived, per key
my %found;
for my $row (split /\n/, $node->safe_psql('postgres', 'SELECT key, count(*) FROM t GROUP BY key'))
{
	my ($key, $count) = split /\|/, $row;
	$found{$key} = $count;
}

my @missing = grep { ($found{$_} // 0) != $acked{$_} } keys %acked;
is(scalar(@missing), 0, 'every acknowledged record is there exactly once')
  or diag("missing or wrong: @missing[0 .. ($#missing < 9 ? $#missing : 9)]");

my @ghosts = grep { exists $found{$_} } keys %notacked;
is(scalar(@ghosts), 0, 'no rolled-back record is visible');

# a transaction cut by the crash is all or nothing
my @partial = grep { !defined $plan{$_} || $found{$_} != $plan{$_} } keys %found;
is(scalar(@partial), 0, 'every visible transaction is complete (all or nothing)');

my ($total, $distinct, $maxoff) = split /\|/, $node->safe_psql('postgres',
	'SELECT count(*), count(DISTINCT "offset"), max("offset") FROM t');
is($total, $distinct, 'no offset is used twice');

# gaps: offsets below the end that no visible record has; they may only
# come from transactions that did not commit
my $committed = 0;
$committed += $_ for values %found;
my $unacked_records = 0;
$unacked_records += $_ for values %notacked;
$unacked_records += 40 * $nproducers;    # at most one transaction in flight each
my $gaps = $maxoff + 1 - $total;
ok($gaps <= $unacked_records, "gaps ($gaps) come only from transactions that did not commit");

is($node->safe_psql('postgres', 'SELECT count(*) FROM topics.verify(\'t\')'), '0', 'verify finds nothing after crash recovery');
is($node->safe_psql('postgres', 'SELECT count(*) FROM topics.fetch(NULL::t, 0, 0, max_records => 100000000)'),
	$total, 'a consumer reading from 0 gets every record, across pages a crash left empty');

# the log goes on after the highest offset that survived
my $next = $node->safe_psql('postgres',
	q{INSERT INTO t (key, value) VALUES ('after', 'crash') RETURNING "offset"});
ok($next > $maxoff, 'offsets continue after the crash');
my ($mono) = $node->safe_psql('postgres',
	q{SELECT bool_and(ts >= prev) FROM (SELECT "timestamp" AS ts, lag("timestamp", 1, '-infinity') OVER (ORDER BY "offset") AS prev FROM t) s});
is($mono, 't', 'timestamps never decrease along the log');

$node->stop;
done_testing();
