# Kafka transactions are PostgreSQL transactions (issue 33): a
# transactional producer's records and group positions become visible
# together at commit and never after an abort; read_committed consumers
# and SQL readers see only committed transactions; a newer epoch fences
# the older producer; transaction.timeout.ms aborts an abandoned
# transaction; a transaction that lost its PostgreSQL transaction (its
# worker terminated) is never continued and is ended by the background
# worker's round; roles own their transactional ids; the limits on open
# transactions answer a retriable error.  By raw frames (each error code
# checked) and by confluent-kafka's transactional producer.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use JSON::PP;
use Time::HiRes qw(time usleep);

my %E = (
	UNKNOWN_TOPIC_OR_PARTITION => 3,
	INVALID_GROUP_ID => 24,
	INVALID_REQUEST => 42,
	INVALID_PRODUCER_EPOCH => 47,
	INVALID_TXN_STATE => 48,
	INVALID_PRODUCER_ID_MAPPING => 49,
	INVALID_TRANSACTION_TIMEOUT => 50,
	CONCURRENT_TRANSACTIONS => 51,
	TRANSACTIONAL_ID_AUTHORIZATION_FAILED => 53,
	OPERATION_NOT_ATTEMPTED => 55,
	PRODUCER_FENCED => 90,
	NOT_LEADER_OR_FOLLOWER => 6,
	NOT_COORDINATOR => 16,
	REQUEST_TIMED_OUT => 7,
	UNSTABLE_OFFSET_COMMIT => 88,
	OUT_OF_ORDER_SEQUENCE_NUMBER => 45,
	INVALID_RECORD => 87,
	GROUP_AUTHORIZATION_FAILED => 30);

my $node = PostgreSQL::Test::Cluster->new('kafka_transactions');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_auth = 'plain'
pg_topics.kafka_workers = 1
pg_topics.worker_naptime = '1s'
pg_topics.kafka_transaction_max_timeout = '10min'
max_worker_processes = 24
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE ROLE alice LOGIN PASSWORD 'alice-pw';
CREATE ROLE bob LOGIN PASSWORD 'bob-pw';
SELECT topics.create_topic('txn_topic', 2, 'text', 'text');
SELECT topics.create_topic('txn_source', 1, 'text', 'text');
SELECT topics.create_topic('txn_out', 1, 'text', 'text');
SELECT topics.create_topic('txn_compacted', 1, 'text', 'text',
    configs => '{"cleanup.policy": "compact"}');
SELECT topics.create_topic('txn_wide', 70, 'text', 'text');
SELECT topics.create_topic('txn_json', 1, 'text', 'jsonb');
SELECT topics.create_topic('txn_offsets', 5, 'text', 'text');
GRANT SELECT, INSERT ON txn_topic, txn_source, txn_out, txn_compacted, txn_wide, txn_json, txn_offsets TO alice;
GRANT SELECT, INSERT ON txn_topic TO bob;
});
wait_for_kafka_listener($kport);

sub txn
{
	return kafka_script('transactions.py', $bootstrap, @_);
}

sub values_of
{
	my ($topic) = @_;
	return $node->safe_psql('postgres',
		qq{SELECT coalesce(string_agg(value, ',' ORDER BY partition, "offset"), '') FROM $topic});
}

sub row_of
{
	my ($id) = @_;
	return $node->safe_psql('postgres',
		qq{SELECT state || ' ' || producer_epoch FROM topics.kafka_transactions WHERE transactional_id = '$id'});
}

sub wait_for
{
	my ($sql, $want, $what) = @_;
	my $got;
	for (1 .. 300)
	{
		$got = $node->safe_psql('postgres', $sql);
		last if $got eq $want;
		usleep(100_000);
	}
	is($got, $want, $what);
}

# --- error paths, by raw frames ------------------------------------------

my $r = txn('errors', 'txn_topic', 'alice', 'alice-pw');
is($r->{empty_id}, $E{INVALID_REQUEST}, 'an empty transactional id is refused');
is($r->{long_id}, $E{INVALID_REQUEST}, 'so is one over 1024 bytes');
is($r->{longest_id}, 0, 'one of 1024 bytes is taken');
is($r->{timeout_too_long}, $E{INVALID_TRANSACTION_TIMEOUT},
	'a timeout over pg_topics.kafka_transaction_max_timeout is refused');
is($r->{timeout_zero}, $E{INVALID_TRANSACTION_TIMEOUT}, 'so is a timeout of 0');
is($r->{init}, 0, 'InitProducerId with a transactional id');
is($r->{init_epoch}, 0, 'first use: epoch 0');
is($r->{produce_unknown_id}, $E{INVALID_PRODUCER_ID_MAPPING},
	'Produce with an unknown transactional id');
is($r->{produce_no_txn}, $E{INVALID_TXN_STATE}, 'Produce outside a transaction');
is($r->{end_no_txn}, $E{INVALID_TXN_STATE}, 'EndTxn without a transaction');
is_deeply($r->{add_unknown_topic}, [ [ 0, $E{UNKNOWN_TOPIC_OR_PARTITION} ] ],
	'AddPartitionsToTxn of a topic that does not exist');
is_deeply($r->{add_bad_partition},
	[ [ 0, $E{OPERATION_NOT_ATTEMPTED} ], [ 99, $E{UNKNOWN_TOPIC_OR_PARTITION} ] ],
	'a partition that does not exist: the others are not added');
is_deeply($r->{add_old_epoch_v1}, [ [ 0, $E{INVALID_PRODUCER_EPOCH} ] ],
	'AddPartitionsToTxn v1 of another epoch: INVALID_PRODUCER_EPOCH');
is_deeply($r->{add_old_epoch_v2}, [ [ 0, $E{PRODUCER_FENCED} ] ],
	'v2: PRODUCER_FENCED');
is_deeply($r->{add}, [ [ 0, 0 ] ], 'AddPartitionsToTxn begins the transaction');
is($r->{produce_not_added}, $E{INVALID_TXN_STATE},
	'Produce to a partition not added to the transaction');
is($r->{produce_not_transactional}, $E{INVALID_TXN_STATE},
	'a batch not marked transactional in a transactional Produce');
is($r->{produce}, 0, 'Produce to the partition added');
is($r->{produce_keyless}, 87,
	'2000 keyless records for a compacted topic: INVALID_RECORD, each named, the answer in its room');
is($r->{add_group_bad}, $E{INVALID_GROUP_ID}, 'AddOffsetsToTxn of an empty group id');
is($r->{commit}, 0, 'EndTxn commit');
is($r->{commit_again}, 0, 'EndTxn commit again: a retry');
is($r->{abort_after_commit}, $E{INVALID_TXN_STATE}, 'EndTxn abort after the commit');
is_deeply($r->{reinit}, [ $E{CONCURRENT_TRANSACTIONS}, 0 ],
	'InitProducerId during an open transaction aborts it (CONCURRENT_TRANSACTIONS), then answers');
is($r->{old_produce}, $E{INVALID_PRODUCER_EPOCH}, "the fenced producer's Produce");
is($r->{old_end_v1}, $E{INVALID_PRODUCER_EPOCH}, "the fenced producer's EndTxn v1");
is($r->{old_end_v2}, $E{PRODUCER_FENCED}, "and v2");
is($r->{new_epoch}, 2, 'the new producer has epoch 2 (one bump fenced the open transaction)');
is(values_of('txn_topic'), 'raw-committed',
	'only the committed record is stored: none of the aborted, refused or fenced ones');
is(row_of('raw-errors'), 'Empty 2', 'the id in topics.kafka_transactions');

# --- InitProducerId v3+ naming the producer the client was (KIP-360) -------

$r = txn('recovery', 'alice', 'alice-pw');
is_deeply($r->{current}, [ 0, 1, $r->{epoch} + 1 ],
	"the id's current producer and epoch: the epoch is bumped");
is_deeply($r->{retry}, [ 0, 1, $r->{epoch} + 1 ],
	'the same request again (a retry): the same answer');
is($r->{stale_v4}[0], $E{PRODUCER_FENCED}, 'an older epoch: PRODUCER_FENCED');
is($r->{stale_v3}[0], $E{INVALID_PRODUCER_EPOCH}, 'v3: INVALID_PRODUCER_EPOCH');
is($r->{other_id}[0], $E{PRODUCER_FENCED}, 'another producer id: PRODUCER_FENCED');
is($r->{zombie}[0], $E{PRODUCER_FENCED},
	'after a new instance took the next epoch, the previous one is fenced, not answered as a retry');

$r = txn('own_fence', 'txn_topic', 'alice', 'alice-pw');
is($r->{seen}[0], $E{CONCURRENT_TRANSACTIONS},
	'KIP-360 InitProducerId naming the open transaction\'s own producer aborts it: CONCURRENT_TRANSACTIONS');
is_deeply($r->{last}, [ 0, 1, $r->{epoch} + 1 ],
	'its retries are not fenced: once the abort ended, the epoch its fence took (given to no one else)');
is(scalar(grep { $_ != $E{CONCURRENT_TRANSACTIONS} && $_ != 0 } @{ $r->{seen} }), 0,
	'no other answer in between (' . join(',', @{ $r->{seen} }) . ')');

# --- a row held by another transaction: the listener does not wait -------

$r = txn('init_only', 'alice', 'alice-pw', 'locked-id', 60000);
my $holder = $node->background_psql('postgres');
$holder->query_safe(
	q{BEGIN; SELECT FROM topics.kafka_transactional_ids WHERE transactional_id = 'locked-id' FOR UPDATE});
my $locked = txn('locked', 'txn_topic', 'alice', 'alice-pw', 'locked-id', $r->{pid}, $r->{epoch});
is($locked->{init}, $E{CONCURRENT_TRANSACTIONS},
	'InitProducerId of an id whose row another transaction holds: CONCURRENT_TRANSACTIONS, not a lock wait');
is_deeply($locked->{add}, [ [ 0, $E{CONCURRENT_TRANSACTIONS} ] ], 'AddPartitionsToTxn too');
is($locked->{end}, $E{INVALID_TXN_STATE},
	'EndTxn reads the row without its lock: answered at once, no transaction open (INVALID_TXN_STATE)');
$holder->query_safe('COMMIT');
$holder->quit;
is(txn('init_only', 'alice', 'alice-pw', 'locked-id', 60000)->{init}, 0,
	'once the row is free, InitProducerId answers');

# --- roles own their transactional ids ------------------------------------

$r = txn('role_owns', 'alice', 'alice-pw', 'bob', 'bob-pw');
is($r->{first}, 0, 'alice takes a transactional id');
is($r->{stolen}, $E{TRANSACTIONAL_ID_AUTHORIZATION_FAILED}, 'bob may not use it');
is($r->{produce}, $E{TRANSACTIONAL_ID_AUTHORIZATION_FAILED}, "nor Produce with it");
is($node->safe_psql('postgres',
		q{SET ROLE bob; SELECT count(*) FROM topics.kafka_transactions WHERE transactional_id = 'owned-id'}),
	'0', "bob does not see alice's transactional id");
is($node->safe_psql('postgres',
		q{SET ROLE alice; SELECT role FROM topics.kafka_transactions WHERE transactional_id = 'owned-id'}),
	'alice', 'alice does');
my ($ret, $out, $err) = $node->psql('postgres',
	q{SET ROLE alice; SELECT * FROM topics.kafka_transactional_ids});
like($err, qr/permission denied/, 'the table behind the view is not readable');

$node->safe_psql('postgres', q{
CREATE ROLE dave LOGIN PASSWORD 'dave-pw';
GRANT SELECT, INSERT ON txn_topic TO dave;
});
is(txn('init_only', 'dave', 'dave-pw', 'dropped-role-id', 60000)->{init}, 0,
	'dave takes a transactional id');
$node->safe_psql('postgres', q{
REVOKE ALL ON txn_topic FROM dave;
DROP ROLE dave;
});
$r = txn('init_only', 'bob', 'bob-pw', 'dropped-role-id', 60000);
is_deeply([ $r->{init}, $r->{epoch} ], [ 0, 0 ],
	'once dave is dropped, bob takes the id: a new producer, epoch 0');
is($node->safe_psql('postgres',
		q{SET ROLE bob; SELECT role FROM topics.kafka_transactions WHERE transactional_id = 'dropped-role-id'}),
	'bob', 'the id is bob\'s');
is(txn('init_only', 'alice', 'alice-pw', 'dropped-role-id', 60000)->{init},
	$E{TRANSACTIONAL_ID_AUTHORIZATION_FAILED}, 'and no longer free');

# --- the limits -------------------------------------------------------------

$node->safe_psql('postgres', q{
ALTER SYSTEM SET pg_topics.kafka_max_transactions_per_role = 1;
SELECT pg_reload_conf();
});
sleep 1;
$r = txn('limit', 'txn_topic', 'alice', 'alice-pw');
is_deeply($r->{first}, [ [ 0, 0 ] ], 'one open transaction of the role');
is_deeply($r->{second}, [ [ 0, $E{CONCURRENT_TRANSACTIONS} ] ],
	'a second one over pg_topics.kafka_max_transactions_per_role: CONCURRENT_TRANSACTIONS');
is_deeply($r->{after}, [ [ 0, 0 ] ], 'once the first ended, the second begins');
$node->safe_psql('postgres', q{
ALTER SYSTEM RESET pg_topics.kafka_max_transactions_per_role;
SELECT pg_reload_conf();
});

# --- a producer's next transaction: its worker, kept idle ----------------

# a long idle time here: the checks between the transactions may be slow
$node->safe_psql('postgres', q{
ALTER SYSTEM SET pg_topics.kafka_transaction_worker_idle_timeout = '10min';
SELECT pg_reload_conf();
});
my $busy_worker = q{SELECT pid FROM pg_stat_activity
	WHERE backend_type = 'pg_topics kafka transaction' AND state <> 'idle'};
$r = txn('begin', 'txn_topic', 'alice', 'alice-pw', 'reuse-id', 60000);
is($r->{produce}[0], 0, 'a transaction begun');
my $first_worker = $node->safe_psql('postgres', $busy_worker);
isnt($first_worker, '', 'its worker runs');
is(txn('commit', 'alice', 'alice-pw', 'reuse-id', $r->{pid}, $r->{epoch})->{commit},
	0, 'it commits');
is($node->safe_psql('postgres', qq{
	SELECT state, backend_xid IS NULL, backend_xmin IS NULL,
		(SELECT count(*) FROM pg_locks l WHERE l.pid = a.pid)
	FROM pg_stat_activity a WHERE pid = $first_worker}),
	'idle|t|t|0', 'its worker stays, idle: no xid, no xmin, no lock');
my $next = txn('next_txn', 'txn_topic', 'alice', 'alice-pw', 'reuse-id', $r->{pid}, $r->{epoch}, 1);
is_deeply($next, { add => [ [ 0, 0 ] ], produce => 0 },
	"the producer's next transaction begins (no InitProducerId)");
is($node->safe_psql('postgres', $busy_worker), $first_worker,
	'in the same worker process');
is(txn('commit', 'alice', 'alice-pw', 'reuse-id', $r->{pid}, $r->{epoch})->{commit},
	0, 'it commits too');
like(values_of('txn_topic'), qr/begun-reuse-id.*next-reuse-id/,
	'both transactions are visible');
is(txn('abort', 'alice', 'alice-pw', 'reuse-id', $r->{pid}, $r->{epoch})->{abort},
	$E{INVALID_TXN_STATE}, 'an EndTxn after it finds no transaction: its idle worker is none');
is($node->safe_psql('postgres', qq{SELECT state FROM pg_stat_activity WHERE pid = $first_worker}),
	'idle', 'the worker is idle again');
is(txn('init_only', 'alice', 'alice-pw', 'reuse-id', 60000)->{init}, 0,
	'a new producer of the id (InitProducerId)');
wait_for(qq{SELECT count(*) FROM pg_stat_activity WHERE pid = $first_worker},
	'0', "fences the old one: its idle worker exits");

$node->safe_psql('postgres', q{
ALTER SYSTEM SET pg_topics.kafka_transaction_worker_idle_timeout = '1s';
SELECT pg_reload_conf();
});
$r = txn('begin', 'txn_topic', 'alice', 'alice-pw', 'idle-time-id', 60000);
my $idle_worker = $node->safe_psql('postgres', $busy_worker);
is(txn('commit', 'alice', 'alice-pw', 'idle-time-id', $r->{pid}, $r->{epoch})->{commit},
	0, 'another transaction commits');
wait_for(qq{SELECT count(*) FROM pg_stat_activity WHERE pid = $idle_worker},
	'0', 'its idle worker exits once pg_topics.kafka_transaction_worker_idle_timeout passed');
$node->safe_psql('postgres', q{
ALTER SYSTEM RESET pg_topics.kafka_transaction_worker_idle_timeout;
SELECT pg_reload_conf();
});

# --- a transaction whose worker is terminated -----------------------------

$r = txn('begin', 'txn_topic', 'alice', 'alice-pw', 'lost-id', 3000);
is($r->{produce}[0], 0, 'a transaction begun');
# (idle workers of earlier producers hold no transaction: state idle)
my $worker = $node->safe_psql('postgres',
	q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_topics kafka transaction' AND state <> 'idle'});
isnt($worker, '', 'its worker runs');
$node->safe_psql('postgres', "SELECT pg_terminate_backend($worker)");
wait_for(qq{SELECT count(*) FROM pg_stat_activity WHERE pid = $worker},
	'0', 'the worker is gone');
my $resumed = txn('resume', 'txn_topic', 'alice', 'alice-pw', 'lost-id', $r->{pid}, $r->{epoch});
is($resumed->{produce}, $E{INVALID_PRODUCER_EPOCH}, 'its producer is fenced: Produce');
is_deeply($resumed->{add_v1}, [ [ 0, $E{INVALID_PRODUCER_EPOCH} ] ],
	'AddPartitionsToTxn does not begin another transaction');
is($resumed->{end_v2}, $E{PRODUCER_FENCED}, 'EndTxn cannot commit what is left');
wait_for(q{SELECT state || ' ' || producer_epoch FROM topics.kafka_transactions WHERE transactional_id = 'lost-id'},
	'CompleteAbort ' . ($r->{epoch} + 1),
	"the worker's round aborts it once its timeout passed, at the next epoch");
unlike(values_of('txn_topic'), qr/begun-lost-id/, 'nothing of it is visible');
ok($node->log_contains('aborted Kafka transaction of transactional id "lost-id"'),
	'and logs it');

# --- kill -9 of the server during a transaction ---------------------------

$r = txn('begin', 'txn_topic', 'alice', 'alice-pw', 'crashed-id', 60000);
is($r->{produce}[0], 0, 'a transaction begun');
kill9_server($node);
$node->start;
wait_for_kafka_listener($kport);
unlike(values_of('txn_topic'), qr/begun-crashed-id/, 'after kill -9 nothing of it is visible');
is(row_of('crashed-id'), "Ongoing $r->{epoch}", 'its row still says Ongoing');
$resumed = txn('resume', 'txn_topic', 'alice', 'alice-pw', 'crashed-id', $r->{pid}, $r->{epoch});
is($resumed->{produce}, $E{INVALID_PRODUCER_EPOCH}, 'its producer is fenced');
is($resumed->{end_v2}, $E{PRODUCER_FENCED}, 'its EndTxn commits nothing');
my $again = txn('reinit_and_commit', 'txn_topic', 'alice', 'alice-pw', 'crashed-id');
is_deeply($again->{init}, [0], 'InitProducerId of the id ends the lost transaction');
is($again->{epoch}, $r->{epoch} + 1, 'at the next epoch');
is_deeply([ $again->{add}, $again->{produce}, $again->{commit} ], [ [ [ 0, 0 ] ], [ 0, 0 ], 0 ],
	'and its next transaction commits');
like(values_of('txn_topic'), qr/again-1-crashed-id,again-2-crashed-id/, 'its records are visible');
ok($node->log_contains('aborting Kafka transaction of transactional id "crashed-id" that has no transaction behind it'),
	'the lost transaction is logged');

# --- transaction.timeout.ms -------------------------------------------------

$r = txn('begin', 'txn_topic', 'alice', 'alice-pw', 'slow-id', 2000);
is($r->{produce}[0], 0, 'a transaction with a 2 s timeout begun');
wait_for(q{SELECT state || ' ' || producer_epoch FROM topics.kafka_transactions WHERE transactional_id = 'slow-id'},
	'CompleteAbort ' . ($r->{epoch} + 1), 'it is aborted when its timeout passes, its producer fenced');
$resumed = txn('resume', 'txn_topic', 'alice', 'alice-pw', 'slow-id', $r->{pid}, $r->{epoch});
is($resumed->{produce}, $E{INVALID_PRODUCER_EPOCH}, 'its Produce is fenced');
is($resumed->{end_v2}, $E{PRODUCER_FENCED}, 'and its EndTxn');
unlike(values_of('txn_topic'), qr/begun-slow-id/, 'nothing of it is visible');

# --- the last epoch: an abort fences it too --------------------------------

$r = txn('init_only', 'alice', 'alice-pw', 'last-epoch-id', 2000);
$node->safe_psql('postgres',
	q{UPDATE topics.kafka_transactional_ids SET producer_epoch = 32765 WHERE transactional_id = 'last-epoch-id'});
$r = txn('begin', 'txn_topic', 'alice', 'alice-pw', 'last-epoch-id', 2000);
is_deeply([ $r->{epoch}, $r->{produce}[0] ], [ 32766, 0 ],
	'a transaction of a producer at epoch 32766 begun');
wait_for(q{SELECT state || ' ' || producer_epoch FROM topics.kafka_transactions WHERE transactional_id = 'last-epoch-id'},
	'CompleteAbort 32767', 'its timeout aborts it at epoch 32767');
$resumed = txn('resume', 'txn_topic', 'alice', 'alice-pw', 'last-epoch-id', $r->{pid}, $r->{epoch});
is_deeply($resumed->{add_v1}, [ [ 0, $E{INVALID_PRODUCER_EPOCH} ] ],
	'its producer is fenced: AddPartitionsToTxn does not begin another transaction');
is($resumed->{end_v2}, $E{PRODUCER_FENCED}, 'and EndTxn commits nothing');
$again = txn('reinit_and_commit', 'txn_topic', 'alice', 'alice-pw', 'last-epoch-id');
is_deeply([ $again->{init}, $again->{epoch}, $again->{commit} ], [ [0], 0, 0 ],
	'InitProducerId gives a new producer id at epoch 0, whose transaction commits');

$r = txn('init_only', 'alice', 'alice-pw', 'last-epoch-fenced', 60000);
$node->safe_psql('postgres',
	q{UPDATE topics.kafka_transactional_ids SET producer_epoch = 32765 WHERE transactional_id = 'last-epoch-fenced'});
$r = txn('begin', 'txn_topic', 'alice', 'alice-pw', 'last-epoch-fenced', 60000);
is($r->{epoch}, 32766, 'an open transaction at epoch 32766');
is(txn('init_only', 'alice', 'alice-pw', 'last-epoch-fenced', 60000)->{init},
	$E{CONCURRENT_TRANSACTIONS}, 'a new instance of the id aborts it');
wait_for(q{SELECT state || ' ' || producer_epoch FROM topics.kafka_transactions WHERE transactional_id = 'last-epoch-fenced'},
	'CompleteAbort 32767', 'at epoch 32767');
$resumed = txn('resume', 'txn_topic', 'alice', 'alice-pw', 'last-epoch-fenced', $r->{pid}, $r->{epoch});
is_deeply($resumed->{add_v1}, [ [ 0, $E{INVALID_PRODUCER_EPOCH} ] ],
	'the old instance is fenced before the new one retries');
unlike(values_of('txn_topic'), qr/begun-last-epoch|resumed/, 'nothing of either transaction is visible');

# --- a request that failed after beginning its transaction -----------------

$r = txn('init_only', 'alice', 'alice-pw', 'orphan-id', 600000);
# AddPartitionsToTxn naming partition 0 800 times: a request under
# pg_topics.kafka_max_request_bytes, whose answer is over it, which fails
# the request once its transaction was begun; the slot and its worker are
# left without a transaction the row knows of
$node->safe_psql('postgres', q{
ALTER SYSTEM SET pg_topics.kafka_max_request_bytes = 4096;
SELECT pg_reload_conf();
});
sleep 1;
is(txn('add_failing', 'txn_topic', 'alice', 'alice-pw', 'orphan-id', $r->{pid}, $r->{epoch}, 800)->{add},
	'closed', 'AddPartitionsToTxn fails after its transaction was begun');
$node->safe_psql('postgres', q{
ALTER SYSTEM RESET pg_topics.kafka_max_request_bytes;
SELECT pg_reload_conf();
});
sleep 1;
is(row_of('orphan-id'), "Empty $r->{epoch}", 'the row never said Ongoing');
$again = txn('reinit_and_commit', 'txn_topic', 'alice', 'alice-pw', 'orphan-id');
is($again->{init}[0], $E{CONCURRENT_TRANSACTIONS},
	"the id's next InitProducerId aborts what the failed request left");
is_deeply([ $again->{add}, $again->{produce}, $again->{commit} ], [ [ [ 0, 0 ] ], [ 0, 0 ], 0 ],
	'and its transaction begins and commits, not refused until the timeout');
like(values_of('txn_topic'), qr/again-1-orphan-id,again-2-orphan-id/, 'its records are visible');

# --- confluent-kafka --------------------------------------------------------

$r = txn('confluent', 'txn_out', 'txn_source', 'alice', 'alice-pw');
is($r->{got}, 10, 'the consumer read the source');
is($r->{committed_position}, 5,
	"the group's position is the committed transaction's, not the aborted one's");
is_deeply($r->{read_committed}, [ map { "committed-v$_" } 0 .. 4 ],
	'a read_committed consumer gets the committed records only');
ok(defined $r->{fenced} && $r->{fenced} =~ /FENCED/,
	"a second producer of the id fences the first: its commit fails ($r->{fenced})");
is(values_of('txn_out'), join(',', (map { "committed-v$_" } 0 .. 4), (map { "after-fence-$_" } 0 .. 7)),
	'SQL readers see the committed transactions only (the last of 8 batches)');
is($node->safe_psql('postgres',
		q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pg_topics kafka transaction' AND state <> 'idle'}),
	'0', 'no transaction worker holds a transaction any more');

# --- the database's default_transaction_isolation -----------------------

# a transaction worker's transaction is READ COMMITTED whatever the
# database says: it sees the partition added after its first request
$node->safe_psql('postgres',
	q{ALTER DATABASE postgres SET default_transaction_isolation = 'serializable'});
$r = txn('two_partitions', 'txn_topic', 'alice', 'alice-pw', 'serializable-db');
is($r->{produce1}, 0,
	'default_transaction_isolation serializable: a partition added after the first Produce takes the next');
is($r->{commit}, 0, 'and the transaction commits');
like(values_of('txn_topic'), qr/serializable-db-0.*serializable-db-1/,
	'both partitions committed');
$node->safe_psql('postgres',
	q{ALTER DATABASE postgres RESET default_transaction_isolation});

# --- sequence numbers in a transaction --------------------------------------

$r = txn('sequence_gaps', 'txn_source', 'alice', 'alice-pw');
is($r->{first}, 0, 'a transaction\'s first batch of a partition');
is($r->{gap}, $E{OUT_OF_ORDER_SEQUENCE_NUMBER},
	'a later batch of it after a gap: OUT_OF_ORDER_SEQUENCE_NUMBER');
is($r->{next}, 0, 'the batch in order is taken');
is($r->{commit}, 0, 'the transaction commits');
is($r->{first_of_next}, 0,
	"the next transaction's first batch of the partition may follow a gap");
is($r->{gap_of_next}, $E{OUT_OF_ORDER_SEQUENCE_NUMBER}, 'its second may not');
is($r->{commit_next}, 0, 'that transaction commits');
like(values_of('txn_source'), qr/gaps-a,gaps-b,gaps-c/, 'the batches taken, in order');
unlike(values_of('txn_source'), qr/gaps-gap/, 'none of the batches refused');

# --- partition writes without subtransactions; a failed Produce ------------

# 70 partitions, a Produce each, in one transaction: every one written
# and committed, and the worker's transaction holds a single xid (past
# 64 subtransaction xids every snapshot would read pg_subtrans).  A probe
# with the old subtransaction per write also showed one xid: the topic
# writes take none of their own there, so this part guards, it does not
# tell the two apart.
$r = txn('wide', 'txn_wide', 'alice', 'alice-pw', 70);
is_deeply($r->{produce}, [0], 'a transaction writes 70 partitions, a request each');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
	WHERE a.backend_type = 'pg_topics kafka transaction' AND l.locktype = 'transactionid'}),
	'1', 'its worker holds one xid');
is(txn('commit', 'alice', 'alice-pw', 'wide-txn', $r->{pid}, $r->{epoch})->{commit},
	0, 'it commits');
is($node->safe_psql('postgres', q{SELECT count(DISTINCT partition) FROM txn_wide}), '70',
	'all 70 partitions');

# a Produce that fails fails the transaction, as in Kafka: the client
# must abort it
$r = txn('failed_produce', 'txn_topic', 'txn_json', 'alice', 'alice-pw');
is($r->{produce}, 0, 'a transaction writes');
is($r->{bad}, $E{INVALID_RECORD}, 'its Produce of a record a jsonb topic refuses: INVALID_RECORD');
is($r->{after}, $E{INVALID_TXN_STATE}, 'a Produce after it: INVALID_TXN_STATE');
is($r->{commit}, $E{INVALID_TXN_STATE}, 'its commit: INVALID_TXN_STATE');
is($r->{abort}, 0, 'its abort succeeds');
is($r->{next}, 0, "the producer's next transaction writes (its epoch kept)");
is($r->{next_commit}, 0, 'and commits');
is(row_of('failed-produce'), "CompleteCommit $r->{epoch}", 'the row');
my $vals = values_of('txn_topic');
ok($vals =~ /failed-txn-next/ && $vals !~ /failed-txn-ok|failed-txn-after/,
	'only the next transaction is visible');
is($node->safe_psql('postgres', q{SELECT count(*) FROM txn_json}), '0',
	'nothing of the failed transaction');

# --- AddOffsetsToTxn --------------------------------------------------------

$r = txn('add_offsets_checks', 'txn_topic', 'alice', 'alice-pw', 'bob', 'bob-pw');
ok($r->{joined}, "bob's consumer holds others-group");
is($r->{others}, $E{GROUP_AUTHORIZATION_FAILED},
	"AddOffsetsToTxn of a group bob's consumer holds: GROUP_AUTHORIZATION_FAILED");
is($r->{own}, 0, 'of a group of its own');
is($r->{own_again}, 0, 'the same group again');
is_deeply($r->{more}, [0], 'groups up to 64 in one transaction');
is($r->{over}, $E{INVALID_REQUEST}, 'the 65th: INVALID_REQUEST');
is($node->safe_psql('postgres', q{
	SELECT cardinality(groups) || ' ' || (SELECT count(*) FROM unnest(groups) g WHERE g = 'own-group')
	FROM topics.kafka_transactional_ids WHERE transactional_id = 'offsets-checks'}),
	'64 1', 'the transaction lists 64 groups, each once, not the refused ones');
is(txn('commit', 'alice', 'alice-pw', 'offsets-checks', $r->{pid}, $r->{epoch})->{commit},
	0, 'and commits');

# --- group positions a pending transaction holds ---------------------------

# TxnOffsetCommit holds its partitions' locks until EndTxn: another
# connection's OffsetCommit, OffsetDelete and DeleteGroups of them are
# answered REQUEST_TIMED_OUT (retriable) at once, not after lock_timeout
# (1 s) per partition, in which the listener served nobody else;
# OffsetFetch answers the positions committed before the transaction, and
# with require_stable UNSTABLE_OFFSET_COMMIT (retriable).
$r = txn('pending_offsets', 'txn_offsets', 'alice', 'alice-pw', 5);
is_deeply($r->{before}, [0], "the group's positions committed before the transaction");
is_deeply([ $r->{add}, $r->{txn_commit} ], [ 0, [0] ],
	'AddOffsetsToTxn and TxnOffsetCommit of 5 partitions');
is_deeply($r->{commit}, [ $E{REQUEST_TIMED_OUT} ],
	'an OffsetCommit of them meanwhile: REQUEST_TIMED_OUT');
cmp_ok($r->{commit_seconds}, '<', 2.5,
	"answered at once ($r->{commit_seconds} s), not after 1 s per partition");
is_deeply($r->{delete}, [ 0, [ $E{REQUEST_TIMED_OUT} ] ],
	'an OffsetDelete of them: REQUEST_TIMED_OUT');
cmp_ok($r->{delete_seconds}, '<', 2.5, "answered at once ($r->{delete_seconds} s)");
is($r->{delete_group}, $E{REQUEST_TIMED_OUT}, 'DeleteGroups of the group: REQUEST_TIMED_OUT');
cmp_ok($r->{delete_group_seconds}, '<', 0.9,
	"answered at once ($r->{delete_group_seconds} s)");
is_deeply($r->{fetch_pending}, [ [ 0, 0 ] ],
	'OffsetFetch meanwhile: the positions committed before the transaction');
is_deeply($r->{fetch_stable}, [ [ -1, $E{UNSTABLE_OFFSET_COMMIT} ] ],
	'with require_stable: UNSTABLE_OFFSET_COMMIT');
is($r->{end}, 0, 'EndTxn(commit)');
is_deeply($r->{fetch_committed}, [ [ 5, 'txn', 0 ] ], "then the transaction's positions");
is_deeply($r->{fetch_stable_after}, [ [ 5, 0 ] ], 'with require_stable too');
is_deeply($r->{commit_after}, [0], 'and the OffsetCommit goes through');

# --- the worker reads the fence -------------------------------------------

# The node is fenced after the transaction's first Produce; the
# configuration files are changed but not reloaded, so that the
# listener, which reads them at a reload, still forwards: the worker
# reads them itself before each write and before its commit.
my $fw = txn('begin', 'txn_topic', 'alice', 'alice-pw', 'worker-fence', 60000);
is($fw->{produce}[0], 0, 'a transaction begun before the fence');
$node->safe_psql('postgres',
	q{ALTER SYSTEM SET default_transaction_read_only = on});
$r = txn('fenced_worker', 'txn_topic', 'alice', 'alice-pw', 'worker-fence',
	$fw->{pid}, $fw->{epoch});
is($r->{produce}, $E{NOT_LEADER_OR_FOLLOWER},
	'its Produce on the fenced node: NOT_LEADER_OR_FOLLOWER');
is($r->{commit}, $E{NOT_COORDINATOR}, 'its EndTxn(commit): NOT_COORDINATOR');
is(row_of('worker-fence'), "Ongoing $fw->{epoch}",
	'nothing committed: the transaction stays open');
unlike(values_of('txn_topic'), qr/worker-fence/, 'nothing of it visible');
$node->safe_psql('postgres', q{ALTER SYSTEM RESET default_transaction_read_only});
$r = txn('commit', 'alice', 'alice-pw', 'worker-fence', $fw->{pid}, $fw->{epoch});
is($r->{commit}, 0, 'the fence gone, the retried commit commits');
like(values_of('txn_topic'), qr/begun-worker-fence/, 'what was written before the fence');
unlike(values_of('txn_topic'), qr/fenced-worker-fence/, 'not the Produce refused');

# --- KIP-360 after the epochs ran out ----------------------------------------

# InitProducerId naming the producer at epoch 32766 gives a new producer
# id; its retry (the answer lost) names the old producer id again, and
# gets the same new producer, as Kafka keeps lastProducerId
$r = txn('init_only', 'alice', 'alice-pw', 'exhausted-id', 60000);
$node->safe_psql('postgres',
	q{UPDATE topics.kafka_transactional_ids SET producer_epoch = 32766 WHERE transactional_id = 'exhausted-id'});
my $ex = txn('exhausted', 'alice', 'alice-pw', 'exhausted-id', $r->{pid}, 32766);
is($ex->{first}[0], 0, 'KIP-360 InitProducerId naming epoch 32766 answers');
ok($ex->{first}[1] != $r->{pid} && $ex->{first}[2] == 0, 'a new producer id, epoch 0');
is_deeply($ex->{retry}, $ex->{first},
	'its retry naming the old producer id gets the same producer, not PRODUCER_FENCED');
is($ex->{older}[0], $E{PRODUCER_FENCED}, 'an older epoch of the old producer id is fenced');

# the same when the request fenced the client's own open transaction at
# epoch 32766: the fence takes 32767, never handed out, so the retry
# after the abort gets a new producer id, which commits
$r = txn('init_only', 'alice', 'alice-pw', 'exhausted-open', 60000);
$node->safe_psql('postgres',
	q{UPDATE topics.kafka_transactional_ids SET producer_epoch = 32765 WHERE transactional_id = 'exhausted-open'});
$r = txn('begin', 'txn_topic', 'alice', 'alice-pw', 'exhausted-open', 60000);
is($r->{epoch}, 32766, 'an open transaction at epoch 32766');
$ex = txn('exhausted_own_fence', 'txn_topic', 'alice', 'alice-pw', 'exhausted-open',
	$r->{pid}, $r->{epoch});
is($ex->{seen}[0], $E{CONCURRENT_TRANSACTIONS},
	'InitProducerId naming its producer aborts it: CONCURRENT_TRANSACTIONS');
is($ex->{last}[0], 0, 'once the abort ended, the retry answers');
ok($ex->{last}[1] != $r->{pid} && $ex->{last}[2] == 0,
	'with a new producer id at epoch 0, not epoch 32767 (' . join(',', @{ $ex->{last} }) . ')');
is_deeply($ex->{retry}, $ex->{last}, 'a further retry gets the same producer');
is_deeply([ $ex->{add}, $ex->{produce}, $ex->{commit} ], [ [ [ 0, 0 ] ], 0, 0 ],
	'whose transaction commits');
like(values_of('txn_topic'), qr/after-exhausted-exhausted-open/, 'its record is visible');
unlike(values_of('txn_topic'), qr/begun-exhausted-open/, 'the aborted one is not');

# --- an answer larger than six times the request ---------------------------

# Produce v9 naming one partition 3000 times with null records: 6 bytes
# of the request each, 33 of the answer, which the transaction's worker
# must have room for
$r = txn('begin', 'txn_topic', 'alice', 'alice-pw', 'null-parts', 60000);
is($r->{produce}[0], 0, 'a transaction begun');
my $np = txn('null_partitions', 'txn_topic', 'alice', 'alice-pw', 'null-parts',
	$r->{pid}, $r->{epoch}, 3000);
is($np->{answered}, 3000, 'a Produce of 3000 partitions of null records is answered each');
is(txn('abort', 'alice', 'alice-pw', 'null-parts', $r->{pid}, $r->{epoch})->{abort}, 0,
	'and its transaction is aborted');

# --- transactional id expiry ---------------------------------------------------

# pg_topics.kafka_transactional_id_expiration: an id not in a transaction
# and unused for longer is deleted by the background worker's round; one
# in an open transaction is kept however old; the expired id is new to its
# next InitProducerId.  The open transaction's id is used first, so that
# it is the older of the two.
my $open = txn('begin', 'txn_topic', 'alice', 'alice-pw', 'expiry-open', 60000);
is($open->{produce}[0], 0, 'a transaction left open');
my $idle = txn('init_only', 'alice', 'alice-pw', 'expiry-idle', 60000);
is($idle->{init}, 0, 'an id initialized and left unused');
$node->safe_psql('postgres', q{
ALTER SYSTEM SET pg_topics.kafka_transactional_id_expiration = '2s';
SELECT pg_reload_conf();
});
wait_for(q{SELECT count(*) FROM topics.kafka_transactions WHERE transactional_id = 'expiry-idle'},
	'0', 'the idle id is deleted once pg_topics.kafka_transactional_id_expiration passed');
is(row_of('expiry-open'), "Ongoing $open->{epoch}", 'the id in an open transaction is kept');
$r = txn('resume', 'txn_topic', 'alice', 'alice-pw', 'expiry-idle', $idle->{pid}, $idle->{epoch});
is_deeply($r->{add_v1}, [ [ 0, $E{INVALID_PRODUCER_ID_MAPPING} ] ],
	"the expired id's producer: INVALID_PRODUCER_ID_MAPPING, as Kafka");
$r = txn('init_only', 'alice', 'alice-pw', 'expiry-idle', 60000);
ok($r->{init} == 0 && $r->{epoch} == 0 && $r->{pid} != $idle->{pid},
	'the next InitProducerId makes it anew: a new producer id, epoch 0');
is(txn('commit', 'alice', 'alice-pw', 'expiry-open', $open->{pid}, $open->{epoch})->{commit},
	0, 'the open transaction commits');
$node->safe_psql('postgres', q{
ALTER SYSTEM RESET pg_topics.kafka_transactional_id_expiration;
SELECT pg_reload_conf();
});

# --- a node that refuses writes --------------------------------------------

$node->safe_psql('postgres', q{
ALTER SYSTEM SET default_transaction_read_only = on;
SELECT pg_reload_conf();
});
$node->poll_query_until('postgres',
	q{SELECT current_setting('default_transaction_read_only') = 'on'});
sleep 1;
$r = txn('fenced_node', 'txn_topic', 'alice', 'alice-pw');
is($r->{init}, 16, 'a fenced node answers InitProducerId NOT_COORDINATOR');
is_deeply($r->{add}, [ [ 0, 16 ] ], 'AddPartitionsToTxn too');
is($r->{end}, 16, 'and EndTxn');

$node->stop;

# --- kafka_max_transactions and max_worker_processes ------------------------

# the defaults: 8 worker processes, 2 listener processes, 16 transactions
my $small = PostgreSQL::Test::Cluster->new('few_workers');
$small->init;
my $small_port = PostgreSQL::Test::Cluster::get_free_port();
$small->append_conf('postgresql.conf', kafka_node_conf($small_port) . q{
max_worker_processes = 8
pg_topics.kafka_auth = 'plain'
pg_topics.kafka_transaction_worker_idle_timeout = '10min'
});
$small->start;
is($small->safe_psql('postgres', q{SHOW pg_topics.kafka_max_transactions}), '3',
	'max_worker_processes 8: kafka_max_transactions lowered to 3 (8 - 2 listeners - 3)');
like(slurp_file($small->logfile),
	qr/WARNING:  (?:01000: )?pg_topics.kafka_max_transactions is lowered from 16 to 3/,
	'with a WARNING');

# idle workers take slots but no limit: a transaction that finds no free
# slot takes an idle one's
$small->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE ROLE alice LOGIN PASSWORD 'alice-pw';
SELECT topics.create_topic('small_topic', 1, 'text', 'text');
GRANT INSERT, SELECT ON small_topic TO alice;
});
wait_for_kafka_listener($small_port);
is_deeply(kafka_script('transactions.py', "127.0.0.1:$small_port", 'idle_commits',
		'small_topic', 'alice', 'alice-pw', 3),
	[ 0, 0, 0 ], 'three producers commit a transaction each');
is($small->safe_psql('postgres', q{SELECT count(*) FROM pg_stat_activity
	WHERE backend_type = 'pg_topics kafka transaction' AND state = 'idle'}),
	'3', 'their workers wait, idle, in all three slots');
$r = kafka_script('transactions.py', "127.0.0.1:$small_port", 'busy_limits',
	'small_topic', 'alice', 'alice-pw', 3);
is_deeply($r->{busy}, [ 0, 0, 0 ], 'three other producers begin theirs: the idle workers give way');
is($r->{over}, $E{CONCURRENT_TRANSACTIONS},
	'a fourth, over pg_topics.kafka_max_transactions: CONCURRENT_TRANSACTIONS');
$small->stop;

done_testing();
