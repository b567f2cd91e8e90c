-- Reading: fetch, next_offset, offsets, offsets_for_times
\set SHOW_CONTEXT never
SELECT topics.create_topic('f', partitions => 2, key_type => 'text', value_type => 'text');
SELECT count(*) FROM topics.produce_batch('f', ARRAY['a','b','c'], partition => 0);
BEGIN;
SELECT count(*) FROM topics.produce_batch('f', ARRAY['aborted-1','aborted-2'], partition => 0);
ROLLBACK;
SELECT count(*) FROM topics.produce_batch('f', ARRAY['d','e'], partition => 0);

-- typed rows, offset order, the gap of the rolled-back transaction
SELECT partition, "offset", key, value FROM topics.fetch(NULL::f, 0, 0);
SELECT "offset", value FROM topics.fetch(NULL::f, 0, 2, max_records => 2);
SELECT "offset", value FROM topics.fetch(NULL::f, 0, 3);
SELECT "offset", value FROM topics.fetch(NULL::f, 0, 7);
SELECT "offset", value FROM topics.fetch(NULL::f, 1, 0);
SELECT pg_typeof(f) FROM topics.fetch(NULL::f, 0, 0, 1) f;

-- next_offset steps over aborted records
SELECT topics.next_offset('f', 0, 0) AS at_0, topics.next_offset('f', 0, 3) AS at_3,
       topics.next_offset('f', 0, 4) AS at_4, topics.next_offset('f', 0, 7) AS at_end;

-- offsets, as Kafka's ListOffsets
SELECT * FROM topics.offsets('f');
SELECT * FROM topics.offsets_for_times('f', '-infinity');
SELECT * FROM topics.offsets_for_times('f', 'infinity');

-- the reader's own uncommitted records are never shown: they can be taken back
BEGIN;
SELECT "offset" FROM topics.produce('f', 'mine', partition => 1);
SELECT count(*) AS visible_to_sql FROM f WHERE value = 'mine';
SELECT count(*) AS fetched FROM topics.fetch(NULL::f, 1, 0);
SELECT topics.next_offset('f', 1, 0) AS stops_at_own_record;
SELECT * FROM topics.offsets('f') WHERE partition = 1;
SELECT partition, last_stable_offset, holder_pid = pg_backend_pid() AS held_by_me,
       holder_xid = pg_current_xact_id()::xid AS my_xid FROM topics.partitions WHERE topic = 'f'::regclass;
ROLLBACK;
SELECT * FROM topics.offsets('f') WHERE partition = 1;

-- waiting: returns at once when records are there, empty after the wait otherwise
SELECT count(*) FROM topics.fetch(NULL::f, 0, 0, wait => '10 s');
SELECT count(*) FROM topics.fetch(NULL::f, 0, 7, wait => '20 ms');

-- bad input
SELECT * FROM topics.fetch(NULL::f, 0, 8);
SELECT * FROM topics.fetch(NULL::f, 0, -1);
SELECT * FROM topics.fetch(NULL::f, 2, 0);
SELECT * FROM topics.fetch(NULL::f, 0, 0, max_records => 0);
SELECT * FROM topics.fetch(NULL::f, 0, 0, wait => '-1 s');
SELECT * FROM topics.fetch(NULL::f_p0, 0, 0);
SELECT * FROM topics.fetch(NULL::pg_class, 0, 0);
SELECT * FROM topics.fetch(NULL::int, 0, 0);
SELECT * FROM topics.fetch(NULL::f, NULL, 0);
SELECT topics.next_offset('f', 0, 99);
SELECT * FROM topics.offsets('no_such');
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM topics.fetch(NULL::f, 0, 0, wait => '1 s');
ROLLBACK;


-- large values come back whole
SELECT "offset" AS big FROM topics.produce('f', repeat('x', 500000), partition => 1) \gset
SELECT length(value) FROM topics.fetch(NULL::f, 1, :big);

-- results outlive the transaction only through a holdable cursor, which keeps its own copy;
-- a fetch that fails halfway leaves nothing behind for the next one
BEGIN;
DECLARE held SCROLL CURSOR WITH HOLD FOR SELECT "offset", value FROM topics.fetch(NULL::f, 0, 0);
FETCH 2 FROM held;
COMMIT;
FETCH ALL FROM held;
FETCH BACKWARD 2 FROM held;
CLOSE held;
SELECT "offset", 1 / ("offset" - 2) FROM topics.fetch(NULL::f, 0, 0);
SELECT "offset", value FROM topics.fetch(NULL::f, 0, 0);
BEGIN;
SELECT count(*) FROM topics.fetch(NULL::f, 0, 0);
SELECT count(*) FROM topics.fetch(NULL::f, 0, 0, max_records => 2);
COMMIT;
-- fetches that fail inside a consumer loop's savepoints give their memory back as they fail
-- (a whole-row reference keeps the function scan, which builds its rows in kept memory)
DO $$
DECLARE
    bytes bigint;
BEGIN
    FOR i IN 1..200 LOOP
        BEGIN
            PERFORM (r)."offset", 1 / ((r)."offset" - 2) FROM topics.fetch(NULL::f, 0, 0) r;
        EXCEPTION WHEN division_by_zero THEN
            NULL;
        END;
    END LOOP;
    SELECT total_bytes INTO bytes
    FROM pg_backend_memory_contexts WHERE name = 'pg_topics result rows';
    RAISE NOTICE 'result memory after 200 failed fetches is bounded: %', bytes <= 2 * 1024 * 1024;
END $$;

-- a reader that continues where its last read stopped gets every record once, in order,
-- whatever the page boundaries; jumping elsewhere or to another topic in between changes nothing
SELECT topics.create_topic('seq', value_type => 'bytea');
SELECT count(*) FROM topics.produce_batch('seq',
    (SELECT array_agg(decode(repeat(to_hex(100 + i), 100), 'hex')) FROM generate_series(1, 500) i));
DO $$
DECLARE
    pos bigint := 0;
    calls int := 0;
    n int;
    r record;
BEGIN
    LOOP
        n := 0;
        FOR r IN SELECT "offset", value FROM topics.fetch(NULL::seq, 0, pos, 37) LOOP
            IF r."offset" <> pos OR r.value <> decode(repeat(to_hex(101 + pos::int), 100), 'hex') THEN
                RAISE EXCEPTION 'expected offset %, got %', pos, r."offset";
            END IF;
            pos := pos + 1;
            n := n + 1;
        END LOOP;
        EXIT WHEN n = 0;
        calls := calls + 1;
        IF calls % 3 = 0 THEN
            PERFORM count(*) FROM topics.fetch(NULL::seq, 0, greatest(0, 450 - pos), 5);
        ELSIF calls % 5 = 0 THEN
            PERFORM count(*) FROM topics.fetch(NULL::f, 0, 0);
        END IF;
    END LOOP;
    RAISE NOTICE 'read % records in order in % calls', pos, calls;
END $$;

-- in FROM, fetch runs as a scan that hands records out of the pages (TopicFetch); WITH
-- ORDINALITY, ROWS FROM or a whole-row reference keep the function scan; both give the same rows
EXPLAIN (COSTS OFF) SELECT "offset", value FROM topics.fetch(NULL::f, 0, 0) WHERE key IS NOT NULL;
EXPLAIN (COSTS OFF) SELECT * FROM topics.fetch(NULL::f, 0, 0) WITH ORDINALITY;
EXPLAIN (COSTS OFF) SELECT r FROM topics.fetch(NULL::f, 0, 0) r;
SELECT "offset", value, ordinality FROM topics.fetch(NULL::f, 0, 0) WITH ORDINALITY;
SELECT (SELECT count(*) FROM (SELECT * FROM topics.fetch(NULL::f, p, 0)
                              EXCEPT ALL SELECT (r).* FROM topics.fetch(NULL::f, p, 0) r) d) AS only_scan,
       (SELECT count(*) FROM (SELECT (r).* FROM topics.fetch(NULL::f, p, 0) r
                              EXCEPT ALL SELECT * FROM topics.fetch(NULL::f, p, 0)) d) AS only_function
FROM generate_series(0, 1) p;
-- the function in the target list is still a function
SELECT (topics.fetch(NULL::f, 0, 3, 2))."offset";
-- one read per set of arguments: a lateral call reads again when its arguments change, a
-- rescan with the same arguments returns the same records (as the function scan's copy did)
SELECT p, count(*), min("offset"), max("offset") FROM generate_series(0, 1) p,
    LATERAL topics.fetch(NULL::f, p, 0) GROUP BY p ORDER BY p;
SELECT s, "offset" FROM generate_series(0, 4) s, LATERAL topics.fetch(NULL::seq, 0, s * 100, 2)
ORDER BY s, "offset";
SET enable_material = off;
EXPLAIN (COSTS OFF) SELECT g, r."offset" FROM generate_series(1, 3) g, topics.fetch(NULL::f, 0, 1, 2) r;
SELECT g, r."offset" FROM generate_series(1, 3) g, topics.fetch(NULL::f, 0, 1, 2) r;
RESET enable_material;
-- an argument that is a subquery over an outer value: read again when that value changes
SELECT s, (SELECT min("offset") FROM topics.fetch(NULL::seq, 0, (SELECT s * 100 FROM generate_series(1, 1) LIMIT 1), 3))
FROM generate_series(0, 3) s;
-- the scan goes backward, so a cursor scrolls as it did over the function
BEGIN;
DECLARE c CURSOR FOR SELECT "offset", value FROM topics.fetch(NULL::f, 0, 0);
FETCH 2 FROM c;
FETCH BACKWARD 1 FROM c;
FETCH ALL FROM c;
FETCH BACKWARD 2 FROM c;
FETCH FIRST FROM c;
FETCH ABSOLUTE 5 FROM c;
FETCH NEXT FROM c;
FETCH BACKWARD ALL FROM c;
COMMIT;
-- EXPLAIN ANALYZE's lines, the same on every major (18 counts rows to two
-- decimals and shows buffers unless told not to)
CREATE FUNCTION explain_analyze(query text, detail bool DEFAULT false) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    explain text := format('EXPLAIN (ANALYZE, VERBOSE %s, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) %s',
                           CASE WHEN detail THEN 'ON' ELSE 'OFF' END, query);
    line text;
BEGIN
    FOR line IN EXECUTE explain LOOP
        RETURN NEXT regexp_replace(line, 'rows=(\d+)\.00 ', 'rows=\1 ');
    END LOOP;
END
$$;
SELECT explain_analyze('SELECT "offset" FROM topics.fetch(NULL::f, 0, 0)', detail => true);
-- pg_stat_user_functions counts a call of the scan as a call of the function
SET track_functions = 'all';
SELECT count(*) FROM topics.fetch(NULL::f, 0, 0);
SELECT count(*) FROM topics.fetch(NULL::f, 0, 0) WITH ORDINALITY;
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
SELECT calls FROM pg_stat_user_functions WHERE schemaname = 'topics' AND funcname = 'fetch';
RESET track_functions;
-- a read longer than the pages a scan may keep pinned is copied, as the function's rows are
-- (within work_mem, then to disk); the rows, and scrolling, are the same
SELECT topics.create_topic('wide', value_type => 'bytea');
SELECT count(*) FROM topics.produce_batch('wide',
    (SELECT array_agg(decode(repeat(lpad(to_hex(i), 8, '0'), 64), 'hex')) FROM generate_series(1, 3000) i));
SELECT explain_analyze('SELECT count(*) FROM topics.fetch(NULL::wide, 0, 0, 3000)');
BEGIN;
DECLARE w CURSOR FOR SELECT "offset" FROM topics.fetch(NULL::wide, 0, 0, 3000);
MOVE 2998 IN w;
FETCH 3 FROM w;
FETCH BACKWARD 3 FROM w;
MOVE BACKWARD ALL IN w;
FETCH 1 FROM w;
COMMIT;
SELECT count(*), count(DISTINCT value),
       bool_and(value = decode(repeat(lpad(to_hex("offset" + 1), 8, '0'), 64), 'hex')) AS exact
FROM topics.fetch(NULL::wide, 0, 0, 3000);
SELECT md5(string_agg(value, '' ORDER BY "offset")) =
       (SELECT md5(string_agg((r).value, '' ORDER BY (r)."offset")) FROM topics.fetch(NULL::wide, 0, 0, 3000) r)
       AS same_as_function
FROM topics.fetch(NULL::wide, 0, 0, 3000);
-- the rows that nodes above the scan keep (a CTE, a sort, a hash join) are the
-- function's rows, byte for byte
WITH b AS MATERIALIZED (SELECT * FROM topics.fetch(NULL::wide, 0, 0, 3000)),
     r AS MATERIALIZED (SELECT r FROM topics.fetch(NULL::wide, 0, 0, 3000) r)
SELECT count(*), bool_and(row(b.*)::wide = r.r) AS same
FROM b JOIN r ON (r.r)."offset" = b."offset";
SELECT topics.drop_topic('wide');

-- fetch changes nothing in the database (STABLE): a CTE that reads it once is inlined, as
-- one over a table is, and runs as the scan itself; poll commits positions and is kept
EXPLAIN (COSTS OFF) WITH b AS (SELECT * FROM topics.fetch(NULL::f, 0, 0)) SELECT count(*) FROM b;
EXPLAIN (COSTS OFF) WITH b AS (SELECT * FROM topics.poll(NULL::f, 'g-cte')) SELECT count(*) FROM b;
WITH b AS MATERIALIZED (SELECT * FROM topics.fetch(NULL::f, 0, 0))
SELECT partition, "offset", key, value, headers FROM b ORDER BY value DESC NULLS FIRST;
SELECT partition, "offset", key, value, headers
FROM (SELECT * FROM topics.fetch(NULL::f, 0, 0) ORDER BY "offset" DESC) s;
SELECT count(*), bool_and(row(a.*)::f = r.r) AS same
FROM topics.fetch(NULL::f, 0, 0) a
JOIN (SELECT r FROM topics.fetch(NULL::f, 0, 0) r) r ON (r.r)."offset" = a."offset";

-- plain SQL sees the same committed records
SELECT count(*) FROM f;
SELECT * FROM topics.verify('f');

-- saved plans (prepared statements, PL/pgSQL) that read a topic by its row type are planned
-- again after the topic is dropped and created anew, in this session and in others
SELECT topics.create_topic('again');
SELECT count(*) FROM topics.produce_batch('again', ARRAY['1', '2']::jsonb[]);
PREPARE read_again AS SELECT count(*) FROM topics.fetch(NULL::again, 0, 0);
PREPARE poll_again AS SELECT count(*) FROM topics.poll(NULL::again, 'g_again');
CREATE FUNCTION read_again() RETURNS bigint LANGUAGE plpgsql AS
$$BEGIN RETURN (SELECT count(*) FROM topics.fetch(NULL::again, 0, 0)); END$$;
EXECUTE read_again;
EXECUTE poll_again;
SELECT read_again();
SELECT topics.drop_topic('again');
EXECUTE read_again;
SELECT read_again();
SELECT topics.create_topic('again');
SELECT count(*) FROM topics.produce_batch('again', ARRAY['1', '2', '3']::jsonb[]);
EXECUTE read_again;
EXECUTE poll_again;
SELECT read_again();
-- the same in a function's plan that runs several times (a generic plan)
SELECT read_again() FROM generate_series(1, 6);
SELECT topics.drop_topic('again');
SELECT topics.create_topic('again');
SELECT read_again();
DEALLOCATE read_again;
DEALLOCATE poll_again;
DROP FUNCTION read_again();
SELECT topics.drop_topic('again');
