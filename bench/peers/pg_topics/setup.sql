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

-- One consume call: fetch p_max records from the reader's position, move the position
-- past the last one, return them.
CREATE OR REPLACE FUNCTION bench_fetch(p_consumer text, p_max int) RETURNS SETOF bench_topic
LANGUAGE sql AS $$
    WITH c AS (SELECT pos FROM bench_cursor WHERE consumer = p_consumer FOR UPDATE),
         f AS (SELECT r.* FROM c, LATERAL topics.fetch(NULL::bench_topic, 0, c.pos, p_max) r),
         u AS (UPDATE bench_cursor SET pos = (SELECT max("offset") + 1 FROM f)
               WHERE consumer = p_consumer AND EXISTS (SELECT FROM f))
    SELECT * FROM f;
$$;
