# What no test may leave in a server log unless it declares it: an internal
# error (SQLSTATE class XX), an assertion failure, a PANIC, a server process
# killed by a signal or ending in a crash, or a resource leak warning.  Used
# by test/check_server_log (pg_regress and isolation instances) and by
# PgTopicsTest (TAP nodes).  The logs must carry SQLSTATEs
# (log_error_verbosity = verbose, as test/server_log.conf sets).
package PgTopicsServerLog;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT_OK = qw(log_problems);

# Each pattern is matched against one log line.
my @problems = (
	# XX000 internal_error (elog, and ereport without errcode), XX001 and XX002
	qr/\b(?:ERROR|FATAL|PANIC):  XX\d\d\d: /,
	qr/\bPANIC:  /,
	# Assert() and the server's own ExceptionalCondition
	qr/^TRAP: /,
	# the postmaster about a child it did not stop itself
	qr/ was terminated by signal \d+/,
	qr/ exited with exit code (?:[2-9]|\d\d+)\b/,
	# the resource owner's end-of-transaction checks (buffer pins, relcache
	# and catalog cache references, snapshots, TupleDescs, files, DSM)
	qr/\bWARNING:  01000: .*\bleak\b/,
);

my $timestamp = qr/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/;

# The problems in log $file: a list of hashes { line, context, pid, app }
# (line numbers count from 1; context holds the entry's DETAIL, LOCATION,
# STATEMENT, ... lines and any backtrace), and for each the application
# name (a test's name for pg_regress and isolation) of the process it is
# about, as far as the log tells.  $allowed->($problem) returns a reason
# when the problem is expected; such problems come back with {allowed} set.
sub log_problems
{
	my ($file, $allowed) = @_;
	open my $fh, '<', $file or die "could not read server log $file: $!";
	my @lines = <$fh>;
	close $fh;
	chomp @lines;

	# '%m [%p] %q%a ' (TAP nodes) or '%m %b[%p] %q%a ' (pg_regress): each
	# process's application name, wherever in the log it shows
	my %app_of_pid;
	my @pid_of_line;
	for (my $i = 0; $i < @lines; $i++)
	{
		my ($pid, $app) = $lines[$i] =~ /$timestamp\S* \S+ (?:\S.*?)?\[(\d+)\] (?:(\S+) )?[A-Z0-9]+:  /;
		$pid_of_line[$i] = $pid;
		# (before authentication a backend logs no name: "[unknown]")
		$app_of_pid{$pid} //= $app if defined $pid && defined $app && $app ne '[unknown]';
	}

	my @found;
	for (my $i = 0; $i < @lines; $i++)
	{
		my $line = $lines[$i];
		my $pid = $pid_of_line[$i];
		next unless grep { $line =~ $_ } @problems;

		# the process the line is about: a crashed child, or the writer
		my $about =
			$line =~ /\(PID (\d+)\)/ ? $1
		  : $line =~ /\bPID: (\d+)\)/ ? $1
		  : $pid;
		# the entry's own further lines, and untimed ones (a backtrace)
		my @context;
		for (my $j = $i + 1; $j < @lines && @context < 40; $j++)
		{
			my $next = $lines[$j];
			last if $next =~ /^TRAP: /;
			if ($next =~ $timestamp)
			{
				last unless defined $pid
				  && $next =~ /\[$pid\] .*?\b(?:DETAIL|HINT|CONTEXT|LOCATION|STATEMENT):  /;
			}
			push @context, $next;
		}
		my $problem = {
			line => $i + 1,
			text => $line,
			context => \@context,
			pid => $about,
			app => defined $about ? $app_of_pid{$about} : undef,
		};
		$problem->{allowed} = $allowed->($problem) if $allowed;
		push @found, $problem;
	}
	return @found;
}

1;
