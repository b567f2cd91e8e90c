# confluent-kafka's transactional producer (librdkafka 2.0.2) and
# read_committed consumers (confluent-kafka, kcat) against the listener, each
# producer stepped by the test (test/kafka/txn_clients.py's driver) so that
# the server is looked at between steps:
#
# 1. Commit: records to two topics and three partitions in one transaction
#    are invisible while it is open (SQL, topics.fetch, confluent-kafka
#    read_committed and read_uncommitted consumers, kcat read_committed,
#    which all end at the last stable offset, though a later SQL record
#    is committed above it), and all visible after the commit.
# 2. Abort: its records are never visible anywhere, their offsets stay
#    as gaps, the next record comes after them.
# 3. Consume-transform-produce: send_offsets_to_transaction moves the
#    group's position (topics.consumer_lag, OffsetFetch) with the commit,
#    not with an abort.
# 4. Fencing: a second producer of the same transactional.id fences the
#    first, whose open transaction is aborted and whose commit fails
#    fatally.
# 5. A producer killed (SIGKILL) mid-transaction: its records are never
#    visible; after transaction.timeout.ms its row in
#    topics.kafka_transactions is CompleteAbort and a new producer of the
#    id works.
#    A transaction.timeout.ms over pg_topics.kafka_transaction_max_timeout
#    is refused (INVALID_TRANSACTION_TIMEOUT).
# 6. Roles: another role cannot use the id
#    (TRANSACTIONAL_ID_AUTHORIZATION_FAILED); topics.kafka_transactions
#    shows each role its own ids only.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use PgTopicsTest;
use PgTopicsKafkaTxn;

my $node = PostgreSQL::Test::Cluster->new('kafka_txn_clients');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_auth = 'plain'
pg_topics.kafka_group_initial_rebalance_delay = 0
pg_topics.worker_naptime = '1s'
max_worker_processes = 32
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE ROLE alice LOGIN PASSWORD 'alice-pw';
CREATE ROLE bob LOGIN PASSWORD 'bob-pw';
SELECT topics.create_topic('orders', 3, 'text', 'text');
SELECT topics.create_topic('audit', 1, 'text', 'text');
SELECT topics.create_topic('input', 2, 'text', 'text');
SELECT topics.create_topic('output', 2, 'text', 'text');
SELECT topics.create_topic('fenced', 1, 'text', 'text');
SELECT topics.create_topic('killed', 1, 'text', 'text');
GRANT SELECT, INSERT ON orders, audit, input, output, fenced, killed TO alice;
GRANT SELECT, INSERT ON orders TO bob;
});
wait_for_kafka_listener($kport);

my $script = kafka_script_path('txn_clients.py');

# A transactional producer of $id, as $user (alice unless given)
sub producer
{
	my ($id, $user, @conf) = @_;
	$user //= 'alice';
	return txn_driver('/usr/bin/python3', $script, $bootstrap, 'driver', $user, "$user-pw",
		$id, @conf);
}

sub sql
{
	return $node->safe_psql('postgres', $_[0]);
}

# Every record of $topic as SQL sees it: partition:offset:value, in order
sub sql_records
{
	my ($topic) = @_;
	return sql(qq{SELECT coalesce(string_agg(format('%s:%s:%s', partition, "offset", value), ' '
		ORDER BY partition, "offset"), '') FROM $topic});
}

# What topics.fetch returns of $topic from offset 0 of each partition
sub fetched
{
	my ($topic) = @_;
	return sql(qq{SELECT coalesce(string_agg(format('%s:%s:%s', f.partition, f."offset", f.value), ' '
		ORDER BY f.partition, f."offset"), '')
	FROM generate_series(0, (SELECT partitions - 1 FROM topics.topics WHERE topic = '$topic'::regclass)) p,
		LATERAL topics.fetch(NULL::$topic, p, 0) f});
}

# A confluent-kafka consumer's read of $topic at $isolation: the records as
# sql_records gives them, and where each partition ended (p:offset ...)
sub ck_read
{
	my ($topic, $isolation) = @_;
	my $r = kafka_script('txn_clients.py', $bootstrap, 'read', $topic, $isolation, 'alice', 'alice-pw');
	return (join(' ', map { "$_->[0]:$_->[1]:$_->[2]" } @{ $r->{records} }),
		join(' ', map { "$_:$r->{ends}{$_}" } sort keys %{ $r->{ends} }));
}

# kcat's read of $topic as a read_committed consumer, to the end
sub kcat_read
{
	my ($topic) = @_;
	my ($ok, $out, $err) = kcat_run($bootstrap, '', '-C', '-t', $topic, '-o', 'beginning', '-e', '-q',
		'-X', 'isolation.level=read_committed', '-X', 'security.protocol=SASL_PLAINTEXT',
		'-X', 'sasl.mechanisms=PLAIN', '-X', 'sasl.username=alice', '-X', 'sasl.password=alice-pw',
		'-f', '%p:%o:%s\n');
	die "kcat failed: $err" unless $ok;
	return join(' ', sort { my @a = split /:/, $a; my @b = split /:/, $b; $a[0] <=> $b[0] || $a[1] <=> $b[1] }
		  split /\n/, $out);
}

# The offsets of $topic: p:high_watermark/last_stable_offset ...
sub offsets
{
	my ($topic) = @_;
	return sql(qq{SELECT string_agg(format('%s:%s/%s', partition, high_watermark, last_stable_offset), ' '
		ORDER BY partition) FROM topics.offsets('$topic')});
}

# $id's row of topics.kafka_transactions: state, epoch, partitions, groups
sub txn_row
{
	my ($id) = @_;
	return sql(qq{SELECT format('%s %s %s', state,
		(SELECT string_agg(p, ',' ORDER BY p) FROM unnest(partitions) p),
		(SELECT string_agg(g, ',' ORDER BY g) FROM unnest(groups) g))
	FROM topics.kafka_transactions WHERE transactional_id = '$id'});
}

sub txn_state
{
	my ($id) = @_;
	return sql(qq{SELECT state FROM topics.kafka_transactions WHERE transactional_id = '$id'});
}

sub txn_epoch
{
	my ($id) = @_;
	return sql(qq{SELECT producer_epoch FROM topics.kafka_transactions WHERE transactional_id = '$id'});
}

# ---- 1. commit: two topics, three partitions, one transaction
sql(q{SELECT topics.produce('orders', 'before', partition => 0)});
my $a = producer('txn-commit');
txn_ok($a, 'init', 'commit: init_transactions');
txn_ok($a, 'begin', 'commit: begin_transaction');
my $p0 = txn_ok($a, 'produce orders 0 a 3');
my $p1 = txn_ok($a, 'produce orders 1 a 2');
my $au = txn_ok($a, 'produce audit 0 a 1');
is(join(' ', map { "$_->[0]:$_->[1]:" . ($_->[2] // 'ok') } @$p0, @$p1, @$au),
	'0:1:ok 0:2:ok 0:3:ok 1:0:ok 1:1:ok 0:0:ok',
	'the records of the open transaction are delivered, at the offsets after the committed ones');
# committed while the transaction is open, above its records
sql(q{SELECT topics.produce('orders', 'after', partition => 0)});

is(sql_records('orders'), '0:0:before 0:4:after', 'open: SQL sees only the committed records');
is(sql_records('audit'), '', 'open: nor anything in the other topic');
is(fetched('orders'), '0:0:before', 'open: topics.fetch stops at the transaction\'s first offset');
is(offsets('orders'), '0:5/1 1:2/0 2:0/0',
	'open: the last stable offset stays at the transaction\'s first offset of each partition');
is(sql(q{SELECT string_agg(format('%s:%s', partition, holder_xid IS NOT NULL), ' ' ORDER BY partition)
	FROM topics.partitions WHERE topic = 'orders'::regclass}), '0:t 1:t 2:f',
	'open: topics.partitions names a holder of partitions 0 and 1');
is(txn_row('txn-commit'), 'Ongoing audit/0,orders/0,orders/1 ',
	'open: topics.kafka_transactions shows the transaction Ongoing with its partitions');
my ($recs, $ends) = ck_read('orders', 'read_committed');
is("$recs | $ends", '0:0:before | 0:1 1:0 2:0',
	'open: a read_committed consumer ends at the last stable offset, before the later committed record');
($recs, $ends) = ck_read('orders', 'read_uncommitted');
is("$recs | $ends", '0:0:before | 0:1 1:0 2:0',
	'open: a read_uncommitted consumer too (PostgreSQL shows no uncommitted row)');
is(kcat_read('orders'), '0:0:before', 'open: kcat -X isolation.level=read_committed too');

txn_ok($a, 'commit', 'commit: commit_transaction');
my $all = '0:0:before 0:1:a-0 0:2:a-1 0:3:a-2 0:4:after 1:0:a-0 1:1:a-1';
is(sql_records('orders'), $all, 'committed: SQL sees every record');
is(sql_records('audit'), '0:0:a-0', 'committed: and the other topic\'s');
is(fetched('orders'), $all, 'committed: topics.fetch too');
is(offsets('orders'), '0:5/5 1:2/2 2:0/0', 'committed: the last stable offsets are the high watermarks');
($recs, $ends) = ck_read('orders', 'read_committed');
is("$recs | $ends", "$all | 0:5 1:2 2:0", 'committed: a read_committed consumer reads them all');
($recs, $ends) = ck_read('orders', 'read_uncommitted');
is("$recs | $ends", "$all | 0:5 1:2 2:0", 'committed: a read_uncommitted consumer too');
is(kcat_read('orders'), $all, 'committed: kcat read_committed too');
is(txn_state('txn-commit'), 'CompleteCommit',
	'committed: topics.kafka_transactions shows CompleteCommit');

# ---- 2. abort
txn_ok($a, 'begin', 'abort: begin_transaction');
txn_ok($a, 'produce orders 0 b 3');
txn_ok($a, 'produce orders 2 b 2');
is(offsets('orders'), '0:8/5 1:2/2 2:2/0', 'open: its records hold partitions 0 and 2 back');
txn_ok($a, 'abort', 'abort: abort_transaction');
is(txn_state('txn-commit'), 'CompleteAbort',
	'aborted: topics.kafka_transactions shows CompleteAbort');
is(offsets('orders'), '0:8/8 1:2/2 2:2/2', 'aborted: its offsets are used, the partitions no longer held');
is(sql(q{SELECT count(*) FROM orders WHERE value LIKE 'b-%'}), '0', 'aborted: SQL sees none of its records');
is(fetched('orders'), $all, 'aborted: topics.fetch neither');
is(sql(q{SELECT topics.next_offset('orders', 0, 5) || ' ' || topics.next_offset('orders', 2, 0)}), '8 2',
	'aborted: next_offset steps over the gaps');
sql(q{SELECT topics.produce('orders', 'after-abort', partition => 0)});
$all = '0:0:before 0:1:a-0 0:2:a-1 0:3:a-2 0:4:after 0:8:after-abort 1:0:a-0 1:1:a-1';
is(sql_records('orders'), $all, 'aborted: the next record comes after the gap');
($recs, $ends) = ck_read('orders', 'read_committed');
is("$recs | $ends", "$all | 0:9 1:2 2:2", 'aborted: a read_committed consumer steps over the gaps');
($recs, $ends) = ck_read('orders', 'read_uncommitted');
is("$recs | $ends", "$all | 0:9 1:2 2:2", 'aborted: a read_uncommitted consumer too');
is(kcat_read('orders'), $all, 'aborted: kcat read_committed too');

# the same producer commits again after its abort
txn_ok($a, 'begin');
txn_ok($a, 'produce audit 0 c 1');
txn_ok($a, 'commit', 'a producer commits again after an abort');
is(sql_records('audit'), '0:0:a-0 0:1:c-0', 'its records are there');
txn_quit($a);

# ---- 3. consume-transform-produce
sql(q{SELECT topics.produce('input', 'in-' || i, partition => i % 2) FROM generate_series(0, 5) i});
my $c = producer('txn-ctp');
txn_ok($c, 'init');
txn_ok($c, 'begin');
is(scalar(@{ txn_ok($c, 'consume input g1 6') }), 6, 'ctp: the consumer reads the six input records');
txn_ok($c, 'produce output 0 x 6');
is_deeply(txn_ok($c, 'send_offsets'), { 0 => 3, 1 => 3 }, 'ctp: send_offsets_to_transaction at 3 and 3');
is(txn_row('txn-ctp'), 'Ongoing output/0 g1', 'ctp: the transaction holds the group');
is(sql(q{SELECT count(*) FROM topics.consumer_lag WHERE group_name = 'g1' AND committed_offset IS NOT NULL}),
	'0', 'ctp open: the group has no position yet');
# a read_committed consumer's OffsetFetch (require_stable) is answered
# UNSTABLE_OFFSET_COMMIT while a transaction holds the group's positions,
# as Kafka answers it; librdkafka retries that until its timeout (10 s)
my $fetched = kafka_script('txn_clients.py', $bootstrap, 'committed', 'input', 'g1', 2, 'alice', 'alice-pw');
is(ref $fetched eq 'HASH' ? $fetched->{error} : "@$fetched", '_TIMED_OUT',
	'ctp open: a read_committed consumer gets no position until the transaction ends')
  or diag(explain $fetched);
txn_ok($c, 'abort', 'ctp: abort');
is(sql(q{SELECT count(*) FROM topics.consumer_lag WHERE group_name = 'g1' AND committed_offset IS NOT NULL}),
	'0', 'ctp aborted: the group\'s position did not move');
is(sql_records('output'), '', 'ctp aborted: no output');
txn_ok($c, 'begin');
txn_ok($c, 'produce output 0 y 6');
txn_ok($c, 'send_offsets');
txn_ok($c, 'commit', 'ctp: commit');
is(sql(q{SELECT string_agg(format('%s:%s', partition, committed_offset), ' ' ORDER BY partition)
	FROM topics.consumer_lag WHERE group_name = 'g1'}), '0:3 1:3',
	'ctp committed: the group\'s positions moved with the commit');
is_deeply(kafka_script('txn_clients.py', $bootstrap, 'committed', 'input', 'g1', 2, 'alice', 'alice-pw'),
	[ 3, 3 ], 'ctp committed: OffsetFetch answers them');
is(sql_records('output'), join(' ', map { "0:" . ($_ + 6) . ":y-$_" } 0 .. 5),
	'ctp committed: the output, after the aborted offsets');
txn_quit($c);

# ---- 4. fencing
my $f1 = producer('txn-fence');
txn_ok($f1, 'init');
txn_ok($f1, 'begin');
txn_ok($f1, 'produce fenced 0 f1 2');
my $epoch1 = txn_epoch('txn-fence');
my $f2 = producer('txn-fence');
txn_ok($f2, 'init', 'fencing: a second producer of the id initialises');
cmp_ok(txn_epoch('txn-fence'), '>', $epoch1, 'fencing: with a newer epoch');
my $r = txn_step($f1, 'commit');
ok(!exists $r->{ok} && $r->{fatal}, 'fencing: the first producer\'s commit fails fatally')
  or diag(explain $r);
like($r->{error} // '', qr/FENCED|INVALID_PRODUCER_EPOCH/, "fencing: fenced ($r->{error})");
is(sql_records('fenced'), '', 'fencing: nothing of the first producer\'s transaction is visible');
txn_ok($f2, 'begin');
txn_ok($f2, 'produce fenced 0 f2 2');
txn_ok($f2, 'commit', 'fencing: the second producer commits');
is(sql_records('fenced'), '0:2:f2-0 0:3:f2-1', 'fencing: only its records are visible');
txn_quit($_) for $f1, $f2;

# ---- 5. a producer killed mid-transaction
my $k = producer('txn-killed', undef, 'transaction.timeout.ms=15000');
txn_ok($k, 'init');
txn_ok($k, 'begin');
txn_ok($k, 'produce killed 0 k 3');
my $epoch_k = txn_epoch('txn-killed');
is(sql(q{SELECT timeout_ms FROM topics.kafka_transactions WHERE transactional_id = 'txn-killed'}), '15000',
	'killed: the row has the producer\'s transaction.timeout.ms');
txn_kill($k);
is(sql_records('killed'), '', 'killed: its records are not visible');
is(offsets('killed'), '0:3/0', 'killed: its transaction still holds the partition');
ok($node->poll_query_until('postgres',
		q{SELECT state FROM topics.kafka_transactions WHERE transactional_id = 'txn-killed'},
		'CompleteAbort'),
	'killed: the transaction is aborted');
is(sql(q{SELECT updated_at - started_at >= interval '15 s' FROM topics.kafka_transactions
	WHERE transactional_id = 'txn-killed'}), 't', 'killed: after transaction.timeout.ms');
cmp_ok(txn_epoch('txn-killed'), '>', $epoch_k, 'killed: the row\'s epoch is bumped (the producer fenced)');
is(offsets('killed'), '0:3/3', 'killed: the partition is no longer held');
is(sql_records('killed'), '', 'killed: its records never become visible');
my $k2 = producer('txn-killed');
txn_ok($k2, 'init', 'killed: a new producer of the id initialises');
txn_ok($k2, 'begin');
txn_ok($k2, 'produce killed 0 k2 2');
txn_ok($k2, 'commit', 'killed: and commits');
is(sql_records('killed'), '0:3:k2-0 0:4:k2-1', 'killed: only its records are visible');
($recs, $ends) = ck_read('killed', 'read_committed');
is("$recs | $ends", '0:3:k2-0 0:4:k2-1 | 0:5', 'killed: to read_committed consumers too');
txn_quit($k2);

# a transaction.timeout.ms over pg_topics.kafka_transaction_max_timeout (15 min)
my $long = producer('txn-long', undef, 'transaction.timeout.ms=900001');
$r = txn_step($long, 'init');
is($r->{error}, 'INVALID_TRANSACTION_TIMEOUT',
	'a transaction.timeout.ms over pg_topics.kafka_transaction_max_timeout is refused')
  or diag(explain $r);
txn_quit($long);
$long = producer('txn-long', undef, 'transaction.timeout.ms=900000');
txn_ok($long, 'init', 'and one of 15 min is taken');
txn_quit($long);

# ---- 6. roles
my $b = producer('txn-commit', 'bob');
$r = txn_step($b, 'init');
is($r->{error}, 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'roles: bob cannot use alice\'s id')
  or diag(explain $r);
txn_quit($b);
is(sql_records('fenced'), '0:2:f2-0 0:3:f2-1', 'roles: alice\'s records unchanged');
$b = producer('txn-bob', 'bob');
txn_ok($b, 'init', 'roles: bob initialises an id of his own');
txn_ok($b, 'begin');
txn_ok($b, 'produce orders 1 bob 1');
txn_ok($b, 'commit', 'roles: and commits');
txn_quit($b);
is(sql(q{SELECT count(*) FROM orders WHERE value = 'bob-0'}), '1', 'roles: bob\'s record is there');
is(sql(q{SET ROLE bob; SELECT string_agg(transactional_id || ' ' || role, ',' ORDER BY transactional_id)
	FROM topics.kafka_transactions}), 'txn-bob bob', 'roles: bob sees his id only');
is(sql(q{SET ROLE alice; SELECT string_agg(transactional_id || ' ' || role, ',' ORDER BY transactional_id)
	FROM topics.kafka_transactions}),
	'txn-commit alice,txn-ctp alice,txn-fence alice,txn-killed alice,txn-long alice',
	'roles: alice sees hers only');

$node->stop;
done_testing();
