-- workload 9 (run by psql, untimed): prints the pgbench script, one INSERT of :batch literal
-- VALUES rows (payload rows 1 .. :batch) into the topic, parsed and planned every call
SELECT 'INSERT INTO bench_topic (key, value) VALUES' || E'\n'
       || string_agg(format('(%L, ''\x%s'')', key, encode(value, 'hex')), E',\n' ORDER BY id)
       || ';'
FROM payload WHERE id BETWEEN 1 AND :batch;
