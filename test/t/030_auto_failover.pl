# Automatic failover on pg_auto_failover: a monitor and two data nodes with
# pg_topics preloaded and pg_topics.wait_for_sync_standby = on, producers and
# a consumer group talking to the formation's multi-host URI.
#
# 1. Machine loss of the primary (its keeper and every postgres process
#    killed): the standby is promoted, writes are acknowledged again, every
#    acknowledged record is there at its offset, every acknowledged group
#    position is there, new offsets are above every acknowledged one, and
#    topics.verify is clean.
# 2. The old primary rejoins as a standby (pg_rewind, or pg_basebackup when
#    pg_autoctl finds it cannot rewind), also across a segment
#    roll, a retention drop and delete_records made on it before the kill,
#    and both nodes then hold the same topics, every column compared.
# 3. Only the keeper of the primary dies (before 1): no failover, produce
#    goes on.
# 4. The primary's PostgreSQL hangs with its keeper alive: the standby is
#    promoted, the old primary acknowledges nothing after that, and its
#    keeper makes it the standby.
#
# The failover and recovery times are printed.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time usleep);
use File::Basename qw(dirname);
use PgTopicsTest;
use PgTopicsServerLog qw(log_problems);

my ($pg_autoctl) = grep { -x $_ } map { "$_/pg_autoctl" } split /:/, $ENV{PATH};
plan skip_all => 'pg_autoctl (postgresql-15-auto-failover) is not installed'
  unless $pg_autoctl;

my $bindir = `pg_config --bindir`;
chomp $bindir;
my $tmp = PostgreSQL::Test::Utils::tempdir;
my $sock = PostgreSQL::Test::Utils::tempdir_short;
$ENV{XDG_CONFIG_HOME} = "$tmp/config";
$ENV{XDG_DATA_HOME} = "$tmp/data";
$ENV{PGHOST} = $sock;
$ENV{PATH} = "$bindir:$ENV{PATH}";
delete $ENV{PGPORT};
delete $ENV{PGDATABASE};

my %port = map { $_ => PostgreSQL::Test::Cluster::get_free_port() } qw(monitor node1 node2);
my %pgdata = map { $_ => "$tmp/$_" } qw(monitor node1 node2);
my $monitor_uri = "postgres://autoctl_node\@127.0.0.1:$port{monitor}/pg_auto_failover?sslmode=disable";
my $uri = "postgres://127.0.0.1:$port{node1},127.0.0.1:$port{node2}/postgres"
  . "?target_session_attrs=read-write&sslmode=disable&connect_timeout=2";
my $server_log_conf = dirname(__FILE__) . '/../server_log.conf';
my %keeper;    # node => IPC::Run harness of its `pg_autoctl run`

# a data directory of our own, so that the settings are in place before
# pg_autoctl first starts it: loopback and our socket directory only (in
# postgresql.auto.conf, which pg_autoctl's own include does not override)
sub prepare_pgdata
{
	my ($dir, $extra) = @_;
	system_or_bail('initdb', '-D', $dir, '-A', 'trust', '-N');
	append_to_file("$dir/postgresql.auto.conf",
		"listen_addresses = '127.0.0.1'\nunix_socket_directories = '$sock'\n"
		  . slurp_file($server_log_conf));
	append_to_file("$dir/postgresql.conf", $extra) if $extra;
}

sub start_keeper
{
	my ($node) = @_;
	# through a shell that records the keeper's pid before it becomes it
	$keeper{$node} = IPC::Run::start(
		[ 'sh', '-c', 'echo $$ > "$0.keeper.pid"; exec "$1" run --pgdata "$0"',
		  $pgdata{$node}, $pg_autoctl ],
		'>>', "$tmp/$node.keeper.log", '2>&1');
}

sub psql_at
{
	my ($conn, $sql) = @_;
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $conn, '-c', $sql ],
		'>', \$out, '2>', \$err, IPC::Run::timeout(60));
	chomp $out;
	return wantarray ? ($ok, $out, $err) : $out;
}

sub node_conn { "host=$sock port=$port{$_[0]} dbname=" . ($_[1] // 'postgres') }

# the monitor's view: node name => reported state
sub states
{
	my %s = split /[|\n]/, psql_at(node_conn('monitor', 'pg_auto_failover'),
		q{SELECT nodename, reportedstate FROM pgautofailover.node ORDER BY nodeid});
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
		  unless grep { ($s->{$_} // '') ne $want->{$_} } keys %$want;
		usleep(200_000);
	}
	diag explain states();
	return undef;
}

# kill -9 the keeper of $node (pg_autoctl run and every process under it:
# its services rename themselves, so only the tree finds them all), and
# with $postgres its postmaster and every process of it too: what a machine
# loss leaves behind is nothing
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

sub kill_node
{
	my ($node, $postgres) = @_;
	my ($keeper_pid, $pm);
	if (open(my $fh, '<', "$pgdata{$node}.keeper.pid"))
	{
		$keeper_pid = <$fh>;
		chomp $keeper_pid;
		close $fh;
	}
	if (open(my $fh, '<', "$pgdata{$node}/postmaster.pid"))
	{
		$pm = <$fh>;
		chomp $pm;
		close $fh;
	}
	my @keeper = $keeper_pid ? descendants($keeper_pid) : ();
	my %pg = $pm ? map { $_ => 1 } descendants($pm) : ();
	# the keeper's tree without PostgreSQL, unless PostgreSQL goes too; the
	# postmaster before its children, so that no one logs their deaths
	my @victims = grep { !$pg{$_} } @keeper;
	push @victims, $pm, grep { $_ != $pm } keys %pg if $pm && $postgres;
	kill 'KILL', @victims if @victims;
	$keeper{$node}->finish if $keeper{$node};
	delete $keeper{$node};
}

END
{
	local $?;    # the test's exit status, which system() below would set
	return unless $pg_autoctl;
	foreach my $node (keys %keeper)
	{
		kill_node($node, 1);
	}
	if (open(my $fh, '<', "$pgdata{monitor}/postmaster.pid"))
	{
		my $pm = <$fh>;
		chomp $pm;
		kill 'KILL', $pm if $pm;
	}
}

# --- the formation ------------------------------------------------------

my $t_setup = time;
prepare_pgdata($pgdata{monitor});
system_or_bail($pg_autoctl, 'create', 'monitor', '--pgdata', $pgdata{monitor},
	'--pgport', $port{monitor}, '--hostname', '127.0.0.1', '--auth', 'trust',
	'--no-ssl', '--pgctl', "$bindir/pg_ctl");
start_keeper('monitor');
# a node is lost after 3 s without an answer, a lost primary demotes
# itself after 5 s (docs/replication.md, "Automatic failover")
my $monitor_conf = q{
ALTER SYSTEM SET pgautofailover.health_check_period = 1000;
ALTER SYSTEM SET pgautofailover.health_check_timeout = 1000;
ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1;
ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 500;
ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = 3000;
ALTER SYSTEM SET pgautofailover.primary_demote_timeout = 5000;
SELECT pg_reload_conf();};
my $monitor_up = 0;
for (1 .. 600)
{
	my ($ok) = psql_at(node_conn('monitor', 'pg_auto_failover'), 'SELECT 1');
	if ($ok) { $monitor_up = 1; last; }
	usleep(100_000);
}
ok($monitor_up, 'the monitor runs');
foreach my $stmt (grep { /\S/ } split /;\n/, $monitor_conf)
{
	psql_at(node_conn('monitor', 'pg_auto_failover'), $stmt);
}

prepare_pgdata($pgdata{node1}, qq{
shared_preload_libraries = 'pg_topics'
pg_topics.wait_for_sync_standby = on
pg_topics.worker_naptime = '1s'
});
foreach my $node (qw(node1 node2))
{
	system_or_bail($pg_autoctl, 'create', 'postgres', '--pgdata', $pgdata{$node},
		'--pghost', $sock, '--pgport', $port{$node}, '--hostname', '127.0.0.1',
		'--listen', '127.0.0.1', '--name', $node, '--auth', 'trust', '--no-ssl',
		'--pgctl', "$bindir/pg_ctl", '--monitor', $monitor_uri);
	start_keeper($node);
	my $want = $node eq 'node1' ? { node1 => 'single' } : { node1 => 'primary', node2 => 'secondary' };
	ok(defined wait_for_states($want, 180), "$node joins the formation");
}
diag sprintf('primary and synchronous standby up in %.1f s', time - $t_setup);

psql_at($uri, $_) foreach (
	q{CREATE EXTENSION pg_topics},
	q{SELECT topics.create_topic('orders', 2, 'text', 'text', retention_bytes => 400000)},
	q{SELECT topics.create_topic('side', 1, 'text', 'text', retention_bytes => 200000)},
	q{SELECT count(*) FROM topics.poll(NULL::orders, 'g', consumer => 'c')});
is(psql_at(node_conn('node2'), q{SELECT current_setting('shared_preload_libraries')}),
	'pg_topics', 'the standby runs pg_topics too');

# before the primary goes: segments roll, retention drops some, and
# delete_records moves a log start (they must come through the rejoin too)
psql_at($uri, $_) foreach (
	q{SELECT count(*) FROM topics.produce_batch('orders',
	    (SELECT array_agg(repeat(md5(g::text), 8)) FROM generate_series(1, 6000) g),
	    (SELECT array_agg('k' || g) FROM generate_series(1, 6000) g))},
	q{SELECT count(*) FROM topics.enforce_retention('orders')},
	q{SELECT topics.delete_records('orders', 1,
	    (SELECT high_watermark - 10 FROM topics.offsets('orders') WHERE partition = 1))});
psql_at($uri, $_) foreach (
	q{SELECT count(*) FROM topics.produce_batch('side',
	    (SELECT array_agg(repeat(md5(g::text), 8)) FROM generate_series(1, 3000) g))},
	q{SELECT count(*) FROM topics.enforce_retention('side')});
my $starts = psql_at($uri,
	q{SELECT string_agg(log_start_offset::text, ',' ORDER BY partition) FROM topics.offsets('orders')});
unlike($starts, qr/^0,0$/, "retention and delete_records moved the log starts ($starts)");

# --- under load ----------------------------------------------------------

# producers: one record per call, each acknowledged call appended to a file
# as "value partition offset"; a commit whose synchronous wait was
# cancelled (a WARNING) is not acknowledged
my $producer_script = <<'EOS';
i=0
while [ ! -e "$STOP" ]; do
	i=$((i + 1))
	v="$NAME-$i"
	if out=$(psql -XAtq -v ON_ERROR_STOP=1 -d "$URI" -c "SELECT partition || ' ' || \"offset\" FROM topics.produce('orders', '$v'::text, '$v'::text)" 2>"$ERR.tmp") \
		&& ! grep -q WARNING "$ERR.tmp"; then
		echo "$v $out" >> "$ACKS"
	else
		cat "$ERR.tmp" >> "$ERR"
	fi
	sleep 0.05
done
EOS
# the consumer: commit-on-poll; an acknowledged call's last record per
# partition is a committed position ("partition offset")
my $consumer_script = <<'EOS';
while [ ! -e "$STOP" ]; do
	if out=$(psql -XAtq -v ON_ERROR_STOP=1 -d "$URI" -c "SELECT partition || ' ' || \"offset\" FROM topics.poll(NULL::orders, 'g', consumer => 'c', max_records => 20)" 2>"$ERR.tmp") \
		&& ! grep -q WARNING "$ERR.tmp"; then
		[ -n "$out" ] && echo "$out" >> "$ACKS"
	fi
	sleep 0.05
done
EOS
my $stop = "$tmp/stop";
my @loops;
foreach my $name (qw(p1 p2 p3 consumer))
{
	push @loops, IPC::Run::start(
		[ 'bash', '-c', $name eq 'consumer' ? $consumer_script : $producer_script ],
		'>', "$tmp/$name.out", '2>&1',
		init => sub {
			$ENV{NAME} = $name;
			$ENV{URI} = $uri;
			$ENV{STOP} = $stop;
			$ENV{ACKS} = "$tmp/$name.acks";
			$ENV{ERR} = "$tmp/$name.err";
		});
}

sub acks
{
	my ($name) = @_;
	return () unless -e "$tmp/$name.acks";
	return map { [ split / / ] } split /\n/, slurp_file("$tmp/$name.acks");
}

sub count_acks
{
	my $n = 0;
	foreach my $p (qw(p1 p2 p3))
	{
		my @a = acks($p);
		$n += @a;
	}
	return $n;
}

my $t0 = time;
usleep(100_000) while count_acks() < 60 && time - $t0 < 60;
ok(count_acks() >= 60, 'the producers are acknowledged');

# --- 3. only the keeper of the primary dies: no failover --------------------

kill_node('node1', 0);
my $acked = count_acks();
sleep 8;
is(states()->{node1}, 'primary', 'with only its keeper gone, the primary stays primary');
ok(count_acks() > $acked + 20, 'produce goes on without the keeper');
start_keeper('node1');
ok(defined wait_for_states({ node1 => 'primary', node2 => 'secondary' }, 120),
	'the keeper is back and the formation as it was');

# --- 1. the machine of the primary is lost --------------------------------

# just before it is lost, the primary goes on alone for a moment: its WAL
# sender is stopped (SIGSTOP), and in topic "side" it rolls a segment, drops
# one by retention and moves the log start with delete_records (local
# commits; the producers' synchronous ones wait), all in WAL the standby
# never gets; the rejoin must take it all back.  (Not in "orders": a roll
# waits for the producers in flight there, who wait for the standby.)
my @walsenders = grep { /^\d+$/ } split /\n/,
  psql_at(node_conn('node1'), q{SELECT pid FROM pg_stat_replication});
ok(@walsenders && kill('STOP', @walsenders), 'the primary stops sending WAL');
my $side_segments = q{SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class
	WHERE relnamespace = 'topics_segments'::regnamespace
	AND relname LIKE 'seg\_' || 'side_p0'::regclass::oid || '\_%'};
my $side_before = psql_at(node_conn('node1'),
	q{SELECT log_start_offset || ':' || high_watermark FROM topics.offsets('side')});
my $segments_before = psql_at(node_conn('node1'), $side_segments);
psql_at(node_conn('node1'), $_) foreach (
	q{SET synchronous_commit = local;
	  SELECT count(*) FROM topics.produce_batch('side',
	    (SELECT array_agg(repeat(md5(g::text), 8)) FROM generate_series(1, 500) g))},
	q{SET synchronous_commit = local; SELECT count(*) FROM topics.enforce_retention('side')},
	q{SET synchronous_commit = local;
	  SELECT topics.delete_records('side', 0,
	    (SELECT high_watermark - 5 FROM topics.offsets('side')))});
my $side_alone = psql_at(node_conn('node1'),
	q{SELECT log_start_offset || ':' || high_watermark FROM topics.offsets('side')});
isnt($side_alone, $side_before, "the primary alone moved topic side ($side_before to $side_alone)");
isnt(psql_at(node_conn('node1'), $side_segments), $segments_before,
	'and rolled or dropped a segment of it');

my $acked_before = count_acks();
my $t_kill = time;
kill_node('node1', 1);
# (the times are in the diag lines; the bounds leave room for a busy machine)
my $promoted = wait_for_states({ node2 => 'wait_primary' }, 120)
  // wait_for_states({ node2 => 'primary' }, 1);
ok(defined $promoted, 'the standby is promoted');
diag sprintf('machine loss of the primary: new primary in %.1f s', time - $t_kill);
$t0 = time;
usleep(100_000) while count_acks() <= $acked_before + 30 && time - $t0 < 90;
ok(count_acks() > $acked_before + 30, 'writes are acknowledged again after the promotion');
diag sprintf('writes acknowledged again %.1f s after the kill', time - $t_kill);

# the new primary has no standby: pg_auto_failover acknowledges with one
# copy; pg_topics.min_insync_replicas = 1 refuses instead, until the old
# primary is back as its synchronous standby
psql_at(node_conn('node2'), $_) foreach (
	q{ALTER SYSTEM SET pg_topics.min_insync_replicas = 1}, q{SELECT pg_reload_conf()});
my (undef, undef, $alone_err) = psql_at($uri,
	q{SELECT count(*) FROM topics.produce('orders', 'alone'::text, 'alone'::text)});
like($alone_err, qr/too few synchronous standbys are streaming/,
	'with pg_topics.min_insync_replicas = 1, the lone new primary refuses records');

# --- 2. the old primary rejoins as a standby ------------------------------

my $t_rejoin = time;
start_keeper('node1');
ok(defined wait_for_states({ node1 => 'secondary', node2 => 'primary' }, 90),
	'the old primary rejoins as the synchronous standby');
diag sprintf('old primary rejoined in %.1f s', time - $t_rejoin);
my $acked_rejoined = count_acks();
$t0 = time;
usleep(100_000) while count_acks() <= $acked_rejoined + 10 && time - $t0 < 90;
ok(count_acks() > $acked_rejoined + 10, 'with the standby back, records are acknowledged again');
psql_at(node_conn('node2'), $_) foreach (
	q{ALTER SYSTEM RESET pg_topics.min_insync_replicas}, q{SELECT pg_reload_conf()});
# pg_autoctl rewinds the old primary; when pg_rewind cannot (pg_autoctl 2.0
# sometimes leaves standby.signal in place, and pg_rewind's single-user
# crash recovery refuses it), it copies the new primary with pg_basebackup
my $keeper_log = slurp_file("$tmp/node1.keeper.log");
my $rewound = $keeper_log =~ /rewinding from last common checkpoint/;
my $copied = $keeper_log =~ /Failed to rewind demoted primary to standby, trying pg_basebackup/;
ok($rewound || $copied, 'the old primary was rewound or copied, as it had WAL the new primary lacks')
  or diag join("\n", grep { /rewind|basebackup/i } split /\n/, $keeper_log);
diag($rewound ? 'the old primary was rewound with pg_rewind'
	: 'pg_rewind could not run; the old primary was copied with pg_basebackup');

# stop the load and check
append_to_file($stop, '');
$_->finish foreach @loops;

my %acked;
foreach my $p (qw(p1 p2 p3))
{
	$acked{"$_->[1] $_->[2]"} = $_->[0] foreach acks($p);
}
my %have = split /[|\n]/, psql_at($uri,
	q{SELECT partition || ' ' || "offset", value FROM orders WHERE key ~ '^p[0-9]-'});
my @missing = grep { ($have{$_} // '') ne $acked{$_} } keys %acked;
is(scalar(@missing), 0,
	sprintf('every one of %d acknowledged records is there at its offset', scalar keys %acked))
  or diag "missing or different: @missing[0 .. ($#missing < 9 ? $#missing : 9)]";

my %position;
foreach my $r (acks('consumer'))
{
	$position{ $r->[0] } = $r->[1] + 1 if ($position{ $r->[0] } // 0) < $r->[1] + 1;
}
my %committed = split /[|\n]/, psql_at($uri,
	q{SELECT partition, committed_offset FROM topics.consumer_lag WHERE group_name = 'g'});
my @behind = grep { ($committed{$_} // -1) < $position{$_} } keys %position;
is(scalar(@behind), 0, 'every acknowledged group position is there')
  or diag explain { acked => \%position, committed => \%committed };

my %max_acked;
foreach my $k (keys %acked)
{
	my ($part, $off) = split / /, $k;
	$max_acked{$part} = $off if ($max_acked{$part} // -1) < $off;
}
my %fresh = split /[|\n]/, psql_at($uri, q{
SELECT p.partition, p."offset" FROM generate_series(0, 1) g,
    LATERAL topics.produce('orders', 'after'::text, partition => g) p});
my @reused = grep { defined $max_acked{$_} && $fresh{$_} <= $max_acked{$_} } keys %fresh;
is(scalar(@reused), 0, 'new offsets are above every acknowledged one');
is(psql_at($uri, q{SELECT count(*) FROM topics.verify('orders')}), '0',
	'topics.verify finds nothing on the new primary');

# both nodes hold the same topics, every column
my $checksum = q{
SELECT t, count(*), md5(string_agg(concat_ws('|', partition, "offset", "timestamp", key, value, headers), ','
                                   ORDER BY partition, "offset")),
       (SELECT string_agg(concat_ws(':', partition, log_start_offset, high_watermark), ',' ORDER BY partition)
        FROM topics.offsets(t))
FROM (SELECT 'orders' AS t, * FROM orders UNION ALL SELECT 'side', * FROM side) r
GROUP BY t ORDER BY t};
my $primary_sum = psql_at(node_conn('node2'), $checksum);
my $standby_sum;
$t0 = time;
while (time - $t0 < 90)
{
	$standby_sum = psql_at(node_conn('node1'), $checksum);
	last if $standby_sum eq $primary_sum;
	usleep(200_000);
}
is($standby_sum, $primary_sum, 'the rejoined node holds the same records, log starts and ends');
is(psql_at(node_conn('node1'), q{SELECT count(*) FROM topics.verify('orders')}), '0',
	'topics.verify finds nothing on the rejoined node');
is(psql_at(node_conn('node1'), q{SELECT count(*) FROM topics.verify('side')}), '0',
	'nor in the topic that moved on the old primary alone');

# --- 4. the primary's PostgreSQL hangs, its keeper alive ------------------

# every process of node2's PostgreSQL stops (SIGSTOP): the monitor loses it
# and promotes node1; when node2's PostgreSQL runs again, a commit there is
# never acknowledged, and its keeper turns it into the standby
my $node2_pm = (split /\n/, slurp_file("$pgdata{node2}/postmaster.pid"))[0];
my @frozen = descendants($node2_pm);
my $t_freeze = time;
kill 'STOP', @frozen;
my $promoted_again = wait_for_states({ node1 => 'wait_primary' }, 120)
  // wait_for_states({ node1 => 'primary' }, 1);
ok(defined $promoted_again, 'with the primary hung, the standby is promoted');
diag sprintf('primary hung, keeper alive: new primary in %.1f s', time - $t_freeze);
my ($late_out, $late_err) = ('', '');
my $late = IPC::Run::start(
	[ 'psql', '-XAtq', '-d', node_conn('node2'), '-c',
	  q{SELECT "offset" FROM topics.produce('orders', 'stale'::text, 'stale'::text)} ],
	'>', \$late_out, '2>', \$late_err, IPC::Run::timeout(20));
kill 'CONT', @frozen;
eval { $late->finish };
$late->kill_kill if $@;
ok(!($late_out =~ /^\d+$/m && $late_err !~ /WARNING/),
	'the old primary acknowledges nothing once the new one is promoted')
  or diag "stdout: $late_out\nstderr: $late_err";
ok(defined wait_for_states({ node1 => 'primary', node2 => 'secondary' }, 90),
	'the old primary, its keeper alive, becomes the standby');
is(psql_at($uri, q{SELECT count(*) FROM orders WHERE key = 'stale'}), '0',
	'the new primary has no record of the old one after the promotion');
is(psql_at($uri, q{SELECT count(*) FROM topics.verify('orders')}), '0',
	'topics.verify finds nothing on the new primary');

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
