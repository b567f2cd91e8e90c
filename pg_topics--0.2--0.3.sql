/* pg_topics--0.2--0.3.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION pg_topics UPDATE TO '0.3'" to load this file. \quit

-- ---- helper D (issue 31): Kafka topic names up to 249 characters ----------
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
-- ---- end of helper D's block ----------------------------------------------
