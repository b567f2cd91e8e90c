-- TopicSeek: predicates on "offset" and "timestamp" read only the pages they need
\set SHOW_CONTEXT never
SELECT topics.create_topic('s', 2, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('s', (SELECT array_agg('v' || g) FROM generate_series(1, 30000) g), partition => 0);
SELECT count(*) FROM topics.produce_batch('s', (SELECT array_agg('w' || g) FROM generate_series(1, 1000) g), partition => 1);
-- a second "hour" of records, with timestamps we can name
SELECT now() AS t_mid \gset
SELECT pg_sleep(0.01);
SELECT count(*) FROM topics.produce_batch('s', (SELECT array_agg('late' || g) FROM generate_series(1, 3000) g), partition => 0);
ANALYZE s;

-- visible in EXPLAIN; partition pruning narrows the topic first
EXPLAIN (COSTS OFF) SELECT * FROM s WHERE partition = 0 AND "offset" BETWEEN 10000 AND 10100;
EXPLAIN (COSTS OFF) SELECT * FROM s WHERE "timestamp" >= '2100-01-01 00:00:00+00';
EXPLAIN (COSTS OFF) SELECT * FROM s WHERE key = 'x';

-- pages read, from EXPLAIN ANALYZE
CREATE FUNCTION pg_temp.pages(q text) RETURNS TABLE(log_pages bigint, pages_scanned bigint)
LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO plan;
    RETURN QUERY SELECT sum((n->>'Log Pages')::bigint)::bigint, sum((n->>'Pages Scanned')::bigint)::bigint
        FROM jsonb_path_query(plan, 'strict $.**') n WHERE n ? 'Pages Scanned';
END $$;

SELECT log_pages > 100 AS big_log, pages_scanned <= 3 AS reads_a_few_pages
FROM pg_temp.pages('SELECT * FROM s WHERE partition = 0 AND "offset" BETWEEN 10000 AND 10100');
SELECT pages_scanned <= 3 AS reads_a_few_pages FROM pg_temp.pages('SELECT * FROM s WHERE partition = 0 AND "offset" = 29999');
SELECT pages_scanned <= log_pages / 5 AS reads_the_tail
FROM pg_temp.pages(format('SELECT * FROM s WHERE partition = 0 AND "timestamp" > %L', :'t_mid'));

-- the same answers as a full scan ("offset" + 0 cannot seek)
SELECT count(*), min("offset"), max("offset") FROM s WHERE partition = 0 AND "offset" BETWEEN 10000 AND 10100;
SELECT count(*), min("offset"), max("offset") FROM s WHERE partition = 0 AND "offset" + 0 BETWEEN 10000 AND 10100;
SELECT count(*) FROM s WHERE "offset" > 29000 AND "offset" < 30500;
SELECT count(*) FROM s WHERE "offset" + 0 > 29000 AND "offset" + 0 < 30500;
SELECT count(*) FROM s WHERE "timestamp" > :'t_mid';
SELECT count(*) FROM s WHERE "timestamp" + interval '0' > :'t_mid';
SELECT count(*) FROM s WHERE "timestamp" <= :'t_mid';
SELECT count(*) FROM s WHERE "offset" = 5 OR "offset" = 6;
SELECT count(*) FROM s WHERE "offset" < 0;
SELECT count(*) FROM s WHERE "offset" >= NULL;
SELECT count(*) FROM s WHERE "offset" >= 9223372036854775807;
SELECT count(*) FROM s WHERE 100 > "offset";

-- parameters are evaluated when the scan starts, again on each execution
PREPARE q(bigint, bigint) AS SELECT count(*) FROM s WHERE partition = 0 AND "offset" >= $1 AND "offset" < $2;
EXECUTE q(0, 10);
EXECUTE q(32990, 40000);
SELECT x, (SELECT count(*) FROM s WHERE partition = 1 AND "offset" >= x) FROM (VALUES (0), (990), (1000)) v(x);

-- rolled-back records stay invisible through the seek
BEGIN;
SELECT count(*) FROM topics.produce_batch('s', ARRAY['gone'], partition => 1);
ROLLBACK;
SELECT count(*) FROM s WHERE partition = 1 AND "offset" >= 990;
