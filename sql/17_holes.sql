-- Holes: offsets no record holds (what compaction leaves, and a restore in
-- preserve mode), inside a batch, between batches and pages, and at the
-- end; every reader steps over them to the next record, as over
-- rolled-back offsets
\set SHOW_CONTEXT never
SELECT topics.create_topic('holes', 1, 'text', 'text');
-- timestamps one second per offset, so that times fall into holes too
CREATE FUNCTION pg_temp.ts(o bigint) RETURNS timestamptz LANGUAGE sql IMMUTABLE
    AS $$SELECT '2026-01-01 00:00:00+00'::timestamptz + o * interval '1 second'$$;
SET session_replication_role = replica;
-- one statement's rows are one batch, with offset deltas (0, 1, 5, 9)
INSERT INTO holes (partition, "offset", "timestamp", key, value)
SELECT 0, o, pg_temp.ts(o), 'k' || o, 'v' || o FROM unnest(ARRAY[0, 1, 5, 9]) o;
-- a hole between batches (10..19), and one inside the next batch
INSERT INTO holes (partition, "offset", "timestamp", key, value)
SELECT 0, o, pg_temp.ts(o), 'k' || o, 'v' || o FROM unnest(ARRAY[20, 21, 30]) o;
-- records every third offset over several pages: holes at page boundaries
INSERT INTO holes (partition, "offset", "timestamp", key, value)
SELECT 0, 100 + 3 * i, pg_temp.ts(100 + 3 * i), 'k' || i, repeat('x', 200)
FROM generate_series(0, 199) i;
-- a wide hole, then the last records
INSERT INTO holes (partition, "offset", "timestamp", key, value)
SELECT 0, o, pg_temp.ts(o), 'k' || o, 'v' || o FROM unnest(ARRAY[5000, 5001]) o;
RESET session_replication_role;
-- and a rolled-back tail: offsets 5002..5004, held by no visible record
BEGIN;
INSERT INTO holes (key, value) VALUES ('gone', 'a'), ('gone', 'b'), ('gone', 'c');
ROLLBACK;
SELECT * FROM topics.offsets('holes');
SELECT * FROM topics.verify('holes');

-- what the log holds: the first page's first batch has four records and
-- no TB_CONTIGUOUS flag (its records carry offset deltas); the records
-- at 100.. fill several pages
CREATE EXTENSION pageinspect;
SELECT relation AS seg FROM topics.segment_info('holes') WHERE state = 'live' \gset
SELECT get_byte(p, 24 + 4) + 256 * get_byte(p, 24 + 5) AS first_batch_records,
       get_byte(p, 24 + 6) & 1 AS contiguous
FROM get_raw_page(:'seg', 1) p;
SELECT count(*) > 3 AS several_pages FROM generate_series(1, pg_relation_size(:'seg') / 8192 - 1) b
WHERE length(get_raw_page(:'seg', b::int)) = 8192;
DROP EXTENSION pageinspect;

-- the truth: the first record at or after each offset
CREATE TEMP TABLE truth AS
SELECT f, (SELECT min("offset") FROM holes WHERE "offset" >= f) AS next_record
FROM generate_series(0, 5005) f;

-- fetch from any offset starts at the next record (in FROM: the TopicFetch
-- scan; in the target list: the function)
SELECT f, (SELECT string_agg("offset"::text, ',') FROM topics.fetch(NULL::holes, 0, f, 3)) AS fetched
FROM generate_series(0, 32) f;
SELECT f, (topics.fetch(NULL::holes, 0, f, 1))."offset" FROM unnest(ARRAY[2, 6, 10, 22, 31, 101, 698, 699]) f;
SELECT count(*) AS fetch_wrong FROM truth
WHERE next_record IS DISTINCT FROM (SELECT min("offset") FROM topics.fetch(NULL::holes, 0, f, 1));
-- every record once, in order, whatever the batch sizes
SELECT count(*), min("offset"), max("offset") FROM topics.fetch(NULL::holes, 0, 0, 10000);
SELECT count(*) AS fetch_from_2_by_7 FROM (
    WITH RECURSIVE r(pos, n) AS (
        SELECT 2::bigint, 0
        UNION ALL
        SELECT (SELECT max("offset") + 1 FROM topics.fetch(NULL::holes, 0, r.pos, 7)), r.n + 1
        FROM r WHERE r.pos < 5002)
    SELECT * FROM r) x;
-- the valid range is unchanged: the high watermark (past the rolled-back
-- tail) reads nothing, beyond it is refused
SELECT count(*) FROM topics.fetch(NULL::holes, 0, 5002);
SELECT count(*) FROM topics.fetch(NULL::holes, 0, 5005);
SELECT count(*) FROM topics.fetch(NULL::holes, 0, 5006);

-- next_offset: the next record, or where the next read starts (the
-- high watermark past the end)
SELECT f, topics.next_offset('holes', 0, f) FROM unnest(ARRAY[0, 2, 6, 9, 10, 22, 31, 99, 102, 697, 698, 4999, 5001, 5002, 5005]) f;
SELECT count(*) AS next_offset_wrong FROM truth
WHERE coalesce(next_record, 5005) <> topics.next_offset('holes', 0, f);

-- offsets_for_times: the first record at or after a time, a time in a
-- hole included
SELECT t, o FROM unnest(ARRAY[2, 6, 10, 22, 31, 5000, 5002]) t,
    LATERAL (SELECT "offset" AS o FROM topics.offsets_for_times('holes', pg_temp.ts(t))) x;
SELECT count(*) AS offsets_for_times_wrong FROM truth
WHERE f <= 5001 AND
      next_record IS DISTINCT FROM (SELECT "offset" FROM topics.offsets_for_times('holes', pg_temp.ts(f)));
-- a time after the last record finds the rolled-back ones (written now),
-- as Kafka's time index holds aborted records: a consumer steps on from there
SELECT "offset" FROM topics.offsets_for_times('holes', pg_temp.ts(5002));

-- plain SQL: seeks by offset and by time over holes, the same answers as
-- a full scan ("offset" + 0 cannot seek)
EXPLAIN (COSTS OFF) SELECT "offset" FROM holes WHERE "offset" BETWEEN 2 AND 8;
SELECT "offset" FROM holes WHERE "offset" BETWEEN 2 AND 8;
SELECT "offset" FROM holes WHERE "offset" > 9 AND "offset" < 30;
SELECT "offset" FROM holes WHERE "offset" >= 31 AND "offset" <= 103;
SELECT "offset" FROM holes WHERE "offset" > 697 AND "offset" < 5001;
SELECT "offset" FROM holes WHERE "timestamp" >= pg_temp.ts(6) AND "timestamp" < pg_temp.ts(22);
SELECT "offset" FROM holes WHERE "timestamp" > pg_temp.ts(698);
SELECT count(*) AS seek_wrong FROM generate_series(0, 5005, 7) lo, LATERAL (SELECT lo + 50 AS hi) h
WHERE (SELECT count(*) FROM holes WHERE "offset" >= lo AND "offset" < hi)
   <> (SELECT count(*) FROM holes WHERE "offset" + 0 >= lo AND "offset" + 0 < hi)
   OR (SELECT count(*) FROM holes WHERE "timestamp" >= pg_temp.ts(lo) AND "timestamp" <= pg_temp.ts(hi))
   <> (SELECT count(*) FROM holes WHERE "timestamp" + interval '0' >= pg_temp.ts(lo)
                                    AND "timestamp" + interval '0' <= pg_temp.ts(hi));
-- a seek across a hole reads only the pages on either side of it
CREATE FUNCTION pg_temp.pages(q text) RETURNS TABLE(log_pages bigint, pages_scanned bigint)
LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO plan;
    RETURN QUERY SELECT sum((n->>'Log Pages')::bigint)::bigint, sum((n->>'Pages Scanned')::bigint)::bigint
        FROM jsonb_path_query(plan, 'strict $.**') n WHERE n ? 'Pages Scanned';
END $$;
SELECT * FROM pg_temp.pages('SELECT * FROM holes WHERE "offset" BETWEEN 690 AND 5000');
SELECT * FROM pg_temp.pages('SELECT * FROM holes WHERE "offset" BETWEEN 2 AND 8');
SELECT * FROM pg_temp.pages('SELECT * FROM holes WHERE "timestamp" >= ''2026-01-01 00:11:00+00'' AND "timestamp" < ''2026-01-01 01:30:00+00''');
-- a parallel scan returns every record once
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT count(*) FROM holes;
SELECT count(*), count(DISTINCT "offset"), sum("offset") FROM holes;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SELECT count(*), count(DISTINCT "offset"), sum("offset") FROM holes;

-- poll: a group position inside a hole continues at the next record; the
-- position committed is where the read stopped, an offset of the log
SELECT "offset", key FROM topics.poll(NULL::holes, 'hg', max_records => 2);
SELECT committed_offset, lag FROM topics.consumer_lag WHERE group_name = 'hg';
SELECT "offset", key FROM topics.poll(NULL::holes, 'hg', max_records => 1);
SELECT committed_offset FROM topics.consumer_lag WHERE group_name = 'hg';
SELECT topics.seek('holes', 'hg', 0, 31);
SELECT "offset" FROM topics.poll(NULL::holes, 'hg', max_records => 1);
SELECT topics.seek('holes', 'hg', 0, 698);
SELECT "offset" FROM topics.poll(NULL::holes, 'hg', max_records => 5);
SELECT committed_offset, lag FROM topics.consumer_lag WHERE group_name = 'hg';
-- past the last record: nothing, and the position moves past the
-- rolled-back tail to the high watermark
SELECT count(*) FROM topics.poll(NULL::holes, 'hg');
SELECT committed_offset, lag FROM topics.consumer_lag WHERE group_name = 'hg';

-- a log start inside a hole: below it is out of range, at it reads on
SELECT topics.delete_records('holes', 0, 3);
SELECT "offset" FROM topics.fetch(NULL::holes, 0, 3, 1);
SELECT topics.next_offset('holes', 0, 3);
SELECT "offset" FROM topics.fetch(NULL::holes, 0, 2, 1);
SELECT "offset" FROM topics.offsets_for_times('holes', pg_temp.ts(0));
SELECT min("offset") FROM holes;
SELECT * FROM topics.verify('holes');
SELECT topics.drop_topic('holes');
