-- workload 5: records with a timestamp in [:t1, :t2] (plain SQL; TopicSeek seeks on "timestamp")
EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON)
SELECT count(*), sum(octet_length(value)) FROM bench_topic WHERE "timestamp" BETWEEN :'t1' AND :'t2';
