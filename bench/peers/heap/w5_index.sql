-- workload 5, second time-range measurement: a BRIN index on ts, PostgreSQL's usual answer for
-- an append-only, time-correlated column. Built after the load (untimed) because setup.sql has
-- no such index: every other workload measures the heap without it.
CREATE INDEX heap_topic_ts_brin ON heap_topic USING brin (ts);
ANALYZE heap_topic;
