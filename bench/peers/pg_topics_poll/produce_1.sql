\set id random(1, :nrows)
SELECT r.partition, r."offset"
FROM payload p, LATERAL topics.produce('bench_topic', p.value, p.key) AS r
WHERE p.id = :id;
