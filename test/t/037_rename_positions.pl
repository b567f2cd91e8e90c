# Group positions follow every kind of rename or move of a topic -- ALTER
# TABLE RENAME, ALTER INDEX RENAME (which PostgreSQL accepts on a table),
# SET SCHEMA, ALTER SCHEMA RENAME, a swap of two names in one transaction,
# a rename in the transaction that polled -- and the positions recorded
# under the old name are tombstoned, so that a new topic created later
# under the old name starts afresh after a restart instead of skipping
# records.  A rolled-back rename changes nothing.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('rename_positions');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
});
$node->start;

# a topic with records a0..a5 whose group g has read 4 of them
sub topic_read_to_4
{
	my ($name) = @_;
	return qq{
SELECT topics.create_topic('$name', 1, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('$name', ARRAY['a0','a1','a2','a3','a4','a5']);
SELECT count(*) FROM topics.poll(NULL::$name, 'g', max_records => 4);
};
}

# a fresh topic with records n0..n5 that group g has never read
sub new_topic
{
	my ($name) = @_;
	return qq{
SELECT topics.create_topic('$name', 1, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('$name', ARRAY['n0','n1','n2','n3','n4','n5']);
};
}

sub polled
{
	my ($name, $group) = @_;
	$group //= 'g';
	return $node->safe_psql('postgres',
		qq{SELECT coalesce(string_agg(value, ',' ORDER BY "offset"), '') FROM topics.poll(NULL::$name, '$group')});
}

sub committed
{
	my ($name) = @_;
	return $node->safe_psql('postgres',
		qq{SELECT coalesce(string_agg(committed_offset::text, ','), 'none') FROM topics.consumer_lag WHERE topic = '$name'::regclass AND group_name = 'g'});
}

$node->safe_psql('postgres', 'CREATE EXTENSION pg_topics');

# B3: ALTER TABLE RENAME, then a new topic under the old name
$node->safe_psql('postgres', topic_read_to_4('t'));
$node->safe_psql('postgres', 'ALTER TABLE t RENAME TO t_old');
$node->safe_psql('postgres', new_topic('t'));

# B3: ALTER TABLE SET SCHEMA, then a new topic under the old name
$node->safe_psql('postgres', 'CREATE SCHEMA archive');
$node->safe_psql('postgres', topic_read_to_4('m'));
$node->safe_psql('postgres', 'ALTER TABLE m SET SCHEMA archive');
$node->safe_psql('postgres', new_topic('m'));

# B4: ALTER SCHEMA RENAME moves every topic in it
$node->safe_psql('postgres', 'CREATE SCHEMA s1');
$node->safe_psql('postgres', topic_read_to_4('s1.q'));
$node->safe_psql('postgres', topic_read_to_4('s1.r'));
$node->safe_psql('postgres', 'ALTER SCHEMA s1 RENAME TO s2');
$node->safe_psql('postgres', 'CREATE SCHEMA s1');
$node->safe_psql('postgres', new_topic('s1.q'));

# B4: ALTER INDEX ... RENAME on the topic's table
$node->safe_psql('postgres', topic_read_to_4('ix'));
$node->safe_psql('postgres', 'ALTER INDEX ix RENAME TO ix2');
$node->safe_psql('postgres', new_topic('ix'));

# two topics swap their names in one transaction
$node->safe_psql('postgres', topic_read_to_4('x'));
$node->safe_psql('postgres', new_topic('y'));
$node->safe_psql('postgres', q{SELECT count(*) FROM topics.poll(NULL::y, 'g', max_records => 1)});
$node->safe_psql('postgres', q{
BEGIN;
ALTER TABLE x RENAME TO swap_tmp;
ALTER TABLE y RENAME TO x;
ALTER TABLE swap_tmp RENAME TO y;
COMMIT;
});

# a rename in the transaction that moved the group (not yet committed)
$node->safe_psql('postgres', topic_read_to_4('tx'));
$node->safe_psql('postgres', q{
BEGIN;
SELECT count(*) FROM topics.poll(NULL::tx, 'g', max_records => 1);
ALTER TABLE tx RENAME TO tx2;
COMMIT;
});
$node->safe_psql('postgres', new_topic('tx'));

# a group deleted in the transaction that renames its topic stays deleted
$node->safe_psql('postgres', topic_read_to_4('dg'));
$node->safe_psql('postgres', q{
BEGIN;
SELECT topics.delete_group('dg', 'g');
ALTER TABLE dg RENAME TO dg2;
COMMIT;
});

# rolled-back renames change nothing
$node->safe_psql('postgres', topic_read_to_4('rb'));
$node->safe_psql('postgres', 'CREATE SCHEMA s3');
$node->safe_psql('postgres', topic_read_to_4('s3.rb'));
$node->safe_psql('postgres', q{
BEGIN;
ALTER TABLE rb RENAME TO rb2;
ALTER SCHEMA s3 RENAME TO s4;
ROLLBACK;
BEGIN;
SAVEPOINT a;
ALTER INDEX rb RENAME TO rb3;
ROLLBACK TO SAVEPOINT a;
COMMIT;
});

# ALTER SCHEMA RENAME waits for a transaction that is polling a topic of the
# schema (it locks no table itself), and carries the position it commits
$node->safe_psql('postgres', 'CREATE SCHEMA s5');
$node->safe_psql('postgres', q{
SELECT topics.create_topic('s5.c', 1, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('s5.c', ARRAY['a0','a1','a2','a3','a4','a5']);
});
my ($polling) = start_psql_script($node, 'polling', q{
BEGIN;
SELECT count(*) FROM topics.poll(NULL::s5.c, 'g', max_records => 2);
SELECT pg_sleep(2);
COMMIT;
});
$node->poll_query_until('postgres',
	q{SELECT count(*) > 0 FROM pg_stat_activity WHERE query LIKE '%pg_sleep(2)%' AND wait_event = 'PgSleep'})
  or die 'the polling session did not start';
$node->safe_psql('postgres', 'ALTER SCHEMA s5 RENAME TO s6');
$polling->finish;
$node->safe_psql('postgres', 'CREATE SCHEMA s5');
$node->safe_psql('postgres', new_topic('s5.c'));

# before the restart: the positions are where they were
is(committed('t_old'), '4', 'renamed topic: the group keeps its position');
is(committed('archive.m'), '4', 'moved topic: the group keeps its position');
is(committed('s2.q'), '4', 'topic of a renamed schema: the group keeps its position');
is(committed('ix2'), '4', 'topic renamed with ALTER INDEX: the group keeps its position');
is(committed('t'), 'none', 'a new topic with the old name has no position');

$node->restart;

# after the restart: positions followed the renames ...
is(committed('t_old'), '4', 'after a restart, a renamed topic\'s group is at 4');
is(polled('t_old'), 'a4,a5', 'after a restart, the renamed topic\'s group continues');
is(committed('archive.m'), '4', 'after a restart, a moved topic\'s group is at 4');
is(polled('archive.m'), 'a4,a5', 'after a restart, the moved topic\'s group continues');
is(committed('s2.q'), '4', 'after a restart, the group of a topic of a renamed schema is at 4');
is(polled('s2.q'), 'a4,a5', 'after a restart, the group of a topic of a renamed schema continues');
is(polled('s2.r'), 'a4,a5', 'after a restart, every topic of the renamed schema kept its positions');
is(committed('ix2'), '4', 'after a restart, the group of a topic renamed with ALTER INDEX is at 4');
is(polled('ix2'), 'a4,a5', 'after a restart, the group of a topic renamed with ALTER INDEX continues');
is(polled('x'), 'n1,n2,n3,n4,n5', 'after a restart, swapped names: the first topic\'s group continues');
is(polled('y'), 'a4,a5', 'after a restart, swapped names: the second topic\'s group continues');
is(polled('tx2'), 'a5', 'after a restart, a position polled in the renaming transaction was kept');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.consumer_groups WHERE topic = 'dg2'::regclass}),
	'0', 'after a restart, a group deleted in the renaming transaction stays deleted');
is(polled('rb'), 'a4,a5', 'after a restart, a rolled-back rename changed nothing');
is(polled('s3.rb'), 'a4,a5', 'after a restart, a rolled-back schema rename changed nothing');

is(polled('s6.c'), 'a2,a3,a4,a5', 'after a restart, the position committed while the schema was renamed followed it');

# ... and new topics under the old names start afresh: nothing is skipped
is(polled('t'), 'n0,n1,n2,n3,n4,n5', 'a new topic with a renamed topic\'s old name does not inherit its positions');
is(polled('m'), 'n0,n1,n2,n3,n4,n5', 'a new topic with a moved topic\'s old name does not inherit its positions');
is(polled('s1.q'), 'n0,n1,n2,n3,n4,n5', 'a new topic in a new schema with a renamed schema\'s name does not inherit positions');
is(polled('ix'), 'n0,n1,n2,n3,n4,n5', 'a new topic with the old name of a topic renamed with ALTER INDEX does not inherit its positions');
is(polled('tx'), 'n0,n1,n2,n3,n4,n5', 'a new topic with the old name of a topic renamed in a polling transaction does not inherit its positions');
is(polled('s5.c'), 'n0,n1,n2,n3,n4,n5', 'a new topic with the old name of a topic polled while its schema was renamed does not inherit its positions');

# a topic created under an old name, renamed back and forth, then a restart
$node->safe_psql('postgres', q{
SELECT count(*) FROM topics.produce('t', 'z'::text);
SELECT count(*) FROM topics.produce('t_old', 'z'::text);
});
$node->safe_psql('postgres', 'ALTER TABLE t RENAME TO t_new');
$node->safe_psql('postgres', 'ALTER TABLE t_old RENAME TO t');
$node->restart;
is(polled('t'), 'z', 'after renaming back and a restart, the first topic\'s group continues');
is(polled('t_new'), 'z', 'after renaming back and a restart, the second topic\'s group continues');

$node->stop;
done_testing();
