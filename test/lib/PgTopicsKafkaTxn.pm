# Transactional Kafka producers that a TAP test steps through one line at a
# time (test/kafka/txn_clients.py's `driver`, test/kafka/kafkajs/txn.js),
# so that it can look at the server between any two steps, run two
# producers of one transactional id side by side, or kill one mid-way: for
# test/t/067_kafka_transactions_clients.pl, 068 and 069.
package PgTopicsKafkaTxn;

use strict;
use warnings;
use Exporter 'import';
use IPC::Run;
use JSON::PP;
use Test::More;
use PgTopicsTest;

our @EXPORT = qw(txn_driver txn_step txn_send txn_answer txn_pending txn_ok txn_kill txn_quit);

# Start a driver: @cmd runs it (it prints {"ok":"ready"} first); returns
# the driver, a hash the other functions take
sub txn_driver
{
	my (@cmd) = @_;
	my $d = { in => '', out => '', err => '', cmd => "@cmd" };
	$d->{h} = IPC::Run::start(\@cmd, '<', \$d->{in}, '>', \$d->{out}, '2>', \$d->{err},
		IPC::Run::timeout(600));
	my $ready = _answer($d, 120);
	die "driver @cmd did not start: $d->{err}" unless $ready && ($ready->{ok} // '') eq 'ready';
	return $d;
}

# The next JSON line the driver prints, within $timeout s (undef if none)
sub _answer
{
	my ($d, $timeout) = @_;
	my $deadline = time + $timeout;
	while ($d->{out} !~ /\n/)
	{
		return undef if time > $deadline || !$d->{h}->pumpable;
		eval { $d->{h}->pump_nb; };
		select(undef, undef, undef, 0.05);
	}
	$d->{out} =~ s/^([^\n]*)\n//;
	return decode_json($1);
}

# Send one step (a line of words) to the driver; its answer: {ok => ...} or
# {error => NAME, fatal, abortable, retriable, message}
sub txn_step
{
	my ($d, $step, $timeout) = @_;
	$d->{in} .= "$step\n";
	my $a = _answer($d, $timeout // 120);
	return $a // { error => 'no answer', message => "driver gave no answer to '$step': $d->{err}" };
}

# Send a step without waiting for its answer (txn_answer reads it later)
sub txn_send
{
	my ($d, $step) = @_;
	$d->{in} .= "$step\n";
	eval { $d->{h}->pump_nb; };
	return;
}

# The answer to the step txn_send sent, within $timeout s (default 120)
sub txn_answer
{
	my ($d, $timeout) = @_;
	return _answer($d, $timeout // 120) // { error => 'no answer', message => $d->{err} };
}

# Whether the step txn_send sent is still unanswered
sub txn_pending
{
	my ($d) = @_;
	eval { $d->{h}->pump_nb; };
	return $d->{out} !~ /\n/;
}

# A step that must succeed, as a test named $name; its answer's ok part
sub txn_ok
{
	my ($d, $step, $name) = @_;
	my $a = txn_step($d, $step);
	ok(exists $a->{ok}, $name // $step)
	  or diag("$step: " . encode_json($a));
	return $a->{ok};
}

# Kill the driver's process at once (SIGKILL: no abort, no goodbye)
sub txn_kill
{
	my ($d) = @_;
	$d->{h}->signal('KILL');
	eval { $d->{h}->finish; };
	return;
}

# End the driver
sub txn_quit
{
	my ($d) = @_;
	$d->{in} .= "quit\n";
	eval { $d->{h}->finish; };
	$d->{h}->kill_kill if $@;
	return;
}

1;
