# Helpers shared by pg_topics' TAP tests.
package PgTopicsTest;

use strict;
use warnings;
use Exporter 'import';
use IPC::Run;
use PostgreSQL::Test::Cluster;

our @EXPORT = qw(start_logical_node start_psql_script kill9_server);

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
	my @pids = ($postmaster, grep { /^\d+$/ } split /\s+/, `pgrep -P $postmaster`);
	kill 9, @pids;
	$node->{_pid} = undef;
	return @pids;
}

1;
