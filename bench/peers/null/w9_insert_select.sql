-- workload 9 floor for INSERT … SELECT: the same unnest over the same pre-built arrays
-- (payload_batches, as pg_topics' produce_batch gets them), the rows read and stored nowhere
\set b random(0, (:nrows / :batch) - 1)
SELECT sum(octet_length(u.k) + octet_length(u.v))
FROM payload_batches p, unnest(p.keys, p.vals) AS u(k, v) WHERE p.b = :b;
