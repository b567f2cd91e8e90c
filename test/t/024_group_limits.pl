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
	qr/ERROR:  53400: too many consumer group partitions\nDETAIL:  The server keeps at most 64 \(pg_topics.max_group_partitions\).\nHINT:  Delete unused groups with topics.delete_group\(\), or raise pg_topics.max_group_partitions/,
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
	qr/ERROR:  53400: too many consumer groups\nDETAIL:  The server keeps at most 16 \(pg_topics.max_groups\).\nHINT:  Delete unused groups with topics.delete_group\(\), or raise pg_topics.max_groups/,
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

done_testing();
