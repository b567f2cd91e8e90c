-- Everything a log refuses: SQLSTATE 0A000 with a hint, and nothing changes
\set VERBOSITY default
\set SHOW_CONTEXT never

-- the column layout is fixed
CREATE TABLE wrong (id int, payload text) USING topic_log;
CREATE TABLE wrong (partition int, "offset" bigint, "timestamp" timestamptz, key int, value text, headers jsonb) USING topic_log;
CREATE TABLE wrong (partition int, "offset" bigint, "timestamp" timestamptz, key text, value text) USING topic_log;

-- topics are always permanent
CREATE UNLOGGED TABLE u (partition int NOT NULL, "offset" bigint NOT NULL DEFAULT -1,
    "timestamp" timestamptz NOT NULL DEFAULT '-infinity', key text, value text, headers jsonb) USING topic_log;
CREATE TEMP TABLE t (partition int NOT NULL, "offset" bigint NOT NULL DEFAULT -1,
    "timestamp" timestamptz NOT NULL DEFAULT '-infinity', key text, value text, headers jsonb) USING topic_log;

SELECT count(*) AS before FROM orders;

-- records are immutable, even when no row matches
UPDATE orders SET value = '{}' WHERE "offset" = 0;
UPDATE orders SET value = '{}' WHERE false;
DELETE FROM orders WHERE "offset" = 0;
DELETE FROM orders WHERE false;
MERGE INTO orders o USING (SELECT 'm' AS k) s ON o.key = s.k
    WHEN NOT MATCHED THEN INSERT (key, value) VALUES (s.k, '{}');
INSERT INTO orders (key, value) VALUES ('x', '{}') ON CONFLICT DO NOTHING;
SELECT * FROM orders WHERE false FOR UPDATE;
SELECT * FROM orders WHERE false FOR SHARE;
WITH d AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM d;
DO $$ BEGIN UPDATE orders SET key = 'x'; END $$;

-- the log fills offset and timestamp itself
INSERT INTO orders ("offset", key, value) VALUES (42, 'x', '{}');
INSERT INTO orders ("timestamp", key, value) VALUES (now(), 'x', '{}');
COPY orders ("offset", key, value) FROM stdin;
7	x	{}
\.

-- no indexes, no rewrite, no sampling
CREATE INDEX ON orders (key);
CREATE TABLE indexed (partition int NOT NULL, "offset" bigint NOT NULL DEFAULT -1,
    "timestamp" timestamptz NOT NULL DEFAULT '-infinity', key text, value text, headers jsonb,
    PRIMARY KEY ("offset")) USING topic_log;
CLUSTER orders;
VACUUM FULL orders;
SELECT count(*) FROM orders TABLESAMPLE SYSTEM (10);

-- DDL that would change what a topic is
ALTER TABLE orders ADD COLUMN extra int;
ALTER TABLE orders DROP COLUMN headers;
ALTER TABLE orders ALTER COLUMN value TYPE text;
ALTER TABLE orders ALTER COLUMN "offset" SET DEFAULT 0;
ALTER TABLE orders ALTER COLUMN key SET STORAGE PLAIN;
ALTER TABLE orders SET ACCESS METHOD heap;
ALTER TABLE orders SET UNLOGGED;
ALTER TABLE orders ENABLE ROW LEVEL SECURITY;
ALTER TABLE orders RENAME COLUMN key TO k;
CREATE POLICY p ON orders USING (true);
CREATE RULE r AS ON INSERT TO orders DO INSTEAD NOTHING;
CREATE FUNCTION trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
CREATE TRIGGER t BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION trg();
DROP FUNCTION trg();
CREATE TABLE plain (partition int, "offset" bigint, "timestamp" timestamptz, key text, value jsonb, headers jsonb);
ALTER TABLE plain SET ACCESS METHOD topic_log;
DROP TABLE plain;

-- what stays allowed: renaming the topic, ordinary VACUUM and ANALYZE, comments
ALTER TABLE orders RENAME TO orders2;
ALTER TABLE orders2 RENAME TO orders;
VACUUM orders;
ANALYZE orders;
COMMENT ON TABLE orders IS 'test topic';

-- nothing was lost or added
SELECT count(*) AS after FROM orders;
SELECT * FROM topics.verify('orders');

-- verify refuses what is not a topic
CREATE TABLE heap_table (id int);
SELECT * FROM topics.verify('heap_table');
DROP TABLE heap_table;

-- the SQLSTATE of every refusal above
CREATE FUNCTION pg_temp.sqlstate_of(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE stmt;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;
SELECT stmt, pg_temp.sqlstate_of(stmt) AS sqlstate
FROM (VALUES
    ('CREATE TABLE wrong (id int) USING topic_log'),
    ('CREATE UNLOGGED TABLE u (partition int, "offset" bigint, "timestamp" timestamptz, key text, value text, headers jsonb) USING topic_log'),
    ('UPDATE orders SET value = ''{}'' WHERE false'),
    ('DELETE FROM orders WHERE false'),
    ('MERGE INTO orders o USING (SELECT 1) s ON false WHEN NOT MATCHED THEN INSERT (key) VALUES (''m'')'),
    ('INSERT INTO orders (key) VALUES (''x'') ON CONFLICT DO NOTHING'),
    ('SELECT * FROM orders WHERE false FOR UPDATE'),
    ('SELECT * FROM orders WHERE false FOR KEY SHARE'),
    ('INSERT INTO orders ("offset", key) VALUES (42, ''x'')'),
    ('INSERT INTO orders ("timestamp", key) VALUES (now(), ''x'')'),
    ('CREATE INDEX ON orders (key)'),
    ('SELECT count(*) FROM orders TABLESAMPLE BERNOULLI (1)'),
    ('ALTER TABLE orders ADD COLUMN extra int'),
    ('ALTER TABLE orders ALTER COLUMN value TYPE text'),
    ('ALTER TABLE orders ALTER COLUMN "timestamp" DROP NOT NULL'),
    ('ALTER TABLE orders SET ACCESS METHOD heap'),
    ('ALTER TABLE orders SET UNLOGGED'),
    ('ALTER TABLE orders ENABLE ROW LEVEL SECURITY'),
    ('ALTER TABLE orders RENAME COLUMN value TO v'),
    ('CREATE RULE r AS ON INSERT TO orders DO INSTEAD NOTHING')
) AS s(stmt);
SELECT count(*) AS still FROM orders;
