# Kafka clients through pg_auto_failover failovers, on a formation built
# by the recipe of docs/replication.md ("Automatic failover"), run as its
# shell blocks are written: only the directory, the ports and
# PostgreSQL's bin directory are this test's own.
#
# While idempotent acks=all confluent-kafka producers, a plain acks=all
# confluent-kafka producer, a kafka-python producer and two consumer groups
# (confluent-kafka and kafka-python) run, listing both nodes as bootstrap
# servers, the primary's machine is lost (its keeper and every PostgreSQL
# process killed) three times in a row; each time the standby is promoted
# and the old primary's keeper is started again, and it rejoins as the
# standby.  Then:
#
# - every client goes on by itself after each failover, within seconds
#   (measured and printed with the failover and rejoin times);
# - every record a producer was told is stored is on the last primary, at
#   the partition and offset it was told; every record a consumer got is
#   there too;
# - an idempotent producer stored no record twice and got no fatal error
#   (which needs idempotent producers' state replicated to the standby: a
#   promoted standby that does not know the producer answers
#   UNKNOWN_PRODUCER_ID, fatal to librdkafka);
# - no record was stored while a node was fenced (pg_auto_failover keeps
#   a promoted standby read-only until the old primary is known to be
#   gone);
# - each node listens on its own Kafka port after every rejoin, though
#   pg_rewind or pg_basebackup copied the other node's configuration;
# - no internal error, assertion failure or crash in any node's log.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time usleep);
use Time::Local qw(timegm);
use File::Basename qw(dirname);
use PgTopicsTest;
use PgTopicsKafkaClients;
use PgTopicsServerLog qw(log_problems);

my ($pg_autoctl) = grep { -x $_ } map { "$_/pg_autoctl" } split /:/, $ENV{PATH};
plan skip_all => 'pg_autoctl (postgresql-15-auto-failover) is not installed'
  unless $pg_autoctl;

my $bindir = `pg_config --bindir`;
chomp $bindir;
my $tmp = PostgreSQL::Test::Utils::tempdir;
# the sockets live in the formation's directory: a short path
my $pgaf = PostgreSQL::Test::Utils::tempdir_short . '/pgaf';
my %port = map { $_ => PostgreSQL::Test::Cluster::get_free_port() }
  qw(monitor node1 node2 kafka1 kafka2);
my %kafka_port = (node1 => $port{kafka1}, node2 => $port{kafka2});
my $bootstrap = "127.0.0.1:$port{kafka1},127.0.0.1:$port{kafka2}";

# pg_autoctl's own files, and no PG* variable of the test's
$ENV{XDG_CONFIG_HOME} = "$tmp/config";
$ENV{XDG_DATA_HOME} = "$tmp/data";
$ENV{XDG_RUNTIME_DIR} = "$tmp/run";
mkdir $ENV{XDG_RUNTIME_DIR};
delete $ENV{$_} foreach qw(PGPORT PGDATABASE PGHOST PGUSER PGDATA);

# --- the recipe, as docs/replication.md shows it ---------------------------

my $doc = dirname(__FILE__) . '/../../docs/replication.md';
my @blocks;
{
	my ($in, $cur);
	foreach my $line (split /\n/, slurp_file($doc))
	{
		if ($line =~ /^### Automatic failover/) { $in = 1; next; }
		next unless $in;
		last if !defined $cur && $line =~ /^#{2,3} /;
		if (!defined $cur && $line =~ /^\s*```sh\s*$/) { $cur = ''; next; }
		if (defined $cur && $line =~ /^\s*```\s*$/) { push @blocks, $cur; undef $cur; next; }
		if (defined $cur)
		{
			$line =~ s/^   //;
			$cur .= "$line\n";
		}
	}
}
is(scalar(@blocks), 6, 'the recipe has its 6 shell blocks');
# this test's directory, ports and PostgreSQL
my %doc_port = (5500 => $port{monitor}, 5501 => $port{node1}, 5502 => $port{node2},
	9092 => $port{kafka1}, 9093 => $port{kafka2});
foreach (@blocks)
{
	s{\$HOME/pgaf}{$pgaf}g;
	s{/usr/lib/postgresql/15/bin}{$bindir}g;
	s/\b(5500|5501|5502|9092|9093)\b/$doc_port{$1}/g;
}
my $env_block = $blocks[0];

# Run shell commands after the recipe's variables; their output, and
# whether they succeeded
sub shell
{
	my ($script, $log) = @_;
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([ 'bash', '-e', '-c', "$env_block\n$script" ], '>', \$out, '2>', \$err,
		IPC::Run::timeout(300));
	append_to_file($log, "$out$err") if $log;
	return wantarray ? ($ok, $out) : $ok;
}

my $t_setup = time;
my $recipe_ok = shell(join("\n", @blocks), "$tmp/recipe.log");
ok($recipe_ok, 'the recipe runs as written')
  or BAIL_OUT('the recipe failed: ' . slurp_file("$tmp/recipe.log"));
my $setup_time = time - $t_setup;
diag(sprintf('the recipe: primary and standby up in %.1f s', $setup_time));

my %pgdata = (monitor => "$pgaf/monitor", node1 => "$pgaf/node1/data",
	node2 => "$pgaf/node2/data");
sub psql_at
{
	my ($node, $sql, $db) = @_;
	my ($out, $err) = ('', '');
	IPC::Run::run([ "$bindir/psql", '-XAtq', '-h', $pgaf, '-p', $port{$node},
			'-d', $db // 'postgres', '-v', 'ON_ERROR_STOP=1', '-c', $sql ],
		'>', \$out, '2>', \$err, IPC::Run::timeout(60));
	chomp $out;
	return $out;
}

# the monitor's view: node name => reported state
sub states
{
	my %s = split /[|\n]/, psql_at('monitor',
		q{SELECT nodename, reportedstate FROM pgautofailover.node ORDER BY nodeid},
		'pg_auto_failover');
	return \%s;
}

sub wait_for_states
{
	my ($want, $timeout) = @_;
	my $t0 = time;
	while (time - $t0 < $timeout)
	{
		my $s = states();
		return time - $t0
		  unless grep { ($s->{$_} // '') !~ /^(?:$want->{$_})$/ } keys %$want;
		usleep(200_000);
	}
	diag explain states();
	return undef;
}

# every process under $pid, itself first
sub descendants
{
	my @pids = @_;
	my @all;
	while (my $pid = shift @pids)
	{
		push @all, $pid;
		push @pids, grep { /^\d+$/ } split /\s+/, `pgrep -P $pid`;
	}
	return @all;
}

sub first_line
{
	my ($file) = @_;
	return undef unless $file && -e $file;
	my ($line) = split /\n/, slurp_file($file);
	return $line;
}

# the machine of $node is lost: its keeper (and every process under it) and
# its PostgreSQL (the postmaster first, so that no child logs the others'
# deaths) are killed at once; returns when
sub kill_node
{
	my ($node) = @_;
	my (undef, $pidfile) = shell("pg_autoctl show file --pid --pgdata $pgdata{$node}");
	chomp $pidfile;
	my $keeper = first_line($pidfile);
	my $pm = first_line("$pgdata{$node}/postmaster.pid");
	my %pg = $pm ? map { $_ => 1 } descendants($pm) : ();
	my @victims = grep { !$pg{$_} } ($keeper ? descendants($keeper) : ());
	push @victims, $pm, grep { $_ != $pm } keys %pg if $pm;
	kill 'KILL', @victims if @victims;
	return time;
}

# the keeper of $node starts again, as the recipe starts it
sub start_keeper
{
	my ($node) = @_;
	my $log = $node eq 'monitor' ? "$pgaf/monitor.log" : "$pgaf/$node.log";
	shell("nohup pg_autoctl run --pgdata $pgdata{$node} >> $log 2>&1 &");
	return;
}

END
{
	local $?;
	return unless $pg_autoctl && -d $pgaf;
	kill_node($_) foreach qw(node1 node2 monitor);
}

my $states = states();
is_deeply($states, { node1 => 'primary', node2 => 'secondary' },
	'node1 is the primary, node2 its synchronous standby');
# every log line with its SQLSTATE, so that internal errors show
foreach my $node (qw(node1 node2))
{
	psql_at($node, q{ALTER SYSTEM SET log_error_verbosity = verbose});
	psql_at($node, q{SELECT pg_reload_conf()});
}

# each node's own Kafka port, whatever pg_basebackup or pg_rewind copied
sub check_node_settings
{
	my ($when) = @_;
	my %seen = map { $_ => psql_at($_, 'SHOW pg_topics.kafka_port') } qw(node1 node2);
	is_deeply(\%seen, { node1 => $port{kafka1}, node2 => $port{kafka2} },
		"$when: each node has its own pg_topics.kafka_port");
}
check_node_settings('after the standby was made with pg_basebackup');

psql_at('node1', q{SELECT topics.create_topic('orders', 2, 'bytea', 'bytea')});

# --- Kafka clients ----------------------------------------------------------

my $dir = "$tmp/clients";
mkdir $dir;
my @harnesses = start_kafka_clients($bootstrap, $dir,
	[ 'ck_idempotent_producer', 'idem', 'orders' ],
	[ 'ck_producer', 'plain', 'orders' ],
	[ 'kp_producer', 'kpp', 'orders' ],
	[ 'ck_consumer', 'ckc', 'orders', 'ck_group' ],
	[ 'kp_consumer', 'kpc', 'orders', 'kp_group' ]);
my $started = wait_for_resume($dir, 0, 120, [qw(idem plain kpp)], [qw(ckc kpc)]);
is(scalar(grep { defined } values %$started), 5, 'every Kafka client works on the primary')
  or diag explain $started;
sleep 3;

# --- three failovers ----------------------------------------------------------

my @timings;
my $primary = 'node1';
for my $n (1 .. 3)
{
	my $standby = $primary eq 'node1' ? 'node2' : 'node1';
	my $t_kill = kill_node($primary);
	my $promoted = wait_for_states({ $standby => 'wait_primary|primary' }, 120);
	ok(defined $promoted, "failover $n: $standby is promoted");
	my $t_promoted = time;
	# (the bounds leave room for a busy machine; the times are printed)
	ok($t_promoted - $t_kill < 30, "failover $n: within 30 s of the loss");
	my $resumed = wait_for_resume($dir, $t_kill, 120, [qw(idem plain kpp)], [qw(ckc kpc)]);
	my @stuck = grep { !defined $resumed->{$_} } qw(idem plain kpp ckc kpc);
	is(scalar(@stuck), 0, "failover $n: every Kafka client goes on at $standby by itself")
	  or diag explain { map { $_ => client_trouble($dir, $_) } @stuck };
	delete $resumed->{$_} foreach @stuck;
	my @slow = grep { $resumed->{$_} > 45 } keys %$resumed;
	is(scalar(@slow), 0, "failover $n: within 45 s of the loss") or diag explain $resumed;

	my $t_restart = time;
	start_keeper($primary);
	my $rejoined = wait_for_states({ $primary => 'secondary', $standby => 'primary' }, 90);
	ok(defined $rejoined, "failover $n: $primary rejoins as the standby, within 90 s");
	my $keeper_log = slurp_file("$pgaf/$primary.log");
	my $how = ($keeper_log =~ /Failed to rewind demoted primary to standby, trying pg_basebackup/g)
	  ? 'pg_basebackup' : 'pg_rewind';
	push @timings, { promote => $t_promoted - $t_kill, rejoin => time - $t_restart,
		clients => $resumed, how => $how };
	diag(sprintf('failover %d: new primary %.1f s after the loss; Kafka clients going on after %s; '
			  . 'old primary back as the standby %.1f s after its keeper restarted (%s)',
			$n, $t_promoted - $t_kill,
			join(', ', (map { sprintf('%s %.1f s', $_, $resumed->{$_}) } sort keys %$resumed),
				map { "$_ never" } @stuck),
			time - $t_restart, $how));
	check_node_settings("after failover $n and the rejoin");
	$primary = $standby;
	sleep 3;
}

stop_kafka_clients($dir, @harnesses);

# --- what the clients were told, against the last primary ----------------------

my %stored;    # key => ["partition offset", ...]
my %stamp;     # "partition offset" => log-append time (s since the epoch)
foreach my $row (split /\n/, psql_at($primary, q{
SELECT encode(key, 'escape'), partition, "offset", extract(epoch FROM "timestamp") FROM orders}))
{
	my ($key, $p, $o, $t) = split /\|/, $row;
	push @{ $stored{$key} }, "$p $o";
	$stamp{"$p $o"} = $t;
}

foreach my $producer (qw(idem plain kpp))
{
	my @events = client_events($dir, $producer);
	my @acks = grep { $_->{ev} eq 'ack' } @events;
	my @misplaced = grep {
		my $e = $_;
		!grep { $_ eq "$e->{p} $e->{o}" } @{ $stored{ $e->{key} } // [] }
	} @acks;
	is(scalar(@misplaced), 0,
		sprintf('%s: each of its %d acknowledged records is on the last primary where it was told',
			$producer, scalar @acks))
	  or diag explain [ @misplaced[ 0 .. ($#misplaced < 4 ? $#misplaced : 4) ] ];
	my ($flushed) = grep { $_->{ev} eq 'flushed' } @events;
	is($flushed && $flushed->{left}, 0, "$producer: every record it sent was delivered in the end");
}

# an idempotent producer: no record twice, no fatal error
my @idem_events = client_events($dir, 'idem');
my @twice = grep { /^idem-/ && @{ $stored{$_} } > 1 } keys %stored;
is(scalar(@twice), 0, 'the idempotent producer stored no record twice')
  or diag explain [ map { [ $_, $stored{$_} ] } @twice[ 0 .. ($#twice < 4 ? $#twice : 4) ] ];
my @fatal = grep { $_->{ev} eq 'error' && $_->{fatal} } @idem_events;
is(scalar(@fatal), 0, 'the idempotent producer got no fatal error') or diag explain \@fatal;

foreach my $consumer (qw(ckc kpc))
{
	my @recs = grep { $_->{ev} eq 'rec' } client_events($dir, $consumer);
	my @phantom = grep {
		my $e = $_;
		!grep { $_ eq "$e->{p} $e->{o}" } @{ $stored{ $e->{key} } // [] }
	} @recs;
	is(scalar(@phantom), 0,
		sprintf('%s: each of the %d records it got is on the last primary', $consumer, scalar @recs))
	  or diag explain [ @phantom[ 0 .. ($#phantom < 4 ? $#phantom : 4) ] ];
}

# no record was stored while a node was fenced: between "Kafka listener
# refuses writes" and "takes writes again" in its log (less 0.2 s at the
# end, which the other listener process may reach first)
sub log_time
{
	my ($y, $mo, $d, $h, $mi, $s) = $_[0] =~ /^(\d+)-(\d+)-(\d+) (\d+):(\d+):([\d.]+) UTC/;
	return timegm(0, $mi, $h, $d, $mo - 1, $y) + $s;
}
my @windows;
foreach my $log (map { glob("$pgdata{$_}/log/*.log") } qw(node1 node2))
{
	my $from;
	foreach my $line (split /\n/, slurp_file($log))
	{
		$from = log_time($line) if $line =~ /Kafka listener refuses writes/;
		if (defined $from && $line =~ /Kafka listener takes writes again/)
		{
			push @windows, [ $from, log_time($line) - 0.2 ];
			undef $from;
		}
	}
}
ok(@windows >= 3, sprintf('each promoted standby was fenced before it took writes (%d fences: %s)',
		scalar @windows, join(', ', map { sprintf('%.1f s', $_->[1] + 0.2 - $_->[0]) } @windows)));
my @fenced_writes = grep {
	my $t = $stamp{$_};
	grep { $t > $_->[0] && $t < $_->[1] } @windows
} keys %stamp;
is(scalar(@fenced_writes), 0, 'no record was stored while a node was fenced')
  or diag explain [ @fenced_writes[ 0 .. ($#fenced_writes < 4 ? $#fenced_writes : 4) ] ];

# the figures docs/replication.md states
sub range
{
	my @v = sort { $a <=> $b } @_;
	return sprintf('%.0f–%.0f s', $v[0], $v[-1]);
}
diag(sprintf('summary: setup %.1f s; new primary %s after the loss; Kafka clients going on %s after '
		  . 'the loss; rejoin %s after the keeper restarted',
		$setup_time, range(map { $_->{promote} } @timings),
		range(map { values %{ $_->{clients} } } @timings), range(map { $_->{rejoin} } @timings)));

# no internal error, assertion failure or crash in any node's log
foreach my $node (qw(node1 node2))
{
	foreach my $log (glob("$pgdata{$node}/log/*.log"))
	{
		my @problems = grep { !$_->{allowed} } log_problems($log, sub { undef });
		is(scalar(@problems), 0, "${node}'s server log ($log) shows no internal error or crash")
		  or diag explain \@problems;
	}
}

done_testing();
