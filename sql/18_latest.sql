-- topics.latest: the newest record of each key in each partition; and
-- compacted topics refuse records without a key
\set SHOW_CONTEXT never
CREATE FUNCTION lt_try(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE sql;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

SELECT topics.create_topic('lt', partitions => 2, key_type => 'text', value_type => 'text');
-- versions of keys a, b, c, d in partition 0, keyless records among them;
-- c's newest is a tombstone (NULL value)
SELECT count(*) FROM topics.produce_batch('lt',
    ARRAY['a1', 'b1', 'c1', 'none1', 'a2', 'd1', 'b2', 'a3', NULL, 'none2'],
    ARRAY['a', 'b', 'c', NULL, 'a', 'd', 'b', 'a', 'c', NULL], partition => 0);
-- an explicit partition puts key a in partition 1 too: its own newest
SELECT count(*) FROM topics.produce_batch('lt', ARRAY['p1-a1', 'p1-a2', 'p1-e1'],
    ARRAY['a', 'a', 'e'], partition => 1);
-- a newer record of b rolled back: a gap, never the newest
BEGIN;
SELECT "offset" FROM topics.produce('lt', 'b-rolled-back', 'b', 0);
ROLLBACK;

-- one row per (partition, key), the newest, in (partition, offset) order,
-- with the topic's row type; the tombstone of c is there, keyless records not
SELECT partition, "offset", key, value FROM topics.latest(NULL::lt);
SELECT pg_typeof(l) FROM topics.latest(NULL::lt) l LIMIT 1;
-- live state: leave the tombstones out
SELECT key, value FROM topics.latest(NULL::lt) WHERE value IS NOT NULL AND partition = 0;
-- the same as the newest of each key by SQL over the whole table
SELECT count(*) AS differences FROM (
    (SELECT partition, "offset" FROM topics.latest(NULL::lt))
    EXCEPT
    (SELECT DISTINCT ON (partition, key) partition, "offset" FROM lt
     WHERE key IS NOT NULL ORDER BY partition, key, "offset" DESC)) d;

-- the reader's own open transaction's record is not shown: it can be
-- taken back (the read stops at the partition's last stable offset)
BEGIN;
SELECT "offset" FROM topics.produce('lt', 'd-open', 'd', 0);
SELECT partition, "offset", key, value FROM topics.latest(NULL::lt) WHERE key = 'd';
COMMIT;
SELECT partition, "offset", key, value FROM topics.latest(NULL::lt) WHERE key = 'd';

-- an empty topic, and one with only keyless records, have no newest records
SELECT topics.create_topic('lt_empty', partitions => 3, value_type => 'text');
SELECT count(*) FROM topics.latest(NULL::lt_empty);
SELECT count(*) FROM topics.produce_batch('lt_empty', ARRAY['x', 'y']);
SELECT count(*) FROM topics.latest(NULL::lt_empty);

-- a key is its bytes: jsonb keys in their binary form, so key order
-- within an object does not matter
SELECT topics.create_topic('lt_json', partitions => 1, key_type => 'jsonb', value_type => 'text');
SELECT count(*) FROM topics.produce_batch('lt_json', ARRAY['j1', 'j2', 'j3', 'j4'],
    ARRAY['{"a": 1, "b": 2}', '{"b": 2, "a": 1}', '{"a": 2}', '[1, 2]']::jsonb[]);
SELECT "offset", key, value FROM topics.latest(NULL::lt_json);
-- bytea keys: \x00 and \x0000 are two keys
SELECT topics.create_topic('lt_bytes', partitions => 1, key_type => 'bytea', value_type => 'bytea');
SELECT count(*) FROM topics.produce_batch('lt_bytes', ARRAY['\x01', '\x02', '\x03', '\x04']::bytea[],
    ARRAY['\x00', '\x0000', '\x00', '']::bytea[]);
SELECT "offset", key, value FROM topics.latest(NULL::lt_bytes);
-- a long key stored compressed in one record (the largest field) and
-- plain in another (a larger value compressed instead) is one key
SELECT topics.create_topic('lt_long', partitions => 1, value_type => 'text');
SELECT "offset" FROM topics.produce('lt_long',
    (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 32) g), repeat('k', 1500), 0);
SELECT "offset" FROM topics.produce('lt_long', repeat('v', 6000), repeat('k', 1500), 0);
SELECT "offset" FROM topics.produce('lt_long', 'other', repeat('k', 1499), 0);
SELECT "offset", length(key) AS key_length, length(value) AS value_length
FROM topics.latest(NULL::lt_long);

-- many keys and versions, with work_mem at its least: the sorts spill
SET work_mem = '64kB';
SELECT count(*) FROM topics.produce_batch('lt_long',
    (SELECT array_agg(repeat('x', 100) || g ORDER BY g) FROM generate_series(1, 20000) g),
    (SELECT array_agg('key-' || g % 3000 ORDER BY g) FROM generate_series(1, 20000) g));
SELECT count(*), count(DISTINCT key), min("offset"), max("offset"),
       bool_and(value = repeat('x', 100) || (("offset" - 3)::int + 1)) AS newest
FROM topics.latest(NULL::lt_long) WHERE key LIKE 'key-%';
RESET work_mem;

-- privileges: SELECT on the topic, as fetch
CREATE ROLE lt_reader;
CREATE ROLE lt_nobody;
GRANT SELECT ON lt TO lt_reader;
SET ROLE lt_reader;
SELECT count(*) FROM topics.latest(NULL::lt);
RESET ROLE;
SET ROLE lt_nobody;
SELECT lt_try('SELECT count(*) FROM topics.latest(NULL::lt)');
RESET ROLE;

-- only a topic's own row type
CREATE TABLE lt_plain (partition int, "offset" bigint, "timestamp" timestamptz,
    key text, value text, headers jsonb);
SELECT lt_try('SELECT count(*) FROM topics.latest(NULL::lt_plain)');
SELECT lt_try('SELECT count(*) FROM topics.latest(NULL::int)');
SELECT lt_try('SELECT count(*) FROM topics.latest(NULL::text)');

---------------------------------------------------------------------------
-- A compacted topic (cleanup.policy includes compact) refuses records
-- without a key on every produce path, as Kafka does; preserve mode
-- (restores, logical replication) takes them.  The config is written into
-- topics.topic_config directly, as its trigger lets a superuser do.
---------------------------------------------------------------------------
SELECT topics.create_topic('lt_compact', partitions => 2, value_type => 'text');
UPDATE topics.topic_config SET configs = configs || '{"cleanup.policy": "compact,delete"}'
WHERE topic = 'lt_compact'::regclass;
SELECT lt_try($$SELECT topics.produce('lt_compact', 'no key')$$);
SELECT lt_try($$SELECT topics.produce('lt_compact', 'no key', NULL, 1)$$);
SELECT lt_try($$SELECT topics.produce_batch('lt_compact', ARRAY['k1', 'none', 'k3'], ARRAY['k1', NULL, 'k3'])$$);
SELECT lt_try($$SELECT topics.produce_batch('lt_compact', ARRAY['none'], partition => 0)$$);
SELECT lt_try($$INSERT INTO lt_compact (key, value) VALUES ('k1', 'v1'), (NULL, 'none')$$);
SELECT lt_try($$INSERT INTO lt_compact (value) VALUES ('none')$$);
COPY lt_compact (key, value) FROM stdin;
k1	v1
\N	none
\.
\set VERBOSITY sqlstate
COPY lt_compact (key, value) FROM stdin;
\N	none
\.
\set VERBOSITY default
-- nothing of those is stored, not even their offsets
SELECT * FROM topics.offsets('lt_compact');
-- keyed records go in
SELECT count(*) FROM topics.produce_batch('lt_compact', ARRAY['v1', 'v2'], ARRAY['k1', 'k2']);
INSERT INTO lt_compact (key, value) VALUES ('k3', 'v3');
COPY lt_compact (key, value) FROM stdin;
k4	v4
\.
SELECT key, value FROM topics.latest(NULL::lt_compact) ORDER BY key;
-- preserve mode takes a keyless record: the publisher's log is what it is
SET session_replication_role = replica;
INSERT INTO lt_compact (partition, "offset", key, value) VALUES (0, 1000, NULL, 'restored');
RESET session_replication_role;
SELECT count(*) FROM lt_compact WHERE key IS NULL;
-- "compact" alone, and the policy set back to delete
UPDATE topics.topic_config SET configs = configs || '{"cleanup.policy": "compact"}'
WHERE topic = 'lt_compact'::regclass;
SELECT lt_try($$SELECT topics.produce('lt_compact', 'no key')$$);
UPDATE topics.topic_config SET configs = configs || '{"cleanup.policy": "delete"}'
WHERE topic = 'lt_compact'::regclass;
SELECT lt_try($$SELECT topics.produce('lt_compact', 'no key', NULL, 0)$$);

SELECT topics.drop_topic(t) FROM unnest(ARRAY['lt', 'lt_empty', 'lt_json', 'lt_bytes',
    'lt_long', 'lt_compact']) t;
DROP TABLE lt_plain;
DROP ROLE lt_reader;
DROP ROLE lt_nobody;
DROP FUNCTION lt_try(text);
