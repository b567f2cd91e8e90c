# Kafka consumer groups on pg_topics: kcat's balanced consumer,
# confluent-kafka's rebalance callbacks and kafka-python's commits share
# their positions with SQL (one set per group and topic, whoever commits),
# show in topics.group_members, and a group is read by Kafka consumers or
# by SQL poll, never both at once.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use IPC::Run qw(run start timeout);
use JSON::PP;
use Time::HiRes qw(time usleep);

my $node = PostgreSQL::Test::Cluster->new('kafka_groups');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport)
	  . "pg_topics.kafka_group_initial_rebalance_delay = 0\n"
	  . "pg_topics.worker_naptime = '500ms'\n");
$node->start;
wait_for_kafka_listener($kport);
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('orders', 3, 'bytea', 'bytea');
SELECT topics.create_topic('rb', 3, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('orders',
	(SELECT array_agg(convert_to('v' || i, 'UTF8')) FROM generate_series(1, 30) i),
	(SELECT array_agg(convert_to('k' || i, 'UTF8')) FROM generate_series(1, 30) i));
SELECT count(*) FROM topics.produce_batch('rb',
	(SELECT array_agg('v' || i) FROM generate_series(1, 300) i),
	(SELECT array_agg('k' || i) FROM generate_series(1, 300) i));
});

sub client
{
	return kafka_script('clients.py', $bootstrap, @_);
}

# A kcat balanced consumer of group, in the background
sub kcat_member
{
	my ($group, @extra) = @_;
	my ($out, $err) = ('', '');
	my $h = start([ 'kcat', '-b', $bootstrap, '-G', $group, '-X', 'auto.offset.reset=earliest',
		'-X', 'session.timeout.ms=6000', '-X', 'heartbeat.interval.ms=500',
		'-f', '%p %o\n', @extra, 'orders' ], '>', \$out, '2>', \$err);
	return { h => $h, out => \$out, err => \$err };
}

# The members of group as "member partitions" lines
sub members
{
	my ($group) = @_;
	return $node->safe_psql('postgres', qq{
SELECT string_agg(array_to_string(partitions, ','), ' ' ORDER BY partitions)
FROM topics.group_members WHERE group_name = '$group' AND topic = 'orders'::regclass});
}

# ---- two kcat members split the partitions; when one dies the other takes all
my $m1 = kcat_member('g1');
# the second starts once the first owns the group, so a rebalance must follow
$node->poll_query_until('postgres', q{
SELECT count(*) = 1 AND sum(cardinality(partitions)) = 3 FROM topics.group_members WHERE group_name = 'g1'})
  or die 'the first member never got the partitions';
my $m2 = kcat_member('g1');
$node->poll_query_until('postgres', qq{
SELECT count(*) = 2 AND sum(cardinality(partitions)) = 3 AND bool_and(cardinality(partitions) > 0)
FROM topics.group_members WHERE group_name = 'g1'}) or die 'two members never shared the partitions';
my $split = members('g1');
ok($split eq '0,1 2' || $split eq '0 1,2' || $split eq '0,2 1' || $split eq '1 0,2',
	"topics.group_members shows two kcat members splitting 3 partitions 2/1 ($split)");
my $generation = $node->safe_psql('postgres',
	q{SELECT max(generation) FROM topics.group_members WHERE group_name = 'g1'});
ok($generation >= 2, "the generation grew with each rebalance ($generation)");

my $t0 = time();
$m2->{h}->signal('KILL');
$m2->{h}->finish;
$node->poll_query_until('postgres', q{
SELECT count(*) = 1 AND sum(cardinality(partitions)) = 3 FROM topics.group_members
WHERE group_name = 'g1'}) or die 'the survivor never got every partition';
my $took = time() - $t0;
diag(sprintf('the survivor owned every partition %.1f s after the other member was killed', $took));
ok($took < 60, 'a killed member is replaced within its session timeout and a rebalance');

# positions committed by kcat are the pg_topics group's
$node->poll_query_until('postgres', q{
SELECT count(*) = 3 FROM topics.consumer_lag WHERE group_name = 'g1' AND lag = 0})
  or die 'kcat never committed its positions';
pass('kcat\'s commits show in topics.consumer_lag with lag 0');

# ---- one group, one kind of member
my ($ret, $stdout, $stderr) = $node->psql('postgres', q{SELECT count(*) FROM topics.poll(NULL::orders, 'g1')});
like($stderr, qr/consumer group "g1" of topic "orders" has Kafka consumers/,
	'SQL poll of a group with live Kafka members is refused');
($ret, $stdout, $stderr) = $node->psql('postgres',
	"\\set VERBOSITY sqlstate\nSELECT count(*) FROM topics.poll(NULL::orders, 'g1');");
like($stderr, qr/ERROR:  55006/, 'with SQLSTATE 55006');
$m1->{h}->kill_kill;
$m1->{h}->finish;

$node->safe_psql('postgres', q{
BEGIN; SELECT count(*) FROM topics.poll(NULL::orders, 'sqlg', consumer => 'c1', max_records => 1); COMMIT;});
my ($out, $err) = ('', '');
run([ 'kcat', '-b', $bootstrap, '-G', 'sqlg', '-X', 'session.timeout.ms=6000', '-e', 'orders' ],
	'>', \$out, '2>', \$err, timeout(30));
like($err, qr/Inconsistent group protocol/,
	'a Kafka consumer cannot join a group whose SQL members poll the topic');

# ---- exactly-once counting across a rebalance (confluent, sync commits in callbacks)
my $rb = client('ck_rebalance', 'rb', 'rbg', 300);
is($rb->{distinct}, 300, 'two confluent consumers joining and leaving read all 300 records');
diag("records delivered: $rb->{read} (duplicates: " . ($rb->{read} - $rb->{distinct}) . ')');
my @assigns = grep { $_->[1] eq 'assign' } @{ $rb->{events} };
ok((grep { $_->[0] eq 'c2' && @{ $_->[2] } } @assigns) >= 1,
	'the second consumer was assigned partitions by the rebalance');
is($node->safe_psql('postgres', q{SELECT sum(lag) FROM topics.consumer_lag WHERE group_name = 'rbg'}),
	'0', 'and the group ends with lag 0');

# ---- positions both ways
my $kp = client('kp_group', 'orders', 'kp', 0, 5, 'meta-x');
is_deeply($kp->{assigned}, [ 0, 1, 2 ], 'a kafka-python group member gets every partition');
is_deeply($kp->{committed}, [ 5, 'meta-x' ], 'its commit keeps the metadata, read back by committed()');
is($kp->{resumed}, 5, 'a restarted member of the group resumes at the committed position');
is($node->safe_psql('postgres',
	q{SELECT committed_offset FROM topics.consumer_lag WHERE group_name = 'kp' AND partition = 0}),
	'5', 'SQL sees the position kafka-python committed');

# a rename keeps the positions and what Kafka consumers committed with them
$node->safe_psql('postgres', q{ALTER TABLE orders RENAME TO orders_renamed});
is_deeply(client('kp_committed', 'orders_renamed', 'kp', 0), [ 5, 'meta-x' ],
	'after a rename, OffsetFetch gives the position and its metadata under the new name');
$node->restart;
wait_for_kafka_listener($kport);
is_deeply(client('kp_committed', 'orders_renamed', 'kp', 0), [ 5, 'meta-x' ],
	'and after a restart too');
$node->safe_psql('postgres', q{ALTER TABLE orders_renamed RENAME TO orders});
is_deeply(client('kp_committed', 'orders', 'kp', 0), [ 5, 'meta-x' ],
	'renamed back, the metadata is still there');

# compaction of the positions' log keeps it too: once kp's record is below
# the log start, its copy has the metadata
my $kp_record = $node->safe_psql('postgres',
	q{SELECT max("offset") FROM topics.consumer_offsets WHERE key->>'group' = 'kp'});
$node->safe_psql('postgres', q{SELECT count(*) FROM topics.poll(NULL::orders, 'filler', max_records => 1)});
$node->safe_psql('postgres',
	q{DO $$ BEGIN FOR i IN 1 .. 12000 LOOP PERFORM topics.commit('orders', 'filler', 1, i % 5); END LOOP; END $$});
ok($node->poll_query_until('postgres', qq{SELECT min("offset") > $kp_record FROM topics.consumer_offsets}),
	"compaction moves the start of the positions' log past kp's record");
is_deeply(client('kp_committed', 'orders', 'kp', 0), [ 5, 'meta-x' ],
	"OffsetFetch still gives kp's position with its metadata, from compaction's copy");

$node->safe_psql('postgres', q{SELECT topics.seek('orders', 'g1', 0, 2)});
($out, $err) = ('', '');
run([ 'kcat', '-b', $bootstrap, '-G', 'g1', '-X', 'session.timeout.ms=6000', '-f', '%p %o\n', '-e', 'orders' ],
	'>', \$out, '2>', \$err, timeout(60));
my ($first0) = map { (split / /)[1] } grep { /^0 / } split /\n/, $out;
is($first0, 2, 'after topics.seek, a kcat member of the group starts at the sought offset');

$node->safe_psql('postgres', q{SELECT topics.reset_group('orders', 'g1', 'earliest')});
is_deeply(client('ck_committed', 'orders', 'g1', 3), [ 0, 0, 0 ],
	'topics.reset_group is what confluent committed() reports');

# ---- the admin client's view of the groups
my $member = kcat_member('live');
$node->poll_query_until('postgres', q{
SELECT count(*) = 1 FROM topics.group_members WHERE group_name = 'live' AND cardinality(partitions) = 3})
  or die 'the live member never got its partitions';
my $groups = client('ck_list_groups');
my %by_id = map { $_->[0] => $_ } @$groups;
is_deeply($by_id{live}, [ 'live', 'Stable', 'range', 1 ],
	'AdminClient.list_groups describes a group with a member: Stable, its protocol, one member');
is_deeply($by_id{kp}, [ 'kp', 'Empty', '', 0 ],
	'and a group with positions and no members: Empty');
$member->{h}->kill_kill;
$member->{h}->finish;

# ---- the initial rebalance delay ends, whichever listener process serves
# the group's member (two listeners; each new group may land on either)
$node->safe_psql('postgres',
	'ALTER SYSTEM SET pg_topics.kafka_group_initial_rebalance_delay = 1000');
# a restart, not a reload: every listener must have the new delay
$node->restart;
wait_for_kafka_listener($kport);
my @waits = map { client('ck_first_assignment', 'orders', "delayed$_") } 1 .. 6;
diag('first assignment after (s): ' . join(' ', map { defined $_ ? sprintf('%.1f', $_) : 'never' } @waits));
ok(!(grep { !defined $_ || $_ > 30 } @waits),
	'a lone member of a new group is assigned once the initial rebalance delay is over');
ok(!(grep { defined $_ && $_ < 0.9 } @waits), 'and not before');

$node->stop;
done_testing();
