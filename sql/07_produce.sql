-- Produce: produce, produce_batch, INSERT and COPY, with Kafka's partitioner
\set SHOW_CONTEXT never
SELECT topics.create_topic('p', partitions => 4, key_type => 'text', value_type => 'jsonb');

-- Kafka's murmur2, checked against the values Kafka's own test suite expects
SELECT topics.murmur2('21') AS "21", topics.murmur2('foobar') AS foobar,
       topics.murmur2('a-little-bit-long-string') AS long,
       topics.murmur2('a-little-bit-longer-string') AS longer,
       topics.murmur2('lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8') AS longest,
       topics.murmur2('abc') AS abc, topics.murmur2('') AS empty;

-- same key, same partition: (murmur2 & 0x7fffffff) % partitions, on every path
SELECT partition, "offset" FROM topics.produce('p', '{"n": 1}', 'k1');
SELECT partition, "offset" FROM topics.produce('p', '{"n": 2}'::jsonb, 'k1'::text);
SELECT partition FROM topics.produce('p', '{"n": 3}', 'foobar');
SELECT (topics.murmur2(convert_to('foobar', 'UTF8')) & 2147483647) % 4 AS expected_for_foobar;
INSERT INTO p (key, value) VALUES ('foobar', '{"n": 4}') RETURNING partition;
SELECT partition FROM topics.produce_batch('p', ARRAY['{"n": 5}']::jsonb[], ARRAY['foobar']);
COPY p (key, value) FROM stdin;
foobar	{"n": 6}
\.
SELECT DISTINCT partition FROM p WHERE key = 'foobar';

-- text keys hash as UTF-8, whatever the database encoding
SELECT (topics.murmur2(convert_to('ключ-é', 'UTF8')) & 2147483647) % 4 AS expected;
SELECT partition FROM topics.produce('p', '{}', 'ключ-é');
-- an empty key is a key
SELECT (topics.murmur2('') & 2147483647) % 4 AS expected;
SELECT partition FROM topics.produce('p', '{}', '');

-- every keyed record of every path landed where the partitioner says
INSERT INTO p (key, value) SELECT 'key-' || g, jsonb_build_object('g', g) FROM generate_series(1, 200) g;
SELECT count(*) AS keyed, count(*) FILTER (WHERE partition <> (topics.murmur2(convert_to(key, 'UTF8')) & 2147483647) % 4) AS misrouted
FROM p WHERE key IS NOT NULL;

-- keyless records: one partition per call
SELECT count(DISTINCT partition) AS partitions_used FROM topics.produce_batch('p', ARRAY['1','2','3','4','5']);
WITH i AS (INSERT INTO p (value) SELECT '{}' FROM generate_series(1, 10) RETURNING partition)
SELECT count(DISTINCT partition) AS partitions_used FROM i;

-- an explicit partition is honoured
SELECT partition FROM topics.produce('p', '{}', 'k1', partition => 3);
SELECT DISTINCT partition FROM topics.produce_batch('p', ARRAY['1','2'], ARRAY['a','b'], partition => 2);

-- values: the topic's type, untyped literals and text; NULL value is a tombstone
SELECT partition, "offset" IS NOT NULL AS produced FROM topics.produce('p', NULL::jsonb, 'tomb');
SELECT value IS NULL AS tombstone FROM p WHERE key = 'tomb';
SELECT topics.produce('p', '{"h": 1}', 'with-headers', headers => '{"trace": "abc"}') IS NOT NULL;
SELECT headers FROM p WHERE key = 'with-headers';

-- produce_batch: one row per record, in input order, offsets dense per partition
SELECT partition, "offset" - first_value("offset") OVER () AS offset_from_first
FROM topics.produce_batch('p', ARRAY['{"i":1}','{"i":2}','{"i":3}','{"i":4}'], ARRAY['a','b','a','b'], 1);
SELECT * FROM topics.produce_batch('p', ARRAY[]::text[]);
SELECT * FROM topics.produce_batch('p', NULL::text[]);
SELECT count(*) FROM topics.produce_batch('p', ARRAY['{}', NULL], ARRAY[NULL, 'x']);

-- bad input, and nothing of a failed call remains
SELECT count(*) AS before FROM p;
SELECT * FROM topics.produce('p', 42);
SELECT * FROM topics.produce('p', '{}', 42);
SELECT * FROM topics.produce('p', 'not json');
SELECT * FROM topics.produce('p', '{}', partition => 4);
SELECT * FROM topics.produce('p', '{}', partition => -1);
SELECT * FROM topics.produce('no_such_topic', '{}');
SELECT * FROM topics.produce(NULL, '{}');
SELECT * FROM topics.produce_batch('p', ARRAY['{}','{}'], ARRAY['a']);
SELECT * FROM topics.produce_batch('p', ARRAY[1, 2]);
SELECT * FROM topics.produce_batch('p', ARRAY['{}', 'not json']);
SELECT * FROM topics.produce_batch('p', ARRAY[['{}'],['{}']]);
SELECT * FROM topics.produce_batch('p', ARRAY['{}'], partition => 9);
INSERT INTO p (partition, key, value) VALUES (1, 'x', '{}');
INSERT INTO p ("offset", key, value) VALUES (1, 'x', '{}');
COPY p (partition, key, value) FROM '/dev/null';
COPY p FROM '/dev/null';
COPY p (key, value) FROM '/dev/null' WHERE key = 'x';
SELECT count(*) AS after FROM p;

-- a volatile key is evaluated once: key and partition agree
INSERT INTO p (key, value) VALUES (md5(random()::text), '{"volatile": true}');
SELECT partition = (topics.murmur2(convert_to(key, 'UTF8')) & 2147483647) % 4 AS routed_by_its_own_key
FROM p WHERE value ? 'volatile';

-- INSERT inside CTEs and functions is routed too
WITH w AS (INSERT INTO p (key, value) VALUES ('foobar', '{"cte": 1}') RETURNING partition) SELECT * FROM w;
DO $$ BEGIN INSERT INTO p (key, value) VALUES ('foobar', '{"plpgsql": 1}'); END $$;
SELECT DISTINCT partition FROM p WHERE key = 'foobar';

-- produce is transactional: all or nothing, across topics
SELECT topics.create_topic('audit', 1);
BEGIN;
SELECT partition FROM topics.produce('p', '{"tx": 1}', 'tx');
SELECT partition FROM topics.produce('audit', '{"tx": 1}', 'tx');
ROLLBACK;
SELECT count(*) AS rolled_back FROM p WHERE key = 'tx';
SELECT count(*) AS rolled_back FROM audit WHERE key = 'tx';

-- the outbox pattern without an outbox: a row and its event commit together
CREATE TABLE orders_table (id int PRIMARY KEY, item text);
BEGIN;
INSERT INTO orders_table VALUES (1, 'book');
SELECT partition FROM topics.produce('audit', jsonb_build_object('order', 1, 'item', 'book'), 'order-1');
COMMIT;
SELECT o.id, a.value FROM orders_table o JOIN audit a ON a.key = 'order-' || o.id;

-- a read-only transaction cannot produce (nor can a hot standby)
BEGIN READ ONLY;
SELECT * FROM topics.produce('audit', '{}');
ROLLBACK;
BEGIN READ ONLY;
SELECT * FROM topics.produce_batch('audit', ARRAY['{}']);
ROLLBACK;
BEGIN READ ONLY;
SELECT topics.create_topic('ro');
ROLLBACK;
BEGIN READ ONLY;
SELECT topics.add_partitions('audit', 2);
ROLLBACK;
BEGIN READ ONLY;
SELECT topics.drop_topic('audit');
ROLLBACK;
-- nor move a group, nor remove records
BEGIN READ ONLY;
SELECT count(*) FROM topics.poll(NULL::audit, 'ro_group');
ROLLBACK;
BEGIN READ ONLY;
SELECT topics.commit('audit', 'ro_group', 0, 0);
ROLLBACK;
BEGIN READ ONLY;
SELECT topics.seek('audit', 'ro_group', 0, 0);
ROLLBACK;
BEGIN READ ONLY;
SELECT topics.reset_group('audit', 'ro_group', 'earliest');
ROLLBACK;
BEGIN READ ONLY;
SELECT topics.delete_group('audit', 'ro_group');
ROLLBACK;
BEGIN READ ONLY;
SELECT topics.delete_records('audit', 0, 0);
ROLLBACK;
BEGIN READ ONLY;
SELECT * FROM topics.enforce_retention('audit');
ROLLBACK;

-- PREPARE TRANSACTION after producing is refused
BEGIN;
SELECT partition FROM topics.produce('audit', '{}');
PREPARE TRANSACTION 'producer';
SELECT count(*) FROM pg_prepared_xacts;

-- bytea and text topics take text for their own type
SELECT topics.create_topic('rawtopic', 2, 'bytea', 'bytea');
SELECT partition FROM topics.produce('rawtopic', '\x0102'::bytea, '\x00'::bytea);
SELECT partition FROM topics.produce('rawtopic', '\x0304', '\x00');
SELECT (topics.murmur2('\x00') & 2147483647) % 2 AS expected;
SELECT key, value FROM rawtopic ORDER BY "offset";

SELECT * FROM topics.verify('p');
DROP TABLE orders_table;

-- a topic's partitions take records only through the topic (routed by key) or produce():
-- INSERT and COPY straight into a partition are refused, with or without "partition"
SELECT topics.create_topic('direct', 2);
INSERT INTO direct_p1 (partition, key, value) VALUES (1, 'zz', '{}');
INSERT INTO direct_p1 (key, value) VALUES ('zz', '{}');
INSERT INTO direct_p1 (value) SELECT '{}'::jsonb;
WITH w AS (INSERT INTO direct_p0 (key, value) VALUES ('a', '{}') RETURNING 1) SELECT * FROM w;
COPY direct_p0 (key, value) FROM stdin;
a	{}
\.
CREATE VIEW direct_view AS SELECT key, value FROM direct_p1;
INSERT INTO direct_view VALUES ('zz', '{}');
DROP VIEW direct_view;
SELECT count(*) FROM direct;
-- through the topic, 'zz' goes where its key routes it, on every path
INSERT INTO direct (key, value) VALUES ('zz', '{}');
SELECT partition FROM topics.produce('direct', '{}', key => 'zz');
SELECT (topics.murmur2('zz') & 2147483647) % 2 AS expected, array_agg(DISTINCT partition) AS got FROM direct;
-- preserve mode (restores, replication) writes partitions directly
SET session_replication_role = replica;
INSERT INTO direct_p1 (partition, "offset", "timestamp", key, value)
VALUES (1, 0, now(), 'restored', '{}');
RESET session_replication_role;
SELECT partition, "offset", key FROM direct_p1;
SELECT topics.drop_topic('direct');
-- produce_batch goes in chunks (8192 records or 8 MB): a batch of many chunks,
-- with keys over several partitions and text converted to jsonb, keeps input
-- order per partition, returns rows in input order, and stores every record
SELECT topics.create_topic('chunked', 3);
CREATE TEMP TABLE chunked_out AS
SELECT row_number() OVER () AS i, b.partition, b."offset"
FROM topics.produce_batch('chunked',
    (SELECT array_agg(format('{"i": %s}', i) ORDER BY i) FROM generate_series(1, 20000) i),
    (SELECT array_agg(CASE WHEN i % 7 = 0 THEN NULL ELSE (i % 11)::text END ORDER BY i)
     FROM generate_series(1, 20000) i)) b;
SELECT count(*), count(DISTINCT partition) AS partitions,
       bool_and(o."offset" = c."offset" AND (c.value->>'i')::bigint = o.i) AS rows_match
FROM chunked_out o JOIN chunked c USING (partition, "offset");
-- per partition: offsets dense from 0, in input order
SELECT partition, min("offset") = 0 AND max("offset") = count(*) - 1 AS dense,
       bool_and(in_order) AS in_order
FROM (SELECT partition, "offset", i > coalesce(lag(i) OVER (PARTITION BY partition ORDER BY "offset"), 0) AS in_order
      FROM chunked_out) s
GROUP BY partition ORDER BY partition;
-- large values end chunks early (8 MB): 20 values of 900 kB
SELECT count(*), count(DISTINCT "offset") FROM topics.produce_batch('chunked',
    (SELECT array_agg(format('"%s"', repeat('x', 900000))) FROM generate_series(1, 20)),
    partition => 0);
SELECT count(*) FROM chunked WHERE partition = 0 AND length(value #>> '{}') = 900000;
DROP TABLE chunked_out;
SELECT topics.drop_topic('chunked');
