/* pg_topics--0.1.sql */

\echo Use "CREATE EXTENSION pg_topics" to load this file. \quit

COMMENT ON SCHEMA topics IS 'pg_topics: Kafka-style topics as tables';

-- Segments of partition logs: internal relations that retention drops
-- whole.  Members of the extension, so pg_dump leaves them out (records
-- are dumped through their partitions) and pg_upgrade keeps them.
CREATE SCHEMA topics_segments;
REVOKE ALL ON SCHEMA topics_segments FROM PUBLIC;
COMMENT ON SCHEMA topics_segments IS
'pg_topics: segments of partition logs (internal; managed by pg_topics)';

CREATE FUNCTION topics.topic_log_handler(internal)
RETURNS table_am_handler
AS 'MODULE_PATHNAME', 'topic_log_handler'
LANGUAGE C STRICT;
COMMENT ON FUNCTION topics.topic_log_handler(internal) IS
'table access method handler of topic_log';

CREATE ACCESS METHOD topic_log TYPE TABLE HANDLER topics.topic_log_handler;
COMMENT ON ACCESS METHOD topic_log IS
'append-only log storage of topic partitions';

CREATE FUNCTION topics.verify(topic regclass)
RETURNS TABLE(relation regclass, block bigint, problem text)
AS 'MODULE_PATHNAME', 'topic_verify'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.verify(regclass) IS
'check every page of every partition of a topic; no rows means healthy';

-- Topic settings.  Closed to PUBLIC: the functions below check privileges
-- themselves and write it as the bootstrap superuser.
CREATE TABLE topics.topic_config (
    topic regclass PRIMARY KEY,
    retention interval,
    retention_bytes bigint,
    created_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON topics.topic_config FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('topics.topic_config', '');
COMMENT ON TABLE topics.topic_config IS
'settings of each topic (internal; read topics.topics instead)';

-- Where each partition's log starts, when something moved it (TRUNCATE,
-- retention, delete_records).  pg_dump carries it, so that pg_restore gives
-- back the log start of a partition whose first records are gone: the
-- trigger moves a restored partition that has no records yet to it.
CREATE TABLE topics.log_starts (
    "partition" regclass PRIMARY KEY,
    log_start bigint NOT NULL
);
REVOKE ALL ON topics.log_starts FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('topics.log_starts', '');
COMMENT ON TABLE topics.log_starts IS
'where partitions whose first records are gone start (internal; read topics.offsets() instead)';

CREATE FUNCTION topics.restore_log_start()
RETURNS trigger
AS 'MODULE_PATHNAME', 'topic_restore_log_start'
LANGUAGE C;
REVOKE ALL ON FUNCTION topics.restore_log_start() FROM PUBLIC;
CREATE TRIGGER restore_log_start AFTER INSERT OR UPDATE ON topics.log_starts
    FOR EACH ROW EXECUTE FUNCTION topics.restore_log_start();
-- pg_restore runs in preserve mode (session_replication_role = replica)
ALTER TABLE topics.log_starts ENABLE ALWAYS TRIGGER restore_log_start;

-- Forget the settings of topics dropped by any means (DROP TABLE too)
CREATE FUNCTION topics.forget_dropped_topics()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- a dropped topic's group positions end with it: a later topic of the
    -- same name must not start where the old one's consumers were
    INSERT INTO topics.consumer_offsets (key, value)
    SELECT DISTINCT o.key, NULL::jsonb
    FROM topics.consumer_offsets o,
         pg_catalog.pg_event_trigger_dropped_objects() d
    WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
      AND d.objid IN (SELECT c.topic::pg_catalog.oid FROM topics.topic_config c)
      AND o.key->>'topic' = pg_catalog.quote_ident(d.schema_name) || '.' ||
                            pg_catalog.quote_ident(d.object_name);
    DELETE FROM topics.topic_config c
    USING pg_catalog.pg_event_trigger_dropped_objects() d
    WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
      AND d.objid = c.topic::pg_catalog.oid;
    DELETE FROM topics.log_starts s
    USING pg_catalog.pg_event_trigger_dropped_objects() d
    WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
      AND d.objid = s."partition"::pg_catalog.oid;
END
$$;
REVOKE ALL ON FUNCTION topics.forget_dropped_topics() FROM PUBLIC;
COMMENT ON FUNCTION topics.forget_dropped_topics() IS
'event trigger: removes the settings of dropped topics';
CREATE EVENT TRIGGER topics_forget_dropped ON sql_drop
    EXECUTE FUNCTION topics.forget_dropped_topics();
-- also in preserve mode (session_replication_role = replica), in which
-- pg_restore --clean drops the topics it restores
ALTER EVENT TRIGGER topics_forget_dropped ENABLE ALWAYS;

CREATE FUNCTION topics.create_topic(topic text, partitions int DEFAULT 1,
    key_type regtype DEFAULT 'text', value_type regtype DEFAULT 'jsonb',
    retention interval DEFAULT NULL, retention_bytes bigint DEFAULT NULL)
RETURNS regclass
AS 'MODULE_PATHNAME', 'topic_create_topic'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION topics.create_topic(text, int, regtype, regtype, interval, bigint) IS
'create a topic: a table with one topic_log partition per Kafka partition';

CREATE FUNCTION topics.add_partitions(topic text, partitions int)
RETURNS void
AS 'MODULE_PATHNAME', 'topic_add_partitions'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.add_partitions(text, int) IS
'grow a topic to the given number of partitions';

CREATE FUNCTION topics.drop_topic(topic text)
RETURNS void
AS 'MODULE_PATHNAME', 'topic_drop_topic'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.drop_topic(text) IS
'drop a topic and all its records';

CREATE FUNCTION topics.produce(topic text, value "any", key "any" DEFAULT NULL,
    partition int DEFAULT NULL, headers jsonb DEFAULT NULL)
RETURNS TABLE(partition int, "offset" bigint)
AS 'MODULE_PATHNAME', 'topic_produce'
LANGUAGE C VOLATILE ROWS 1;
COMMENT ON FUNCTION topics.produce(text, "any", "any", int, jsonb) IS
'append one record to a topic; returns its partition and offset';

CREATE FUNCTION topics.produce_batch(topic text, "values" "any", keys "any" DEFAULT NULL,
    partition int DEFAULT NULL)
RETURNS TABLE(partition int, "offset" bigint)
AS 'MODULE_PATHNAME', 'topic_produce_batch'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION topics.produce_batch(text, "any", "any", int) IS
'append many records to a topic; one row per record, in input order';

CREATE FUNCTION topics.fetch(topic anyelement, partition int, from_offset bigint,
    max_records int DEFAULT 1000, wait interval DEFAULT '0')
RETURNS SETOF anyelement
AS 'MODULE_PATHNAME', 'topic_fetch'
LANGUAGE C STABLE;
COMMENT ON FUNCTION topics.fetch(anyelement, int, bigint, int, interval) IS
'read committed, stable records of one partition in offset order, optionally waiting for them';

CREATE FUNCTION topics.next_offset(topic text, partition int, from_offset bigint)
RETURNS bigint
AS 'MODULE_PATHNAME', 'topic_next_offset'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.next_offset(text, int, bigint) IS
'where a reader at from_offset continues: the next visible record, or the last stable offset';

CREATE FUNCTION topics.offsets(topic text)
RETURNS TABLE(partition int, log_start_offset bigint, high_watermark bigint,
    last_stable_offset bigint)
AS 'MODULE_PATHNAME', 'topic_offsets'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.offsets(text) IS
'log start, high watermark and last stable offset of every partition';

CREATE FUNCTION topics.offsets_for_times(topic text, ts timestamptz)
RETURNS TABLE(partition int, "offset" bigint)
AS 'MODULE_PATHNAME', 'topic_offsets_for_times'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.offsets_for_times(text, timestamptz) IS
'per partition, the earliest offset whose timestamp is at or after ts';

CREATE FUNCTION topics.murmur2(key bytea)
RETURNS int
AS 'MODULE_PATHNAME', 'topic_murmur2_sql'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION topics.murmur2(bytea) IS
'Kafka''s murmur2 hash of a key''s bytes, as its default partitioner computes it';

CREATE FUNCTION topics.partition_info(topic regclass)
RETURNS TABLE(partition int, relation regclass, log_start_offset bigint,
    high_watermark bigint, last_stable_offset bigint, records bigint, bytes bigint,
    oldest_timestamp timestamptz, newest_timestamp timestamptz,
    holder_pid int, holder_xid xid, holder_since timestamptz, logical_replica boolean)
AS 'MODULE_PATHNAME', 'topic_partition_info'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.partition_info(regclass) IS
'per-partition numbers of one topic (see topics.partitions)';

CREATE VIEW topics.topics AS
SELECT c.topic,
       (SELECT count(*) FROM pg_catalog.pg_inherits i WHERE i.inhparent = c.topic)::int AS partitions,
       k.atttypid::regtype AS key_type,
       v.atttypid::regtype AS value_type,
       c.retention,
       c.retention_bytes,
       c.created_at
FROM topics.topic_config c
JOIN pg_catalog.pg_attribute k ON k.attrelid = c.topic AND k.attname = 'key'
JOIN pg_catalog.pg_attribute v ON v.attrelid = c.topic AND v.attname = 'value';
COMMENT ON VIEW topics.topics IS 'every topic of this database, with its settings';

-- Only the topics the caller may see the numbers of: those it may SELECT,
-- or all for superusers and pg_monitor members (partition_info refuses the
-- others; the condition on c alone is applied before it is called).
CREATE VIEW topics.partitions AS
SELECT c.topic, p.*
FROM topics.topic_config c, LATERAL topics.partition_info(c.topic) p
WHERE pg_catalog.has_table_privilege(c.topic, 'SELECT')
   OR pg_catalog.pg_has_role('pg_monitor', 'USAGE');
COMMENT ON VIEW topics.partitions IS
'every partition of the topics the caller may read: offsets, size, time range, and the transaction holding its stable offset back';

CREATE FUNCTION topics.segment_info(topic regclass)
RETURNS TABLE(partition int, segment int, state text, base_offset bigint,
    activated_at timestamptz, relation regclass, bytes bigint)
AS 'MODULE_PATHNAME', 'topic_segment_info'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.segment_info(regclass) IS
'the segments of every partition of one topic (see topics.segments)';

-- The same callers as topics.partitions.
CREATE VIEW topics.segments AS
SELECT c.topic, s.*
FROM topics.topic_config c, LATERAL topics.segment_info(c.topic) s
WHERE pg_catalog.has_table_privilege(c.topic, 'SELECT')
   OR pg_catalog.pg_has_role('pg_monitor', 'USAGE');
COMMENT ON VIEW topics.segments IS
'the segments of every partition of the topics the caller may read, oldest first: their state, first offset and size';

GRANT USAGE ON SCHEMA topics TO PUBLIC;
GRANT SELECT ON topics.topics, topics.partitions, topics.segments TO PUBLIC;

CREATE FUNCTION topics.partition_for_insert(topic oid, key anyelement)
RETURNS int
AS 'MODULE_PATHNAME', 'topic_partition_for_insert'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION topics.partition_for_insert(oid, anyelement) IS
'internal: the partition INSERT routes a key to (planner-inserted)';

-- Consumer groups.  Every committed group position is a record of this internal log
-- (transactional, crash-safe, replicable, and free of dead tuples); the latest one per key
-- is cached in shared memory.  Closed to PUBLIC.
CREATE TABLE topics.consumer_offsets (
    partition int NOT NULL DEFAULT 0,
    "offset" bigint NOT NULL DEFAULT -1,
    "timestamp" timestamptz NOT NULL DEFAULT '-infinity',
    key jsonb,
    value jsonb,
    headers jsonb
) USING topic_log;
REVOKE ALL ON topics.consumer_offsets FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('topics.consumer_offsets', '');
COMMENT ON TABLE topics.consumer_offsets IS
'committed consumer-group positions, one record per commit (internal)';

CREATE FUNCTION topics.poll(topic anyelement, group_name text, consumer text DEFAULT NULL,
    max_records int DEFAULT 1000, wait interval DEFAULT '0')
RETURNS SETOF anyelement
AS 'MODULE_PATHNAME', 'topic_poll'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION topics.poll(anyelement, text, text, int, interval) IS
'read the next records of the group''s partitions and commit the new positions in this transaction';

CREATE FUNCTION topics.commit(topic text, group_name text, partition int, next_offset bigint)
RETURNS void
AS 'MODULE_PATHNAME', 'topic_commit'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.commit(text, text, int, bigint) IS
'set a consumer group''s position in a partition, in this transaction';

CREATE FUNCTION topics.seek(topic text, group_name text, partition int, next_offset bigint)
RETURNS void
AS 'MODULE_PATHNAME', 'topic_seek'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.seek(text, text, int, bigint) IS
'move a consumer group to an offset; its members continue from there at their next poll';

CREATE FUNCTION topics.reset_group(topic text, group_name text, "to" text)
RETURNS void
AS 'MODULE_PATHNAME', 'topic_reset_group'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.reset_group(text, text, text) IS
'move a consumer group to the earliest or latest offset of every partition';

CREATE FUNCTION topics.delete_group(topic text, group_name text)
RETURNS void
AS 'MODULE_PATHNAME', 'topic_delete_group'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.delete_group(text, text) IS
'forget a consumer group without members and its positions';

CREATE FUNCTION topics.group_info()
RETURNS TABLE(group_name text, topic regclass, owner regrole, generation int, members int)
AS 'MODULE_PATHNAME', 'topic_group_info'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.group_info() IS 'consumer groups (see topics.consumer_groups)';

CREATE FUNCTION topics.member_info()
RETURNS TABLE(group_name text, topic regclass, member text, durable boolean, pid int,
    last_seen timestamptz, generation int, partitions int[])
AS 'MODULE_PATHNAME', 'topic_member_info'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.member_info() IS 'consumer group members (see topics.group_members)';

CREATE FUNCTION topics.group_offset_info()
RETURNS TABLE(group_name text, topic regclass, partition int, committed_offset bigint)
AS 'MODULE_PATHNAME', 'topic_group_offset_info'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.group_offset_info() IS 'committed group positions (see topics.consumer_lag)';

-- group_info, member_info and group_offset_info show only the groups of
-- topics the caller may SELECT (superusers and pg_monitor members: all)
CREATE VIEW topics.consumer_groups AS
SELECT * FROM topics.group_info();
COMMENT ON VIEW topics.consumer_groups IS 'consumer groups of the topics the caller may read';

CREATE VIEW topics.group_members AS
SELECT * FROM topics.member_info();
COMMENT ON VIEW topics.group_members IS 'members of the consumer groups the caller may see, with their partitions';

CREATE VIEW topics.consumer_lag AS
SELECT g.group_name, g.topic, o.partition, c.committed_offset, o.high_watermark,
       greatest(o.last_stable_offset -
                coalesce(c.committed_offset,
                         CASE current_setting('pg_topics.auto_offset_reset')
                             WHEN 'latest' THEN o.last_stable_offset
                             ELSE o.log_start_offset END), 0) AS lag
FROM topics.group_info() g
CROSS JOIN LATERAL topics.offsets(g.topic::text) o
LEFT JOIN topics.group_offset_info() c
       ON c.group_name = g.group_name AND c.topic = g.topic AND c.partition = o.partition;
COMMENT ON VIEW topics.consumer_lag IS
'per group and partition: committed offset (NULL before the first), high watermark, and lag behind the last stable offset';

GRANT SELECT ON topics.consumer_groups, topics.group_members, topics.consumer_lag TO PUBLIC;

-- Retention
CREATE FUNCTION topics.delete_records(topic text, "partition" int, before_offset bigint)
RETURNS bigint
AS 'MODULE_PATHNAME', 'topic_delete_records'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.delete_records(text, int, bigint) IS
'records below before_offset leave the partition (Kafka''s DeleteRecords); returns the new log start';

CREATE FUNCTION topics.enforce_retention(topic text)
RETURNS TABLE("partition" int, log_start_offset bigint)
AS 'MODULE_PATHNAME', 'topic_enforce_retention'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.enforce_retention(text) IS
'apply the topic''s retention now, rather than at the background worker''s next round';

-- Whether the background worker that applies retention runs
CREATE FUNCTION topics.maintenance_info()
RETURNS TABLE(running boolean, launcher_pid int, last_round timestamptz,
    problem text, problem_since timestamptz)
AS 'MODULE_PATHNAME', 'topic_maintenance_info'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.maintenance_info() IS
'state of the background worker in this database (see topics.maintenance)';

CREATE VIEW topics.maintenance AS
SELECT * FROM topics.maintenance_info();
COMMENT ON VIEW topics.maintenance IS
'whether the background worker (retention, segments ahead of need) runs, when it last finished a round in this database, and why not';
GRANT SELECT ON topics.maintenance TO PUBLIC;
