# Topics created on first use (pg_topics.kafka_auto_create_topics, Kafka's
# auto.create.topics.enable):
#
# 1. On: kcat and confluent-kafka producers write to topics that do not
#    exist; each is created with pg_topics.kafka_default_partitions
#    partitions, owned by the connection's role, and stores every record.
#    Metadata v4 with allow_auto_topic_creation false creates nothing
#    (UNKNOWN_TOPIC_OR_PARTITION); v0 creates (Kafka's default before v4).
# 2. Names Kafka cannot have are INVALID_TOPIC_EXCEPTION, never created.
# 3. Many connections of both listener processes asking at once for the
#    same new topics: every answer is the topic's partitions or
#    LEADER_NOT_AVAILABLE (ask again), each topic is made once, nothing
#    is logged as a failure.  A topic a SQL session is creating, not yet
#    committed, is LEADER_NOT_AVAILABLE, then the SQL session's.
# 4. A role without CREATE on the schema: TOPIC_AUTHORIZATION_FAILED,
#    nothing created.
# 5. Off: UNKNOWN_TOPIC_OR_PARTITION, the producer fails, nothing created.
# 6. A fenced node (default_transaction_read_only): LEADER_NOT_AVAILABLE,
#    nothing created, until the fence lifts.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
my $node = PostgreSQL::Test::Cluster->new('auto_create');
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_trust_role = 'app'
pg_topics.kafka_auto_create_topics = on
pg_topics.kafka_default_partitions = 3
});
$node->start;
wait_for_kafka_listener($kport);
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE ROLE app LOGIN;
CREATE ROLE nocreate LOGIN;
GRANT CREATE ON SCHEMA public TO app;
CREATE TABLE held_go ();
GRANT SELECT ON held_go TO app;
});

# Metadata of that version for @topics: {topic => [error, partitions]}
sub metadata
{
	my ($version, $allow, @topics) = @_;
	return kafka_script('auto_create.py', $bootstrap, 'metadata', $version,
		$allow ? 'true' : 'false', @topics);
}

# The topics among @names that exist, with their partition counts
sub topics_made
{
	my @names = @_;
	my $list = join ', ', map { "'$_'" } @names;
	return $node->safe_psql('postgres', qq{
SELECT string_agg(c.relname || ':' || (SELECT count(*) FROM pg_inherits WHERE inhparent = c.oid), ' ' ORDER BY c.relname COLLATE "C")
FROM pg_class c WHERE c.relname IN ($list) AND c.relnamespace = 'public'::regnamespace});
}

# Reload with $sql (ALTER SYSTEM ...), waiting until every listener has it
sub reload_with
{
	my ($sql) = @_;
	$node->safe_psql('postgres', "$sql; SELECT pg_reload_conf();");
	# listener processes reload on their own, at once
	sleep 1;
}

# ---- 1. producers create the topics they write to
my ($ok, $out, $err) = kcat_run($bootstrap, join('', map { "k$_:v$_\n" } 1 .. 10),
	'-P', '-t', 'kcat_new', '-K:');
ok($ok, 'kcat produces to a topic that does not exist') or diag($err);
is(topics_made('kcat_new'), 'kcat_new:3',
	'it is created with pg_topics.kafka_default_partitions partitions');
is($node->safe_psql('postgres', q{
SELECT count(*), count(DISTINCT partition), pg_get_userbyid(relowner),
       format_type(atttypid, atttypmod)
FROM kcat_new, pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'value'
WHERE c.oid = 'kcat_new'::regclass GROUP BY 3, 4}),
	'10|3|app|bytea',
	'every record stored, over its partitions; the topic is the role\'s, with bytea values');

my $produced = kafka_script('clients.py', $bootstrap, 'ck_produce', 'ck_new', 5);
is_deeply([ map { $_->[0] } @$produced ], [ (undef) x 5 ],
	'confluent-kafka produces to a topic that does not exist');
is(topics_made('ck_new'), 'ck_new:3', 'and it is created');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ck_new'), '5', 'with its records');

is_deeply(metadata(4, 0, 'not_allowed'), { not_allowed => [ 3, 0 ] },
	'Metadata v4 without allow_auto_topic_creation: UNKNOWN_TOPIC_OR_PARTITION');
is(topics_made('not_allowed'), '', 'and nothing is created');
is_deeply(metadata(0, 1, 'by_v0'), { by_v0 => [ 0, 3 ] },
	'Metadata v0 creates (as Kafka before v4) and answers the new partitions');

# ---- 2. invalid names
my @invalid = ('bad$name', '..', '.', 'with space', 'x' x 250);
is_deeply(metadata(4, 1, @invalid), { map { $_ => [ 17, 0 ] } @invalid },
	'names Kafka cannot have are INVALID_TOPIC_EXCEPTION');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.topics}), '3',
	'and none is created');

# ---- 3. at once, from many connections
my $log_start = -s $node->logfile;
# Which listener process accepts a connection is the kernel's choice: the
# rounds go on until two processes were seen creating the same topic at once
# (an answer LEADER_NOT_AVAILABLE), at most 5
my (%errors, @racing);
my $overlaps = 0;
for my $round (1 .. 5)
{
	my @topics = map { "race${round}_$_" } 1 .. 20;
	my $race = kafka_script('auto_create.py', $bootstrap, 'concurrent', 8, @topics);
	$errors{$_} += $race->{errors}{$_} for keys %{ $race->{errors} };
	is($race->{answered}, 8 * 20, "round $round: every connection ends with every topic");
	is_deeply($race->{partitions}, { map { $_ => [3] } @topics },
		"round $round: with its 3 partitions");
	push @racing, @topics;
	$overlaps = $race->{errors}{5} // 0;
	last if $overlaps > 0;
}
ok($overlaps > 0, 'connections of two listener processes asked for the same new topic at once');
my %other = %errors;
delete @other{ '0', '5' };
is_deeply(\%other, {}, 'concurrent askers get the partitions or LEADER_NOT_AVAILABLE, nothing else')
  or diag(explain(\%errors));
is(topics_made(@racing), join(' ', map { "$_:3" } sort @racing), 'each topic made once');
unlike(slurp_file($node->logfile, $log_start), qr/Kafka request failed|closing Kafka connection/,
	'and no request failed');

my ($held, $held_out) = start_psql_script($node, 'held', q{
BEGIN;
SET LOCAL ROLE app;
SELECT topics.create_topic('held', 2, 'bytea', 'bytea');
\echo created
DO $$ BEGIN WHILE NOT EXISTS (SELECT FROM held_go) LOOP PERFORM pg_sleep(0.02); END LOOP; END $$;
COMMIT;
});
$node->poll_query_until('postgres', q{
SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE '%held_go%' AND pid <> pg_backend_pid()})
  or die 'the SQL session did not start creating';
is_deeply(metadata(4, 1, 'held'), { held => [ 5, 0 ] },
	'a topic a SQL session is creating: LEADER_NOT_AVAILABLE');
$node->safe_psql('postgres', 'INSERT INTO held_go DEFAULT VALUES');
$held->finish;
is_deeply(metadata(4, 1, 'held'), { held => [ 0, 2 ] },
	'and once it commits, the SQL session\'s topic');

# ---- 4. a role without CREATE on the schema
reload_with(q{ALTER SYSTEM SET pg_topics.kafka_trust_role = 'nocreate'});
is_deeply(metadata(4, 1, 'no_right'), { no_right => [ 29, 0 ] },
	'without CREATE on the schema: TOPIC_AUTHORIZATION_FAILED');
is(topics_made('no_right'), '', 'and nothing is created');
reload_with(q{ALTER SYSTEM RESET pg_topics.kafka_trust_role});

# ---- 5. off
reload_with(q{ALTER SYSTEM SET pg_topics.kafka_auto_create_topics = off});
is_deeply(metadata(4, 1, 'off_topic'), { off_topic => [ 3, 0 ] },
	'off: UNKNOWN_TOPIC_OR_PARTITION');
($ok, $out, $err) = kcat_run($bootstrap, "x\n", '-P', '-t', 'off_kcat',
	'-X', 'message.timeout.ms=3000');
like($err, qr/Unknown topic|Message timed out/i, 'off: kcat cannot produce to it');
is(topics_made('off_topic', 'off_kcat'), '', 'and nothing is created');
reload_with(q{ALTER SYSTEM RESET pg_topics.kafka_auto_create_topics});

# ---- 6. a fenced node
$log_start = -s $node->logfile;
reload_with(q{ALTER SYSTEM SET default_transaction_read_only = on});
like(slurp_file($node->logfile, $log_start), qr/Kafka listener refuses writes/,
	'the node is fenced');
is_deeply(metadata(4, 1, 'fenced_new'), { fenced_new => [ 5, 0 ] },
	'fenced: LEADER_NOT_AVAILABLE');
is(topics_made('fenced_new'), '', 'and nothing is created');
reload_with(q{ALTER SYSTEM RESET default_transaction_read_only});
is_deeply(metadata(4, 1, 'fenced_new'), { fenced_new => [ 0, 3 ] },
	'once the fence lifts, the topic is created');

$node->stop;
done_testing();
