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
