-- TRUNCATE keeps offsets growing; ANALYZE and size estimates work
CREATE TABLE events (partition int NOT NULL DEFAULT 0, "offset" bigint NOT NULL DEFAULT -1,
    "timestamp" timestamptz NOT NULL DEFAULT '-infinity', key text, value text, headers jsonb) USING topic_log;
INSERT INTO events (key, value) SELECT 'k' || g, 'v' || g FROM generate_series(1, 1000) g;
SELECT max("offset") AS last_before, max("timestamp") AS ts_before FROM events \gset

TRUNCATE events;
SELECT count(*) FROM events;
INSERT INTO events (key, value) VALUES ('x', 'y') RETURNING "offset", "timestamp" >= :'ts_before' AS ts_not_older;

-- truncating a table created in the same transaction (the non-transactional path)
BEGIN;
CREATE TABLE fresh (partition int NOT NULL DEFAULT 0, "offset" bigint NOT NULL DEFAULT -1,
    "timestamp" timestamptz NOT NULL DEFAULT '-infinity', key text, value text, headers jsonb) USING topic_log;
INSERT INTO fresh (key, value) SELECT 'k', 'v' FROM generate_series(1, 10);
TRUNCATE fresh;
INSERT INTO fresh (key, value) VALUES ('k', 'v') RETURNING "offset";
COMMIT;

-- a rolled-back TRUNCATE gives the old records back
BEGIN;
TRUNCATE events;
ROLLBACK;
SELECT count(*), min("offset") FROM events;

-- ANALYZE samples committed records and counts aborted ones as dead
BEGIN;
INSERT INTO events (key, value) SELECT 'dead', 'x' FROM generate_series(1, 100);
ROLLBACK;
INSERT INTO events (key, value) SELECT 'k' || g, repeat('v', 50) FROM generate_series(1, 5000) g;
ANALYZE events;
SELECT reltuples, relpages > 0 AS has_pages FROM pg_class WHERE relname = 'events';
SELECT attname, n_distinct < 0 AS estimated FROM pg_stats WHERE tablename = 'events' AND attname IN ('key', 'offset') ORDER BY attname;

-- the planner's row estimate is close to the truth
SELECT abs(reltuples - (SELECT count(*) FROM events)) < 100 AS estimate_close
FROM pg_class WHERE relname = 'events';

-- tools that read a relation's pages by number (pg_prewarm, pageinspect,
-- ANALYZE itself) see a topic_log table's own file, which is its metapage:
-- its records are in its segments, which ANALYZE samples by itself and the
-- planner counts as its blocks
CREATE EXTENSION pg_prewarm;
CREATE EXTENSION pageinspect;
SELECT pg_prewarm('events') AS prewarmed_blocks;
SELECT length(get_raw_page('events', 0)) AS metapage_bytes;
SELECT get_raw_page('events', 1);
DROP EXTENSION pageinspect;
DROP EXTENSION pg_prewarm;
SELECT relpages AS analyze_read_blocks, reltuples > 4900 AS analyze_sampled_segments
FROM pg_class WHERE relname = 'events';
CREATE FUNCTION planned_rows(query text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
    RETURN (plan->0->'Plan'->>'Plan Rows')::numeric;
END
$$;
-- the planner counts the offsets the log holds (the 100 rolled back included)
SELECT planned_rows('SELECT * FROM events') - (SELECT count(*) FROM events) AS planned_minus_rows;
DROP FUNCTION planned_rows(text);

SELECT * FROM topics.verify('events');
SELECT * FROM topics.verify('fresh');
