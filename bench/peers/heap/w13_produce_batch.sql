-- workload 13: INSERT … SELECT unnest of the same pre-built arrays pg_topics' produce_batch gets
\set b random(0, :nbatches - 1)
INSERT INTO w13_heap (key, value)
SELECT u.k, u.v FROM w13_batches p, unnest(p.keys, p.vals) AS u(k, v) WHERE p.b = :b;
