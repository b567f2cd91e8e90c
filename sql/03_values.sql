-- Values round-trip byte-exact up to pg_topics.max_message_bytes; larger ones fail with 54000
\set SHOW_CONTEXT never
CREATE TABLE blobs (partition int NOT NULL DEFAULT 0, "offset" bigint NOT NULL DEFAULT -1,
    "timestamp" timestamptz NOT NULL DEFAULT '-infinity', key bytea, value bytea, headers jsonb) USING topic_log;

SHOW pg_topics.max_message_bytes;

-- incompressible bytes of many sizes, including the limit itself
CREATE TEMP TABLE sizes AS
SELECT n, (SELECT string_agg(decode(md5(n::text || ':' || i), 'hex'), ''::bytea)
           FROM generate_series(1, (n + 15) / 16) i) AS full_bytes
FROM unnest(ARRAY[0, 1, 126, 127, 128, 2000, 2100, 8000, 100000, 1048576]) n;
UPDATE sizes SET full_bytes = coalesce(substr(full_bytes, 1, n), '');

INSERT INTO blobs (key, value) SELECT int4send(n), full_bytes FROM sizes ORDER BY n;
SELECT s.n, length(b.value) AS stored, b.value = s.full_bytes AS exact
FROM blobs b JOIN sizes s ON b.key = int4send(s.n) ORDER BY s.n;

-- compressible values are compressed, and still exact
INSERT INTO blobs (key, value) VALUES ('\x01', convert_to(repeat('abc', 300000), 'UTF8'));
SELECT length(value), value = convert_to(repeat('abc', 300000), 'UTF8') AS exact FROM blobs WHERE key = '\x01';

-- large keys and headers too
INSERT INTO blobs (key, value, headers)
VALUES (convert_to(repeat('k', 5000), 'UTF8'), '\x00', jsonb_build_object('h', repeat('h', 5000)));
SELECT length(key), length(headers->>'h') FROM blobs WHERE value = '\x00';

-- one byte over the limit fails, and nothing of the statement remains
SELECT count(*) AS before FROM blobs;
INSERT INTO blobs (key, value) VALUES ('\x02', '\x00'), ('\x03', decode(repeat('ab', 1048577), 'hex'));
SELECT count(*) AS after FROM blobs;

-- the limit is superuser-only
CREATE ROLE topic_user;
SET ROLE topic_user;
SET pg_topics.max_message_bytes = '10MB';
RESET ROLE;
DROP ROLE topic_user;

SET pg_topics.max_message_bytes = 100;
INSERT INTO blobs (key, value) VALUES ('\x04', decode(repeat('ab', 101), 'hex'));
INSERT INTO blobs (key, value) VALUES ('\x04', decode(repeat('ab', 100), 'hex')) RETURNING length(value);
RESET pg_topics.max_message_bytes;
SET pg_topics.no_such_setting = 1;

-- values toasted elsewhere are copied, not shared
CREATE TABLE source (v bytea);
ALTER TABLE source ALTER COLUMN v SET STORAGE EXTERNAL;
INSERT INTO source SELECT full_bytes FROM sizes WHERE n = 100000;
INSERT INTO blobs (key, value) SELECT '\x05', v FROM source;
DROP TABLE source;
SELECT length(value), value = (SELECT full_bytes FROM sizes WHERE n = 100000) AS exact FROM blobs WHERE key = '\x05';

SELECT * FROM topics.verify('blobs');
