-- Privileges: PostgreSQL's decide, and no function is a way around them
\set SHOW_CONTEXT never
SELECT topics.create_topic('secret', partitions => 1, value_type => 'text');
SELECT count(*) FROM topics.produce('secret', 'classified');
CREATE ROLE topic_reader;
CREATE ROLE topic_writer;
CREATE ROLE nobody;
GRANT SELECT ON secret TO topic_reader;
GRANT INSERT ON secret TO topic_writer;

SET ROLE nobody;
SELECT * FROM topics.produce('secret', 'x');
SELECT * FROM topics.produce_batch('secret', ARRAY['x']);
INSERT INTO secret (value) VALUES ('x');
SELECT * FROM topics.fetch(NULL::secret, 0, 0);
SELECT topics.next_offset('secret', 0, 0);
SELECT * FROM topics.offsets('secret');
SELECT * FROM topics.offsets_for_times('secret', now());
SELECT * FROM topics.verify('secret');
SELECT topics.create_topic('mine');
SELECT topics.add_partitions('secret', 2);
SELECT topics.drop_topic('secret');
-- internal tables are closed
SELECT * FROM topics.topic_config;
INSERT INTO topics.topic_config (topic) VALUES ('secret');
-- the views show topics, not records
SELECT topic, partitions FROM topics.topics WHERE topic = 'secret'::regclass;
RESET ROLE;

SET ROLE topic_writer;
SELECT partition FROM topics.produce('secret', 'written');
SELECT * FROM topics.fetch(NULL::secret, 0, 0);
RESET ROLE;

SET ROLE topic_reader;
SELECT "offset", value FROM topics.fetch(NULL::secret, 0, 0);
SELECT * FROM topics.produce('secret', 'x');
RESET ROLE;

-- EXECUTE on fetch and poll counts too, in FROM (where they run as scans) as elsewhere
REVOKE EXECUTE ON FUNCTION topics.fetch(anyelement, int, bigint, int, interval) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION topics.poll(anyelement, text, text, int, interval) FROM PUBLIC;
SET ROLE topic_reader;
SELECT "offset", value FROM topics.fetch(NULL::secret, 0, 0);
SELECT (topics.fetch(NULL::secret, 0, 0)).value;
SELECT "offset", value FROM topics.poll(NULL::secret, 'readers');
RESET ROLE;
GRANT EXECUTE ON FUNCTION topics.fetch(anyelement, int, bigint, int, interval) TO PUBLIC;
GRANT EXECUTE ON FUNCTION topics.poll(anyelement, text, text, int, interval) TO PUBLIC;
SET ROLE topic_reader;
SELECT "offset", value FROM topics.fetch(NULL::secret, 0, 0);
RESET ROLE;

-- offsets, sizes, holders, groups and members: only of the topics the caller
-- may SELECT; superusers and pg_monitor members see all of them
SELECT count(*) FROM topics.poll(NULL::secret, 'auditors', 'auditor-1');
CREATE ROLE watcher IN ROLE pg_monitor;
SET ROLE nobody;
SELECT * FROM topics.partition_info('secret');
SELECT count(*) FROM topics.partitions WHERE topic = 'secret'::regclass;
SELECT * FROM topics.segment_info('secret');
SELECT count(*) FROM topics.segments WHERE topic = 'secret'::regclass;
SELECT count(*) FROM topics.consumer_groups WHERE topic = 'secret'::regclass;
SELECT count(*) FROM topics.group_members WHERE topic = 'secret'::regclass;
SELECT count(*) FROM topics.consumer_lag WHERE topic = 'secret'::regclass;
SELECT count(*) FROM topics.group_info() WHERE topic = 'secret'::regclass;
SELECT count(*) FROM topics.member_info() WHERE topic = 'secret'::regclass;
SELECT count(*) FROM topics.group_offset_info() WHERE topic = 'secret'::regclass;
RESET ROLE;
SET ROLE topic_writer;
SELECT count(*) FROM topics.partitions WHERE topic = 'secret'::regclass;
SELECT count(*) FROM topics.consumer_groups WHERE topic = 'secret'::regclass;
SELECT count(*) FROM topics.group_offset_info() WHERE topic = 'secret'::regclass;
RESET ROLE;
SET ROLE topic_reader;
SELECT partition, high_watermark, records FROM topics.partition_info('secret');
SELECT partition, high_watermark FROM topics.partitions WHERE topic = 'secret'::regclass;
SELECT partition, state FROM topics.segments WHERE topic = 'secret'::regclass AND state <> 'spare' ORDER BY partition, segment;
SELECT group_name, members FROM topics.consumer_groups WHERE topic = 'secret'::regclass;
SELECT group_name, member FROM topics.group_members WHERE topic = 'secret'::regclass;
SELECT group_name, committed_offset, lag FROM topics.consumer_lag WHERE topic = 'secret'::regclass;
SELECT group_name, committed_offset FROM topics.group_offset_info() WHERE topic = 'secret'::regclass;
RESET ROLE;
SET ROLE watcher;
SELECT partition, high_watermark, records FROM topics.partition_info('secret');
SELECT partition, state FROM topics.segment_info('secret') WHERE state <> 'spare' ORDER BY partition, segment;
SELECT partition, high_watermark FROM topics.partitions WHERE topic = 'secret'::regclass;
SELECT * FROM topics.offsets('secret');
SELECT group_name, members FROM topics.consumer_groups WHERE topic = 'secret'::regclass;
SELECT group_name, member FROM topics.group_members WHERE topic = 'secret'::regclass;
SELECT group_name, committed_offset, lag FROM topics.consumer_lag WHERE topic = 'secret'::regclass;
-- watching is not reading
SELECT * FROM topics.fetch(NULL::secret, 0, 0);
RESET ROLE;
DROP ROLE watcher;

-- creating a topic needs CREATE on the schema; the creator owns it
CREATE SCHEMA team;
GRANT USAGE ON SCHEMA team TO nobody;
SET ROLE nobody;
SELECT topics.create_topic('team.t');
RESET ROLE;
GRANT CREATE ON SCHEMA team TO nobody;
SET ROLE nobody;
SELECT topics.create_topic('team.t', 2);
SELECT topics.add_partitions('team.t', 3);
SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'team.t'::regclass;
RESET ROLE;
SET ROLE topic_reader;
SELECT topics.drop_topic('team.t');
RESET ROLE;
SET ROLE nobody;
SELECT topics.drop_topic('team.t');
RESET ROLE;

-- internal DDL ignores the caller's settings: records never land in a
-- tablespace the role may not create in, and types come from pg_catalog
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE topics_private LOCATION '';
RESET allow_in_place_tablespaces;
CREATE SCHEMA tenant;
GRANT USAGE, CREATE ON SCHEMA tenant TO nobody;
SET ROLE nobody;
SELECT topics.create_topic('tenant.own', 2);
CREATE TYPE tenant.jsonb AS (x int);
SET search_path = tenant, pg_catalog;
SELECT topics.create_topic('tenant.other');
SET default_tablespace = topics_private;
SET default_table_access_method = topic_log;
CREATE TABLE tenant.plain (a int);
SELECT count(*) FROM topics.produce_batch('tenant.own', ARRAY['{}', '{}', '{}'], partition => 0);
TRUNCATE tenant.own;
SELECT count(*) FROM topics.produce('tenant.own', '{"after": "truncate"}', partition => 0);
SELECT topics.add_partitions('tenant.own', 3);
SELECT count(*) FROM topics.produce('tenant.own', '{}', partition => 2);
SELECT topics.create_topic('tenant.third');
RESET search_path;
RESET default_table_access_method;
RESET default_tablespace;
RESET ROLE;
SELECT count(*) AS in_topics_private FROM pg_class
WHERE reltablespace = (SELECT oid FROM pg_tablespace WHERE spcname = 'topics_private');
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
WHERE attrelid = 'tenant.other'::regclass AND attnum > 0 ORDER BY attnum;
SELECT partition, "offset", value FROM tenant.own ORDER BY partition, "offset";
-- a topic moved to a tablespace keeps its new partitions there
ALTER TABLE tenant.own SET TABLESPACE topics_private;
SELECT topics.add_partitions('tenant.own', 4);
SELECT c.relname, t.spcname FROM pg_class c JOIN pg_tablespace t ON t.oid = c.reltablespace
WHERE c.relname LIKE 'own%';
SELECT count(*) > 0 AS segment_follows FROM pg_class
WHERE relnamespace = 'topics_segments'::regnamespace
  AND reltablespace = (SELECT oid FROM pg_tablespace WHERE spcname = 'topics_private');
SELECT topics.drop_topic('tenant.own');
SELECT topics.drop_topic('tenant.other');
SELECT topics.drop_topic('tenant.third');
DROP TYPE tenant.jsonb;
DROP SCHEMA tenant;
DROP TABLESPACE topics_private;

-- row-level security cannot be switched on
ALTER TABLE secret ENABLE ROW LEVEL SECURITY;

DROP SCHEMA team;
SELECT topics.drop_topic('secret');
DROP ROLE topic_reader;
DROP ROLE topic_writer;
DROP ROLE nobody;
