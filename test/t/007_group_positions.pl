# Group positions across restarts: they come back from topics.consumer_offsets,
# follow a renamed topic, die with a dropped topic (a new topic of the same
# name starts afresh), and a deleted group stays deleted; durable members
# expire after pg_topics.session_timeout.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('positions');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
pg_topics.session_timeout = '1s'
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('orders', 1, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('orders', ARRAY['a','b','c','d']);
SELECT count(*) FROM topics.poll(NULL::orders, 'billing', max_records => 3);
SELECT topics.create_topic('gone', 1, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('gone', ARRAY['a','b','c','d']);
SELECT count(*) FROM topics.poll(NULL::gone, 'g', max_records => 4);
SELECT topics.create_topic('deleted', 1, 'text', 'text');
SELECT count(*) FROM topics.poll(NULL::deleted, 'd');
});

# a renamed topic keeps its groups' positions
$node->safe_psql('postgres', q{ALTER TABLE orders RENAME TO orders_v2});

# a dropped and recreated topic starts afresh
$node->safe_psql('postgres', q{
SELECT topics.drop_topic('gone');
SELECT topics.create_topic('gone', 1, 'text', 'text');
});

# a deleted group stays deleted (the session that polled it has ended; its
# member leaves as the session exits, just after psql does)
$node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM topics.group_members WHERE group_name = 'd'})
  or die 'the session member never left';
$node->safe_psql('postgres', q{SELECT topics.delete_group('deleted', 'd')});

$node->restart;

is($node->safe_psql('postgres', q{SELECT string_agg(value, ',') FROM topics.poll(NULL::orders_v2, 'billing')}),
	'd', 'after a rename and a restart, the group continues where it was');
$node->safe_psql('postgres', q{SELECT count(*) FROM topics.produce_batch('gone', ARRAY['n0','n1','n2','n3','n4','n5'])});
is($node->safe_psql('postgres', q{SELECT string_agg(value, ',' ORDER BY "offset") FROM topics.poll(NULL::gone, 'g')}),
	'n0,n1,n2,n3,n4,n5', 'a recreated topic does not inherit the old one\'s positions: nothing is skipped');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.consumer_groups WHERE topic = 'deleted'::regclass}),
	'0', 'a deleted group does not come back after a restart');

# durable members expire, and then the group can be deleted
# (in one session: the member expires 1 s after its poll)
my ($ret, $out, $err) = $node->psql('postgres', q{
SELECT count(*) FROM topics.poll(NULL::orders_v2, 'pool', consumer => 'worker-a');
SELECT topics.delete_group('orders_v2', 'pool');});
like($err, qr/has active members/, 'a group with a live durable member cannot be deleted');
sleep 2;
is($node->safe_psql('postgres', q{SELECT topics.delete_group('orders_v2', 'pool')}), '',
	'after pg_topics.session_timeout the durable member has expired');

$node->stop;
done_testing();
