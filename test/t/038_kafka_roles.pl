# Roles are kept apart through the Kafka listener as they are in SQL: a
# role's Kafka consumers cannot squat another role's group names, act as
# another role's members, or keep a topic's owner from its groups; topics
# of a schema the role may not use are neither listed nor read; a role
# without CONNECT on the database cannot log in, and a connection whose
# role lost LOGIN is closed.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use JSON::PP;

my $node = PostgreSQL::Test::Cluster->new('kafka_roles');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_auth = 'scram-sha-256'
password_encryption = 'scram-sha-256'
pg_topics.kafka_group_initial_rebalance_delay = 0
pg_topics.max_groups = 16
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE ROLE alice LOGIN PASSWORD 'alicepw';
CREATE ROLE bob LOGIN PASSWORD 'bobpw';
CREATE ROLE carol LOGIN PASSWORD 'carolpw';
CREATE ROLE dave LOGIN PASSWORD 'davepw';
GRANT CREATE ON SCHEMA public TO alice;
SET ROLE alice;
SELECT topics.create_topic('alice_t', 2, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('alice_t', ARRAY['a', 'b', 'c'], partition => 0);
GRANT SELECT ON alice_t TO bob;
RESET ROLE;
});
wait_for_kafka_listener($kport);

my @psql = ('psql', '-X', '-h', $node->host, '-p', $node->port, '-d', 'postgres');

sub roles
{
	return kafka_script('roles.py', $bootstrap, @_);
}

sub poll_as
{
	my ($role, $group) = @_;
	my ($rc, $out, $err) = $node->psql('postgres',
		"SET ROLE $role; SELECT count(*) FROM topics.poll(NULL::alice_t, '$group', max_records => 1)");
	return $rc == 0 ? 'polled' : ($err =~ /ERROR:\s+(.*)/)[0];
}

# ---- squatting: a role that may not read the topic, or sends a
# subscription that cannot be read, holds no group of it
my $squat = roles('squat', 'alice_t');
is($squat->{billing}{error}, 0, 'a role without SELECT may still join a Kafka group naming the topic');
is($squat->{garbage}{error}, 23,
	'but a subscription that cannot be read is INCONSISTENT_GROUP_PROTOCOL');
is(poll_as('alice', 'billing'), 'polled',
	"the topic's owner polls group billing: the squatter's subscription to a topic it may not read does not count");
is(poll_as('alice', 'anything'), 'polled', 'and group anything, which the garbage subscription does not hold');

# ---- the topic's owner takes her group back from a role that took its
# name first: through Kafka as with poll
my $so = roles('squat_then_owner', 'alice_t');
is($so->{carol}, 0, 'a role that may not read the topic joins Kafka group squat first');
is($so->{alice}, 0, "the topic's owner then joins it, reading her topic (not GROUP_AUTHORIZATION_FAILED)");
is($so->{members}, 1, "and the other role's member has left the group");
is($so->{carol_again}, 30, 'which it cannot join again: GROUP_AUTHORIZATION_FAILED');

my $mt = roles('member_then', 'bob', 'bobs', 'alice_t', @psql,
	q{SET ROLE alice; SELECT 'polled' FROM topics.poll(NULL::alice_t, 'bobs', max_records => 1) LIMIT 1});
is($mt->{join}, 0, 'a role with SELECT only joins a Kafka group reading the topic');
is($mt->{sql}, 'polled', "the topic's owner polls that group: her poll takes precedence over the Kafka consumer")
  or diag($mt->{sql});
is_deeply([ $mt->{heartbeat}, $mt->{commit} ], [ 25, 25 ],
	'whose member has left the group (UNKNOWN_MEMBER_ID)');

$node->safe_psql('postgres',
	q{SET ROLE bob; SELECT count(*) FROM topics.poll(NULL::alice_t, 'sqlg', consumer => 'b1', max_records => 1)});
is(roles('join_as', 'alice', 'sqlg', 'alice_t'), 0,
	"the topic's owner joins a Kafka group whose name a SELECT-only role polls with SQL");
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.group_members WHERE group_name = 'sqlg' AND member = 'b1'}),
	'0', "whose durable member has left the group");

# ---- REVOKE ends a Kafka member's rights at its next request
$mt = roles('member_then', 'bob', 'bobs2', 'alice_t', @psql, q{REVOKE SELECT ON alice_t FROM bob});
is($mt->{join}, 0, 'a role with SELECT joins a Kafka group reading the topic');
is_deeply([ $mt->{heartbeat}, $mt->{commit} ], [ 30, 25 ],
	'after REVOKE its next Heartbeat is GROUP_AUTHORIZATION_FAILED, and its member has left the group');
$node->safe_psql('postgres', q{GRANT SELECT ON alice_t TO bob});

# ---- per-role settings reach Kafka groups: ALTER ROLE ... SET applies to
# a role's Kafka requests as to its sessions (IN DATABASE first)
$node->safe_psql('postgres', q{
CREATE ROLE erin LOGIN PASSWORD 'erinpw';
ALTER ROLE erin SET pg_topics.max_groups_per_role = 1;
ALTER ROLE erin IN DATABASE postgres SET pg_topics.max_groups_per_role = 2;
});
is_deeply([ map { roles('join_as', 'erin', "erin$_", 'none') } 1 .. 3 ], [ 0, 0, 81 ],
	'a role set to own at most 2 groups in this database joins 2 Kafka groups; the third is GROUP_MAX_SIZE_REACHED');

# ---- a Kafka group subscribing to more topics than it records keeps poll
# only from the topics its owner may read
$node->safe_psql('postgres', join('', "SET ROLE alice;\n",
	map { "SELECT topics.create_topic('wide$_', 1, 'text', 'text'); GRANT SELECT ON wide$_ TO bob;\n" } 0 .. 32)
	  . "SELECT topics.create_topic('alice_secret', 1, 'text', 'text');\nRESET ROLE;\n");
is(roles('join_many', 'bob', 'wide', map { "wide$_" } 0 .. 32), 0, 'a role joins a group subscribing to 33 topics');
my ($wrc, $wout, $werr) = $node->psql('postgres',
	q{SET ROLE alice; SELECT count(*) FROM topics.poll(NULL::alice_secret, 'wide', max_records => 1)});
is($wrc, 0, 'its group name does not keep poll from a topic its owner may not read') or diag($werr);
($wrc, $wout, $werr) = $node->psql('postgres',
	q{SET ROLE bob; SELECT count(*) FROM topics.poll(NULL::wide0, 'wide', max_records => 1)});
like($werr, qr/has Kafka consumers/, 'but does from one it may read');

# ---- a group the topic's owner created is not joined by a role that may
# only read the topic
is(roles('join_as', 'bob', 'anything', 'alice_t'), 30,
	"a role with SELECT only cannot join the topic owner's group: GROUP_AUTHORIZATION_FAILED");
is(roles('join_as', 'alice', 'billing-k', 'alice_t'), 0, 'the owner joins a Kafka group of her topic');

# ---- a member answers only to the role that joined as it
my $imp = roles('impersonate', 'alice_t', 'ag', @psql);
ok($imp->{bob_sees_member}, "a role that may read the topic sees alice's member id in topics.group_members");
is($imp->{heartbeat}, 25, 'its Heartbeat with that id is UNKNOWN_MEMBER_ID');
is($imp->{commit}, 25, 'its OffsetCommit as that member is UNKNOWN_MEMBER_ID');
is($imp->{leave}, 25, 'its LeaveGroup of that member is UNKNOWN_MEMBER_ID');
is($imp->{alice_heartbeat}, 0, "and alice's member is still in the group");
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.consumer_lag WHERE group_name = 'ag'}),
	'0', 'nothing was committed for the group');

# ---- the topic's owner controls every group of her topic, over Kafka too
is(roles('commit_alone', 'bob', 'bg', 'alice_t', 2), 0, 'bob commits a position for a new group bg of alice_t');
is_deeply(roles('fetch_position', 'alice', 'bg', 'alice_t'), [ 0, 2 ],
	"the topic's owner reads it with OffsetFetch (as topics.seek would let her move it)");
is_deeply(roles('fetch_position', 'carol', 'bg', 'alice_t'), [ 29, -1 ],
	'a role that may not read the topic is TOPIC_AUTHORIZATION_FAILED');

# ---- DescribeGroups does not tell another role's group from no group
is_deeply(roles('describe', 'carol', 'billing-k'), roles('describe', 'carol', 'no-such-group'),
	"DescribeGroups of another role's live group answers as for a group that does not exist");

# ---- a member that was only given its id (JoinGroup v4 and later) offers
# no protocol yet, and does not make the next member's protocols
# inconsistent
is_deeply(roles('pending_then_join', 'alice', 'pend'), [ 79, 0 ],
	'a member joins a group whose other member is waiting to join with its new id');

# ---- one role's members cannot take the member pool or the shared area:
# with pg_topics.max_groups = 16 the pool has 64 members and the area 1 MB,
# and a role's members may hold a quarter of each
my $filled = roles('fill_members', 'carol', 'cg', 20);
my $left = grep { $_ == 79 } @$filled;
ok($left >= 1 && $left <= 16 && $filled->[-1] == 81,
	"a role's members that never come back stop at its share of the pool: GROUP_MAX_SIZE_REACHED (@$filled)");
is(roles('fat_join', 'carol', 'fat', 300 * 1024), 81,
	"a member with more than the role's share of the area is GROUP_MAX_SIZE_REACHED");
is(roles('join_as', 'alice', 'after-fill', 'alice_t'), 0, 'another role still joins a group');

# ---- USAGE on the Kafka schema, as SQL needs it
$node->safe_psql('postgres', q{REVOKE USAGE ON SCHEMA public FROM PUBLIC; GRANT USAGE ON SCHEMA public TO alice});
is_deeply(roles('reads', 'bob', 'alice_t'), { listed => JSON::PP::false, fetch => 29 },
	'without USAGE on the schema, a granted topic is not in Metadata and Fetch is TOPIC_AUTHORIZATION_FAILED');
is_deeply(roles('reads', 'alice', 'alice_t'), { listed => JSON::PP::true, fetch => 0 },
	'with it, the topic is listed and read');
$node->safe_psql('postgres', q{GRANT USAGE ON SCHEMA public TO PUBLIC});

# ---- CONNECT on the database, as a PostgreSQL login needs it
$node->safe_psql('postgres', q{REVOKE CONNECT ON DATABASE postgres FROM PUBLIC; GRANT CONNECT ON DATABASE postgres TO alice, dave});
is(roles('auth', 'carol'), 58, 'a role without CONNECT on the database fails SCRAM authentication');
is(roles('auth', 'alice'), 0, 'a role with it authenticates');
ok($node->log_contains(qr/Kafka client authentication failed for user "carol".*\n.*no CONNECT privilege/),
	'the server log says why');
$node->safe_psql('postgres', q{GRANT CONNECT ON DATABASE postgres TO PUBLIC});

# ---- a connection whose role lost LOGIN is closed at its next request
is_deeply(roles('lose_login', 'dave', @psql), { before => JSON::PP::true, after => 'closed' },
	'a connection whose role lost LOGIN is closed at its next request');
ok($node->log_contains(qr/role "dave" may no longer use this Kafka connection/),
	'the server log says why');

done_testing();
