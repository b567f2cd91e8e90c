-- Consumer groups: poll with transactional commit-on-poll, commit, seek, reset, delete
\set SHOW_CONTEXT never
SELECT topics.create_topic('cg', partitions => 3, key_type => 'text', value_type => 'text');
SELECT count(*) FROM topics.produce_batch('cg',
    (SELECT array_agg('v' || i) FROM generate_series(1, 30) i),
    (SELECT array_agg('k' || i) FROM generate_series(1, 30) i));
SELECT partition, count(*) FROM cg GROUP BY 1 ORDER BY 1;

-- one member gets every partition; records come in offset order per partition
SELECT partition, count(*), min("offset"), max("offset") FROM topics.poll(NULL::cg, 'g1', max_records => 100)
GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM topics.poll(NULL::cg, 'g1');
SELECT group_name, topic, partition, committed_offset, high_watermark, lag FROM topics.consumer_lag ORDER BY partition;
SELECT group_name, topic, generation, members FROM topics.consumer_groups;
SELECT group_name, member LIKE 'session-%' AS session_member, durable, pid = pg_backend_pid() AS me, partitions
FROM topics.group_members;

-- a rollback re-delivers; a second poll in one transaction continues after the first
SELECT count(*) FROM topics.produce_batch('cg', ARRAY['a','b','c','d','e','f'], partition => 0);
BEGIN;
SELECT "offset", value FROM topics.poll(NULL::cg, 'g1', max_records => 2);
SELECT "offset", value FROM topics.poll(NULL::cg, 'g1', max_records => 2);
ROLLBACK;
BEGIN;
SELECT "offset", value FROM topics.poll(NULL::cg, 'g1', max_records => 2);
SAVEPOINT s;
SELECT "offset", value FROM topics.poll(NULL::cg, 'g1', max_records => 2);
ROLLBACK TO SAVEPOINT s;
SELECT "offset", value FROM topics.poll(NULL::cg, 'g1', max_records => 2);
COMMIT;
SELECT "offset", value FROM topics.poll(NULL::cg, 'g1');

-- work in the same transaction is exactly-once: consume, transform, produce
SELECT topics.create_topic('cg_out', 1, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('cg', ARRAY['x','y','z'], partition => 1);
BEGIN;
SELECT count(*) FROM topics.produce_batch('cg_out',
    (SELECT array_agg(upper(value)) FROM topics.poll(NULL::cg, 'g1')));
ROLLBACK;
SELECT count(*) AS outputs_after_rollback FROM cg_out;
SELECT count(*) FROM topics.produce_batch('cg_out',
    (SELECT array_agg(upper(value)) FROM topics.poll(NULL::cg, 'g1')));
SELECT value FROM cg_out ORDER BY "offset";

-- groups are independent
SELECT count(*) FROM topics.poll(NULL::cg, 'g2', max_records => 1000);

-- in FROM, poll runs as a scan that hands records out of the pages (TopicPoll); WITH
-- ORDINALITY keeps the function; each call polls once, whichever runs it
EXPLAIN (COSTS OFF) SELECT * FROM topics.poll(NULL::cg, 'g6');
EXPLAIN (COSTS OFF) SELECT * FROM topics.poll(NULL::cg, 'g6') WITH ORDINALITY;
SELECT count(*) FROM topics.poll(NULL::cg, 'g6', max_records => 10) WITH ORDINALITY;
SELECT count(*) FROM topics.poll(NULL::cg, 'g6', max_records => 1000);
SELECT (SELECT count(*) FROM cg) AS records, sum(committed_offset) AS committed, sum(lag) AS lag
FROM topics.consumer_lag WHERE group_name = 'g6';
-- a rescan with the same arguments returns the same records without polling again
SET enable_material = off;
EXPLAIN (COSTS OFF) SELECT g FROM generate_series(1, 3) g, topics.poll(NULL::cg, 'g7', max_records => 2);
SELECT g, count(*) FROM generate_series(1, 3) g, topics.poll(NULL::cg, 'g7', max_records => 2)
GROUP BY g ORDER BY g;
RESET enable_material;
SELECT sum(committed_offset) AS committed FROM topics.consumer_lag WHERE group_name = 'g7';

-- seek, reset_group, commit move a group; they take effect at the next poll
SELECT topics.seek('cg', 'g1', 0, 1);
SELECT min("offset"), count(*) FROM topics.poll(NULL::cg, 'g1') WHERE partition = 0;
SELECT topics.reset_group('cg', 'g1', 'earliest');
SELECT count(*) FROM topics.poll(NULL::cg, 'g1', max_records => 1000);
SELECT topics.reset_group('cg', 'g1', 'latest');
SELECT count(*) FROM topics.poll(NULL::cg, 'g1');
SELECT topics.commit('cg', 'g1', 2, 0);
SELECT partition, count(*) FROM topics.poll(NULL::cg, 'g1') GROUP BY 1;
BEGIN;
SELECT topics.commit('cg', 'g1', 2, 0);
ROLLBACK;
SELECT count(*) FROM topics.poll(NULL::cg, 'g1');

-- a durable member (behind a connection pool) joins by name
SELECT count(*) FROM topics.poll(NULL::cg, 'g3', consumer => 'worker-1', max_records => 1000);
SELECT member, durable, partitions FROM topics.group_members WHERE group_name = 'g3';

-- auto_offset_reset decides where a new group starts
SET pg_topics.auto_offset_reset = latest;
SELECT count(*) FROM topics.poll(NULL::cg, 'g4');
SET pg_topics.auto_offset_reset = error;
SELECT count(*) FROM topics.poll(NULL::cg, 'g5');
RESET pg_topics.auto_offset_reset;

-- lag covers every partition, also those the group has not committed yet
SELECT count(*) FROM topics.poll(NULL::cg, 'lagging', max_records => 1);
SELECT partition, committed_offset IS NULL AS not_yet, high_watermark, lag
FROM topics.consumer_lag WHERE group_name = 'lagging' ORDER BY partition;
SELECT sum(lag) + 1 = (SELECT count(*) FROM cg) AS lag_counts_every_record
FROM topics.consumer_lag WHERE group_name = 'lagging';

-- a reset below the log start is kept like any other move of the position: with
-- latest, the member jumps to the high watermark once and then reads what comes
SELECT topics.create_topic('cg_reset', 1, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('cg_reset', (SELECT array_agg('r' || i) FROM generate_series(0, 99) i));
SELECT count(*) FROM topics.poll(NULL::cg_reset, 'gr', max_records => 20);
SELECT committed_offset FROM topics.consumer_lag WHERE group_name = 'gr';
SELECT topics.delete_records('cg_reset', 0, 40);
SET pg_topics.auto_offset_reset = latest;
SELECT count(*) FROM topics.poll(NULL::cg_reset, 'gr');
SELECT committed_offset, high_watermark FROM topics.consumer_lag WHERE group_name = 'gr';
SELECT "offset" FROM topics.produce('cg_reset', 'after the reset');
SELECT "offset", value FROM topics.poll(NULL::cg_reset, 'gr');
SELECT committed_offset FROM topics.consumer_lag WHERE group_name = 'gr';
-- the reset commits with the poll's transaction: a rollback takes it back
SELECT count(*) FROM topics.produce_batch('cg_reset', ARRAY['second', 'third']);
SELECT topics.delete_records('cg_reset', 0, 102);
BEGIN;
SELECT count(*) FROM topics.poll(NULL::cg_reset, 'gr');
ROLLBACK;
SELECT committed_offset FROM topics.consumer_lag WHERE group_name = 'gr';
SELECT count(*) FROM topics.poll(NULL::cg_reset, 'gr');
SELECT committed_offset FROM topics.consumer_lag WHERE group_name = 'gr';
-- earliest keeps its jump too
SELECT "offset" FROM topics.produce('cg_reset', 'fourth');
SELECT topics.delete_records('cg_reset', 0, 104);
SET pg_topics.auto_offset_reset = earliest;
SELECT count(*) FROM topics.poll(NULL::cg_reset, 'gr');
SELECT committed_offset, high_watermark FROM topics.consumer_lag WHERE group_name = 'gr';
RESET pg_topics.auto_offset_reset;
SELECT topics.drop_topic('cg_reset');

-- bad input
SELECT * FROM topics.poll(NULL::cg, NULL);
SELECT * FROM topics.poll(NULL::cg, '');
SELECT * FROM topics.poll(NULL::cg, 'g1', max_records => 0);
SELECT * FROM topics.poll(NULL::cg, 'g1', wait => '-1 s');
SELECT * FROM topics.poll(NULL::cg_p0, 'g1');
SELECT topics.commit('cg', 'nosuch', 0, 0);
SELECT topics.seek('cg', 'nosuch', 0, 0);
SELECT topics.reset_group('cg', 'nosuch', 'earliest');
SELECT topics.delete_group('cg', 'nosuch');
SELECT topics.commit('cg', 'g1', 7, 0);
SELECT topics.commit('cg', 'g1', 0, 1000);
SELECT topics.reset_group('cg', 'g1', 'middle');
SELECT topics.delete_group('cg', 'g1');
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM topics.poll(NULL::cg, 'g1', wait => '1 s');
ROLLBACK;
BEGIN;
SELECT count(*) FROM topics.poll(NULL::cg, 'g1');
PREPARE TRANSACTION 'poller';
BEGIN READ ONLY;
SELECT count(*) FROM topics.poll(NULL::cg, 'g1');
ROLLBACK;

-- group control needs SELECT on the topic and membership in the group's role
CREATE ROLE grp_other;
\set VERBOSITY terse
SET ROLE grp_other;
SELECT count(*) FROM topics.poll(NULL::cg, 'g1');
RESET ROLE;
GRANT SELECT ON cg TO grp_other;
SET ROLE grp_other;
SELECT count(*) FROM topics.poll(NULL::cg, 'g1');
SELECT topics.seek('cg', 'g1', 0, 0);
SELECT count(*) FROM topics.poll(NULL::cg, 'theirs');
RESET ROLE;
\set VERBOSITY default
SELECT owner FROM topics.consumer_groups WHERE group_name = 'theirs';
-- the internal log of positions is closed
SET ROLE grp_other;
SELECT count(*) FROM topics.consumer_offsets;
RESET ROLE;
REVOKE SELECT ON cg FROM grp_other;
DROP ROLE grp_other;

-- roles are kept apart: the topic's owner (and its members) control every group of
-- its topic, whoever created it; a role with only SELECT cannot squat a group name
CREATE ROLE grp_owner LOGIN;
CREATE ROLE grp_app LOGIN IN ROLE grp_owner;
CREATE ROLE grp_squatter LOGIN;
CREATE ROLE grp_gone LOGIN;
GRANT CREATE ON SCHEMA public TO grp_owner;
SET ROLE grp_owner;
SELECT topics.create_topic('pay', 2, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('pay', ARRAY['a','b','c','d','e','f'], ARRAY['1','2','3','4','5','6']);
GRANT SELECT ON pay TO grp_squatter, grp_gone;
RESET ROLE;
SET ROLE grp_squatter;
SELECT count(*) FROM topics.poll(NULL::pay, 'payments', consumer => 'squatter-1', max_records => 1);
SELECT count(*) FROM topics.poll(NULL::pay, 'refunds', consumer => 'squatter-2', max_records => 1);
RESET ROLE;
SELECT group_name, owner FROM topics.consumer_groups WHERE topic = 'pay'::regclass ORDER BY 1;
SET ROLE grp_owner;
SELECT topics.seek('pay', 'payments', 0, 0);
SELECT topics.commit('pay', 'payments', 1, 0);
SELECT topics.reset_group('pay', 'payments', 'earliest');
SELECT count(*) FROM topics.poll(NULL::pay, 'refunds', consumer => 'owner-2');
SELECT topics.delete_group('pay', 'payments');
RESET ROLE;
SELECT member, partitions FROM topics.group_members WHERE topic = 'pay'::regclass ORDER BY 1;
-- revoking SELECT ends the squatter's memberships at the next poll or delete_group
-- (its transactions that hold a partition fail at commit), and the owner takes the name
SET ROLE grp_owner;
REVOKE SELECT ON pay FROM grp_squatter;
SELECT count(*) FROM topics.poll(NULL::pay, 'refunds', consumer => 'owner-2');
SELECT topics.delete_group('pay', 'payments');
SELECT count(*) FROM topics.poll(NULL::pay, 'payments', consumer => 'owner-1');
GRANT SELECT ON pay TO grp_squatter;
RESET ROLE;
SELECT group_name, member, partitions FROM topics.group_members WHERE topic = 'pay'::regclass ORDER BY 1, 2;
SELECT group_name, owner FROM topics.consumer_groups WHERE topic = 'pay'::regclass ORDER BY 1;
\set VERBOSITY terse
SET ROLE grp_squatter;
SELECT count(*) FROM topics.poll(NULL::pay, 'payments', consumer => 'squatter-1');
SELECT topics.seek('pay', 'payments', 0, 0);
SELECT topics.delete_group('pay', 'payments');
RESET ROLE;
\set VERBOSITY default
-- a member of the owner role controls the groups too, also one whose creator was dropped
SET ROLE grp_gone;
SELECT count(*) FROM topics.poll(NULL::pay, 'orphan', consumer => 'gone-1', max_records => 1);
RESET ROLE;
SET pg_topics.session_timeout = '100ms';
SELECT pg_sleep(0.2);
REVOKE SELECT ON pay FROM grp_gone;
DROP ROLE grp_gone;
SET ROLE grp_app;
SELECT count(*) FROM topics.poll(NULL::pay, 'payments', consumer => 'app-1');
SELECT topics.seek('pay', 'orphan', 0, 0);
SELECT count(*) FROM topics.poll(NULL::pay, 'orphan', consumer => 'app-2');
RESET ROLE;
SELECT pg_sleep(0.2);
SET ROLE grp_app;
SELECT topics.delete_group('pay', 'orphan');
RESET ROLE;

-- one role cannot fill the shared group tables: pg_topics.max_groups_per_role and
-- pg_topics.max_group_partitions_per_role (superuser-only, settable per role)
CREATE ROLE grp_greedy LOGIN;
GRANT SELECT ON pay TO grp_greedy;
SET ROLE grp_greedy;
SET pg_topics.max_groups_per_role = 3;
RESET ROLE;
SET pg_topics.max_groups_per_role = 3;
SET ROLE grp_greedy;
SELECT count(*) FROM topics.poll(NULL::pay, 'greedy-1', consumer => 'greedy', max_records => 1);
SELECT count(*) FROM topics.poll(NULL::pay, 'greedy-2', consumer => 'greedy', max_records => 1);
SELECT count(*) FROM topics.poll(NULL::pay, 'greedy-3', consumer => 'greedy', max_records => 1);
SELECT count(*) FROM topics.poll(NULL::pay, 'greedy-4', consumer => 'greedy');
RESET ROLE;
-- another role still creates its groups
SET ROLE grp_app;
SELECT count(*) FROM topics.poll(NULL::pay, 'not-greedy', consumer => 'app-3', max_records => 1);
RESET ROLE;
SELECT pg_sleep(0.2);
SET ROLE grp_greedy;
SELECT topics.delete_group('pay', 'greedy-1');
SELECT count(*) FROM topics.poll(NULL::pay, 'greedy-4', consumer => 'greedy');
RESET ROLE;
RESET pg_topics.max_groups_per_role;
SET pg_topics.max_group_partitions_per_role = 7;
SET ROLE grp_greedy;
SELECT count(*) FROM topics.poll(NULL::pay, 'greedy-5', consumer => 'greedy');
RESET ROLE;
RESET pg_topics.max_group_partitions_per_role;
SELECT owner::text, count(*) FROM topics.consumer_groups WHERE topic = 'pay'::regclass GROUP BY 1 ORDER BY 1;
RESET pg_topics.session_timeout;
SELECT topics.drop_topic('pay');

-- a topic polled and dropped in one transaction takes its groups along: the
-- commit does not count them against the role's limit or check who owns them
GRANT CREATE ON SCHEMA public TO grp_greedy;
SET pg_topics.max_groups_per_role = 1;
SET ROLE grp_greedy;
BEGIN;
SELECT topics.create_topic('gone_a', 1, 'text', 'text');
SELECT count(*) FROM topics.poll(NULL::gone_a, 'gone-1');
SELECT topics.drop_topic('gone_a');
SELECT topics.create_topic('gone_b', 1, 'text', 'text');
SELECT count(*) FROM topics.poll(NULL::gone_b, 'gone-2');
COMMIT;
SELECT topic, group_name FROM topics.consumer_groups WHERE group_name LIKE 'gone-%';
SELECT topics.drop_topic('gone_b');
RESET ROLE;
RESET pg_topics.max_groups_per_role;
REVOKE CREATE ON SCHEMA public FROM grp_greedy;

REVOKE CREATE ON SCHEMA public FROM grp_owner;
DROP ROLE grp_app, grp_owner, grp_squatter, grp_greedy;

SELECT * FROM topics.verify('topics.consumer_offsets');
