-- workload 7 producer (pgbench --rate): one record per transaction; ts = send time
-- (clock_timestamp() when the statement runs). One producer client, so ids commit in order
-- and the polling consumer below cannot skip one.
\set id random(1, :nrows)
INSERT INTO heap_topic (ts, key, value) SELECT clock_timestamp(), key, value FROM payload WHERE id = :id;
