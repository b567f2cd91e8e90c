# kafkajs's transactional producer against the listener: the version that
# test/kafka/kafkajs/package-lock.json pins, installed from npm's registry
# into a directory of this test as 058 does, stepped by the test through
# test/kafka/kafkajs/txn.js.  Skipped, saying so, only when npm's registry
# cannot be reached.
#
# 1. Commit: records to two partitions are invisible while the
#    transaction is open (SQL; the last stable offset stays at its first
#    offset) and visible after the commit, at the offsets kafkajs was told.
# 2. Abort: its records are never visible; the offsets stay as gaps.
# 3. sendOffsets: the group's position (topics.consumer_lag) moves with
#    the commit, not with an abort.
# 4. Fencing: a second producer of the same transactionalId fences the
#    first, whose commit fails with INVALID_PRODUCER_EPOCH (kafkajs sends
#    EndTxn v0-1) and whose records are never visible.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use PgTopicsKafkajs;
use PgTopicsKafkaTxn;

# ---- kafkajs from npm's registry, into a directory of this test
install_kafkajs();
my $js = kafka_script_path('kafkajs');

# ---- the server
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
my $node = PostgreSQL::Test::Cluster->new('kafkajs_txn');
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_trust_role = 'app'
pg_topics.worker_naptime = '1s'
max_worker_processes = 32
});
$node->start;
wait_for_kafka_listener($kport);
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE ROLE app LOGIN;
SELECT topics.create_topic('js_txn', 2, 'text', 'text');
SELECT topics.create_topic('js_in', 2, 'text', 'text');
SELECT topics.create_topic('js_fenced', 1, 'text', 'text');
GRANT SELECT, INSERT ON js_txn, js_in, js_fenced TO app;
});

sub producer
{
	my ($id) = @_;
	return txn_driver('node', "$js/txn.js", $bootstrap, $id);
}

sub sql
{
	return $node->safe_psql('postgres', $_[0]);
}

sub sql_records
{
	my ($topic) = @_;
	return sql(qq{SELECT coalesce(string_agg(format('%s:%s:%s', partition, "offset", value), ' '
		ORDER BY partition, "offset"), '') FROM $topic});
}

sub offsets
{
	my ($topic) = @_;
	return sql(qq{SELECT string_agg(format('%s:%s/%s', partition, high_watermark, last_stable_offset), ' '
		ORDER BY partition) FROM topics.offsets('$topic')});
}

# ---- 1. commit
my $p = producer('js-txn');
txn_ok($p, 'init', 'connect');
txn_ok($p, 'begin', 'commit: producer.transaction()');
my $s0 = txn_ok($p, 'produce js_txn 0 a 3');
my $s1 = txn_ok($p, 'produce js_txn 1 a 2');
is(join(' ', map { "$_->[0]:$_->[1]" } @$s0, @$s1), '0:0 0:1 0:2 1:0 1:1',
	'commit: kafkajs is told the offsets of the transaction\'s records');
is(sql_records('js_txn'), '', 'commit: nothing is visible while the transaction is open');
is(offsets('js_txn'), '0:3/0 1:2/0', 'commit: the last stable offsets stay at its first offsets');
is(sql(q{SELECT state FROM topics.kafka_transactions WHERE transactional_id = 'js-txn'}), 'Ongoing',
	'commit: topics.kafka_transactions shows it Ongoing');
txn_ok($p, 'commit', 'commit: transaction.commit()');
is(sql_records('js_txn'), '0:0:a-0 0:1:a-1 0:2:a-2 1:0:a-0 1:1:a-1', 'commit: every record is visible');
is(offsets('js_txn'), '0:3/3 1:2/2', 'commit: the partitions are no longer held');
is(sql(q{SELECT state FROM topics.kafka_transactions WHERE transactional_id = 'js-txn'}),
	'CompleteCommit', 'commit: CompleteCommit');

# ---- 2. abort
txn_ok($p, 'begin', 'abort: producer.transaction()');
txn_ok($p, 'produce js_txn 0 b 2');
txn_ok($p, 'abort', 'abort: transaction.abort()');
is(sql(q{SELECT count(*) FROM js_txn WHERE value LIKE 'b-%'}), '0', 'abort: none of its records is visible');
is(offsets('js_txn'), '0:5/5 1:2/2', 'abort: its offsets are used and not held');
txn_ok($p, 'begin');
txn_ok($p, 'produce js_txn 0 c 1');
txn_ok($p, 'commit', 'abort: the producer commits again after an abort');
is(sql(q{SELECT string_agg(format('%s:%s', "offset", value), ' ' ORDER BY "offset") FROM js_txn
	WHERE partition = 0}), '0:a-0 1:a-1 2:a-2 5:c-0', 'abort: the next record comes after the gap');

# ---- 3. sendOffsets
sql(q{SELECT topics.produce('js_in', 'in-' || i, partition => i % 2) FROM generate_series(0, 5) i});
txn_ok($p, 'begin', 'sendOffsets: a transaction');
txn_ok($p, 'produce js_txn 1 x 1');
txn_ok($p, 'send_offsets js_group js_in 0:3 1:2', 'sendOffsets: positions 3 and 2');
is(sql(q{SELECT count(*) FROM topics.consumer_lag WHERE group_name = 'js_group' AND committed_offset IS NOT NULL}),
	'0', 'sendOffsets: no position while the transaction is open');
txn_ok($p, 'abort', 'sendOffsets: abort');
is(sql(q{SELECT count(*) FROM topics.consumer_lag WHERE group_name = 'js_group' AND committed_offset IS NOT NULL}),
	'0', 'sendOffsets: an abort moves no position');
txn_ok($p, 'begin');
txn_ok($p, 'produce js_txn 1 y 1');
txn_ok($p, 'send_offsets js_group js_in 0:3 1:2');
txn_ok($p, 'commit', 'sendOffsets: commit');
is(sql(q{SELECT string_agg(format('%s:%s', partition, committed_offset), ' ' ORDER BY partition)
	FROM topics.consumer_lag WHERE group_name = 'js_group'}), '0:3 1:2',
	'sendOffsets: the commit moves the group\'s positions');
is(sql(q{SELECT string_agg(value, ',' ORDER BY "offset") FROM js_txn WHERE partition = 1}), 'a-0,a-1,y-0',
	'sendOffsets: with the committed record, not the aborted one');
txn_quit($p);

# ---- 4. fencing
my $f1 = producer('js-fence');
txn_ok($f1, 'init');
txn_ok($f1, 'begin');
txn_ok($f1, 'produce js_fenced 0 f1 2');
my $f2 = producer('js-fence');
txn_ok($f2, 'init');
txn_ok($f2, 'begin', 'fencing: a second producer of the id starts a transaction');
my $r = txn_step($f1, 'commit');
is($r->{error}, 'INVALID_PRODUCER_EPOCH', 'fencing: the first producer\'s commit fails: INVALID_PRODUCER_EPOCH')
  or diag(explain $r);
is(sql_records('js_fenced'), '', 'fencing: nothing of its transaction is visible');
txn_ok($f2, 'produce js_fenced 0 f2 2');
txn_ok($f2, 'commit', 'fencing: the second producer commits');
is(sql_records('js_fenced'), '0:2:f2-0 0:3:f2-1', 'fencing: only its records are visible');
txn_quit($_) for $f1, $f2;

$node->stop;
done_testing();
