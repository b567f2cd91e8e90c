-- workload 5: the same aggregate over the whole table (the denominator of "pages read")
EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON)
SELECT count(*), sum(octet_length(value)) FROM heap_topic;
