/* pg_topics--0.2--0.3.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION pg_topics UPDATE TO '0.3'" to load this file. \quit

-- The SQL objects of release 0.3.  Each change is a block of its own.

---------------------------------------------------------------------------
-- Topic configuration (Kafka's topic config keys, one model for SQL and
-- Kafka): create_topic's configs, topics.alter_topic_configs and the view
-- topics.topic_configs.  retention.ms and retention.bytes are the existing
-- retention and retention_bytes columns of topics.topic_config; every other
-- key a topic sets is in its new configs column (Kafka's text of each
-- value), which pg_dump carries with the rest of the table.
---------------------------------------------------------------------------

-- Stored in line (a topic's configs are a few hundred bytes): the table
-- keeps having no TOAST table, which VACUUM FULL of it would have to
-- replace, and the extension refuses new dependents of its relations
ALTER TABLE topics.topic_config ADD COLUMN configs jsonb NOT NULL DEFAULT '{}',
    ALTER COLUMN configs SET STORAGE PLAIN;

-- Every write of a topic's settings, by any means (pg_restore too, in
-- preserve mode), drops what backends cached of them
CREATE FUNCTION topics.topic_config_changed()
RETURNS trigger
AS 'MODULE_PATHNAME', 'topic_config_changed'
LANGUAGE C;
REVOKE ALL ON FUNCTION topics.topic_config_changed() FROM PUBLIC;
COMMENT ON FUNCTION topics.topic_config_changed() IS
'trigger on topics.topic_config: backends forget the cached configs of the topic';
CREATE TRIGGER topic_config_changed AFTER INSERT OR UPDATE OR DELETE ON topics.topic_config
    FOR EACH ROW EXECUTE FUNCTION topics.topic_config_changed();
ALTER TABLE topics.topic_config ENABLE ALWAYS TRIGGER topic_config_changed;

-- create_topic takes configs as a new last argument: a function's
-- arguments cannot change in place, so it is made anew with its comment
-- and privileges (EXECUTE for PUBLIC, as before)
DROP FUNCTION topics.create_topic(text, int, regtype, regtype, interval, bigint);
CREATE FUNCTION topics.create_topic(topic text, partitions int DEFAULT 1,
    key_type regtype DEFAULT 'text', value_type regtype DEFAULT 'jsonb',
    retention interval DEFAULT NULL, retention_bytes bigint DEFAULT NULL,
    configs jsonb DEFAULT NULL)
RETURNS regclass
AS 'MODULE_PATHNAME', 'topic_create_topic'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION topics.create_topic(text, int, regtype, regtype, interval, bigint, jsonb) IS
'create a topic: a table with one topic_log partition per Kafka partition';

CREATE FUNCTION topics.alter_topic_configs(topic regclass, set jsonb DEFAULT NULL,
    reset text[] DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'topic_alter_topic_configs'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION topics.alter_topic_configs(regclass, jsonb, text[]) IS
'set topic configs (Kafka''s keys) and reset others to their defaults, all or none';

CREATE FUNCTION topics.topic_config_info(topic regclass)
RETURNS TABLE(name text, value text, source text, read_only boolean)
AS 'MODULE_PATHNAME', 'topic_config_info'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.topic_config_info(regclass) IS
'every topic config of one topic, with its value and where it comes from (see topics.topic_configs)';

-- The same callers as topics.partitions
CREATE VIEW topics.topic_configs AS
SELECT c.topic, i.name, i.value, i.source, i.read_only
FROM topics.topic_config c, LATERAL topics.topic_config_info(c.topic) i
WHERE pg_catalog.has_table_privilege(c.topic, 'SELECT')
   OR pg_catalog.pg_has_role('pg_monitor', 'USAGE');
COMMENT ON VIEW topics.topic_configs IS
'every topic config (Kafka''s keys) of the topics the caller may read: value, and source default, topic or server';
GRANT SELECT ON topics.topic_configs TO PUBLIC;

-- end of topic configuration

---------------------------------------------------------------------------
-- Kafka topic names up to 249 characters.
---------------------------------------------------------------------------
-- A Kafka topic name longer than a table name (63 bytes) names a topic whose
-- table has a shortened name (the first 46 bytes, '_', 16 hex digits of the
-- name's SHA-256); the Kafka name is kept here (src/base/topic_names.c).
-- PUBLIC may read it: it says no more than pg_class does.  pg_dump carries
-- it (the regclass as a name); the event trigger below forgets dropped
-- topics.
CREATE TABLE topics.kafka_topic_names (
    topic regclass PRIMARY KEY,
    kafka_name text NOT NULL UNIQUE
        CHECK (pg_catalog.length(kafka_name) BETWEEN 64 AND 249)
);
REVOKE ALL ON topics.kafka_topic_names FROM PUBLIC;
GRANT SELECT ON topics.kafka_topic_names TO PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('topics.kafka_topic_names', '');
COMMENT ON TABLE topics.kafka_topic_names IS
'the Kafka names of topics whose names are longer than a table name (internal; managed by pg_topics)';

CREATE FUNCTION topics.forget_dropped_kafka_names()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    DELETE FROM topics.kafka_topic_names n
    USING pg_catalog.pg_event_trigger_dropped_objects() d
    WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
      AND d.objid = n.topic::pg_catalog.oid;
END
$$;
REVOKE ALL ON FUNCTION topics.forget_dropped_kafka_names() FROM PUBLIC;
COMMENT ON FUNCTION topics.forget_dropped_kafka_names() IS
'event trigger: removes the Kafka names of dropped topics';
CREATE EVENT TRIGGER topics_forget_dropped_kafka_names ON sql_drop
    EXECUTE FUNCTION topics.forget_dropped_kafka_names();
-- also in preserve mode, as topics_forget_dropped
ALTER EVENT TRIGGER topics_forget_dropped_kafka_names ENABLE ALWAYS;
-- end of Kafka topic names

---------------------------------------------------------------------------
-- Static members' instance ids in topics.group_members.
---------------------------------------------------------------------------
-- topics.member_info() returns a new last column, instance_id (a Kafka
-- consumer's group.instance.id; NULL for a dynamic one and for SQL
-- members).  A function's result columns cannot change in place, and the
-- view depends on it: the function is made anew under another name, the
-- view is pointed at it (a view may gain columns at its end, so views of
-- users built on it stay, and so do its privileges and comment), and it
-- takes the old one's name.  EXECUTE is PUBLIC's, as before.
CREATE FUNCTION topics.member_info_new()
RETURNS TABLE(group_name text, topic regclass, member text, durable boolean, pid int,
    last_seen timestamptz, generation int, partitions int[], instance_id text)
AS 'MODULE_PATHNAME', 'topic_member_info'
LANGUAGE C STRICT VOLATILE;
CREATE OR REPLACE VIEW topics.group_members AS
SELECT * FROM topics.member_info_new() AS member_info;
DROP FUNCTION topics.member_info();
ALTER FUNCTION topics.member_info_new() RENAME TO member_info;
COMMENT ON FUNCTION topics.member_info() IS 'consumer group members (see topics.group_members)';
-- end of instance ids

-- Negative committed offsets in topics.consumer_lag.
---------------------------------------------------------------------------
-- A Kafka consumer's OffsetCommit keeps any offset, a negative one too
-- (kafkajs's resetOffsets commits -2), and the group's consumers take it
-- for no position: committed_offset shows what was committed, and the lag
-- is counted, as without a position, from where the group will start.
-- The columns stay as they were, and so do the view's privileges.
CREATE OR REPLACE VIEW topics.consumer_lag AS
SELECT g.group_name, g.topic, o.partition, c.committed_offset, o.high_watermark,
       greatest(o.last_stable_offset -
                coalesce(CASE WHEN c.committed_offset >= 0 THEN c.committed_offset END,
                         CASE current_setting('pg_topics.auto_offset_reset')
                             WHEN 'latest' THEN o.last_stable_offset
                             ELSE o.log_start_offset END), 0) AS lag
FROM topics.group_info() g
CROSS JOIN LATERAL topics.offsets(g.topic::text) o
LEFT JOIN topics.group_offset_info() c
       ON c.group_name = g.group_name AND c.topic = g.topic AND c.partition = o.partition;
COMMENT ON VIEW topics.consumer_lag IS
'per group and partition: committed offset (NULL before the first; a Kafka consumer may commit a negative one), high watermark, and lag behind the last stable offset';
-- end of negative committed offsets

-- Log compaction.
---------------------------------------------------------------------------
-- topics.compact cleans a compacted topic's sealed log now, as the
-- background worker does when a partition is due; topics.partitions shows
-- how much of each partition's sealed log is still to clean and when a pass
-- last cleaned it (columns added at the end, so the view keeps its
-- privileges and dependents).
CREATE FUNCTION topics.compact(topic regclass)
RETURNS bigint
AS 'MODULE_PATHNAME', 'topic_compact'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.compact(regclass) IS
'compact the topic''s sealed segments now (cleanup.policy compact): each key keeps its newest record, at its offset; returns the records removed';

CREATE FUNCTION topics.compaction_info(topic regclass)
RETURNS TABLE("partition" int, dirty_ratio float8, last_compaction timestamptz)
AS 'MODULE_PATHNAME', 'topic_compaction_info'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION topics.compaction_info(regclass) IS
'per-partition state of log compaction of one topic (see topics.partitions)';

CREATE OR REPLACE VIEW topics.partitions AS
SELECT c.topic, p.*, k.dirty_ratio, k.last_compaction
FROM topics.topic_config c
CROSS JOIN LATERAL topics.partition_info(c.topic) p
LEFT JOIN LATERAL topics.compaction_info(c.topic) k ON k.partition = p.partition
WHERE pg_catalog.has_table_privilege(c.topic, 'SELECT')
   OR pg_catalog.pg_has_role('pg_monitor', 'USAGE');
COMMENT ON VIEW topics.partitions IS
'every partition of the topics the caller may read: offsets, size, time range, the transaction holding its stable offset back, and for compacted topics the share of the sealed log still to clean and the last compaction';
-- end of log compaction

---------------------------------------------------------------------------
-- topics.latest(NULL::topic): the newest record of each key.
---------------------------------------------------------------------------
-- Any topic, compacted or not; per partition (a partition is Kafka's unit
-- of compaction); committed records below each partition's last stable
-- offset, as fetch reads them.  Readers of the topic may call it (SELECT
-- on the topic, checked inside, as fetch does): EXECUTE for PUBLIC.
CREATE FUNCTION topics.latest(topic anyelement)
RETURNS SETOF anyelement
AS 'MODULE_PATHNAME', 'topic_latest'
LANGUAGE C STABLE;
COMMENT ON FUNCTION topics.latest(anyelement) IS
'the newest record of each key in each partition of a topic (a tombstone too; keyless records left out), in (partition, offset) order; call as topics.latest(NULL::mytopic)';
-- end of topics.latest

---------------------------------------------------------------------------
-- Log compaction on logical subscribers.
---------------------------------------------------------------------------
-- The records a publisher's log cleaner removed from a partition this
-- server replicates, as the subscription applied them, that this server's
-- worker has still to remove from its own segments (docs/replication.md).
-- A row goes when every record of it is gone.
CREATE TABLE topics.replica_removals (
    "partition" regclass PRIMARY KEY,
    removed pg_catalog.int8multirange NOT NULL
);
REVOKE ALL ON topics.replica_removals FROM PUBLIC;
COMMENT ON TABLE topics.replica_removals IS
'offsets a publisher''s log cleaner removed that this replica''s worker still has to remove (internal)';
-- end of log compaction on logical subscribers

---------------------------------------------------------------------------
-- Kafka transactions.
---------------------------------------------------------------------------
-- One row per Kafka transactional id (src/kafka/transactions.c): the role
-- that owns it, its producer id and epoch, and its transaction's state by
-- Kafka's names.  An open transaction is a PostgreSQL transaction held by a
-- transaction worker; its commit marks the row CompleteCommit in the same
-- transaction as the records and group positions.  Not dumped: the roles
-- are this cluster's, and a restored database has no open transaction.
CREATE TABLE topics.kafka_transactional_ids (
    transactional_id text PRIMARY KEY,
    role pg_catalog.oid NOT NULL,
    producer_id bigint NOT NULL,
    producer_epoch smallint NOT NULL,
    -- the producer id and epoch an InitProducerId naming them (KIP-360)
    -- moved on from, or -1: a retry of that request names them (the id
    -- differs from producer_id once the epochs ran out and a new producer id
    -- was given)
    last_producer_id bigint NOT NULL DEFAULT -1,
    last_producer_epoch smallint NOT NULL DEFAULT -1,
    timeout_ms integer NOT NULL,
    state text NOT NULL CHECK (state IN ('Empty', 'Ongoing', 'PrepareCommit',
        'PrepareAbort', 'CompleteCommit', 'CompleteAbort')),
    partitions text[] NOT NULL DEFAULT '{}',
    groups text[] NOT NULL DEFAULT '{}',
    started_at timestamptz,
    -- the row's last change: an id not in a transaction is deleted once
    -- pg_topics.kafka_transactional_id_expiration passed since
    updated_at timestamptz NOT NULL
);
REVOKE ALL ON topics.kafka_transactional_ids FROM PUBLIC;
COMMENT ON TABLE topics.kafka_transactional_ids IS
'Kafka transactional ids, their producers and their transactions'' states (internal; managed by pg_topics)';

-- The ids of the roles the caller is a member of, as the group views show.
CREATE VIEW topics.kafka_transactions WITH (security_barrier) AS
SELECT t.transactional_id,
       pg_catalog.pg_get_userbyid(t.role)::name AS role,
       t.producer_id, t.producer_epoch, t.state, t.timeout_ms,
       t.partitions, t.groups, t.started_at, t.updated_at
FROM topics.kafka_transactional_ids t
WHERE pg_catalog.pg_has_role(t.role, 'USAGE');
GRANT SELECT ON topics.kafka_transactions TO PUBLIC;
COMMENT ON VIEW topics.kafka_transactions IS
'the Kafka transactional ids of the roles the caller is a member of: producer, epoch, state and the open transaction''s partitions and groups';
-- end of Kafka transactions
