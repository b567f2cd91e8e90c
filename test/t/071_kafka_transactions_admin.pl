# DescribeTransactions (v0) and ListTransactions (v0-1) by raw frames
# (test/kafka/transactions_admin.py): each role sees the transactional ids
# of the roles it is a member of, as topics.kafka_transactions shows them;
# another role's id is TRANSACTIONAL_ID_AUTHORIZATION_FAILED, an unused
# one TRANSACTIONAL_ID_NOT_FOUND; the partitions of topics the role may not
# describe are left out; Kafka's state, producer id and duration filters;
# a fenced node answers as a Kafka broker that is not the coordinator.
#
# The rows are written straight into the table behind the view,
# topics.kafka_transactional_ids, as the extension's superuser may.  The
# Ongoing rows' timeouts are far from over, so that nothing resolves them
# while the test runs.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('kafka_transactions_admin');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_auth = 'plain'
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE ROLE alice LOGIN PASSWORD 'alice-pw';
CREATE ROLE bob LOGIN PASSWORD 'bob-pw';
CREATE ROLE carol LOGIN PASSWORD 'carol-pw' IN ROLE alice;
SELECT topics.create_topic('orders', 2, 'text', 'text');
SELECT topics.create_topic('secret', 1, 'text', 'text');
GRANT SELECT ON orders TO alice;
GRANT INSERT ON orders TO bob;
});
my $table = 'topics.kafka_transactional_ids';
$node->safe_psql('postgres', qq{
INSERT INTO $table (transactional_id, role, producer_id, producer_epoch, state,
  timeout_ms, partitions, groups, started_at, updated_at) VALUES
  ('a-ongoing', 'alice'::regrole, 1001, 2, 'Ongoing', 3600000,
   '{orders/0,orders/1,secret/0,gone/3}', '{g1}', now() - interval '10 minutes', now()),
  ('a-empty', 'alice'::regrole, 1002, 0, 'Empty', 30000, '{}', '{}', NULL, now()),
  ('a-recent', 'alice'::regrole, 1003, 0, 'Ongoing', 3600000, '{orders/1}', '{}',
   now() - interval '1 second', now()),
  ('b-ongoing', 'bob'::regrole, 2001, 5, 'PrepareCommit', 7200000, '{orders/0}', '{}',
   now() - interval '1 hour', now());
});
wait_for_kafka_listener($kport);

# the start of a transaction, as Kafka's Unix milliseconds
sub start_ms
{
	my ($id) = @_;
	return $node->safe_psql('postgres',
		qq{SELECT floor(extract(epoch FROM started_at) * 1000)::bigint FROM $table WHERE transactional_id = '$id'});
}
my $start_ms = start_ms('a-ongoing');

sub txn
{
	my ($user, @args) = @_;
	return kafka_script('transactions_admin.py', $bootstrap, '--as', $user,
		"$user-pw", @args);
}

sub ids
{
	my ($list) = @_;
	return join ',', map { "$_->{transactional_id}:$_->{state}:$_->{producer_id}" }
	  @{ $list->{transactions} };
}

# ---- ApiVersions offers both
my $av = kafka_script('versions.py', $bootstrap, 'api_versions', 3);
is_deeply([ $av->{apis}{65}, $av->{apis}{66} ], [ [ 0, 0 ], [ 0, 1 ] ],
	'ApiVersions: DescribeTransactions 0-0, ListTransactions 0-1');

# ---- DescribeTransactions
my $d = txn('alice', 'describe', 'a-ongoing', 'a-empty', 'b-ongoing', 'nobody', '',
	'a-ongoing');
my @t = @{ $d->{transactions} };
is(scalar @t, 6, 'DescribeTransactions answers each id asked, duplicates too');
is_deeply(
	$t[0],
	{
		error => 0,
		transactional_id => 'a-ongoing',
		state => 'Ongoing',
		timeout_ms => 3600000,
		start_time_ms => $start_ms,
		producer_id => 1001,
		producer_epoch => 2,
		topics => { orders => [ 0, 1 ] }
	},
	'an id of the role: its transaction, the partitions of the topics it may describe');
is_deeply([ @{ $t[1] }{qw(error state start_time_ms producer_id topics)} ],
	[ 0, 'Empty', -1, 1002, {} ], 'an id with no transaction started: start time -1');
is_deeply([ @{ $t[2] }{qw(error transactional_id state producer_id)} ],
	[ 53, 'b-ongoing', '', 0 ],
	"another role's id: TRANSACTIONAL_ID_AUTHORIZATION_FAILED, nothing of it");
is($t[3]{error}, 105, 'an unused id: TRANSACTIONAL_ID_NOT_FOUND');
is($t[4]{error}, 42, 'an empty id: INVALID_REQUEST');
is_deeply($t[5], $t[0], 'the same id twice: the same answer twice');

my $start_b = start_ms('b-ongoing');
is(txn('carol', 'describe', 'a-ongoing')->{transactions}[0]{error}, 0,
	"a member of the role sees the role's ids");
is_deeply(txn('bob', 'describe', 'b-ongoing', 'a-ongoing')->{transactions},
	[
		{
			error => 0,
			transactional_id => 'b-ongoing',
			state => 'PrepareCommit',
			timeout_ms => 7200000,
			start_time_ms => $start_b,
			producer_id => 2001,
			producer_epoch => 5,
			topics => { orders => [0] }
		},
		{
			error => 53,
			transactional_id => 'a-ongoing',
			state => '',
			timeout_ms => 0,
			start_time_ms => 0,
			producer_id => 0,
			producer_epoch => 0,
			topics => {}
		}
	],
	'INSERT alone lets a role describe a topic');
is_deeply(txn('alice', 'describe')->{transactions}, [], 'no ids: nothing');

# ---- ListTransactions
is(ids(txn('alice', 'list', '--version', 0)), 'a-empty:Empty:1002,a-ongoing:Ongoing:1001,a-recent:Ongoing:1003',
	"ListTransactions v0: the role's ids");
is(ids(txn('bob', 'list')), 'b-ongoing:PrepareCommit:2001', "another role's list: its own");
my $l = txn('alice', 'list', '--state', 'Ongoing', '--state', 'Bogus', '--state', 'ongoing');
is_deeply([ ids($l), $l->{unknown_state_filters}, $l->{error} ],
	[ 'a-ongoing:Ongoing:1001,a-recent:Ongoing:1003', [ 'Bogus', 'ongoing' ], 0 ],
	'state filters: states Kafka does not know are answered back');
is(ids(txn('alice', 'list', '--state', 'Bogus')), '', 'only unknown states: nothing matches');
is(ids(txn('alice', 'list', '--producer-id', 1002, '--producer-id', 2001)), 'a-empty:Empty:1002',
	"producer id filter (another role's id not listed)");
is(ids(txn('alice', 'list', '--duration', 60000)), 'a-ongoing:Ongoing:1001',
	'v1 DurationFilter: transactions started longer ago than that');
is(ids(txn('alice', 'list', '--duration', '9223372036854775807')), '',
	'a DurationFilter longer than any time: nothing');
is(ids(txn('alice', 'list', '--duration', 0, '--state', 'Ongoing')),
	'a-ongoing:Ongoing:1001,a-recent:Ongoing:1003', 'DurationFilter 0 and a state');

# ---- a fenced node: not the coordinator
$node->safe_psql('postgres', q{
ALTER SYSTEM SET default_transaction_read_only = on;
SELECT pg_reload_conf();});
$node->poll_query_until('postgres', q{SELECT current_setting('default_transaction_read_only') = 'on'})
  or die 'the server did not reload its settings';
sleep 1;
is_deeply(
	[ map { $_->{error} } @{ txn('alice', 'describe', 'a-ongoing', 'b-ongoing', 'nobody', '')->{transactions} } ],
	[ 16, 53, 16, 42 ], 'fenced: DescribeTransactions NOT_COORDINATOR');
$l = txn('alice', 'list', '--state', 'Bogus');
is_deeply([ $l->{error}, $l->{transactions}, $l->{unknown_state_filters} ], [ 0, [], ['Bogus'] ],
	'fenced: ListTransactions lists nothing');
$node->safe_psql('postgres', q{
ALTER SYSTEM RESET default_transaction_read_only;
SELECT pg_reload_conf();});

ok(!$node->log_contains(qr/closing Kafka connection from .*Transactions/),
	'no connection closed for a protocol reason');
$node->stop;
done_testing();
