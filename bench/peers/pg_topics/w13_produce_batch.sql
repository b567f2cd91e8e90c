-- workload 13: topics.produce_batch of one pre-built batch of JSON events (w13_batches,
-- common/json_events.sql): :batch jsonb values and their keys, passed as arrays
\set b random(0, :nbatches - 1)
SELECT count(*) FROM w13_batches p, LATERAL topics.produce_batch('w13_topic', p.vals, p.keys) AS r
WHERE p.b = :b;
