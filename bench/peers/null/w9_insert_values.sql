-- workload 9 floor for a multi-row INSERT … VALUES (run by psql, untimed): prints the pgbench
-- script, the same :batch literal rows (payload rows 1 .. :batch) parsed, planned and read by
-- a SELECT that stores nothing. The first row's cast makes the column bytea, so every value
-- goes through bytea's input function as it does on INSERT.
SELECT 'SELECT sum(octet_length(k) + octet_length(v)) FROM (VALUES' || E'\n'
       || string_agg(format('(%L, ''\x%s''%s)', key, encode(value, 'hex'),
                            CASE WHEN id = 1 THEN '::bytea' ELSE '' END), E',\n' ORDER BY id)
       || E'\n) AS v(k, v);'
FROM payload WHERE id BETWEEN 1 AND :batch;
