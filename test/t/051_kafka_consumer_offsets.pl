# Kafka's __consumer_offsets topic, read-only, served from
# topics.consumer_offsets: kafka-python and confluent-kafka read it, its
# records decode with Kafka's schemas of offset commit records, and the
# latest offset of every group equals topics.consumer_lag's, whether SQL
# (poll, commit) or Kafka (OffsetCommit) committed it.  A role sees only the
# groups of the topics it may SELECT (pg_monitor: all) and only pg_monitor
# gets it listed; nobody produces to it or deletes it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('consumer_offsets');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_auth = 'scram-sha-256'
password_encryption = 'scram-sha-256'
pg_topics.kafka_group_initial_rebalance_delay = 0
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE ROLE olivia LOGIN PASSWORD 'oliviapw';
CREATE ROLE alice LOGIN PASSWORD 'alicepw';
CREATE ROLE watcher LOGIN PASSWORD 'watcherpw' IN ROLE pg_monitor;
GRANT CREATE ON SCHEMA public TO olivia;
SET ROLE olivia;
SELECT topics.create_topic('a', 2, 'text', 'text');
SELECT topics.create_topic('b', 1, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('a', (SELECT array_agg('v' || g) FROM generate_series(1, 10) g), partition => 0);
SELECT count(*) FROM topics.produce_batch('a', (SELECT array_agg('v' || g) FROM generate_series(1, 10) g), partition => 1);
SELECT count(*) FROM topics.produce_batch('b', (SELECT array_agg('v' || g) FROM generate_series(1, 10) g));
GRANT SELECT ON a TO alice;
-- SQL commits: poll commits its positions, commit sets one
SELECT count(*) FROM topics.poll(NULL::a, 'sqlpoll', max_records => 7);
SELECT count(*) FROM topics.poll(NULL::b, 'sqlcommit', max_records => 1);
SELECT topics.commit('b', 'sqlcommit', 0, 4);
SELECT topics.commit('b', 'sqlcommit', 0, 6);
SELECT count(*) FROM topics.poll(NULL::a, 'cleared', max_records => 1);
SELECT topics.commit('a', 'cleared', 0, 3);
RESET ROLE;
});
wait_for_kafka_listener($kport);

sub co
{
	my ($role, @args) = @_;
	return kafka_script('consumer_offsets.py', $bootstrap, $role, @args);
}

# Kafka commits: OffsetCommit with metadata, a negative one (kafkajs's
# resetOffsets commits -2), and a cleared position (a deleted group)
is(co('olivia', 'kafka_commit', 'a', 'kgroup', 5, 'kafka-meta'), 2, 'a Kafka consumer commits both partitions of a');
co('olivia', 'kafka_commit', 'b', 'kgroup', 9, 'nul\\x00byte');
co('olivia', 'kafka_commit', 'a', 'reset', -2, 'to-earliest');
$node->safe_psql('postgres', q{SET ROLE olivia; SELECT topics.delete_group('a', 'cleared')});

# what topics.consumer_lag shows a role: group/topic/partition => committed
sub lag_as
{
	my ($role) = @_;
	my %lag = map { my ($k, $v) = split /\|/; ($k => $v) } split /\n/,
	  $node->safe_psql('postgres', qq{
SET ROLE $role;
SELECT group_name || '/' || topic::text || '/' || partition, committed_offset
FROM topics.consumer_lag WHERE committed_offset IS NOT NULL});
	return \%lag;
}

my $w = co('watcher', 'read');
is_deeply($w->{partitions}, [0], '__consumer_offsets has one partition');
ok((grep { $_ eq '__consumer_offsets' } @{ $w->{listed} }), 'a pg_monitor member gets it listed');
is_deeply($w->{internal}, ['__consumer_offsets'], 'Metadata marks it internal, and nothing else');
ok($w->{increasing}, 'its offsets only increase');
is_deeply($w->{value_versions}, [1], 'the values are offset commit records of version 1');
my $lag = lag_as('watcher');
is_deeply([ grep { exists $lag->{$_} } qw(sqlpoll/a/0 sqlcommit/b/0 kgroup/a/0 kgroup/a/1 kgroup/b/0) ],
	[qw(sqlpoll/a/0 sqlcommit/b/0 kgroup/a/0 kgroup/a/1 kgroup/b/0)], 'consumer_lag has the positions committed');
is($lag->{'sqlcommit/b/0'}, 6, 'the latest of them');
is_deeply($w->{latest}, $lag,
	'the latest offset of every group, topic and partition equals topics.consumer_lag, SQL and Kafka commits alike');
ok((grep { $_ eq 'cleared/a/0' } @{ $w->{cleared} }), 'a cleared position ends with a tombstone');
is_deeply([ $w->{latest}{'reset/a/0'}, $w->{latest}{'reset/a/1'}, $w->{metadata}{'reset/a/0'} ],
	[ -2, -2, 'to-earliest' ], 'a negative commit is written as it was committed, with its metadata');
is($w->{metadata}{'kgroup/a/0'}, 'kafka-meta', 'a Kafka commit\'s metadata is in its record');
is($w->{metadata}{'kgroup/b/0'}, "nul\0byte", 'so is metadata with a NUL byte, byte for byte');
is($w->{end}{0}, $node->safe_psql('postgres', q{SELECT max("offset") + 1 FROM topics.consumer_offsets}),
	'its end is the end of topics.consumer_offsets');

# a role sees the groups of the topics it may SELECT, and no listing
my $al = co('alice', 'read');
is_deeply($al->{latest}, lag_as('alice'), 'a role reads only the positions consumer_lag shows it');
ok(!(grep { m{/b/} } keys %{ $al->{latest} }), 'none of a topic it may not SELECT');
ok(!(grep { $_ eq '__consumer_offsets' } @{ $al->{listed} }), 'and it is not listed to it');
is($al->{partitions}, undef, 'so kafka-python does not find its partitions');
is($al->{end}{0}, $w->{end}{0}, 'but it reads partition 0 by name to the same end');

# librdkafka reads it too
my $ck = co('watcher', 'ck_read');
is_deeply($ck->{groups}, [ 'cleared', 'kgroup', 'reset', 'sqlcommit', 'sqlpoll' ],
	'confluent-kafka reads it to the end and decodes every group');

# nobody writes it
is(co('watcher', 'produce'), 'InvalidTopicError', 'producing to it is INVALID_TOPIC_EXCEPTION');
is(co('watcher', 'delete'), 'TopicAuthorizationFailedError', 'deleting it is TOPIC_AUTHORIZATION_FAILED');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname = '__consumer_offsets'}), '0',
	'and nothing was created');

# a commit after a reader has read to the end: the reader gets it next
$node->safe_psql('postgres', q{SET ROLE olivia; SELECT topics.commit('b', 'sqlcommit', 0, 8)});
$w = co('watcher', 'read');
is($w->{latest}{'sqlcommit/b/0'}, 8, 'a later commit is the latest');

$node->stop;
done_testing();
