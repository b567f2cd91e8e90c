-- workload 9: INSERT … SELECT from arrays into the topic (routed like produce), the same
-- pre-built arrays produce_batch.sql passes to topics.produce_batch (payload_batches)
\set b random(0, (:nrows / :batch) - 1)
INSERT INTO bench_topic (key, value)
SELECT u.k, u.v FROM payload_batches p, unnest(p.keys, p.vals) AS u(k, v) WHERE p.b = :b;
