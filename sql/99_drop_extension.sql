-- DROP EXTENSION: refused while topics exist, CASCADE removes whole topics
\set VERBOSITY terse
SELECT count(*) > 0 AS topics_exist FROM topics.topics;
DO $$
BEGIN
    DROP EXTENSION pg_topics;
EXCEPTION WHEN dependent_objects_still_exist THEN
    RAISE NOTICE 'refused: %', SQLSTATE;
END $$;
SELECT count(*) > 0 AS topics_still_exist FROM topics.topics;

SET client_min_messages = warning;
DROP EXTENSION pg_topics CASCADE;
RESET client_min_messages;
-- no topic, partition or topic_log table is left behind
SELECT count(*) AS leftover_tables FROM pg_class c
WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
  AND c.relname IN ('sales', 'p', 'audit', 'f', 's', 'orders', 'rawtopic', 'sales_p0', 'p_p0', 'f_p1', 's_p0');
SELECT count(*) AS partitioned_tables_left FROM pg_class WHERE relkind = 'p' AND relnamespace = 'public'::regnamespace;
