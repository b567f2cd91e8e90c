# Bad Kafka clients cannot hurt the server or the other clients: half-sent
# frames (slowloris), idle and excess connections, frames that are not
# requests, a Produce cut short, decompression bombs.  Memory stays
# bounded, and a normal client is served throughout.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use IPC::Run qw(run timeout);
use JSON::PP;

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
done_testing();
