-- topics.produce_batch is the documented fast path; the arrays are built from the same payload rows
\set lo random(1, :maxlo)
\set hi :lo + :batch - 1
SELECT count(*)
FROM (SELECT array_agg(value ORDER BY id) AS vals, array_agg(key ORDER BY id) AS keys
      FROM payload WHERE id BETWEEN :lo AND :hi) AS a,
     LATERAL topics.produce_batch('bench_topic', a.vals, a.keys) AS r;
