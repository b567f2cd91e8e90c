-- workload 7 producer (pgbench --rate): one record per transaction; the send time goes in the
-- headers (clock_timestamp() when the statement runs, before the record is appended and committed)
\set id random(1, :nrows)
SELECT r."offset"
FROM payload p,
     LATERAL topics.produce('bench_topic', p.value, p.key,
                            headers => jsonb_build_object('sent', clock_timestamp())) AS r
WHERE p.id = :id;
