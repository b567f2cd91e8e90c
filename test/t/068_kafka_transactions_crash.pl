# Kafka transactions through crashes and a failover (confluent-kafka's
# transactional producer, stepped by test/kafka/txn_clients.py's driver):
#
# (a) kill -9 of the server with a transaction open on two partitions:
#     after crash recovery nothing of it is visible, the partitions are not
#     held back, topics.verify is clean; the producer of that epoch is
#     fenced (its commit fails fatally); the background worker marks the
#     row CompleteAbort, at a newer epoch, once transaction.timeout.ms has
#     passed; a new producer of the id commits.
# (b) kill -9 while the commit waits for a synchronous standby that never
#     comes (the commit record is flushed, the transaction worker waits,
#     the answer is not sent): nothing is visible before the crash, every
#     record after it, the row is
#     CompleteCommit, and the producer's commit_transaction, retried by
#     librdkafka across the restart, succeeds.
# (c) kill -9 at a random moment while a producer commits transaction
#     after transaction (four partitions, 200 records each), four times:
#     each transaction is visible whole or not at all, every one the
#     producer was told committed is whole, topics.verify is clean.
# (d) a physical standby promoted while a transaction is open on the
#     primary: nothing of it is visible on the new primary, the row is
#     CompleteAbort there after its timeout, the old producer is fenced,
#     a new producer of the id commits there.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time usleep);
use PgTopicsTest;
use PgTopicsKafkaTxn;

my $node = PostgreSQL::Test::Cluster->new('kafka_txn_crash');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.worker_naptime = '1s'
max_worker_processes = 32
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('crash', 2, 'text', 'text');
SELECT topics.create_topic('midcommit', 2, 'text', 'text');
SELECT topics.create_topic('loop', 4, 'text', 'text');
SELECT topics.create_topic('fo', 1, 'text', 'text');
});
wait_for_kafka_listener($kport);

my $script = kafka_script_path('txn_clients.py');

# A transactional producer of $id (the listener trusts its clients)
sub producer
{
	my ($id, $bs, @conf) = @_;
	return txn_driver('/usr/bin/python3', $script, $bs, 'driver', '-', '-', $id, @conf);
}

sub sql
{
	my ($n, $q) = @_;
	return $n->safe_psql('postgres', $q);
}

sub sql_records
{
	my ($n, $topic) = @_;
	return sql($n, qq{SELECT coalesce(string_agg(format('%s:%s:%s', partition, "offset", value), ' '
		ORDER BY partition, "offset"), '') FROM $topic});
}

# partitions of $topic whose last stable offset is not the high watermark
sub held
{
	my ($n, $topic) = @_;
	return sql($n, qq{SELECT coalesce(string_agg(format('%s:%s/%s', partition, high_watermark,
		last_stable_offset), ' '), '') FROM topics.offsets('$topic')
		WHERE last_stable_offset <> high_watermark});
}

sub verify
{
	my ($n, $topic) = @_;
	return sql($n, qq{SELECT count(*) FROM topics.verify('$topic')});
}

sub txn_field
{
	my ($n, $id, $field) = @_;
	return sql($n, qq{SELECT $field FROM topics.kafka_transactions WHERE transactional_id = '$id'});
}

# Crash $n (kill -9 of every process) and start it again
sub crash_and_start
{
	my ($n, $conf) = @_;
	kill9_server($n);
	$n->append_conf('postgresql.conf', $conf) if $conf;
	$n->start;
	wait_for_kafka_listener($kport);
	return;
}

# ---- (a) kill -9 with a transaction open
sql($node, q{SELECT topics.produce('crash', 'before', partition => 0)});
my $d = producer('txn-crash', $bootstrap, 'transaction.timeout.ms=15000');
txn_ok($d, 'init', '(a) init_transactions');
txn_ok($d, 'begin');
txn_ok($d, 'produce crash 0 c 3');
txn_ok($d, 'produce crash 1 c 2');
is(held($node, 'crash'), '0:4/1 1:2/0', '(a) the open transaction holds both partitions');
my $epoch = txn_field($node, 'txn-crash', 'producer_epoch');
crash_and_start($node);
is(sql_records($node, 'crash'), '0:0:before', '(a) after the crash nothing of the transaction is visible');
is(held($node, 'crash'), '', '(a) no partition is held back');
is(verify($node, 'crash'), '0', '(a) topics.verify is clean');
my $r = txn_step($d, 'commit');
ok(!exists $r->{ok} && $r->{fatal}, '(a) the producer of that epoch is fenced: its commit fails fatally')
  or diag(explain $r);
is(sql_records($node, 'crash'), '0:0:before', '(a) and nothing of it is visible');
txn_quit($d);
ok($node->poll_query_until('postgres',
		q{SELECT state FROM topics.kafka_transactions WHERE transactional_id = 'txn-crash'},
		'CompleteAbort'),
	'(a) the row is resolved: CompleteAbort');
is(txn_field($node, 'txn-crash', q{updated_at - started_at >= interval '15 s'}), 't',
	'(a) once transaction.timeout.ms has passed');
cmp_ok(txn_field($node, 'txn-crash', 'producer_epoch'), '>', $epoch, '(a) at a newer epoch');
$d = producer('txn-crash', $bootstrap);
txn_ok($d, 'init', '(a) a new producer of the id initialises');
txn_ok($d, 'begin');
my $sent = txn_ok($d, 'produce crash 0 r 2');
txn_ok($d, 'commit', '(a) and commits');
txn_quit($d);
is(sql($node, q{SELECT string_agg(value, ',' ORDER BY "offset") FROM crash WHERE partition = 0}),
	'before,r-0,r-1', '(a) its records are visible');
is(sql($node, q{SELECT string_agg("offset"::text, ',' ORDER BY "offset") FROM crash WHERE value LIKE 'r-%'}),
	join(',', map { $_->[1] } @$sent), '(a) at the offsets the producer was told');
is(verify($node, 'crash'), '0', '(a) topics.verify is clean');

# ---- (b) kill -9 in the middle of a commit: its commit record is flushed,
# and it waits for a synchronous standby that never comes
$d = producer('txn-midcommit', $bootstrap);
txn_ok($d, 'init', '(b) init_transactions');
txn_ok($d, 'begin');
txn_ok($d, 'produce midcommit 0 m 3');
txn_ok($d, 'produce midcommit 1 m 3');
$node->append_conf('postgresql.conf', "synchronous_standby_names = 'nobody'\n");
$node->reload;
# Commits wait for the standby once the checkpointer has read the reload
# (it sets the flag every committing process looks at): until then a
# commit does not wait.  So a probe commits until one waits (left waiting
# until the crash).
my $probe_waits;
for my $i (1 .. 30)
{
	$node->psql('postgres', "CREATE TABLE sync_probe_$i ()", timeout => 2, timed_out => \$probe_waits);
	last if $probe_waits;
}
ok($probe_waits, '(b) commits wait for the synchronous standby');
txn_send($d, 'commit');
ok($node->poll_query_until('postgres', q{
SELECT EXISTS (SELECT FROM pg_stat_activity
	WHERE backend_type = 'pg_topics kafka transaction' AND wait_event = 'SyncRep')}),
	'(b) the commit is written and its worker waits for the synchronous standby');
ok(txn_pending($d), '(b) the producer is not answered meanwhile')
  or diag(explain txn_answer($d, 1));
like(sql($node, q{SELECT count(*) FROM midcommit}), qr/^[06]$/, '(b) meanwhile its records are all visible or none');
crash_and_start($node, "synchronous_standby_names = ''\n");
is(sql_records($node, 'midcommit'), '0:0:m-0 0:1:m-1 0:2:m-2 1:0:m-0 1:1:m-1 1:2:m-2',
	'(b) after the crash the flushed commit is visible whole');
is(txn_field($node, 'txn-midcommit', 'state'), 'CompleteCommit', '(b) the row is CompleteCommit');
$r = txn_answer($d);
ok(exists $r->{ok}, '(b) commit_transaction, retried across the crash, succeeds')
  or diag(explain $r);
txn_quit($d);
is(sql($node, q{SELECT count(*) FROM midcommit}), '6', '(b) each record once');
is(verify($node, 'midcommit'), '0', '(b) topics.verify is clean');

# ---- (c) kill -9 at random moments while transactions commit
my $report = $node->basedir . '/loop.report';
my (%committed, %begun);
for my $round (1 .. 4)
{
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start([ '/usr/bin/python3', $script, $bootstrap, 'loop', '-', '-', 'txn-loop',
			'loop', 4, 200, "r$round", $report ], '>', \$out, '2>', \$err, IPC::Run::timeout(600));
	# a few transactions committed, then a moment anywhere in the next ones
	my $t0 = time;
	my $before = '';
	while (time - $t0 < 120)
	{
		$before = -e $report ? slurp_file($report) : '';
		my $n = () = $before =~ /^r$round\.\d+ committed$/mg;
		last if $n >= 3 || $before =~ /^r$round\.\d+ failed/m || !$h->pumpable;
		usleep(100_000);
	}
	usleep(int(rand(1_000_000)));
	$before = slurp_file($report);
	crash_and_start($node);
	is(join(' ', $before =~ /^(r$round\.\d+ failed .*)$/mg), '',
		"(c) round $round: no transaction failed before the crash");
	$h->signal('KILL');
	eval { $h->finish; };
	foreach my $line (split /\n/, slurp_file($report))
	{
		$begun{$1} = 1 if $line =~ /^(\S+) begun$/;
		$committed{$1} = 1 if $line =~ /^(\S+) committed$/;
	}
	cmp_ok(scalar(grep { /^r$round\./ } keys %committed), '>=', 3,
		"(c) round $round: transactions committed before the crash")
	  or diag($err);
}
my %visible = map { split /\|/ } split /\n/, sql($node,
	q{SELECT txn || '|' || count(*) FROM (SELECT split_part(value, '-', 1) AS txn FROM loop) t GROUP BY txn});
my @partial = grep { $visible{$_} != 800 } sort keys %visible;
is("@partial", '', '(c) every transaction is visible whole or not at all');
my @lost = grep { ($visible{$_} // 0) != 800 } sort keys %committed;
is("@lost", '', '(c) every transaction the producer was told committed is visible');
my @unknown = grep { !$begun{$_} } sort keys %visible;
is("@unknown", '', '(c) no records of a transaction never begun');
is(sql($node, q{SELECT count(*) - count(DISTINCT (partition, "offset")) FROM loop}), '0', '(c) no offset twice');
is(verify($node, 'loop'), '0', '(c) topics.verify is clean');
# (the last producer killed may have left a transaction open after the
# crash: it ends at its timeout, 10 s)
ok($node->poll_query_until('postgres',
		q{SELECT count(*) FROM topics.offsets('loop') WHERE last_stable_offset <> high_watermark}, '0'),
	'(c) no partition stays held back');
diag(sprintf('(c) %d transactions begun, %d reported committed, %d visible',
		scalar(keys %begun), scalar(keys %committed), scalar(keys %visible)));

# ---- (d) a failover with a transaction open
$node->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('kafka_txn_standby');
$standby->init_from_backup($node, 'base', has_streaming => 1);
my $sport = PostgreSQL::Test::Cluster::get_free_port();
$standby->append_conf('postgresql.conf', "pg_topics.kafka_port = $sport\n");
$standby->start;
my $both = "$bootstrap,127.0.0.1:$sport";
sql($node, q{SELECT topics.produce('fo', 'before')});
$d = producer('txn-failover', $both, 'transaction.timeout.ms=15000');
txn_ok($d, 'init', '(d) init_transactions');
txn_ok($d, 'begin');
txn_ok($d, 'produce fo 0 f 3');
$epoch = txn_field($node, 'txn-failover', 'producer_epoch');
$node->wait_for_catchup($standby);
is(txn_field($standby, 'txn-failover', 'state'), 'Ongoing', '(d) the standby has the open transaction\'s row');
$node->stop('immediate');
$standby->promote;
wait_for_kafka_listener($sport);
is(sql_records($standby, 'fo'), '0:0:before', '(d) nothing of the transaction is visible on the new primary');
is(held($standby, 'fo'), '', '(d) nor does it hold the partition');
is(verify($standby, 'fo'), '0', '(d) topics.verify is clean');
$r = txn_step($d, 'commit');
ok(!exists $r->{ok} && $r->{fatal}, '(d) the old producer is fenced: its commit fails fatally')
  or diag(explain $r);
txn_quit($d);
ok($standby->poll_query_until('postgres',
		q{SELECT state FROM topics.kafka_transactions WHERE transactional_id = 'txn-failover'},
		'CompleteAbort'),
	'(d) the row is resolved on the new primary: CompleteAbort');
cmp_ok(txn_field($standby, 'txn-failover', 'producer_epoch'), '>', $epoch, '(d) at a newer epoch');
$d = producer('txn-failover', $both);
txn_ok($d, 'init', '(d) a new producer of the id initialises on the new primary');
txn_ok($d, 'begin');
txn_ok($d, 'produce fo 0 g 2');
txn_ok($d, 'commit', '(d) and commits');
txn_quit($d);
is(sql($standby, q{SELECT string_agg(value, ',' ORDER BY "offset") FROM fo}), 'before,g-0,g-1',
	'(d) only its records are visible');
is(verify($standby, 'fo'), '0', '(d) topics.verify is clean');

$standby->stop;
done_testing();
