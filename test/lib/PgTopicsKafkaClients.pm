# Kafka clients that run in the background through failovers
# (test/kafka/failover.py's `run` command), and what they saw: for
# test/t/044_kafka_brokers.pl and 045_kafka_failover.pl.
package PgTopicsKafkaClients;

use strict;
use warnings;
use Exporter 'import';
use IPC::Run;
use Time::HiRes qw(time);
use JSON::PP;
use PostgreSQL::Test::Utils;
use PgTopicsTest;

our @EXPORT = qw(start_kafka_clients stop_kafka_clients client_events first_event_after
  wait_for_events_after wait_for_resume client_trouble);

# Start the clients [client, name, topic, group] of failover.py against
# $bootstrap, their events in $dir/NAME.events; returns the harnesses
sub start_kafka_clients
{
	my ($bootstrap, $dir, @clients) = @_;
	unlink "$dir/stop";
	my @harnesses;
	foreach my $c (@clients)
	{
		my ($client, $name, $topic, $group) = @$c;
		push @harnesses, IPC::Run::start(
			[ '/usr/bin/python3', PgTopicsTest::kafka_script_path('failover.py'), $bootstrap,
			  'run', $client, $name, $topic, $group // '-', $dir ],
			'>', "$dir/$name.out", '2>', "$dir/$name.err");
	}
	return @harnesses;
}

# Ask the clients to stop (producers flush first) and wait for them
sub stop_kafka_clients
{
	my ($dir, @harnesses) = @_;
	append_to_file("$dir/stop", '');
	foreach my $h (@harnesses)
	{
		eval { $h->finish; };
		$h->kill_kill if $@;
	}
	return;
}

# The events of client $name so far, in order
sub client_events
{
	my ($dir, $name) = @_;
	return () unless -e "$dir/$name.events";
	my @events;
	foreach my $line (split /\n/, slurp_file("$dir/$name.events"))
	{
		my $e = eval { decode_json($line) };
		push @events, $e if $e;    # (the last line may be half written)
	}
	return @events;
}

# The first event of kind $ev (ack, rec, ...) of $name after time $t, or undef
sub first_event_after
{
	my ($dir, $name, $ev, $t) = @_;
	foreach my $e (client_events($dir, $name))
	{
		return $e if $e->{ev} eq $ev && $e->{t} > $t;
	}
	return undef;
}

# Wait up to $timeout s until each client of %$want (name => event kind)
# has such an event after time $t; returns name => seconds from $t to it
# (undef for one that had none)
sub wait_for_events_after
{
	my ($dir, $t, $timeout, %want) = @_;
	my %after;
	my $deadline = time + $timeout;
	while (1)
	{
		foreach my $name (keys %want)
		{
			next if defined $after{$name};
			my $e = first_event_after($dir, $name, $want{$name}, $t);
			$after{$name} = $e->{t} - $t if $e;
		}
		last if keys %after == keys %want || time > $deadline;
		select(undef, undef, undef, 0.2);
	}
	return \%after;
}

# Wait up to $timeout s until every producer of @$producers has had a
# record acknowledged that it sent after time $t, and every consumer of
# @$consumers has got a record that a producer sent after $t; a client
# that had a fatal error, or that ended, is given up on.  Returns name => seconds
# from $t to that event (undef for a client that had none).
sub wait_for_resume
{
	my ($dir, $t, $timeout, $producers, $consumers) = @_;
	my %after;
	my $deadline = time + $timeout;
	while (1)
	{
		my %sent_after;
		my %events = map { $_ => [ client_events($dir, $_) ] } @$producers, @$consumers;
		foreach my $p (@$producers)
		{
			$sent_after{ $_->{key} } = 1
			  foreach grep { $_->{ev} eq 'sent' && $_->{t} > $t } @{ $events{$p} };
		}
		my $pending = 0;
		foreach my $c (@$producers, @$consumers)
		{
			next if exists $after{$c};
			my $kind = (grep { $_ eq $c } @$producers) ? 'ack' : 'rec';
			my ($e) = grep { $_->{ev} eq $kind && $_->{t} > $t && $sent_after{ $_->{key} } }
			  @{ $events{$c} };
			if ($e)
			{
				$after{$c} = $e->{t} - $t;
			}
			elsif (grep { ($_->{ev} eq 'error' && $_->{fatal}) || $_->{ev} eq 'end' } @{ $events{$c} })
			{
				$after{$c} = undef;
			}
			else
			{
				$pending++;
			}
		}
		last if !$pending || time > $deadline;
		select(undef, undef, undef, 0.2);
	}
	return \%after;
}

# What went wrong with client $name: its errors, and the end of its stderr
sub client_trouble
{
	my ($dir, $name) = @_;
	my @errors = grep { $_->{ev} eq 'error' || $_->{ev} eq 'nack' } client_events($dir, $name);
	my $err = -e "$dir/$name.err" ? slurp_file("$dir/$name.err") : '';
	$err = substr($err, -2000) if length($err) > 2000;
	return { errors => [ @errors[ ($#errors > 9 ? $#errors - 9 : 0) .. $#errors ] ], stderr => $err };
}

1;
