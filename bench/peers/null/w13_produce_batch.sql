-- workload 13's produce floor: the same batch of keys and jsonb values delivered to the server
-- (both arrays detoasted whole, as produce_batch gets them) and kept nowhere. Not unnest: a
-- row per record costs more than produce_batch's walk over its arrays, so it floors the
-- heap's INSERT … SELECT unnest only
\set b random(0, :nbatches - 1)
SELECT cardinality(p.keys) + cardinality(p.vals) FROM w13_batches p WHERE p.b = :b;
