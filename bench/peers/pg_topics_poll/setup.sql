CREATE EXTENSION IF NOT EXISTS pg_topics;
DROP FUNCTION IF EXISTS bench_fetch(text, int);
DO $$
BEGIN
    IF to_regclass('bench_topic') IS NOT NULL THEN
        PERFORM topics.drop_topic('bench_topic');
    END IF;
END $$;
-- one partition, like the single heap table and the single PgQ queue
SELECT topics.create_topic('bench_topic', 1, 'text'::regtype, 'bytea'::regtype);

-- Consuming with fetch: the reader keeps its position in a cursor row, as the heap peer
-- does (consumer groups, which keep it themselves, come with topics.poll).
DROP TABLE IF EXISTS bench_cursor;
CREATE TABLE bench_cursor (consumer text PRIMARY KEY, pos bigint NOT NULL);
INSERT INTO bench_cursor VALUES ('c1', 0);

-- One consume call: lock the reader's position, fetch p_max records from it, move it past
-- the last one, return them (PL/pgSQL, like the heap peer, so the plan is cached).
CREATE OR REPLACE FUNCTION bench_fetch(p_consumer text, p_max int) RETURNS SETOF bench_topic
LANGUAGE plpgsql AS $$
DECLARE
    lo bigint;
BEGIN
    SELECT pos INTO lo FROM bench_cursor WHERE consumer = p_consumer FOR UPDATE;
    RETURN QUERY
        WITH f AS (SELECT * FROM topics.fetch(NULL::bench_topic, 0, lo, p_max)),
             u AS (UPDATE bench_cursor SET pos = (SELECT max(f."offset") + 1 FROM f)
                   WHERE consumer = p_consumer AND EXISTS (SELECT FROM f))
        SELECT * FROM f;
END $$;
