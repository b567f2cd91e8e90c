-- workload 5: records with ts in [:t1, :t2]. heap_topic has no index on ts (see w5_index.sql)
EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON)
SELECT count(*), sum(octet_length(value)) FROM heap_topic WHERE ts BETWEEN :'t1' AND :'t2';
