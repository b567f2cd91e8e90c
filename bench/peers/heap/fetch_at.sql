-- workload 5: the heap's "fetch": :batch records from offset :off through the id index
-- (offset n is id n + 1: bigserial starts at 1). Every value is read, so no index-only scan.
\set off random(:off_lo, :off_hi)
SELECT count(*), sum(octet_length(value))
FROM (SELECT value FROM heap_topic WHERE id > :off ORDER BY id LIMIT :batch) AS f;
