-- Pre-generated payload rows, created BEFORE any timing (see README "Payloads").
-- psql variables: :value_size (bytes per value), :nrows (rows).
-- key   : 16-byte text (base64 of 12 random bytes)
-- payload      (id, key, value): value = :value_size random (incompressible) bytes,
--                                for peers that store bytea (null, heap, pg_topics)
-- payload_text (id, key, vtext): the same keys; vtext = :value_size characters of base64 text
--                                made from random bytes, for peers that store text (PgQ)
-- payload_batches (b, keys, vals): the same rows as arrays of :batch, for peers whose batched
--                                fast path takes arrays (pg_topics' produce_batch), so that no
--                                array is built inside a timed statement
-- UNLOGGED: the payload is input, not a measured object; it never changes during a run.
CREATE EXTENSION IF NOT EXISTS pgcrypto;

CREATE OR REPLACE FUNCTION bench_random_bytes(n int) RETURNS bytea
LANGUAGE sql VOLATILE AS $$
  SELECT coalesce(string_agg(gen_random_bytes(least(1024, n - g)), ''::bytea), ''::bytea)
  FROM generate_series(0, n - 1, 1024) AS g
$$;

DROP TABLE IF EXISTS payload, payload_text, payload_batches;
CREATE UNLOGGED TABLE payload (id int PRIMARY KEY, key text NOT NULL, value bytea NOT NULL);
CREATE UNLOGGED TABLE payload_text (id int PRIMARY KEY, key text NOT NULL, vtext text NOT NULL);
-- no compression attempts while generating (the values are random anyway)
ALTER TABLE payload ALTER value SET STORAGE EXTERNAL;
ALTER TABLE payload_text ALTER vtext SET STORAGE EXTERNAL;

INSERT INTO payload
SELECT i, encode(gen_random_bytes(12), 'base64'), bench_random_bytes(:value_size)
FROM generate_series(1, :nrows) AS i;

INSERT INTO payload_text
SELECT id, key,
       substr(translate(encode(bench_random_bytes((:value_size * 3) / 4 + 3), 'base64'), E'\n', ''), 1, :value_size)
FROM payload;

-- stored uncompressed, like the rows the other peers read: a compressed array (the base64 keys
-- compress) would make the timed statement decompress its input
CREATE UNLOGGED TABLE payload_batches (b int PRIMARY KEY, keys text[] NOT NULL, vals bytea[] NOT NULL);
ALTER TABLE payload_batches ALTER keys SET STORAGE EXTERNAL, ALTER vals SET STORAGE EXTERNAL;
INSERT INTO payload_batches
SELECT (id - 1) / :batch AS b, array_agg(key ORDER BY id), array_agg(value ORDER BY id)
FROM payload GROUP BY 1;

VACUUM ANALYZE payload, payload_text, payload_batches;
