# kafkajs, the Node.js client, against the listener: the version that
# test/kafka/kafkajs/package-lock.json pins, installed from npm's registry
# into a directory of this test (npm's cache too), and run as the test's
# user by test/kafka/kafkajs/kafkajs.js, which asserts kafkajs's answers.
# Skipped, saying so, only when npm's registry cannot be reached.
#
# 1. Admin: createTopics with configs (retention.ms, retention.bytes), and
#    one with an unknown cleanup.policy refused (INVALID_CONFIG, with a
#    message that names the config); listTopics, fetchTopicMetadata.
# 2. Producer: sends plain and in gzip; the records are in the table,
#    keys, values and headers as sent, each key in the partition SQL
#    routes it to.
# 3. A consumer group (eachMessage, committing) reads them all; another
#    consumer of the group, after more sends, reads only the new records:
#    the group's commits are topics.consumer_lag's.
# 4. Admin: fetchTopicOffsets, fetchOffsets, resetOffsets (-2 committed
#    and answered back, resolveOffsets turning it into the log start),
#    setOffsets; listGroups, describeGroups, deleteGroups; createPartitions,
#    deleteTopicRecords, describeCluster; describeConfigs and alterConfigs
#    (see $config_apis); deleteTopics.  Each checked in SQL.
# 5. SASL: SCRAM-SHA-256 and PLAIN as a role of its own.
use strict;
use warnings;
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();
use PgTopicsTest;
use PgTopicsKafkajs;

# DescribeConfigs and AlterConfigs, which kafkajs's describeConfigs and
# alterConfigs send: 1 once the listener serves them.  At 0 the test checks
# that kafkajs finds them not served: it fails once they are, until this
# is set to 1.
my $config_apis = 1;

# ---- kafkajs from npm's registry, into a directory of this test
install_kafkajs();
my $js = kafka_script_path('kafkajs');

# ---- the server
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
my $node = PostgreSQL::Test::Cluster->new('kafkajs');
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_trust_role = 'app'
pg_topics.kafka_group_initial_rebalance_delay = 0
});
$node->start;
wait_for_kafka_listener($kport);
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE ROLE app LOGIN;
GRANT CREATE ON SCHEMA public TO app;
});

# Run a command of kafkajs.js: whether it passed its checks, its JSON
# answer and its errors
sub kafkajs_run
{
	my (@args) = @_;
	my ($out, $err) = ('', '');
	my $started = Time::HiRes::time();
	my $ok = IPC::Run::run([ 'node', "$js/kafkajs.js", $bootstrap, @args ],
		'>', \$out, '2>', \$err, IPC::Run::timeout(180));
	# how long it took, and kafkajs's own warnings and errors (refused
	# requests are among them)
	note(sprintf("kafkajs @args: %.1f s", Time::HiRes::time() - $started)
		  . ($ok && $err ne '' ? "\n$err" : ''));
	return ($ok, $ok ? decode_json($out) : undef, $err);
}

# Run a command of kafkajs.js as a test of its own: its JSON answer
sub kafkajs
{
	my (@args) = @_;
	my ($ok, $answer, $err) = kafkajs_run(@args);
	ok($ok, "kafkajs @args") or diag($err);
	return $answer;
}

sub sql
{
	return $node->safe_psql('postgres', $_[0]);
}

# ---- 1. topics
is_deeply(kafkajs('create_topic', 'js_events', 3, 'retention.ms=86400000', 'retention.bytes=1048576'),
	{ partitions => 3 }, 'createTopics: three partitions');
is(sql(q{SELECT format('%s %s %s', partitions, retention, retention_bytes) FROM topics.topics
	WHERE topic = 'js_events'::regclass}),
	'3 1 day 1048576', 'the topic, its retention and retention bytes');
is(sql(q{SELECT string_agg(format('%s=%s', name, value), ' ' ORDER BY name) FROM topics.topic_configs
	WHERE topic = 'js_events'::regclass AND source = 'topic'}),
	'retention.bytes=1048576 retention.ms=86400000', 'topics.topic_configs: the configs given');
is(sql(q{SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'js_events'::regclass}),
	'app', 'owned by the connection\'s role');

my $refused = kafkajs('create_topic_refused', 'js_refused', 'cleanup.policy=remove');
is($refused->{error}, 40, 'cleanup.policy=remove: INVALID_CONFIG');
like($refused->{message}, qr/cleanup\.policy/, 'its message names the config');
is(sql(q{SELECT to_regclass('js_refused') IS NULL}), 't', 'the refused topic is not made');

# ---- 2. records
my $sent = kafkajs('produce', 'js_events', 'a', 10);
is(sql(q{SELECT count(*) FROM js_events}), 20, 'twenty records stored');
is(sql(q{SELECT count(*) FROM js_events WHERE convert_from(value, 'UTF8') LIKE 'a-gzip-%'}), 10,
	'ten of them sent in gzip');
is(sql(q{SELECT count(*) FROM js_events
	WHERE convert_from(key, 'UTF8') = 'k' || (split_part(convert_from(value, 'UTF8'), '-', 3)::int % 7)
	  AND headers = '{"sent_by": "kafkajs"}'}),
	20, 'each with its key and header');
is(sql(q{SELECT count(*) FROM js_events
	WHERE partition <> topics.partition_for_insert('js_events'::regclass, key)}), 0,
	'kafkajs\'s default partitioner puts each key where SQL would');
# the offsets kafkajs was given are the records' offsets
my $offsets_ok = 1;
for my $kind ('none', 'gzip')
{
	for my $p (@{ $sent->{$kind} // [] })
	{
		my $first = sql(qq{SELECT convert_from(value, 'UTF8') FROM js_events
			WHERE partition = $p->{partition} AND "offset" = $p->{base_offset}});
		$offsets_ok = 0 unless $first =~ /^a-$kind-/;
	}
}
ok($sent && $offsets_ok, 'each send\'s first offset holds its first record there');

# ---- 3. a consumer group, and a restart of its consumer
my $consumed = kafkajs('consume', 'js_events', 'js_group', 'a', 10);
is($consumed->{received}, 20, 'the consumer read the twenty records');
is(sql(q{SELECT string_agg(format('%s:%s/%s', partition, committed_offset, high_watermark), ' '
	ORDER BY partition) FILTER (WHERE committed_offset IS DISTINCT FROM high_watermark
	  AND high_watermark > 0), sum(lag)
	FROM topics.consumer_lag WHERE group_name = 'js_group' AND topic = 'js_events'::regclass}),
	'|0', 'topics.consumer_lag: the group committed every partition\'s end');
kafkajs('produce', 'js_events', 'b', 5);
is(sql(q{SELECT sum(lag) FROM topics.consumer_lag WHERE group_name = 'js_group'}), 10,
	'ten more to read');
$consumed = kafkajs('consume', 'js_events', 'js_group', 'b', 5);
is($consumed->{received}, 10, 'the restarted consumer read the ten new records and no other');
is(sql(q{SELECT sum(lag) FROM topics.consumer_lag WHERE group_name = 'js_group'}), 0,
	'and committed them');

# ---- 4. admin
my $ends = sql(q{SELECT string_agg(format('%s', high_watermark), ',' ORDER BY partition)
	FROM topics.offsets('js_events')});
my $offsets = kafkajs('offsets', 'js_events', 'js_group', 1);
is(join(',', map { $offsets->{watermarks}{$_}{high} } 0 .. 2), $ends,
	'fetchTopicOffsets: the high watermarks');
is(join(',', map { $offsets->{before}{$_} } 0 .. 2),
	join(',', map { $_ == 0 ? -1 : $_ } split /,/, $ends),
	'fetchOffsets: the group\'s commits (-1 where none)');
# kafkajs commits -2 to reset to the earliest, which is answered back;
# resolveOffsets turns it into the log start, and commits that
is_deeply($offsets->{reset}, { 0 => -2, 1 => -2, 2 => -2 },
	'resetOffsets to the earliest: fetchOffsets answers the -2 committed');
my %lows = map { $_ => $offsets->{watermarks}{$_}{low} } 0 .. 2;
is_deeply($offsets->{resolved}, \%lows,
	'fetchOffsets with resolveOffsets: the log start of each partition');
is_deeply($offsets->{after_resolve}, \%lows, 'which kafkajs committed');
is_deeply($offsets->{set}, { %lows, 0 => 1 }, 'setOffsets: partition 0 at 1');
is(sql(q{SELECT string_agg(format('%s:%s', partition, coalesce(committed_offset::text, 'none')), ' '
	ORDER BY partition) FROM topics.consumer_lag WHERE group_name = 'js_group'}),
	join(' ', '0:1', map { "$_:$lows{$_}" } 1 .. 2), 'topics.consumer_lag: those positions');

is_deeply(kafkajs('groups', 'js_group'), { state => 'Empty', protocol_type => 'consumer' },
	'listGroups, describeGroups: the group and no member; deleteGroups');
is(sql(q{SELECT count(*) FROM topics.consumer_lag WHERE group_name = 'js_group'}), 0,
	'the group is gone');

is_deeply(kafkajs('create_partitions', 'js_events', 5), { partitions => 5 },
	'createPartitions: five');
is(sql(q{SELECT partitions FROM topics.topics WHERE topic = 'js_events'::regclass}), 5,
	'topics.topics: five partitions');

my $p2 = sql(q{SELECT high_watermark FROM topics.offsets('js_events') WHERE partition = 2});
cmp_ok($p2, '>', 3, 'partition 2 has more than three records');
is_deeply(kafkajs('delete_records', 'js_events', 2, 3), { low => 3, high => $p2 + 0 },
	'deleteTopicRecords below offset 3 of partition 2');
is(sql(q{SELECT log_start_offset FROM topics.offsets('js_events') WHERE partition = 2}), 3,
	'partition 2 starts at 3');
is(sql(q{SELECT min("offset") FROM js_events WHERE partition = 2}), 3,
	'its records below 3 are gone');

# SASL: a role with a password, whose name SCRAM must escape, sees the
# topics it may read
sql(q{CREATE ROLE "js=reader,1" LOGIN PASSWORD 'pass,word=1';
	GRANT SELECT ON js_events TO "js=reader,1"});
is_deeply(kafkajs('sasl', 'js=reader,1', 'pass,word=1'),
	{ 'scram-sha-256' => ['js_events'], plain => ['js_events'] },
	'SASL SCRAM-SHA-256 and PLAIN: the topics the role may read; a wrong password refused');

my $cluster = kafkajs('cluster');
is_deeply($cluster->{brokers}, [ { nodeId => $cluster->{controller}, host => '127.0.0.1', port => $kport } ],
	'describeCluster: the listener, the controller');

if ($config_apis)
{
	my $configs = kafkajs('configs', 'js_events', 'retention.ms', '3600000');
	is($configs->{before}{'retention.ms'}{value}, '86400000', 'describeConfigs: retention.ms');
	is($configs->{before}{'cleanup.policy'}{value}, 'delete', 'describeConfigs: cleanup.policy');
	is(sql(q{SELECT value FROM topics.topic_configs
		WHERE topic = 'js_events'::regclass AND name = 'retention.ms'}),
		'3600000', 'alterConfigs: topics.topic_configs shows the new retention.ms');
	is(sql(q{SELECT retention FROM topics.topics WHERE topic = 'js_events'::regclass}),
		'01:00:00', 'the topic\'s retention');
	is(sql(q{SELECT source FROM topics.topic_configs
		WHERE topic = 'js_events'::regclass AND name = 'retention.bytes'}),
		'default', 'AlterConfigs sets every config: retention.bytes, not given, is back to its default');
}
else
{
	my ($ok, undef, $err) = kafkajs_run('configs', 'js_events', 'retention.ms', '3600000');
	ok(!$ok && $err =~ /KafkaJSServerDoesNotSupportApiKey/,
		'describeConfigs: not served yet (set $config_apis to 1 when it is)')
	  or diag($err);
}

is_deeply(kafkajs('delete_topic', 'js_events'), { deleted => 'js_events' }, 'deleteTopics');
is(sql(q{SELECT to_regclass('js_events') IS NULL AND NOT EXISTS (SELECT FROM topics.topics)}), 't',
	'the topic and its table are gone');

$node->stop;
done_testing();
