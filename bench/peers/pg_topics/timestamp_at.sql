-- workload 5: the timestamp of the record at offset :o (an offset seek)
SELECT "timestamp" FROM bench_topic WHERE partition = 0 AND "offset" = :o;
