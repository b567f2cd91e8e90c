# Topic configs over Kafka, one model with SQL's topics.topic_configs and
# topics.alter_topic_configs: DescribeConfigs (0-4), AlterConfigs (0-2),
# IncrementalAlterConfigs (0-1), CreateTopics with configs (0-7) and
# DeleteTopics by name and topic id (0-6), raw at every version and through
# kafka-python's and confluent-kafka's admin clients, each checked against
# what the SQL view shows afterwards.  Bad input gets Kafka's codes: an
# unknown key or bad value INVALID_CONFIG (40) with SQL's 22023 message, an
# unknown topic UNKNOWN_TOPIC_OR_PARTITION (3), a topic the role may not
# read or does not own TOPIC_AUTHORIZATION_FAILED (29).  Clients act as role
# app (kafka_trust_role).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
my $node = PostgreSQL::Test::Cluster->new('configs');
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_trust_role = 'app'
});
$node->start;
wait_for_kafka_listener($kport);
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE ROLE app LOGIN;
GRANT CREATE ON SCHEMA public TO app;
SELECT topics.create_topic('secret', 1, 'bytea', 'bytea');
SELECT topics.create_topic('readable', 1, 'bytea', 'bytea');
GRANT SELECT ON readable TO app;
SET ROLE app;
SELECT topics.create_topic('cfg', 1, 'bytea', 'bytea',
	configs => '{"retention.ms": "604800000", "max.message.bytes": "5000"}');
});

sub kafka
{
	return kafka_script('configs.py', $bootstrap, @_);
}

# The view's rows of a topic: {name => [value, source]}
sub view
{
	my ($topic) = @_;
	my %rows = map { my @f = split /\|/; ($f[0] => [ $f[1], $f[2] ]) }
	  split /\n/, $node->safe_psql('postgres',
		"SELECT name, value, source FROM topics.topic_configs WHERE topic = '$topic'::regclass");
	return \%rows;
}

# The view's rows as DescribeConfigs v1+ should answer them:
# {name => [value, read_only, source]}, Kafka's sources
my %source = (topic => 1, default => 5, server => 4);
sub expected
{
	my ($topic) = @_;
	my $v = view($topic);
	return { map { ($_ => [ $v->{$_}[0], 0, $source{ $v->{$_}[1] } ]) } keys %$v };
}

# ---- DescribeConfigs at every version: what the view shows
my $want = expected('cfg');
is(scalar(keys %$want), 13, 'the view shows 13 keys');
for my $v (0 .. 4)
{
	my $r = kafka('describe', $v, 'true', 'topic:cfg')->[0];
	is_deeply([ @$r[ 0 .. 3 ] ], [ 0, undef, 2, 'cfg' ], "DescribeConfigs v$v: answered");
	my %got;
	for my $k (keys %{ $r->[4] })
	{
		my $c = $r->[4]{$k};
		# v0: IsDefault instead of the source
		$got{$k} = [ $c->[0], $c->[1] ? 1 : 0,
			$v == 0 ? ($c->[2] ? 5 : $want->{$k}[2]) : $c->[2] ];
		is($c->[3], 0, "v$v $k is not sensitive") if $k eq 'retention.ms';
		is_deeply($c->[4], [ [ $k, $c->[0], $c->[2] ] ], "v$v $k: its synonym, itself")
		  if $v >= 1 && $k eq 'retention.ms';
		is_deeply([ @$c[ 5, 6 ] ], [ 5, undef ], "v$v $k: LONG, no documentation")
		  if $v >= 3 && $k eq 'retention.ms';
	}
	if ($v == 0)
	{
		# v0 tells only default or not: a server value reads as not default
		$_->[2] = $_->[2] == 4 ? 4 : $_->[2] for values %got;
	}
	is_deeply(\%got, $want, "v$v: every key, value and source the view shows");
}
is_deeply([ sort keys %{ kafka('describe', 2, 'false', 'topic:cfg:retention.ms,segment.ms,nope')->[0][4] } ],
	[ 'retention.ms', 'segment.ms' ], 'the keys asked for, unknown ones left out');
is_deeply(kafka('describe', 1, 'false', 'topic:cfg:retention.ms')->[0][4]{'retention.ms'}[4], [],
	'no synonyms unless asked');
my @errors = map { [ @$_[ 0, 3 ] ] } @{ kafka('describe', 4, 'false', 'topic:no_such_topic', 'topic:secret', 'topic:readable', '32:g') };
is_deeply(\@errors, [ [ 3, 'no_such_topic' ], [ 29, 'secret' ], [ 0, 'readable' ], [ 42, 'g' ] ],
	'an unknown topic UNKNOWN_TOPIC_OR_PARTITION, one without SELECT TOPIC_AUTHORIZATION_FAILED, '
	  . 'a readable one answered, a group resource INVALID_REQUEST');

# __consumer_offsets: described to those Metadata lists it to, read-only;
# never altered
is(kafka('describe', 1, 'false', 'topic:__consumer_offsets')->[0][0], 3,
	'__consumer_offsets, to a role it is not listed to: UNKNOWN_TOPIC_OR_PARTITION');
$node->safe_psql('postgres', 'GRANT pg_monitor TO app');
my $co = kafka('describe', 1, 'false', 'topic:__consumer_offsets')->[0];
is_deeply([ $co->[0], scalar(keys %{ $co->[4] }), (grep { !$_->[1] } values %{ $co->[4] }) ], [ 0, 13 ],
	'to a pg_monitor member: every key, each read-only');
$node->safe_psql('postgres', 'REVOKE pg_monitor FROM app');
is_deeply([ map { $_->[0] } @{ kafka('alter', 2, 'false', 'topic:__consumer_offsets retention.ms=1') },
		@{ kafka('incremental', 1, 'false', 'topic:__consumer_offsets 0:retention.ms=1') } ],
	[ 29, 29 ], 'altering it: TOPIC_AUTHORIZATION_FAILED');

# ---- the broker: its settings, read-only
my $b = kafka('describe', 3, 'false', 'broker:')->[0];
is($b->[0], 0, 'the broker by an empty name: answered');
is_deeply($b->[4]{'auto.create.topics.enable'}, [ 'false', 1, 4, 0, [], 1, undef ],
	'auto.create.topics.enable: pg_topics.kafka_auto_create_topics, read-only, static, BOOLEAN');
is($b->[4]{'delete.topic.enable'}[0], 'true', 'delete.topic.enable (kafka-ui reads it)');
is($b->[4]{'num.partitions'}[0], '1', 'num.partitions: pg_topics.kafka_default_partitions');
my $id = $b->[4]{'broker.id'}[0];
is(kafka('describe', 3, 'false', "broker:$id")->[0][0], 0, 'the broker by its id: answered');
is(kafka('describe', 3, 'false', 'broker:' . ($id + 1))->[0][0], 42, 'another broker id: INVALID_REQUEST');

# ---- AlterConfigs at every version: the whole set
is_deeply(kafka('alter', 0, 'false', 'topic:cfg segment.ms=600000 retention.ms=3600000'),
	[ [ 0, undef, 2, 'cfg' ] ], 'AlterConfigs v0: applied');
is_deeply([ map { "$_=" . view('cfg')->{$_}[0] . '/' . view('cfg')->{$_}[1] } qw(segment.ms retention.ms max.message.bytes) ],
	[ 'segment.ms=600000/topic', 'retention.ms=3600000/topic', 'max.message.bytes=1048576/server' ],
	'the view: the keys named set, max.message.bytes (not named) back to the server value');
is_deeply(kafka('alter', 1, 'true', 'topic:cfg retention.ms=1'), [ [ 0, undef, 2, 'cfg' ] ],
	'v1 validate_only: accepted');
is(view('cfg')->{'retention.ms'}[0], '3600000', 'and nothing changed');
my $bad = kafka('alter', 2, 'false', 'topic:cfg retention.ms=7200000 segment.ms=soon');
is($bad->[0][0], 40, 'v2, a bad value: INVALID_CONFIG');
my (undef, undef, $sql_err) = $node->psql('postgres',
	q{SET ROLE app; SELECT topics.alter_topic_configs('cfg', '{"segment.ms": "soon"}')});
like($sql_err, qr/\Q$bad->[0][1]\E/, "with SQL's message: $bad->[0][1]");
is(view('cfg')->{'retention.ms'}[0], '3600000', 'nothing of the resource applied');
# what DescribeConfigs answers may be set back as it is, as tools that
# alter a topic's whole set do (librdkafka's test_AlterConfigs_simple):
# segment.ms's "never" (9223372036854775807) too
$node->safe_psql('postgres', q{SET ROLE app; SELECT topics.create_topic('whole', 1, 'bytea', 'bytea')});
my $described = kafka('describe', 1, 'false', 'topic:whole')->[0][4];
is($described->{'segment.ms'}[0], '9223372036854775807', 'segment.ms without retention: never');
is_deeply(kafka('alter', 1, 'false', 'topic:whole '
		  . join(' ', map { "$_=$described->{$_}[0]" } sort keys %$described)),
	[ [ 0, undef, 2, 'whole' ] ], 'AlterConfigs of every value DescribeConfigs answered: applied');
is_deeply({ map { ($_ => $described->{$_}[0]) } keys %{ view('whole') } },
	{ map { ($_ => view('whole')->{$_}[0]) } keys %{ view('whole') } },
	'the view shows the values described');
is(view('whole')->{'segment.ms'}[1], 'topic', 'segment.ms is the topic\'s now');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.produce_batch('whole', ARRAY['\\x01'::bytea])}),
	'1', 'the topic takes records with segment.ms never');
my $two = kafka('alter', 2, 'false', 'topic:cfg retention.mss=1 / topic:secret retention.ms=1 / topic:no_such_topic retention.ms=1 / broker:1 num.partitions=3');
is_deeply([ map { $_->[0] } @$two ], [ 40, 29, 3, 42 ],
	'an unknown key INVALID_CONFIG, a topic not owned TOPIC_AUTHORIZATION_FAILED, an unknown topic '
	  . 'UNKNOWN_TOPIC_OR_PARTITION, the broker INVALID_REQUEST');
like($two->[0][1], qr/unknown topic config "retention.mss"/, 'naming the key');
my $compact = kafka('alter', 2, 'true', 'topic:cfg cleanup.policy=compact');
is($compact->[0][0], 0, 'cleanup.policy=compact: accepted (validate only)');
is(view('cfg')->{'cleanup.policy'}[0], 'delete', 'and not applied');

# one resource fails, the other is applied
$node->safe_psql('postgres', 'ALTER TABLE readable OWNER TO app');
my $mixed = kafka('alter', 2, 'false', 'topic:cfg retention.ms=-2 / topic:readable retention.ms=86400000');
is_deeply([ map { $_->[0] } @$mixed ], [ 40, 0 ], 'two resources: one refused, the other applied');
is_deeply([ view('cfg')->{'retention.ms'}[0], view('readable')->{'retention.ms'}[0] ],
	[ '3600000', '86400000' ], 'the view: each as answered');

# ---- IncrementalAlterConfigs at every version
is_deeply(kafka('incremental', 0, 'false', 'topic:cfg 0:max.message.bytes=3000 1:segment.ms=-'),
	[ [ 0, undef, 2, 'cfg' ] ], 'IncrementalAlterConfigs v0: SET and DELETE');
is_deeply([ view('cfg')->{'max.message.bytes'}, view('cfg')->{'segment.ms'}[1], view('cfg')->{'retention.ms'}[0] ],
	[ [ '3000', 'topic' ], 'default', '3600000' ],
	'the view: set, reset, and the key not named kept');
is_deeply(kafka('incremental', 1, 'true', 'topic:cfg 0:max.message.bytes=4000'), [ [ 0, undef, 2, 'cfg' ] ],
	'v1 validate_only: accepted');
is(view('cfg')->{'max.message.bytes'}[0], '3000', 'and nothing changed');
is_deeply(kafka('incremental', 1, 'false', 'topic:cfg 2:cleanup.policy=delete'), [ [ 0, undef, 2, 'cfg' ] ],
	'APPEND delete to cleanup.policy delete: accepted, the same list');
is_deeply(view('cfg')->{'cleanup.policy'}, [ 'delete', 'topic' ], 'the view: delete, set by the topic');
my $app = kafka('incremental', 1, 'true', 'topic:cfg 2:cleanup.policy=compact');
is($app->[0][0], 0, 'APPEND compact: accepted (validate only)');
my $bad_policy = kafka('incremental', 1, 'false', 'topic:cfg 2:cleanup.policy=remove');
is($bad_policy->[0][0], 40, 'APPEND an unknown policy: INVALID_CONFIG');
like($bad_policy->[0][1], qr/"delete,remove" for topic config "cleanup.policy": it takes delete, compact or compact,delete/,
	"with SQL's message");
my $inc = kafka('incremental', 1, 'false', 'topic:cfg 2:retention.ms=1 / topic:cfg 7:retention.ms=1 / topic:cfg 0:nope=1 / topic:cfg 0:segment.bytes=1');
is_deeply([ map { $_->[0] } @$inc ], [ 42, 42, 40, 40 ],
	'APPEND to a key that is no list INVALID_REQUEST, an unknown operation INVALID_REQUEST, '
	  . 'an unknown key and a bad value INVALID_CONFIG');
is_deeply(kafka('incremental', 1, 'false', 'topic:secret 0:retention.ms=1')->[0][0], 29,
	'a topic not owned: TOPIC_AUTHORIZATION_FAILED');

# ---- CreateTopics with configs at every version
for my $v (0 .. 7)
{
	my $r = kafka('create_topics', $v, 'false', "c$v:2:-1:retention.ms=60000,segment.bytes=1048576,cleanup.policy=-")->[0];
	is($r->{error}, 0, "CreateTopics v$v: created");
	is_deeply([ view("c$v")->{'retention.ms'}, view("c$v")->{'segment.bytes'}, view("c$v")->{'cleanup.policy'} ],
		[ [ '60000', 'topic' ], [ '1048576', 'topic' ], [ 'delete', 'default' ] ],
		"v$v: the view shows its configs (a null value: the default)");
	if ($v >= 5)
	{
		my $e = expected("c$v");
		is_deeply([ $r->{partitions}, $r->{factor} ], [ 2, 1 ], "v$v: partitions and replication factor answered");
		is_deeply({ map { ($_ => [ $r->{configs}{$_}[0], 0, $r->{configs}{$_}[2] ]) } keys %{ $r->{configs} } },
			$e, "v$v: every config answered as the view shows it");
	}
	if ($v >= 7)
	{
		isnt($r->{topic_id}, '0' x 32, 'v7: a topic id');
	}
}
my $ct = kafka('create_topics', 7, 'false', 'bad1:1:-1:retention.mss=1', 'bad2:1:-1:retention.ms=x',
	'bad3:1:-1:compression.type=gzip', 'bad4:1:3', 'bad5:a2@' . ($id + 1) . ':-1', 'good:a2@' . $id . ':-1');
is_deeply([ map { $_->{error} } @$ct ], [ 40, 40, 40, 38, 39, 0 ],
	'an unknown key, a bad value, gzip: INVALID_CONFIG; replication factor 3 INVALID_REPLICATION_FACTOR; '
	  . 'an assignment to another broker INVALID_REPLICA_ASSIGNMENT; to this one created');
like($ct->[0]{message}, qr/unknown topic config "retention.mss"/, 'naming the key');
like($ct->[2]{message}, qr/stored compressed with zstd or lz4 only/, "gzip: SQL's message");
my $zc = kafka('create_topics', 7, 'false', 'zstd_topic:1:-1:compression.type=zstd')->[0];
is($zc->{error}, 0, 'CreateTopics with compression.type=zstd: created');
is_deeply(view('zstd_topic')->{'compression.type'}, [ 'zstd', 'topic' ], 'the view: a zstd topic');
my $cmp = kafka('create_topics', 7, 'false', 'compacted:1:-1:cleanup.policy=compact,min.cleanable.dirty.ratio=0.1')->[0];
is($cmp->{error}, 0, 'CreateTopics with cleanup.policy=compact: created');
is_deeply([ view('compacted')->{'cleanup.policy'}, view('compacted')->{'min.cleanable.dirty.ratio'} ],
	[ [ 'compact', 'topic' ], [ '0.1', 'topic' ] ], 'the view: a compacted topic');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.topics WHERE topic::text LIKE 'bad%'}), 0,
	'none of them created');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.offsets('good')}), 2, 'good: two partitions');
my $vo = kafka('create_topics', 5, 'true', 'trial:1:1:retention.ms=1000')->[0];
is_deeply([ $vo->{error}, $vo->{configs}{'retention.ms'} ], [ 0, [ '1000', 0, 1, 0 ] ],
	'validate_only: accepted, its configs answered');
is($node->safe_psql('postgres', q{SELECT to_regclass('trial') IS NULL}), 't', 'and not created');

# ---- DeleteTopics at every version, v6 by name and by topic id
for my $v (0 .. 5)
{
	my $r = kafka('delete_topics', $v, "c$v", 'no_such_topic');
	is_deeply([ map { [ @$_[ 0, 1 ] ] } @$r ], [ [ "c$v", 0 ], [ 'no_such_topic', 3 ] ],
		"DeleteTopics v$v: deleted; an unknown topic UNKNOWN_TOPIC_OR_PARTITION");
}
my $c7_id = kafka('create_topics', 7, 'false', 'byid:1:1')->[0]{topic_id};
my $r6 = kafka('delete_topics', 6, "id:$c7_id", 'c6', 'id:' . ('ab' x 16), 'secret');
is_deeply([ map { [ @$_[ 0 .. 2 ] ] } @$r6 ],
	[ [ 'byid', $c7_id, 0 ], [ 'c6', $r6->[1][1], 0 ],
	  [ undef, 'ab' x 16, 100 ], [ 'secret', $r6->[3][1], 29 ] ],
	'v6: by id (its name answered), by name, an unknown id UNKNOWN_TOPIC_ID, one not owned TOPIC_AUTHORIZATION_FAILED');
like($r6->[3][3] // '', qr/must be owner/, "v6: with SQL's message");
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.topics WHERE topic::text IN ('byid', 'c6', 'c7')}), 1,
	'byid and c6 are gone');

# ---- the clients
my $before = view('cfg');
my $kp = kafka('clients_kafka_python', 'cfg', 'kp_new');
is_deeply($kp->{create}, [ [ 'kp_new', 0, undef ] ], "kafka-python's create_topics with configs");
is_deeply([ view('kp_new')->{'retention.ms'}, view('kp_new')->{'segment.bytes'} ],
	[ [ '3600000', 'topic' ], [ '1048576', 'topic' ] ], 'the view shows them');
is($kp->{create_unknown_key}[0], 'InvalidConfigurationError', 'an unknown key: InvalidConfigurationError');
is_deeply($kp->{describe}{configs}, { map { ($_ => $before->{$_}[0]) } keys %$before },
	"kafka-python's describe_configs: the view's values");
is_deeply($kp->{after_alter}{configs}, { map { ($_ => view('cfg')->{$_}[0]) } keys %{ view('cfg') } },
	"and after alter_configs, the view's new values");
is_deeply($kp->{alter}, [ [ 0, undef ] ], "kafka-python's alter_configs");
is_deeply([ map { view('cfg')->{$_} } qw(retention.ms max.message.bytes cleanup.policy) ],
	[ [ '7200000', 'topic' ], [ '2000', 'topic' ], [ 'delete', 'default' ] ],
	'the view: the set given, the rest back to defaults');
is($kp->{alter_bad_value}[0][0], 40, 'a bad value: INVALID_CONFIG');

my $ck_before = view('cfg');
my $ck = kafka('clients_confluent_kafka', 'cfg', 'ck_new', $id);
is($ck->{'create ck_new'}, 'ok', "confluent-kafka's create_topics with configs");
is_deeply([ view('ck_new')->{'retention.bytes'}, view('ck_new')->{'message.timestamp.type'} ],
	[ [ '1000000', 'topic' ], [ 'LogAppendTime', 'topic' ] ], 'the view shows them (CreateTime stored as what the log does)');
is($ck->{'create ck_new_compact'}, 'ok', "confluent-kafka's create_topics with cleanup.policy=compact");
is(view('ck_new_compact')->{'cleanup.policy'}[0], 'compact', 'the view: compacted');
is_deeply({ map { ($_ => $ck->{describe}{$_}[0]) } keys %{ $ck->{describe} } },
	{ map { ($_ => $ck_before->{$_}[0]) } keys %$ck_before },
	"confluent-kafka's describe_configs: the view's values");
is($ck->{describe}{'retention.ms'}[1], 1, 'retention.ms: DYNAMIC_TOPIC_CONFIG');
is($ck->{describe_broker}{'delete.topic.enable'}[0], 'true', 'the broker described');
is($ck->{describe_unknown}[0], 'UNKNOWN_TOPIC_OR_PART', 'an unknown topic');
is($ck->{alter}, 'ok', "confluent-kafka's alter_configs");
is_deeply([ map { view('cfg')->{$_} } qw(segment.ms retention.ms) ],
	[ [ '600000', 'topic' ], [ '-1', 'default' ] ], 'the view: the set given, the rest back to defaults');
is($ck->{alter_compact}, 'ok', 'alter to compact (validate only): accepted');

# ---- a fenced node: reads answered, changes NOT_CONTROLLER (41)
$node->safe_psql('postgres', q{
ALTER SYSTEM SET default_transaction_read_only = on;
SELECT pg_reload_conf();});
$node->poll_query_until('postgres', q{SELECT current_setting('default_transaction_read_only') = 'on'})
  or die 'the server did not reload its settings';
# every listener process reloads on its own, at once
sleep 1;
is(kafka('describe', 4, 'false', 'topic:cfg')->[0][0], 0, 'fenced: DescribeConfigs answered');
is_deeply([ map { $_->[0] } @{ kafka('alter', 2, 'false', 'topic:cfg retention.ms=1') },
		@{ kafka('incremental', 1, 'false', 'topic:cfg 0:retention.ms=1') } ],
	[ 41, 41 ], 'fenced: AlterConfigs and IncrementalAlterConfigs NOT_CONTROLLER');
is_deeply([ kafka('create_topics', 7, 'false', 'fenced:1:1')->[0]{error},
		kafka('delete_topics', 6, 'cfg')->[0][2] ],
	[ 41, 41 ], 'fenced: CreateTopics and DeleteTopics NOT_CONTROLLER');
is(view('cfg')->{'retention.ms'}[1], 'default', 'and nothing changed');

$node->stop;
done_testing();
