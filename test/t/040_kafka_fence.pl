# A node that refuses SQL writes refuses Kafka writes too, and Kafka clients
# wait for it, or go elsewhere, without losing anything:
#
# 1. Fenced as pg_auto_failover fences a node (ALTER SYSTEM SET
#    default_transaction_read_only = on, and a reload): Produce answers
#    NOT_LEADER_OR_FOLLOWER, OffsetCommit and JoinGroup NOT_COORDINATOR,
#    CreateTopics and DeleteTopics NOT_CONTROLLER, InitProducerId and
#    FindCoordinator COORDINATOR_NOT_AVAILABLE; Metadata lists no leader and
#    no controller; nothing is stored, created, dropped or committed.
# 2. Idempotent acks=all confluent-kafka producers (one that had its
#    producer id before the fence, one that starts on the fenced node) and
#    a kafka-python producer: nothing stored or acknowledged while fenced,
#    nothing fatal, and every record delivered once the fence lifts, at the
#    offsets their delivery reports give, each once.
# 3. The server log says so once (not per request), and the background
#    worker waits without an error a round, though retention is due in the
#    meantime, and applies it once the fence lifts.
# 4. ALTER DATABASE / ALTER ROLE ... SET default_transaction_read_only: the
#    writes of the roles whose SQL sessions would be read-only are refused
#    the same way (the most specific setting wins), their reads go on, and
#    the refusals are logged at most once a minute; a database's setting
#    made before the listener started does not stay with it once reset.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
my $node = PostgreSQL::Test::Cluster->new('fenced');
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.worker_naptime = '1s'
pg_topics.kafka_group_initial_rebalance_delay = 0
pg_topics.kafka_trust_role = 'app'
});
$node->start;
wait_for_kafka_listener($kport);
my $dsn = 'host=' . $node->host . ' port=' . $node->port . ' dbname=postgres';
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE ROLE app LOGIN;
GRANT CREATE ON SCHEMA public TO app;
SET ROLE app;
SELECT topics.create_topic('fenced', 2, 'bytea', 'bytea');
SELECT topics.create_topic('victim', 1, 'bytea', 'bytea');
SELECT topics.create_topic('cold', 2, 'bytea', 'bytea');
SELECT count(*) FROM topics.poll(NULL::fenced, 'g');
});

sub answers
{
	my ($new_topic) = @_;
	return kafka_script('failover.py', $bootstrap, 'fenced_answers', 'fenced', 'g',
		$new_topic, 'victim');
}

# what the node stores: records, topics, the group's position
sub state
{
	return $node->safe_psql('postgres', q{
SELECT (SELECT count(*) FROM fenced),
       (SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class
         WHERE relnamespace = 'public'::regnamespace AND relkind = 'p'),
       (SELECT committed_offset FROM topics.consumer_lag
         WHERE group_name = 'g' AND topic = 'fenced'::regclass AND partition = 0)});
}

my $open = answers('made_open');
is_deeply([ $open->{produce}, $open->{controller} == $open->{brokers}[0][0],
		[ map { $_->[2] } @{ $open->{partitions} } ] ],
	[ 0, 1, [ $open->{brokers}[0][0], $open->{brokers}[0][0] ] ],
	'a writable node takes a record, is the controller and leads the partitions');
my $node_id = $open->{brokers}[0][0];
is_deeply($open->{brokers}, [ [ $node_id, '127.0.0.1', $kport ] ],
	'it is one broker, at its listen address and port');
isnt($node_id, 0, "its node id comes from its address ($node_id)");

# --- 1. the node's fence ----------------------------------------------------

my $log_start = -s $node->logfile;
$node->safe_psql('postgres', q{
ALTER SYSTEM SET default_transaction_read_only = on;
SELECT pg_reload_conf();});
$node->poll_query_until('postgres', q{SELECT current_setting('default_transaction_read_only') = 'on'})
  or die 'the server did not reload its settings';
# every listener process reloads on its own, at once
sleep 1;
like(slurp_file($node->logfile, $log_start),
	qr/Kafka listener refuses writes: default_transaction_read_only is on/,
	'the listener says that it refuses writes');
my $before = state();
my $fenced = answers('made_fenced');
is_deeply($fenced, {
		brokers => [ [ $node_id, '127.0.0.1', $kport ] ],
		controller => -1,
		partitions => [ [ 0, 5, -1 ], [ 1, 5, -1 ] ],
		find_coordinator => [ 15, -1 ],
		join_group => 16,
		offset_commit => 16,
		create_topics => 41,
		delete_topics => 41,
		init_producer_id => 15,
		produce => 6 },
	'fenced: no leader (LEADER_NOT_AVAILABLE) and no controller; Produce NOT_LEADER_OR_FOLLOWER, '
	  . 'group requests NOT_COORDINATOR, topic changes NOT_CONTROLLER, InitProducerId and '
	  . 'FindCoordinator COORDINATOR_NOT_AVAILABLE');
is(state(), $before, 'and nothing was stored, created, dropped or committed');

# --- 2. clients across the fence ----------------------------------------------

$node->safe_psql('postgres', q{
ALTER SYSTEM RESET default_transaction_read_only;
SELECT pg_reload_conf();});
ok($node->wait_for_log(qr/Kafka listener takes writes again/, $log_start),
	'the listener says once that it takes writes again');

# each command fences the node itself, checks, and lifts the fence
sub check_reports
{
	my ($what, $r, $prefix) = @_;
	my @bad = grep { defined $_->[0] } @{ $r->{reports} };
	is(scalar(@bad), 0, "$what: every record delivered once the fence lifted")
	  or diag explain \@bad;
	my %sql = split /[|\n]/, $node->safe_psql('postgres', qq{
SELECT encode(key, 'escape'), partition || ' ' || "offset" FROM fenced
WHERE encode(key, 'escape') LIKE '$prefix-%'});
	my %reported = map { $_->[3] => "$_->[1] $_->[2]" } @{ $r->{reports} };
	is_deeply(\%sql, \%reported,
		"$what: each record stored once, at the offset its delivery report gives");
}

my $ck = kafka_script('failover.py', $bootstrap, 'ck_through_fence', 'fenced', $dsn, 40, 1);
is_deeply($ck->{fenced}, { stored => 0, reports => 0, errors => [] },
	'an idempotent acks=all confluent-kafka producer with its producer id: nothing stored '
	  . 'or acknowledged while the node is fenced, no error');
is_deeply([ $ck->{unflushed}, $ck->{errors} ], [ 0, [] ], 'and nothing fatal');
check_reports('confluent-kafka', $ck, 'ck');
diag("confluent-kafka resumed $ck->{resumed_after} s after the fence lifted");

my $ck_cold = kafka_script('failover.py', $bootstrap, 'ck_through_fence', 'cold', $dsn, 10, 0);
is_deeply([ $ck_cold->{fenced}, $ck_cold->{unflushed}, $ck_cold->{errors},
		scalar(grep { defined $_->[0] } @{ $ck_cold->{reports} }), scalar(@{ $ck_cold->{reports} }) ],
	[ { stored => 0, reports => 0, errors => [] }, 0, [], 0, 10 ],
	'an idempotent producer that starts on the fenced node waits for its producer id, '
	  . 'then delivers every record');

my $kp = kafka_script('failover.py', $bootstrap, 'kp_through_fence', 'fenced', $dsn, 40);
is_deeply($kp->{fenced}, { stored => 0, done => 0 },
	'a kafka-python acks=all producer: nothing stored or acknowledged while fenced');
check_reports('kafka-python', $kp, 'kp');
diag("kafka-python resumed $kp->{resumed_after} s after the fence lifted");

# --- 3. the log, and the background worker -------------------------------------

# a fence of 8 s during which retention falls due: every round of the
# worker (1 s) would roll and drop segments; once the worker has seen the
# last fence end
ok($node->poll_query_until('postgres', 'SELECT running FROM topics.maintenance'),
	'the background worker runs again after the fences');
my $worker_start = -s $node->logfile;
$node->safe_psql('postgres', q{
SET ROLE app;
SELECT topics.create_topic('aged', 4, 'bytea', 'bytea', retention => '3 seconds');
SELECT count(*) FROM topics.produce_batch('aged',
    (SELECT array_agg(convert_to(repeat('x', 200), 'UTF8')) FROM generate_series(1, 400)));
RESET ROLE;
ALTER SYSTEM SET default_transaction_read_only = on;
SELECT pg_reload_conf();});
sleep 8;
$node->safe_psql('postgres', q{
ALTER SYSTEM RESET default_transaction_read_only;
SELECT pg_reload_conf();});
ok($node->poll_query_until('postgres',
		q{SELECT sum(log_start_offset) = 400 FROM topics.offsets('aged')}),
	'once the fence lifts, the worker applies the retention that fell due meanwhile');
my $log = slurp_file($node->logfile, $worker_start);
is(scalar(() = $log =~ /ERROR:/g), 0,
	'while fenced, no round of the background worker logged an error');
is(scalar(() = $log =~ /pg_topics background worker waits: database "postgres" is read-only/g), 1,
	'it said once that it waits');
like($log, qr/pg_topics background worker resumes: database "postgres" is writable again/,
	'and once that it resumes');

$log = slurp_file($node->logfile, $log_start);
my @refuses = $log =~ /Kafka listener refuses writes/g;
my @takes = $log =~ /Kafka listener takes writes again/g;
is_deeply([ scalar(@refuses), scalar(@takes) ], [ 5, 5 ],
	'the listener said each of the 5 fences once, when it began and when it ended');
is(scalar(() = $log =~ /ERROR:.*read-only transaction/g), 0,
	'no request and no worker round logged an error for a fence');

# --- 4. a database's and a role's settings --------------------------------------

# the superuser's sessions stay writable whatever the database's setting
my $rw = 'SET default_transaction_read_only = off;';
$log_start = -s $node->logfile;
$node->safe_psql('postgres', "$rw ALTER DATABASE postgres SET default_transaction_read_only = on");
$before = state();
my $db_ro = answers('made_db_ro');
is_deeply([ @$db_ro{qw(produce offset_commit create_topics delete_topics init_producer_id)},
		$db_ro->{controller}, [ map { $_->[2] } @{ $db_ro->{partitions} } ],
		$db_ro->{find_coordinator} ],
	[ 6, 16, 41, 41, 15, $node_id, [ $node_id, $node_id ], [ 0, $node_id ] ],
	'ALTER DATABASE ... SET default_transaction_read_only = on: writes refused with the same '
	  . 'errors, while the node still leads, coordinates and controls');
is(state(), $before, 'nothing stored, created, dropped or committed');
my ($ok, $out, $err) = kcat_run($bootstrap, '', '-C', '-t', 'fenced', '-o', 'beginning',
	'-e', '-q', '-f', '%k\n');
is(scalar(() = $out =~ /^./mg), $node->safe_psql('postgres', 'SELECT count(*) FROM fenced'),
	'and a consumer still reads every record') or diag($err);

$node->safe_psql('postgres', "$rw ALTER ROLE app IN DATABASE postgres SET default_transaction_read_only = off");
is(answers('made_app_rw')->{produce}, 0,
	"the role's own setting in the database wins over the database's, as for a SQL session");
$node->safe_psql('postgres', "$rw ALTER ROLE app IN DATABASE postgres RESET default_transaction_read_only");
$node->safe_psql('postgres', "$rw ALTER DATABASE postgres RESET default_transaction_read_only");
is(answers('made_after_db')->{produce}, 0, 'once the setting is reset, writes are taken again');

$node->safe_psql('postgres', 'ALTER ROLE app SET default_transaction_read_only = on');
my $refused = 0;
$refused += answers("made_role_$_")->{produce} == 6 for 1 .. 5;
is($refused, 5, "ALTER ROLE app SET default_transaction_read_only = on: app's writes are refused");
$node->safe_psql('postgres', 'ALTER ROLE app RESET default_transaction_read_only');
is(answers('made_after_role')->{produce}, 0, 'and taken again once it is reset');
$log = slurp_file($node->logfile, $log_start);
my @role_lines = $log =~ /Kafka writes of role "app" are refused/g;
ok(@role_lines >= 1 && @role_lines <= 2,
	sprintf('30 refused requests were logged %d time(s), at most once a minute per listener process',
		scalar @role_lines));
ok($log !~ /Kafka listener refuses writes/, 'and never as a fence of the node');

# a database's setting the listener found when it started is not its own
$node->safe_psql('postgres', "$rw ALTER DATABASE postgres SET default_transaction_read_only = on");
$node->restart;
wait_for_kafka_listener($kport);
is(answers('made_restarted')->{produce}, 6, 'after a restart the database is still read-only');
$node->safe_psql('postgres', "$rw ALTER DATABASE postgres RESET default_transaction_read_only");
my $reset = answers('made_reset');
is_deeply([ $reset->{produce}, $reset->{create_topics} ], [ 0, 0 ],
	'and its reset is seen at once by the listener that started under it: records and topics are made');

$node->stop;
done_testing();
