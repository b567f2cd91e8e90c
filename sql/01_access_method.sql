-- The topic_log access method: insert, read back, offsets, timestamps, TIDs
CREATE EXTENSION pg_topics;

-- the layout every topic partition has
CREATE TABLE orders (
    partition int NOT NULL DEFAULT 0,
    "offset" bigint NOT NULL DEFAULT -1,
    "timestamp" timestamptz NOT NULL DEFAULT '-infinity',
    key text,
    value jsonb,
    headers jsonb
) USING topic_log;

-- the log assigns offsets from 0 and timestamps; RETURNING sees them
INSERT INTO orders (key, value) VALUES ('a', '{"n": 1}')
RETURNING partition, "offset", "timestamp" > now() - interval '1 hour' AS ts_is_now, key, value, headers;
INSERT INTO orders (key, value, headers)
VALUES ('b', '{"n": 2}', '{"source": "test"}'), (NULL, '{"n": 3}', NULL), ('tomb', NULL, NULL)
RETURNING "offset", key, value, headers;

SELECT partition, "offset", key, value, headers FROM orders ORDER BY "offset";

-- timestamps never decrease along the log
SELECT bool_and(ts >= prev) AS monotonic
FROM (SELECT "timestamp" AS ts, lag("timestamp", 1, '-infinity') OVER (ORDER BY "offset") AS prev FROM orders) s;

-- a rolled-back transaction keeps its offsets but is never visible: a gap
BEGIN;
INSERT INTO orders (key, value) VALUES ('gone', '1'), ('gone', '2');
SELECT count(*) AS own_records_visible FROM orders WHERE key = 'gone';
ROLLBACK;
INSERT INTO orders (key, value) VALUES ('after', '1') RETURNING "offset";
SELECT "offset", key FROM orders ORDER BY "offset";

-- a rolled-back savepoint likewise
BEGIN;
INSERT INTO orders (key, value) VALUES ('kept', '1');
SAVEPOINT s;
INSERT INTO orders (key, value) VALUES ('undone', '1');
ROLLBACK TO SAVEPOINT s;
INSERT INTO orders (key, value) VALUES ('kept', '2');
COMMIT;
SELECT "offset", key, value FROM orders WHERE "offset" >= 7 ORDER BY "offset";

-- a statement does not see its own inserts (no Halloween problem)
INSERT INTO orders (key, value) SELECT key || '-copy', value FROM orders WHERE key = 'kept';
SELECT "offset", key FROM orders WHERE key LIKE 'kept%' ORDER BY "offset";

-- many records across pages
INSERT INTO orders (key, value)
SELECT 'k' || g, jsonb_build_object('g', g) FROM generate_series(1, 5000) g;
SELECT count(*), min("offset"), max("offset"), count(DISTINCT "offset") FROM orders;
-- records live in the log's segments (schema topics_segments)
SELECT sum(pg_relation_size(c.oid)) > 8192 * 10 AS several_pages
FROM pg_class c WHERE c.relnamespace = 'topics_segments'::regnamespace
  AND c.relname LIKE 'seg\_' || 'orders'::regclass::oid || '\_%';

-- fetch by TID, and TIDs of invisible records find nothing
SELECT ctid, "offset", key FROM orders WHERE ctid = '(1,1)';
SELECT ctid, "offset", key FROM orders WHERE ctid = '(1,5)';
SELECT count(*) FROM orders WHERE ctid = '(0,1)';
SELECT count(*) FROM orders WHERE ctid = '(100000,1)';

-- COPY is a produce path too
COPY orders (key, value) FROM stdin;
c1	{"copy": 1}
c2	{"copy": 2}
\N	\N
\.
SELECT "offset", key, value FROM orders WHERE "offset" > 5011 ORDER BY "offset";

-- other key and value types
CREATE TABLE raw (partition int NOT NULL DEFAULT 3, "offset" bigint NOT NULL DEFAULT -1,
    "timestamp" timestamptz NOT NULL DEFAULT '-infinity', key bytea, value bytea, headers jsonb) USING topic_log;
INSERT INTO raw (key, value) VALUES ('\x00ff', '\x'), ('\x', '\x0001020304'), (NULL, NULL);
SELECT partition, "offset", key, value FROM raw ORDER BY "offset";

-- backward scans (scrollable cursors)
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT "offset" FROM raw;
FETCH ALL FROM c;
FETCH BACKWARD 2 FROM c;
FETCH FIRST FROM c;
COMMIT;

-- a parallel scan returns every record once
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT count(*) FROM orders;
SELECT count(*), count(DISTINCT "offset"), sum("offset") FROM orders;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- the storage is healthy
SELECT * FROM topics.verify('orders');
SELECT * FROM topics.verify('raw');
