# An idempotent Kafka producer goes on through a restart, a crash and a
# failover to a physical standby: its batches carry its state in the log,
# so a batch sent again after any of them is answered with the offset it
# was stored at, not stored twice, and its next batch is taken (before, the
# producer was unknown after a restart and its in-flight batches got
# UNKNOWN_PRODUCER_ID, fatal for librdkafka).  The id stays bound to its
# role.  And a Kafka batch gets dense offsets, whatever the partition's
# other writers do and wherever its segment fills.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use JSON::PP;
use Time::HiRes qw(time usleep);

my $UNKNOWN_PRODUCER_ID = 59;
my $OUT_OF_ORDER = 45;
my $NOT_YOURS = 49;    # INVALID_PRODUCER_ID_MAPPING

my $node = PostgreSQL::Test::Cluster->new('producer_state');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init(allows_streaming => 'logical');
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_auth = 'plain'
pg_topics.kafka_workers = 1
pg_topics.segment_size = '128kB'
pg_topics.worker_naptime = '1s'
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE ROLE alice LOGIN PASSWORD 'alice-pw';
CREATE ROLE bob LOGIN PASSWORD 'bob-pw';
SELECT topics.create_topic('restarted', 1, 'text', 'text');
SELECT topics.create_topic('crashed', 1, 'text', 'text');
SELECT topics.create_topic('failed_over', 1, 'text', 'text');
SELECT topics.create_topic('dense', 1, 'text', 'text');
SELECT topics.create_topic('live', 3, 'text', 'text');
GRANT SELECT, INSERT ON restarted, crashed, failed_over, dense, live TO alice;
GRANT SELECT, INSERT ON restarted TO bob;
});
$node->safe_psql('postgres',
	q{SELECT pg_create_logical_replication_slot('decoded', 'test_decoding')});
wait_for_kafka_listener($kport);

sub state
{
	my ($bs, @args) = @_;
	return kafka_script('producer_state.py', $bs, @args);
}

sub values_of
{
	my ($n, $topic) = @_;
	return $n->safe_psql('postgres',
		qq{SELECT string_agg(value, ',' ORDER BY "offset") FROM $topic});
}

# Crash the node and start it again (crash recovery), with $conf added to
# its settings meanwhile
sub crash_and_start_with
{
	my ($n, $conf) = @_;
	kill9_server($n);
	$n->append_conf('postgresql.conf', $conf) if $conf;
	$n->start;
}

# The batches of begin, then resume's after whatever happened in between
sub check_resumed
{
	my ($what, $n, $topic, $b, $r) = @_;
	is_deeply($r->{second_again}, [ 0, 3 ],
		"$what: the producer's last batch sent again is answered with its offset");
	is_deeply($r->{first_again}, [ 0, 0 ],
		"$what: so is the batch before it");
	is_deeply($r->{next}, [ 0, 5 ], "$what: its next batch is stored");
	is_deeply($r->{next_again}, [ 0, 5 ], "$what: and recognised when sent again");
	is($r->{gap}[0], $OUT_OF_ORDER, "$what: a gap in its sequence is refused");
	is(values_of($n, $topic), 'one-0,one-1,one-2,two-3,two-4,three-5',
		"$what: every record is stored once");
}

# ---- (a) a restart
my $b = state($bootstrap, 'begin', 'restarted', 'alice', 'alice-pw');
is_deeply([ $b->{init}, $b->{first}, $b->{second} ], [ 0, [ 0, 0 ], [ 0, 3 ] ],
	'a producer writes two batches');
$node->restart;
wait_for_kafka_listener($kport);
my $r = state($bootstrap, 'resume', 'restarted', 'alice', 'alice-pw',
	$b->{pid}, $b->{epoch});
check_resumed('after a restart', $node, 'restarted', $b, $r);

# logical decoding reads the records of a producer's batches as any others
my $decoded = $node->safe_psql('postgres', q{
SELECT string_agg(substring(data from 'value\[text\]:''([^'']*)'''), ',' ORDER BY lsn)
FROM pg_logical_slot_get_changes('decoded', NULL, NULL)
WHERE data LIKE 'table public.restarted_p0: INSERT:%'});
is($decoded, 'one-0,one-1,one-2,two-3,two-4,three-5',
	'logical decoding reads the producer\'s records');
$node->safe_psql('postgres', q{SELECT pg_drop_replication_slot('decoded')});

# the id stays alice's: after another restart, bob cannot write with it
$node->restart;
wait_for_kafka_listener($kport);
is_deeply(state($bootstrap, 'steal', 'restarted', 'bob', 'bob-pw', $b->{pid}, $b->{epoch}),
	[ $NOT_YOURS, -1 ],
	'after a restart, another role\'s batch with the producer\'s id is refused (INVALID_PRODUCER_ID_MAPPING)');
is($node->safe_psql('postgres', q{SELECT count(*) FROM restarted}), '6', 'and not stored');

# ---- (b) a crash
$b = state($bootstrap, 'begin', 'crashed', 'alice', 'alice-pw');
crash_and_start_with($node);
wait_for_kafka_listener($kport);
$r = state($bootstrap, 'resume', 'crashed', 'alice', 'alice-pw', $b->{pid}, $b->{epoch});
check_resumed('after a crash', $node, 'crashed', $b, $r);

# ---- (c) a failover to a physical standby, which replays the state
$node->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('producer_state_standby');
$standby->init_from_backup($node, 'base', has_streaming => 1);
my $sport = PostgreSQL::Test::Cluster::get_free_port();
$standby->append_conf('postgresql.conf', "pg_topics.kafka_port = $sport\n");
$standby->start;
$b = state($bootstrap, 'begin', 'failed_over', 'alice', 'alice-pw');
$node->wait_for_catchup($standby);
$node->stop('immediate');
$standby->promote;
wait_for_kafka_listener($sport);
$r = state("127.0.0.1:$sport", 'resume', 'failed_over', 'alice', 'alice-pw',
	$b->{pid}, $b->{epoch});
check_resumed('after a failover', $standby, 'failed_over', $b, $r);
$standby->stop;
$node->start;
wait_for_kafka_listener($kport);

# ---- (d) dense offsets: Kafka batches larger than a segment, and with more
# records than one insert takes, while SQL writes the same partition
my ($sql, $sql_out) = start_psql_script($node, 'dense_writer', q{
DO $$
BEGIN
	FOR i IN 1..200000 LOOP
		PERFORM topics.produce('dense', 'sql-' || i);
		COMMIT;
		EXIT WHEN i > 1000 AND (SELECT count(*) FROM dense WHERE value = 'stop') > 0;
	END LOOP;
END $$;
});
$node->poll_query_until('postgres', q{SELECT count(*) > 100 FROM dense})
  or die 'the SQL writer does not write';
my @rounds = (
	@{ state($bootstrap, 'big_batches', 'dense', 'alice', 'alice-pw', 'wide', 3000, 100, 6) },
	@{ state($bootstrap, 'big_batches', 'dense', 'alice', 'alice-pw', 'many', 20000, 8, 3) });
$node->safe_psql('postgres', q{SELECT topics.produce('dense', 'stop')});
$sql->finish;
my $segments = $node->safe_psql('postgres',
	q{SELECT count(*) FROM topics.segments WHERE topic = 'dense'::regclass});
cmp_ok($segments, '>', 5, "the Kafka batches filled several segments ($segments)");
my @wrong;
for my $i (0 .. $#rounds)
{
	my ($err, $base, $tag) = @{ $rounds[$i] };
	my $count = $i < 6 ? 3000 : 20000;
	my $got = $node->safe_psql('postgres', qq{
SELECT count(*) || ' ' || min("offset") || ' ' || max("offset")
FROM dense WHERE value LIKE '$tag.%'});
	push @wrong, "$tag: error $err, base $base, stored (count, min, max) $got"
	  unless $err == 0 && $got eq "$count $base " . ($base + $count - 1);
}
is(join("\n", @wrong), '',
	'every Kafka batch is stored at the offsets its answer gives, dense, though SQL wrote in between');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('dense')}), '0',
	'topics.verify finds nothing wrong with the partition');

# ---- (e) confluent-kafka's idempotent producer, records in flight, through
# a crash and a restart: no fatal error, every record stored once, at the
# offset its delivery report gives.  Before the crash, answers are held for
# a synchronous standby that never comes, so that batches are stored whose
# answers the producer never gets: it sends them again after the crash, to
# a server that must know them.
my $stop = $node->basedir . '/ck_stop';
my $reports = $node->basedir . '/ck_reports';
my ($ckout, $ckerr) = ('', '');
$node->safe_psql('postgres', q{ALTER SYSTEM SET pg_topics.kafka_auth = 'trust'; SELECT pg_reload_conf();});
my $ck = IPC::Run::start([ '/usr/bin/python3', PgTopicsTest::kafka_script_path('producer_state.py'),
		$bootstrap, 'ck_idempotent_run', 'live', $stop, $reports ],
	'>', \$ckout, '2>', \$ckerr, IPC::Run::timeout(600));

# How many records the producer has had delivered
sub delivered
{
	return -e $reports ? scalar(() = slurp_file($reports) =~ /\n/g) : 0;
}

# Wait until the producer has had n more records delivered (false after
# 60 s without)
sub delivered_beyond
{
	my ($n) = @_;
	my $start = delivered();
	for (1 .. 600)
	{
		return 1 if delivered() >= $start + $n;
		usleep(100_000);
	}
	return 0;
}
delivered_beyond(2000) or die "the producer does not produce: $ckerr";
$node->append_conf('postgresql.conf', "synchronous_standby_names = 'nobody'\n");
$node->reload;
# once answers are held, deliveries stop while a batch is stored
my $unanswered = 0;
for (1 .. 600)
{
	$unanswered = $node->safe_psql('postgres', 'SELECT count(*) FROM live') - delivered();
	last if $unanswered > 0;
	usleep(100_000);
}
cmp_ok($unanswered, '>', 0, 'records are stored whose answers the producer has not got');
crash_and_start_with($node, "synchronous_standby_names = ''\n");
ok(delivered_beyond(2000), 'the producer goes on after the crash');
$node->restart;
ok(delivered_beyond(2000), 'and after a restart');
open my $fh, '>', $stop or die;
close $fh;
$ck->finish or die "ck_idempotent_run failed: $ckerr";
my $run = decode_json($ckout);
is_deeply($run->{fatal}, [], 'the producer never fails for good');
my @failed = grep { defined $_->[0] } @{ $run->{reports} };
is(scalar(@failed), 0, 'every record is reported delivered')
  or diag(join(' ', map { $_->[0] } @failed[ 0 .. 9 ]));
is(scalar(@{ $run->{reports} }), $run->{sent}, "of the $run->{sent} sent");
my %reported = map { ("$_->[1]:$_->[2]" => $_->[3]) } grep { !defined $_->[0] } @{ $run->{reports} };
my $stored = $node->safe_psql('postgres',
	q{SELECT partition || ':' || "offset" || ' ' || key FROM live ORDER BY 1});
my %stored = map { split / / } split /\n/, $stored;
is($node->safe_psql('postgres', q{SELECT count(*) - count(DISTINCT key) FROM live}), '0',
	'no record is stored twice');
is(scalar(grep { ($stored{$_} // '') ne $reported{$_} } keys %reported), 0,
	'every record is stored at the partition and offset its delivery report gives');
diag("confluent-kafka producer through a crash and a restart: $run->{sent} records, "
	  . "$unanswered stored but unanswered at the crash; client errors: @{ $run->{errors} }");

$node->stop;
done_testing();
