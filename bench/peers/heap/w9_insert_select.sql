-- workload 9: INSERT … SELECT from arrays (what a client binding a keys array and a values
-- array sends), the same pre-built arrays pg_topics' produce_batch gets (payload_batches)
\set b random(0, (:nrows / :batch) - 1)
INSERT INTO heap_topic (key, value)
SELECT u.k, u.v FROM payload_batches p, unnest(p.keys, p.vals) AS u(k, v) WHERE p.b = :b;
