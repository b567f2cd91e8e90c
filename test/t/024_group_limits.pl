# The shared group tables are hard limits, and one role cannot fill them:
# pg_topics.max_groups and pg_topics.max_group_partitions are answered with
# 53400 at their size (the tables never take the server's spare shared
# memory, which PostgreSQL's lock tables need), and
# pg_topics.max_groups_per_role / pg_topics.max_group_partitions_per_role
# stop one role well before that, so that another role still creates its
# groups.  Groups of a dropped topic make room when the tables are full.
# Everything runs as unprivileged login roles.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('group_limits');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
pg_topics.max_groups = 16
pg_topics.max_group_partitions = 64
pg_topics.max_groups_per_role = 10
pg_topics.max_group_partitions_per_role = 40
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('one', 1, 'text', 'text');
SELECT topics.create_topic('wide', 8, 'text', 'text');
CREATE ROLE alice LOGIN;
CREATE ROLE bob LOGIN;
CREATE ROLE carol LOGIN;
CREATE ROLE dave LOGIN;
GRANT SELECT ON one, wide TO alice, bob, carol, dave;
});

# The server's spare shared memory (what a growing shared hash table takes)
sub free_shmem
{
	return $node->safe_psql('postgres',
		q{SELECT size FROM pg_shmem_allocations WHERE name IS NULL});
}

# As role, poll topic with groups prefix1, prefix2, ... (up to 100) until a
# poll fails: returns "<groups created> <SQLSTATE>: <message>"
sub fill
{
	my ($role, $topic, $prefix) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', qq{
DO \$\$
DECLARE
	n int := 0;
BEGIN
	FOR i IN 1..100 LOOP
		BEGIN
			PERFORM * FROM topics.poll(NULL::$topic, '$prefix' || i, consumer => 'c');
			n := n + 1;
		EXCEPTION WHEN OTHERS THEN
			RAISE NOTICE 'result: % %: %', n, SQLSTATE, SQLERRM;
			RETURN;
		END;
	END LOOP;
	RAISE NOTICE 'result: % none', n;
END \$\$;
}, extra_params => [ '-U', $role ]);
	return $err =~ /result: (.*)/ ? $1 : "psql failed: $err";
}

# one poll of a new group as role: its error, or ''
sub poll_error
{
	my ($role, $topic, $group) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		qq{SELECT count(*) FROM topics.poll(NULL::$topic, '$group')},
		extra_params => [ '-U', $role, '-v', 'VERBOSITY=verbose' ]);
	return $err;
}

# first use of groups loads positions (and the database's entry) first
$node->safe_psql('postgres', q{SELECT count(*) FROM topics.consumer_groups});
my $free_before = free_shmem();

# partitions: carol's groups may hold 40 (5 groups of wide), dave (allowed
# more) fills the table's 64, then the table refuses
is(fill('carol', 'wide', 'w'),
	'5 53400: the consumer groups of role "carol" would hold more than 40 partitions',
	'a role stops at pg_topics.max_group_partitions_per_role');
$node->safe_psql('postgres',
	q{ALTER ROLE dave SET pg_topics.max_group_partitions_per_role = 1000});
is(fill('dave', 'wide', 'x'), '3 53400: too many consumer group partitions',
	'pg_topics.max_group_partitions is a hard limit');
like(poll_error('bob', 'wide', 'bob-w'),
	qr/ERROR:  53400: too many consumer group partitions\nDETAIL:  The server keeps at most 64 group partitions \(pg_topics.max_group_partitions\).\nHINT:  Delete unused groups with topics.delete_group\(\), or raise pg_topics.max_group_partitions/,
	'the error names the limit and says what to do');

# a dropped topic's groups make room when the tables are full
$node->safe_psql('postgres', q{SELECT topics.drop_topic('wide')});

# groups: alice stops at 10, bob still creates his, and the table stops
# dave (allowed more) at 16
is(fill('alice', 'one', 'a'), '10 53400: role "alice" already owns 10 consumer groups',
	'a role stops at pg_topics.max_groups_per_role');
is(poll_error('bob', 'one', 'bob-1'), '',
	'another role still creates a group when one role has used its share');
$node->safe_psql('postgres',
	q{ALTER ROLE dave SET pg_topics.max_groups_per_role = 1000});
is(fill('dave', 'one', 'd'), '5 53400: too many consumer groups',
	'pg_topics.max_groups is a hard limit');
like(poll_error('bob', 'one', 'bob-2'),
	qr/ERROR:  53400: too many consumer groups\nDETAIL:  The server keeps at most 16 groups \(pg_topics.max_groups\).\nHINT:  Delete unused groups with topics.delete_group\(\), or raise pg_topics.max_groups/,
	'the error names the limit and says what to do');
is($node->safe_psql('postgres',
		q{SELECT string_agg(owner || '=' || n, ',' ORDER BY owner::text) FROM
		  (SELECT owner::text, count(*) AS n FROM topics.consumer_groups GROUP BY 1) s}),
	'alice=10,bob=1,dave=5', 'the table holds exactly pg_topics.max_groups groups');
is(free_shmem(), $free_before,
	'the group tables took none of the server\'s spare shared memory');

# deleting a group makes room again (its durable member leaves first)
$node->safe_psql('postgres', q{ALTER SYSTEM SET pg_topics.session_timeout = '100ms'});
$node->reload;
sleep 1;
$node->safe_psql('postgres', q{SELECT topics.delete_group('one', 'a1')},
	extra_params => [ '-U', 'alice' ]);
is(poll_error('bob', 'one', 'bob-2'), '', 'a deleted group makes room');

# A member whose role loses SELECT leaves the group at the group's next poll:
# its open transaction on a partition fails at COMMIT (40001), and the
# topic's owner deletes the group that another role created and takes the
# name.  (Room for one more group first.)
$node->safe_psql('postgres', q{SELECT topics.delete_group('one', 'a2')},
	extra_params => [ '-U', 'alice' ]);
$node->safe_psql('postgres', q{
CREATE ROLE topic_owner LOGIN;
GRANT CREATE ON SCHEMA public TO topic_owner;
});
$node->safe_psql('postgres', q{
SELECT topics.create_topic('pay', 1, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('pay', ARRAY['p0','p1','p2']);
GRANT SELECT ON pay TO bob;
}, extra_params => [ '-U', 'topic_owner' ]);
my $bob = $node->background_psql('postgres', on_error_stop => 0,
	extra_params => [ '-U', 'bob' ]);
is($bob->query_safe(q{BEGIN; SELECT count(*) FROM topics.poll(NULL::pay, 'payments');}),
	'3', 'a role with SELECT creates a group of another role\'s topic');
my ($ret, $out, $err) = $node->psql('postgres', q{SELECT topics.delete_group('pay', 'payments')},
	extra_params => [ '-U', 'topic_owner' ]);
like($err, qr/has active members/, 'its live member keeps the group from being deleted');
is($node->safe_psql('postgres', q{
REVOKE SELECT ON pay FROM bob;
SELECT count(*) FROM topics.poll(NULL::pay, 'payments');
}, extra_params => [ '-U', 'topic_owner' ]),
	'0', 'the topic\'s owner polls it (its partition is still busy)');
my $commit = $bob->query(q{COMMIT;});
like($bob->{stderr}, qr/partition 0 of topic "pay" was reassigned/,
	'the evicted member\'s transaction fails at commit');
$node->safe_psql('postgres', q{SELECT topics.delete_group('pay', 'payments')},
	extra_params => [ '-U', 'topic_owner' ]);
is($node->safe_psql('postgres', q{SELECT string_agg(value, ',' ORDER BY "offset") FROM topics.poll(NULL::pay, 'payments')},
		extra_params => [ '-U', 'topic_owner' ]),
	'p0,p1,p2', 'the owner deleted the group and took the name; nothing was lost');
$node->safe_psql('postgres', q{GRANT SELECT ON pay TO bob}, extra_params => [ '-U', 'topic_owner' ]);
$bob->{stderr} = '';
$bob->query(q{SELECT count(*) FROM topics.poll(NULL::pay, 'payments');});
like($bob->{stderr}, qr/permission denied for consumer group "payments"/,
	'the group is the owner\'s now');
$bob->quit;

# Groups leave with their topic or database, in every database: carol's share
# of partitions is used up by groups in another database until their topic
# (and then the database) is dropped.
$node->safe_psql('postgres', qq{SELECT topics.delete_group('one', 'd$_')},
	extra_params => [ '-U', 'dave' ]) for 1 .. 5;
$node->safe_psql('postgres', q{CREATE DATABASE other});
$node->safe_psql('other', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('w8', 8, 'text', 'text');
GRANT SELECT ON w8 TO carol;
});
my $fill_other = sub {
	my ($ret, $out, $err) = $node->psql('other', q{
SELECT count(*) FROM topics.poll(NULL::w8, 'o1', consumer => 'c');
SELECT count(*) FROM topics.poll(NULL::w8, 'o2', consumer => 'c');
SELECT count(*) FROM topics.poll(NULL::w8, 'o3', consumer => 'c');
SELECT count(*) FROM topics.poll(NULL::w8, 'o4', consumer => 'c');
SELECT count(*) FROM topics.poll(NULL::w8, 'o5', consumer => 'c');
}, extra_params => [ '-U', 'carol', '-v', 'ON_ERROR_STOP=1' ]);
	return $err;
};
is($fill_other->(), '', 'carol fills her share of partitions in another database');
like(poll_error('carol', 'one', 'c1'), qr/would hold more than 40 partitions/,
	'the share counts every database');
$node->safe_psql('other', q{SELECT topics.drop_topic('w8')});
is(poll_error('carol', 'one', 'c1'), '',
	'the groups of a topic dropped in another database no longer count');
$node->safe_psql('other', q{
SELECT topics.create_topic('w8', 8, 'text', 'text');
GRANT SELECT ON w8 TO carol;
});
$node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM topics.group_members WHERE group_name = 'c1'})
  or die "carol's session member never left";
$node->safe_psql('postgres', q{SELECT topics.delete_group('one', 'c1')},
	extra_params => [ '-U', 'carol' ]);
is($fill_other->(), '', 'carol fills her share in the other database again');
$node->safe_psql('postgres', q{DROP DATABASE other});
is(poll_error('carol', 'one', 'c1'), '',
	'the groups of a dropped database no longer count');

done_testing();
