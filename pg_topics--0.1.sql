/* pg_topics--0.1.sql */

\echo Use "CREATE EXTENSION pg_topics" to load this file. \quit

COMMENT ON SCHEMA topics IS 'pg_topics: Kafka-style topics as tables';

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
