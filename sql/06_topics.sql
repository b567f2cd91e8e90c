-- Topic lifecycle: create_topic, add_partitions, drop_topic, the views
\set SHOW_CONTEXT never
SELECT topics.create_topic('Sales', partitions => 4, value_type => 'jsonb', retention => '7 days');
SELECT topics.create_topic('"CaseKept"', 2, 'bytea', 'bytea', retention_bytes => 1048576);
CREATE SCHEMA shop;
SELECT topics.create_topic('shop.events', 1, 'jsonb', 'text');

SELECT topic, partitions, key_type, value_type, retention, retention_bytes FROM topics.topics ORDER BY topic::text;
SELECT topic, partition, relation, log_start_offset, high_watermark, last_stable_offset, records, holder_pid
FROM topics.partitions ORDER BY topic::text, partition;

-- a topic is a table with the fixed columns, one topic_log partition per partition
SELECT c.relname, c.relkind, a.amname, pg_get_expr(c.relpartbound, c.oid) AS bound
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid LEFT JOIN pg_am a ON a.oid = c.relam
WHERE i.inhparent = 'sales'::regclass ORDER BY c.relname;
SELECT attname, format_type(atttypid, atttypmod), attnotnull FROM pg_attribute
WHERE attrelid = 'sales'::regclass AND attnum > 0 ORDER BY attnum;

-- bad input
SELECT topics.create_topic('sales');
SELECT topics.create_topic('bad1', partitions => 0);
SELECT topics.create_topic('bad2', key_type => 'int4');
SELECT topics.create_topic('bad3', value_type => 'json');
SELECT topics.create_topic('bad4', retention => '-1 day');
SELECT topics.create_topic('bad5', retention_bytes => 0);
SELECT topics.create_topic('nosuchschema.t');
SELECT topics.create_topic(NULL);
SELECT count(*) AS no_leftovers FROM pg_class WHERE relname LIKE 'bad%';

-- add_partitions only grows
SELECT topics.add_partitions('sales', 6);
SELECT topics.add_partitions('sales', 6);
SELECT topics.add_partitions('sales', 3);
SELECT partitions FROM topics.topics WHERE topic = 'sales'::regclass;
SELECT topics.add_partitions('no_such_topic', 2);

-- what is not a topic
CREATE TABLE plain_table (id int);
SELECT topics.add_partitions('plain_table', 2);
SELECT topics.add_partitions('sales_p0', 2);
SELECT topics.drop_topic('plain_table');

-- the topic's shape is locked down, on the topic and its partitions
ALTER TABLE sales ADD COLUMN extra int;
ALTER TABLE sales DETACH PARTITION sales_p0;
CREATE TABLE stray (LIKE sales) USING topic_log;
ALTER TABLE sales ATTACH PARTITION stray FOR VALUES IN (99);
DROP TABLE stray;
DROP TABLE sales_p1;
ALTER TABLE sales ADD CONSTRAINT c CHECK (key <> '');
CREATE INDEX ON sales (key);
UPDATE sales SET key = 'x' WHERE false;

-- renaming works, and the views follow
ALTER TABLE "CaseKept" RENAME TO renamed;
SELECT topic FROM topics.topics ORDER BY topic::text;

-- dropping: through drop_topic, or DROP TABLE; settings go too
SELECT topics.drop_topic('renamed');
DROP TABLE shop.events;
SELECT topic FROM topics.topics ORDER BY topic::text;
SELECT count(*) FROM topics.topic_config;
DROP SCHEMA shop;
DROP TABLE plain_table;
