-- topics.produce_batch is the documented fast path: arrays of keys and values, pre-built in
-- payload_batches (common/payload.sql) from the same payload rows the other peers insert
\set b random(0, (:nrows / :batch) - 1)
SELECT count(*) FROM payload_batches p, LATERAL topics.produce_batch('bench_topic', p.vals, p.keys) AS r
WHERE p.b = :b;
