# Bad Kafka clients cannot hurt the server or the other clients: half-sent
# frames (slowloris), idle and excess connections, frames that are not
# requests, a Produce cut short, decompression bombs.  Memory stays
# bounded, and a normal client is served throughout.
#
# A second server, with SASL PLAIN and one listener process, takes what the
# audit of issue 29 did to a listener, measured from /proc (the listener's
# resident memory peak, sampled, and its CPU time): large frames before
# authentication, answers nobody reads, requests naming millions of topics
# or groups, a batch of a million tiny records, slots held before and
# after authentication, a parked Fetch over 100 partitions; and the
# network fuzzer before authentication and with unread answers.  Each
# connection closed for a protocol reason leaves one log line per client
# address in a while (the clients use their own loopback addresses,
# 127.0.0.N, to be told apart).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use IPC::Run qw(run timeout);
use JSON::PP;
use Time::HiRes;

my $node = PostgreSQL::Test::Cluster->new('kafka_hostile');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $addr = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_max_connections = 200
pg_topics.kafka_idle_timeout = '3s'
pg_topics.kafka_max_request_bytes = '10MB'
authentication_timeout = '2s'
});
$node->start;
wait_for_kafka_listener($kport);
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('t', 1, 'bytea', 'bytea');
});

sub hostile
{
	return kafka_script('hostile.py', $addr, @_);
}

# The resident memory of the listener processes together, in kB
sub listener_rss
{
	my $pids = $node->safe_psql('postgres',
		q{SELECT string_agg(pid::text, ' ') FROM pg_stat_activity WHERE backend_type = 'pg_topics kafka listener'});
	my $kb = 0;
	for my $pid (split / /, $pids)
	{
		open my $fh, '<', "/proc/$pid/status" or next;
		while (<$fh>) { $kb += $1 if /^VmRSS:\s+(\d+)/; }
	}
	return $kb;
}

my $rss_before = listener_rss();

my $r = hostile('slowloris', 10);
ok($r->{closed} && $r->{after} < 6, "half a frame is closed after authentication_timeout ($r->{after} s)");
ok($r->{others_served}, 'other clients are served meanwhile');

$r = hostile('idle', 10);
ok($r->{closed} && $r->{after} >= 2.5 && $r->{after} < 7,
	"an idle connection is closed after pg_topics.kafka_idle_timeout ($r->{after} s)");

$r = hostile('flood', 1000, 1);
diag("flood: opened $r->{opened}, kept $r->{kept}");
ok($r->{kept} <= 200, 'no more connections are kept than pg_topics.kafka_max_connections');
ok($r->{served_after}, 'once they go, new clients are served');

$r = hostile('garbage');
for my $case (qw(size_2gb size_negative random short_header bad_array))
{
	ok($r->{$case}, "$case: the connection is closed");
}
ok($r->{others_served}, 'and the listener serves the next client');

$r = hostile('bomb', 't', 200);
diag("a gzip batch of $r->{compressed_bytes} bytes that inflates to 200 MB");
is($r->{error}, 10, 'a decompression bomb is MESSAGE_TOO_LARGE');
is($node->safe_psql('postgres', 'SELECT count(*) FROM t'), '0', 'and nothing of it is stored');
ok($r->{others_served}, 'the listener goes on');

$r = hostile('fuzz', (split / /, $node->safe_psql('postgres',
			q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_topics kafka listener' LIMIT 1}))[0],
	kafka_script_path('../fuzz/corpus/requests'), 2000, 3, 'unread');
diag("fuzzer, answers unread: $r->{frames} frames on $r->{connections} connections");
ok($r->{alive} && defined $r->{bystander},
	'mutated requests whose answers nobody reads: the listener lives on and serves others');

$r = hostile('truncated_produce', 't');
ok($r->{closed}, 'a Produce cut short in its second partition closes the connection');
is($node->safe_psql('postgres', 'SELECT count(*) FROM t'), '0',
	'and its first partition, whole, is not stored either');

my $rss_after = listener_rss();
diag("listener processes' memory: $rss_before kB before, $rss_after kB after");
ok($rss_after < $rss_before + 100_000, 'their memory stays bounded (less than 100 MB more)');

# a normal client, after all that
kcat_run($addr, "fine\n", '-P', '-t', 't');
my ($ok, $out, $err) = kcat_run($addr, '', '-C', '-t', 't', '-o', 'beginning', '-e', '-f', '%s\n');
is($out, "fine\n", 'a well-behaved client produces and consumes as before');

$node->stop;

# --- the bounds of issue 29 ---
my $bnode = PostgreSQL::Test::Cluster->new('kafka_bounds');
my $bport = PostgreSQL::Test::Cluster::get_free_port();
my $baddr = "127.0.0.1:$bport";
$bnode->init;
$bnode->append_conf('postgresql.conf', kafka_node_conf($bport) . q{
pg_topics.kafka_auth = 'plain'
pg_topics.kafka_workers = 1
pg_topics.kafka_max_connections = 40
pg_topics.kafka_idle_timeout = '3s'
pg_topics.kafka_max_request_bytes = '10MB'
pg_topics.kafka_listener_memory = '64MB'
authentication_timeout = '5s'
});
$bnode->start;
wait_for_kafka_listener($bport);
$bnode->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('t', 1, 'bytea', 'bytea');
SELECT topics.create_topic('wide', 100, 'bytea', 'bytea');
CREATE ROLE app LOGIN PASSWORD 'secret';
CREATE ROLE other LOGIN PASSWORD 'secret';
CREATE ROLE limited LOGIN PASSWORD 'secret' CONNECTION LIMIT 2;
GRANT SELECT, INSERT ON t, wide TO app;
});

sub listener_pid
{
	return $bnode->safe_psql('postgres',
		q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_topics kafka listener'});
}

# hostile.py against the bounds server, from client address 127.0.0.$from
sub bounds
{
	my ($from, @args) = @_;
	local $ENV{HOSTILE_FROM} = "127.0.0.$from";
	return kafka_script('hostile.py', $baddr, @args);
}

# The lines of the bounds server's log matching $re
sub log_lines
{
	my ($re) = @_;
	return scalar(grep { /$re/ } split /\n/, slurp_file($bnode->logfile));
}

my $pid = listener_pid();
my $mb = 1024;

# issue 28 item 7: a close for a protocol reason is logged, once per address
$r = bounds(2, 'refusals', 20);
is($r->{closed}, 20, 'Metadata of version 99 closes each of 20 connections');
is(log_lines(qr/closing Kafka connection from 127\.0\.0\.2:\d+: Metadata \(API key 3\) version 99 is not offered/),
	1, 'one log line names the client, the API and the version, the rest are counted');

# N1: frames before authentication are small
$r = bounds(3, 'preauth_big', $pid, 18, 5);
diag("18 unauthenticated frames of 5 MB: the listener grew by $r->{growth_kb} kB");
is($r->{closed}, 18, 'each frame of 5 MB before authentication closes its connection');
ok($r->{growth_kb} < 20 * $mb, 'and the listener does not buffer them (less than 20 MB)');
ok(defined $r->{bystander}, 'another client is served');
is(log_lines(qr/closing Kafka connection from 127\.0\.0\.3:\d+: ApiVersions \(API key 18\) version 0 of 5242880 bytes before authentication/),
	1, 'the server log says why, once');

# N2: answers nobody reads
$r = bounds(4, 'unread', $pid, 'app', 'secret', 1, 80000, 8);
diag("a 9.4 MB answer never read: closed after $r->{after} s, peak $r->{peak_kb} kB");
is($r->{closed}, 1, 'a connection that does not read its answer is closed (idle timeout)');
ok(defined $r->{bystander}, 'another client is served meanwhile');
$r = bounds(4, 'unread', $pid, 'app', 'secret', 10, 80000, 8);
diag("10 answers of 9.4 MB never read: peak $r->{peak_kb} kB, $r->{rss_after_kb} kB after");
ok($r->{peak_kb} < 80 * $mb,
	'ten of them stay within pg_topics.kafka_listener_memory (64 MB, and 16 MB of slack)');
is($r->{closed}, 10, 'and every such connection is closed');
ok($r->{rss_after_kb} < 20 * $mb, 'then the memory goes back');
ok(defined $r->{bystander}, 'another client is served meanwhile');
$r = bounds(5, 'big_list', $pid, 'app', 'secret', 'metadata', 5000000);
diag("Metadata naming 5 million topics: peak $r->{peak_kb} kB in $r->{took} s");
ok($r->{peak_kb} < 40 * $mb, 'a Metadata naming 5 million topics costs no more than its 10 MB');
is(log_lines(qr/closing Kafka connection from 127\.0\.0\.5:\d+: Metadata \(API key 3\) version 1 names too many topics, partitions or groups/),
	1, 'and is refused before its names are read into memory, with a line saying so');
$r = bounds(5, 'tiny_records', $pid, 'app', 'secret', 't', 1100000);
diag("a batch of 1.1 million tiny records: error $r->{error}, peak $r->{peak_kb} kB");
is($r->{error}, 10, 'a batch of 1.1 million tiny records (70 MB decoded) is MESSAGE_TOO_LARGE');
ok($r->{peak_kb} < 40 * $mb, 'decided before it takes the memory');
is($bnode->safe_psql('postgres', 'SELECT count(*) FROM t'), '0', 'nothing of it is stored');

# N6: a long request does not hold the others up
$r = bounds(5, 'big_list', $pid, 'app', 'secret', 'groups', 3300000);
diag("DescribeGroups naming 3.3 million groups: $r->{took} s, a bystander waited at most $r->{bystander_max} s");
ok(defined $r->{bystander_max} && $r->{bystander_max} < 2,
	'a DescribeGroups naming 3.3 million groups holds other clients up less than 2 s');
$r = bounds(12, 'big_list', $pid, 'app', 'secret', 'fetch', 600000);
diag("Fetch naming a partition 600,000 times: $r->{took} s, a bystander waited at most $r->{bystander_max} s");
ok(defined $r->{bystander_max} && $r->{bystander_max} < 1,
	'a Fetch naming a partition 600,000 times holds other clients up less than 1 s');
is(log_lines(qr/closing Kafka connection from 127\.0\.0\.12:\d+: Fetch \(API key 1\) version 4 names too many topics, partitions or groups/),
	1, 'it is refused, with a line saying so');
$r = bounds(5, 'big_list', $pid, 'app', 'secret', 'groups', 90000);
diag("DescribeGroups naming 90,000 groups: answered in $r->{took} s, a bystander waited at most $r->{bystander_max} s");
ok($r->{answered}, 'one of 90,000 groups is answered');

# N10: a parked Fetch over more than 64 partitions sleeps
$r = bounds(6, 'parked_cpu', $pid, 'app', 'secret', 'wide', 100, 3000);
diag("a Fetch parked over 100 partitions for $r->{waited} s: $r->{cpu_percent} % CPU");
ok($r->{waited} >= 2.5, 'the Fetch waits its max_wait_ms');
ok($r->{cpu_percent} < 20, 'without keeping the listener busy');

# what was held back is counted when its window ends (before the listener
# process ends below: the counts are its own)
ok(wait_for_log_line(qr/\d+ more Kafka connections from 127\.0\.0\.2 were closed/),
	'the closes not logged one by one are counted in a later line');

# N5: slots before and after authentication
$r = bounds(7, 'preauth_slots', 'app', 'secret', 45, 5);
diag("45 connections held unauthenticated: $r->{logins} of 5 logins got in, $r->{idle_closed} held ones closed");
is($r->{logins}, 5, 'connections that never authenticate do not keep a client that does out');
$r = bounds(8, 'logins', 'app', 'secret', 15, 1);
is($r->{ok}, 10, 'one role gets a quarter of pg_topics.kafka_max_connections');
is($r->{alive}, 10, 'and keeps them');
$r = bounds(8, 'logins', 'limited', 'secret', 3, 1);
is($r->{ok}, 2, "a role's Kafka connections count against its CONNECTION LIMIT");
my $held = IPC::Run::start(
	[ '/usr/bin/python3', kafka_script_path('hostile.py'), $baddr, 'logins', 'limited',
		'secret', 2, 60 ],
	'>', \my $held_out, '2>', \my $held_err);
sleep 2;
$bnode->safe_psql('postgres', "SELECT pg_terminate_backend($pid)");
$bnode->poll_query_until('postgres',
	qq{SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'pg_topics kafka listener' AND pid <> $pid})
  or die 'the listener did not come back';
wait_for_kafka_listener($bport);
$held->kill_kill;
$pid = listener_pid();
$r = bounds(8, 'logins', 'limited', 'secret', 2, 0);
is($r->{ok}, 2, 'a listener that ends leaves no slot of the role counted');
$r = bounds(9, 'parked_idle', 'app', 'secret', 't', 8);
diag("a Fetch parked for 10 minutes on an idle connection: closed after $r->{after} s");
ok($r->{closed} && $r->{after} < 6, 'a parked Fetch keeps its connection only as long as the idle timeout');

# issue 28 item 10: failed logins, one line per address in a while
$r = bounds(10, 'logins', 'app', 'wrong', 30, 0);
is($r->{ok}, 0, 'thirty logins with a wrong password fail');
is(log_lines(qr/Kafka client authentication failed for user "app" from 127\.0\.0\.10:/),
	1, 'with one line in the log');

# issue 28 item 10: failed requests, one line per cause in a while
$bnode->safe_psql('postgres', q{CREATE ROLE stale LOGIN PASSWORD 'secret'});
my $go = $bnode->basedir . '/stale_go';
my $stale = IPC::Run::start(
	[ '/usr/bin/python3', kafka_script_path('hostile.py'), $baddr, 'stale_role', 'stale',
		'secret', 10, $go ],
	'>', \my $stale_out, '2>', \my $stale_err, IPC::Run::timeout(120));
$stale->pump until $stale_out =~ /ready/;
$bnode->safe_psql('postgres', 'ALTER ROLE stale NOLOGIN');
open my $go_fh, '>', $go or die;
close $go_fh;
$stale->finish;
$r = decode_json((split /\n/, $stale_out)[-1]);
is($r->{closed}, 10, 'ten requests of a role that lost LOGIN (its quarter of the slots) close their connections');
is(log_lines(qr/after its Metadata request failed: role "stale" may no longer use this Kafka connection/),
	1, 'with one line in the log');

# the fuzzer before authentication and with unread answers
my $seeds = kafka_script_path('../fuzz/corpus/requests');
$r = bounds(11, 'fuzz', $pid, $seeds, 2000, 1, 'preauth');
diag("fuzzer before authentication: $r->{frames} frames on $r->{connections} connections, peak $r->{peak_kb} kB");
ok($r->{alive} && defined $r->{bystander} && $r->{peak_kb} < 80 * $mb,
	'mutated requests before authentication: the listener lives on, bounded, and serves others');
$r = bounds(11, 'fuzz', $pid, $seeds, 2000, 2, 'unread', 'app', 'secret');
diag("fuzzer, answers unread: $r->{frames} frames on $r->{connections} connections, peak $r->{peak_kb} kB");
ok($r->{alive} && defined $r->{bystander} && $r->{peak_kb} < 80 * $mb,
	'mutated requests whose answers nobody reads: the same');
is(listener_pid(), $pid, 'and it is the same listener process');

# what was held back is counted when its window ends
ok(wait_for_log_line(qr/29 more Kafka logins failed \(client address, mechanism, user: 127\.0\.0\.10 PLAIN app\)/),
	'so are the failed logins');
ok(wait_for_log_line(qr/9 more Kafka requests failed with SQLSTATE 28000/),
	'and the failed requests');

$bnode->stop;
done_testing();

# Wait up to 30 s for a line of the bounds server's log matching $re
sub wait_for_log_line
{
	my ($re) = @_;
	for (1 .. 300)
	{
		return 1 if log_lines($re) > 0;
		Time::HiRes::usleep(100_000);
	}
	return 0;
}
