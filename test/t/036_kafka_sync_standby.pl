# Kafka producers with acks=all are answered once the synchronous standby
# has their records, and Kafka consumers (with pg_topics.wait_for_sync_standby)
# get records once it has them; while the standby is away those answers
# wait, and the listener goes on serving everyone else.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use IPC::Run qw(run start timeout);
use Time::HiRes qw(time usleep);
use JSON::PP qw(decode_json);

my $primary = PostgreSQL::Test::Cluster->new('kafka_sync_primary');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', kafka_node_conf($kport)
	  . "pg_topics.kafka_workers = 1\n");
$primary->start;
wait_for_kafka_listener($kport);
$primary->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('t', 1, 'text', 'text');
});
my $standby = start_sync_standby($primary, 'kafka_sync_standby');

sub kcat
{
	return kcat_run($bootstrap, @_);
}

my ($ok, $out, $err) = kcat("one\n", '-P', '-t', 't', '-X', 'acks=all');
ok($ok, 'acks=all is answered while the synchronous standby is there');
# (the answer waited for the standby's flush; its replay follows)
ok($standby->poll_query_until('postgres', 'SELECT count(*) = 1 FROM t'), 'and the standby has the record');

# the standby goes away: an acks=all producer waits, everyone else is served
$standby->stop;
my ($pout, $perr) = ('', '');
my $input = $primary->basedir . '/two.txt';
PostgreSQL::Test::Utils::append_to_file($input, "two\n");
my $t0 = time();
my $producer = start([ 'kcat', '-b', $bootstrap, '-P', '-t', 't', '-X', 'acks=all',
		'-X', 'message.timeout.ms=60000' ], '<', $input, '>', \$pout, '2>', \$perr);
$primary->poll_query_until('postgres', q{SELECT count(*) = 1 FROM t WHERE value = 'two'})
  or die 'the record never committed on the primary';
usleep(1_000_000);
ok($producer->pumpable,
	'without the standby, an acks=all producer is not answered, though its record committed locally');
my $t1 = time();
($ok, $out, $err) = kcat('', '-L');
like($out, qr/broker \d+ at/, 'while it waits, another client is served') or diag($err);
($ok, $out, $err) = kcat("three\n", '-P', '-t', 't', '-X', 'acks=1');
ok($ok, 'and an acks=1 producer is answered at once');
diag(sprintf('other clients served in %.1f s while the acks=all answer waited', time() - $t1));
ok(time() - $t1 < 10, 'without waiting for the held answer');

# the standby comes back: the held answer goes out
$standby->start;
my $t2 = time();
$producer->finish;
ok($producer->result == 0, 'once the standby is back, the acks=all producer is answered: delivered')
  or diag($perr);
diag(sprintf('answered %.1f s after the standby started again', time() - $t2));
$primary->poll_query_until('postgres',
	q{SELECT sync_state = 'sync' FROM pg_stat_replication}) or die 'standby not back';
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', q{SELECT string_agg(value, ',' ORDER BY "offset") FROM t}),
	'one,two,three', 'every record is on the standby');

# an idempotent producer's batch sent again while its first try's answer
# waits for the standby: the retry is answered from the first try, and it
# waits for the standby too, or the client would take as replicated a
# record the standby does not have
$standby->stop;
my ($hout, $herr) = ('', '');
my $held = start([ '/usr/bin/python3', PgTopicsTest::kafka_script_path('clients.py'),
		$bootstrap, 'idempotent_retry_held', 't' ], '>', \$hout, '2>', \$herr, timeout(180));
$primary->poll_query_until('postgres', q{SELECT count(*) = 2 FROM t WHERE key = 'held'})
  or die 'the first try never committed on the primary';
# the retry must be waiting before the standby comes back
$held->pump until $herr =~ /retry sent/;
usleep(2_000_000);
$standby->start;
$held->finish or die "idempotent_retry_held failed: $herr";
my $h = decode_json($hout);
is_deeply([ @{ $h->{retry} }[ 0, 1 ] ], $h->{first},
	'an idempotent batch sent again while the standby is away is answered with the first try\'s offset');
ok($h->{retry}[2] > 1, 'once the standby is back, not before')
  or diag("answered after $h->{retry}[2] s");
is($primary->safe_psql('postgres', q{SELECT count(*) FROM t WHERE key = 'held'}), '2',
	'and stored once');

# a Kafka consumer under pg_topics.wait_for_sync_standby gets a record once
# the standby has it
$primary->safe_psql('postgres', 'ALTER SYSTEM SET pg_topics.wait_for_sync_standby = on');
$primary->reload;
$primary->poll_query_until('postgres',
	q{SELECT sync_state = 'sync' FROM pg_stat_replication}) or die 'standby not back';
$standby->stop;
$primary->safe_psql('postgres',
	q{SET synchronous_commit = local; SELECT topics.produce('t', 'four'::text)});
my ($cout, $cerr) = ('', '');
my $consumer = start([ 'kcat', '-b', $bootstrap, '-C', '-t', 't', '-o', 'beginning', '-c', '6',
		'-f', '%s\n' ], '>', \$cout, '2>', \$cerr);
usleep(3_000_000);
$consumer->pump_nb;
unlike($cout, qr/four/, 'while the standby is away, a Kafka consumer does not get a record committed without it');
$standby->start;
$consumer->finish or diag($cerr);
like($cout, qr/four/, 'once the standby has it, the consumer does');

$standby->stop;
$primary->stop;
done_testing();
