# Kafka topic names longer than a table name (63 bytes), up to Kafka's 249
# characters: such a topic's table has a shortened name and the Kafka name
# is kept in topics.kafka_topic_names.  Kafka clients create, list,
# produce to, consume in a group, commit and delete them by their Kafka
# names; SQL's create_topic maps a long name the same way or refuses one
# Kafka could not have (never truncating it); renaming the table ends the
# mapping; pg_dump carries it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('long_names');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport)
	  . "pg_topics.kafka_group_initial_rebalance_delay = 0\n");
$node->start;
wait_for_kafka_listener($kport);
$node->safe_psql('postgres', q{CREATE EXTENSION pg_topics});

sub client
{
	return kafka_script('long_names.py', $bootstrap, @_);
}

# names: Kafka Streams' internal topics are long; dots and capitals need
# a quoted table name
my $longest = 'Streams.app-' . ('x' x 227) . '-changelog';
my $over = $longest . 'z';
my $n63 = 'n' x 63;
my $stream = 'my-streams-application.with.a.long.id-KSTREAM-AGGREGATE-STATE-STORE-0000000001-repartition';
is(length($longest), 249, 'the longest name has 249 characters');

# ---- CreateTopics
is_deeply(client('create', $longest, $stream, $n63, $over),
	{ $longest => undef, $stream => undef, $n63 => undef, $over => 'InvalidTopicError' },
	'CreateTopics takes names of 249 and 63 characters, and refuses 250 (INVALID_TOPIC_EXCEPTION)');
is_deeply(client('create', $longest), { $longest => 'TopicAlreadyExistsError' },
	'a long name created twice: TOPIC_ALREADY_EXISTS');

my $mapped = $node->safe_psql('postgres', q{
SELECT string_agg(kafka_name || '|' || topic::text, ',' ORDER BY kafka_name)
FROM topics.kafka_topic_names});
my ($long_table) = $node->safe_psql('postgres',
	qq{SELECT c.relname FROM topics.kafka_topic_names n JOIN pg_class c ON c.oid = n.topic
	   WHERE n.kafka_name = '$longest'});
is(length($long_table), 63, 'a long name\'s table name has 63 bytes');
is(substr($long_table, 0, 46), substr($longest, 0, 46), 'and starts with the Kafka name');
like($long_table, qr/_[0-9a-f]{16}$/, 'and ends with 16 hex digits of its hash');
like($mapped, qr/^\Q$longest|"$long_table"\E,\Q$stream|"\E[^"]{63}"$/,
	'topics.kafka_topic_names has the two long names, not the 63-character one');
is($node->safe_psql('postgres', qq{SELECT count(*) FROM topics.topics WHERE topic = '"$n63"'::regclass}),
	'1', 'the 63-character name is a table of that name');

# ---- Metadata lists Kafka names only
my %listed = map { $_ => 1 } @{ client('listed') };
ok($listed{$longest} && $listed{$stream} && $listed{$n63}, 'Metadata lists the long names and the 63-character one');
ok(!$listed{$long_table}, 'not the mapped table\'s own name');
is_deeply(client('create', $long_table), { $long_table => 'TopicAlreadyExistsError' },
	'which cannot be created as a topic of its own');

# ---- produce, consume in a group, commit: kafka-python and librdkafka
my $rt = client('roundtrip', $longest, 'g-long', 6);
is($rt->{sent}, 6, 'kafka-python produces to a 249-character topic');
is_deeply($rt->{read}, [ map { "v$_" } 0 .. 5 ], 'and its group reads every record');
is_deeply($rt->{topics_of_records}, [$longest], 'named by the Kafka name');
is_deeply($rt->{committed}, $rt->{ends}, 'the group commits, and OffsetFetch answers, the end of each partition');
is($node->safe_psql('postgres', qq{
SELECT sum(committed_offset) FROM topics.consumer_lag
WHERE group_name = 'g-long' AND topic = 'public."$long_table"'::regclass}),
	'6', 'SQL sees the group\'s positions on the mapped table');
is($node->safe_psql('postgres', qq{SELECT count(*) FROM public."$long_table"}), '6',
	'and the records');

my $ck = client('ck_roundtrip', $stream, 'g-stream', 5);
is_deeply($ck->{errors}, [], 'librdkafka produces to a long topic');
is($ck->{read}, 5, 'and its group reads every record');
is_deeply($ck->{topics_of_records}, [$stream], 'named by the Kafka name');

# ---- Fetch v13+ names the topic by its id (librdkafka 2.8.0's consumer
# does): the id of a long name is that topic's, not its table name's
my ($long_meta) = @{ kafka_script('versions.py', $bootstrap, 'metadata', 12, $longest)->{topics} };
is($long_meta->{error}, 0, 'Metadata v12 gives the long name\'s topic id');
my $by_id = kafka_script('message_formats.py', $bootstrap, 'fetch', 13, $long_meta->{id}, 0);
is($by_id->{error}, 0, 'Fetch v13 by the id of a topic with a long name: no error');
is($by_id->{topic_id}, $long_meta->{id}, 'answered under that id');
my $in_0 = $node->safe_psql('postgres',
	qq{SELECT count(*) FROM public."$long_table" WHERE partition = 0});
ok($in_0 > 0, 'the roundtrip left records in partition 0');
is(scalar @{ $by_id->{records} }, $in_0, 'with the records of its partition 0');

# ---- the admin requests that list topics name them by their Kafka names
sub admin { return kafka_script('admin_apis.py', $bootstrap, @_); }
my $dirs = admin('describe_log_dirs', 4)->{results}[0]{topics};
ok(exists $dirs->{$longest} && !exists $dirs->{$long_table},
	'DescribeLogDirs of every topic names a long one by its Kafka name, not its table\'s');
is_deeply([ keys %{ admin('describe_log_dirs', 2, "$longest:0")->{results}[0]{topics} } ], [$longest],
	'and so does DescribeLogDirs of that topic');
my %acl_names = map { $_->[1] => 1 } @{ admin('describe_acls', 2, 1, '-', 1, '-', 1) };
ok($acl_names{$longest} && !$acl_names{$long_table},
	'DescribeAcls names a long topic by its Kafka name too');

# ---- the mapped table's own name is not a Kafka name
my $rt_short = eval { client('roundtrip', $long_table, 'g-short', 1) };
ok(!defined $rt_short, 'producing to the mapped table\'s own name fails (unknown topic)');

# ---- SQL: create_topic maps a long name that Kafka could have, refuses
# any other, and never truncates
my $sql_long = 'sql_' . ('y' x 80);
is($node->safe_psql('postgres', qq{SELECT topics.create_topic('$sql_long', 1, 'bytea', 'bytea')::text}),
	$node->safe_psql('postgres', qq{SELECT topic::text FROM topics.kafka_topic_names WHERE kafka_name = '$sql_long'}),
	'create_topic maps a long (legal) name and returns the mapped table');
my ($rc, $out, $err) = $node->psql('postgres',
	q{SELECT topics.create_topic('"} . ('with space ' x 7) . q{"')});
like($err, qr/ERROR:  topic name "(with space ){7}" is too long/, 'a long name Kafka could not have is refused');
like($err, qr/DETAIL:  A table name has at most 63 bytes/, 'saying why');
unlike($err, qr/NOTICE/, 'with no notice of truncation');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname LIKE 'with space%'}),
	'0', 'and nothing is created');
($rc, $out, $err) = $node->psql('postgres',
	qq{SELECT topics.create_topic('"} . ('Z' x 64) . q{"')});
is($rc, 0, 'a quoted long name with capitals is mapped too');
%listed = map { $_ => 1 } @{ client('listed') };
ok($listed{$sql_long} && $listed{ 'Z' x 64 }, 'Kafka lists the topics SQL created with long names');

# ---- renaming the table ends the mapping; renaming it back restores it
$node->safe_psql('postgres', qq{ALTER TABLE public."$long_table" RENAME TO renamed_long});
%listed = map { $_ => 1 } @{ client('listed') };
ok($listed{renamed_long} && !$listed{$longest},
	'a renamed mapped topic is listed by its new table name, not the long name');
$node->safe_psql('postgres', qq{ALTER TABLE renamed_long RENAME TO "$long_table"});
%listed = map { $_ => 1 } @{ client('listed') };
ok($listed{$longest} && !$listed{renamed_long}, 'renamed back, it has its long name again');

# ---- pg_dump carries the names
$node->safe_psql('postgres', 'CREATE DATABASE restored');
my $dump = $node->basedir . '/long.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('postgres') ], 'pg_dump');
{
	# pg_restore rebuilds topics in preserve mode (docs/operations.md)
	local $ENV{PGOPTIONS} = '-c session_replication_role=replica';
	$node->command_ok([ 'pg_restore', '-d', $node->connstr('restored'), $dump ], 'pg_restore');
}
my $names_sql = q{SELECT string_agg(kafka_name || '|' || topic::text, ',' ORDER BY kafka_name) FROM topics.kafka_topic_names};
is($node->safe_psql('restored', $names_sql), $node->safe_psql('postgres', $names_sql),
	'a restored database has the same Kafka names for the same tables');

# ---- DeleteTopics by the long name; dropping forgets the name
is(client('delete', $longest), undef, 'DeleteTopics drops a topic named by its long name');
is($node->safe_psql('postgres', qq{SELECT count(*) FROM topics.kafka_topic_names WHERE kafka_name = '$longest'}),
	'0', 'and its Kafka name is forgotten');
$node->safe_psql('postgres', qq{DROP TABLE public."} . $node->safe_psql('postgres',
	qq{SELECT c.relname FROM topics.kafka_topic_names n JOIN pg_class c ON c.oid = n.topic WHERE kafka_name = '$sql_long'}) . '"');
is($node->safe_psql('postgres', qq{SELECT count(*) FROM topics.kafka_topic_names WHERE kafka_name = '$sql_long'}),
	'0', 'DROP TABLE forgets it too');
is_deeply(client('create', $longest), { $longest => undef }, 'the long name can be created again');

# ---- DeleteTopics v6 by the id of a long name
my ($stream_meta) = @{ kafka_script('versions.py', $bootstrap, 'metadata', 12, $stream)->{topics} };
my ($deleted) = @{ kafka_script('configs.py', $bootstrap, 'delete_topics', 6, "id:$stream_meta->{id}") };
is_deeply([ @$deleted[ 0 .. 2 ] ], [ $stream, $stream_meta->{id}, 0 ],
	'DeleteTopics v6 by the id of a long name deletes that topic, answering its Kafka name');
is($node->safe_psql('postgres', qq{SELECT count(*) FROM topics.kafka_topic_names WHERE kafka_name = '$stream'}),
	'0', 'and its Kafka name is forgotten');

$node->stop;
done_testing();
