# Helpers shared by pg_topics' TAP tests.
package PgTopicsTest;

use strict;
use warnings;
use Exporter 'import';
use File::Basename qw(dirname);
use IO::Socket::INET;
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();
use PgTopicsServerLog qw(log_problems);

our @EXPORT = qw(start_logical_node start_sync_standby start_psql_script kill9_server expect_in_log
  kafka_node_conf wait_for_kafka_listener kcat_run kafka_script kafka_script_path
  type_literal topic_state_sql segment_with_records);

# Every node logs its errors' SQLSTATEs, so that the check at the end of the
# test (below) sees internal errors.  Every TAP test uses this module (the
# Makefile refuses to run one that does not), so this is set before any node
# exists.
my $server_log_conf = dirname(__FILE__) . '/../server_log.conf';
if (!defined $ENV{TEMP_CONFIG})
{
	$ENV{TEMP_CONFIG} = $server_log_conf;
}
elsif (PostgreSQL::Test::Utils::slurp_file($ENV{TEMP_CONFIG}) !~ /log_error_verbosity\s*=\s*'?verbose/)
{
	diag("TEMP_CONFIG $ENV{TEMP_CONFIG} lacks log_error_verbosity = verbose: "
		  . "internal errors in server logs go unnoticed");
}

# Patterns each node's log may show, and why: node name => [[regex, why]]
my %expected_in_log;

# Declare that $node's log may show lines matching $regex (see
# PgTopicsServerLog: an internal error, assertion failure, PANIC, crash or
# leak), and $why: a deliberate crash, or a known bug (name it).  Any other
# such line in a node's log fails the test when it ends.
sub expect_in_log
{
	my ($node, $regex, $why) = @_;
	die 'expect_in_log needs a reason' unless defined $why && $why ne '';
	push @{ $expected_in_log{ $node->name } }, [ $regex, $why ];
	return;
}

# The problems in $node's log (see PgTopicsServerLog) that no expect_in_log
# call for it declares; each comes with its log line number and context.
sub undeclared_log_problems
{
	my ($node) = @_;
	return () unless -e $node->logfile;
	my $expected = $expected_in_log{ $node->name } // [];
	return grep { !$_->{allowed} } log_problems(
		$node->logfile,
		sub {
			my ($problem) = @_;
			foreach my $e (@$expected)
			{
				return $e->[1] if $problem->{text} =~ $e->[0];
			}
			return undef;
		});
}

# Check the logs of every node of the test, before the framework stops them
# (its END block runs after this one: modules loaded later end first).  A
# problem sets the exit status, which Test::More then reports as a failure
# of the whole test file.
sub check_node_logs
{
	my $failed = 0;
	foreach my $node (@PostgreSQL::Test::Cluster::all_nodes)
	{
		foreach my $p (undeclared_log_problems($node))
		{
			$failed++;
			diag(join("\n    ",
				"server log " . $node->logfile . ":$p->{line}: not expected by the test:",
				$p->{text}, @{ $p->{context} }));
		}
	}
	return $failed;
}

END
{
	my $exit_code = $?;
	my $failed = eval { check_node_logs() };
	if (!defined $failed)
	{
		diag("checking the server logs failed: $@");
		$failed = 1;
	}
	if ($failed)
	{
		diag("$failed internal error(s), assertion failure(s), PANIC(s), crash(es) or leak(s) in server logs");
		$? = $exit_code || 1;
	}
}

# A started node ready to publish and subscribe (wal_level = logical), with
# pg_topics preloaded and installed; $naptime is the worker's round, and
# $sql runs once the extension exists (e.g. creating the same topics).
sub start_logical_node
{
	my ($name, $naptime, $sql) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(allows_streaming => 'logical');
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
pg_topics.worker_naptime = '$naptime'
max_worker_processes = 16
});
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION pg_topics');
	$node->safe_psql('postgres', $sql) if defined $sql;
	return $node;
}

# A streaming standby $name of $primary, made from a fresh base backup and
# named in the primary's synchronous_standby_names; returned once the
# primary reports it synchronous
sub start_sync_standby
{
	my ($primary, $name) = @_;
	$primary->backup("${name}_base");
	my $standby = PostgreSQL::Test::Cluster->new($name);
	$standby->init_from_backup($primary, "${name}_base", has_streaming => 1);
	$standby->start;
	$primary->safe_psql('postgres', qq{
ALTER SYSTEM SET synchronous_standby_names = '$name';
SELECT pg_reload_conf();});
	ok($primary->poll_query_until('postgres',
		qq{SELECT sync_state = 'sync' FROM pg_stat_replication WHERE application_name = '$name'}),
		"$name is the synchronous standby");
	return $standby;
}

# Run $script (psql input) against $node in the background, as psql -f
# does, stopping at the first error.  Its output goes to <basedir>/$name.out
# and its errors to <basedir>/$name.err; returns the IPC::Run harness and
# the output file's name.
sub start_psql_script
{
	my ($node, $name, $script) = @_;
	my $file = $node->basedir . "/$name.sql";
	my $out = $node->basedir . "/$name.out";
	open my $fh, '>', $file or die "could not write $file: $!";
	print $fh $script;
	close $fh;
	my $harness = IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-f', $file ],
		'>', $out, '2>', $node->basedir . "/$name.err");
	return ($harness, $out);
}

# Crash $node: SIGKILL to the postmaster and every child at once, as a power
# loss would leave them (no shutdown checkpoint, no orderly backend exit).
# The node is then stopped as far as the test framework knows; returns the
# pids killed, to wait for them to be gone.
sub kill9_server
{
	my ($node) = @_;
	my $postmaster = $node->{_pid};
	# stopped first, so that no child is forked between listing them and
	# killing them (such a backend would outlive its postmaster and hang)
	kill 'STOP', $postmaster;
	my @pids = ($postmaster, grep { /^\d+$/ } split /\s+/, `pgrep -P $postmaster`);
	kill 9, @pids;
	$node->{_pid} = undef;
	# gone before the caller starts the node again: a new postmaster
	# refuses to start while the old one's children hold shared memory
	for (1 .. 100)
	{
		last unless grep { kill 0, $_ } @pids;
		Time::HiRes::usleep(100_000);
	}
	return @pids;
}

# The settings of a node whose Kafka listener listens on 127.0.0.1:$port;
# room for a few open Kafka transactions, each a background worker
sub kafka_node_conf
{
	my ($port) = @_;
	return qq{
shared_preload_libraries = 'pg_topics'
pg_topics.kafka_port = $port
pg_topics.kafka_listen_addresses = '127.0.0.1'
max_worker_processes = 24
};
}

# Wait until a Kafka listener accepts connections on 127.0.0.1:$port, as
# it does shortly after the server starts (dies after 60 s)
sub wait_for_kafka_listener
{
	my ($port) = @_;
	for (1 .. 600)
	{
		my $sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port,
			Proto => 'tcp');
		if ($sock)
		{
			close($sock);
			return;
		}
		Time::HiRes::usleep(100_000);
	}
	die "no Kafka listener on port $port after 60 s";
}

# Run kcat against $bootstrap with @args, $stdin on its input: whether it
# succeeded, its output and its errors
sub kcat_run
{
	my ($bootstrap, $stdin, @args) = @_;
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([ 'kcat', '-b', $bootstrap, @args ], '<', \$stdin,
		'>', \$out, '2>', \$err, IPC::Run::timeout(60));
	return ($ok, $out, $err);
}

# The path of a Python script of test/kafka/, to start in the background
sub kafka_script_path
{
	my ($script) = @_;
	return dirname(__FILE__) . "/../kafka/$script";
}

# Run a command of a Python script of test/kafka/ ($script, for example
# 'clients.py') against $bootstrap, with Debian's python3, which has the
# Kafka clients; its JSON answer (dies if the command fails)
sub kafka_script
{
	my ($script, $bootstrap, @args) = @_;
	my $path = kafka_script_path($script);
	my ($out, $err) = ('', '');
	IPC::Run::run([ '/usr/bin/python3', $path, $bootstrap, @args ], '>', \$out,
		'2>', \$err, IPC::Run::timeout(180))
	  or die "$script @args failed: $err";
	return decode_json($out);
}

# A literal of a topic's key or value type (bytea, text or jsonb), from a
# number: different numbers give different values
sub type_literal
{
	my ($type, $n) = @_;
	return $type eq 'bytea' ? "'\\x" . sprintf('%04x', $n) . "'::bytea"
	  : $type eq 'jsonb' ? qq{jsonb_build_object('n', $n)}
	  : "'v$n'::text";
}

# Queries, by name, whose answers are what a database keeps of its topics,
# for tests that compare a database before and after an update, upgrade or
# restore: the records of each of @topics (count and checksum of every
# column, one row per topic in the order of their names), offsets, the
# topics, their settings, log starts, group positions and groups
sub topic_state_sql
{
	my @topics = @_;
	return (
		records => "SELECT * FROM (" . join("\nUNION ALL ", map { qq{
SELECT '$_'::text AS topic, count(*), md5(string_agg(format('%s/%s/%s/%s/%s/%s', partition, "offset", "timestamp",
	key, value, headers), ',' ORDER BY partition, "offset")) FROM $_} } @topics) . ") r ORDER BY topic",
		offsets => q{
SELECT string_agg(format('%s %s', t.topic, o), E'\n' ORDER BY t.topic::text, o.partition)
FROM topics.topics t, LATERAL topics.offsets(t.topic::text) o},
		topics => q{
SELECT string_agg(format('%s', t), E'\n' ORDER BY t.topic::text) FROM topics.topics t},
		config => q{
SELECT string_agg(format('%s %s %s %s', c.topic, c.retention, c.retention_bytes, c.created_at), E'\n'
	ORDER BY c.topic::text) FROM topics.topic_config c},
		log_starts => q{
SELECT string_agg(format('%s', s), E'\n' ORDER BY s.partition::text) FROM topics.log_starts s},
		positions => q{
SELECT string_agg(format('%s', l), E'\n' ORDER BY group_name, topic::text, partition)
FROM topics.consumer_lag l},
		groups => q{
SELECT string_agg(format('%s %s %s', group_name, topic, owner), E'\n' ORDER BY group_name, topic::text)
FROM topics.consumer_groups});
}

# The first segment of $partition (a partition relation's name, e.g.
# 'orders_p0') that holds records, for tests that damage one on disk: its
# relation's name and its data file, or an empty list if it has none
sub segment_with_records
{
	my ($node, $partition) = @_;
	my $seg = $node->safe_psql('postgres', qq{
SELECT c.relname FROM pg_class c WHERE c.relnamespace = 'topics_segments'::regnamespace
	AND c.relname LIKE 'seg\\_' || '$partition'::regclass::oid || '\\_%' AND c.relkind = 'r'
	AND pg_relation_size(c.oid) > 8192 ORDER BY c.relname LIMIT 1});
	return () if $seg eq '';
	return ($seg, $node->data_dir . '/'
		  . $node->safe_psql('postgres', qq{SELECT pg_relation_filepath('topics_segments.$seg')}));
}

1;
