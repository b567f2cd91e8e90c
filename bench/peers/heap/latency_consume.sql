-- workload 7 consumer: poll for ids after :pos; when nothing came back, back off 1 ms
-- (client-side \sleep) before polling again. Not LISTEN/NOTIFY: pgbench cannot wait for a
-- notification, and NOTIFY takes a database-wide lock at every producer commit; polling with a
-- short backoff is the usual heap-table queue consumer. Latencies leave as a NOTICE (w7_note,
-- created by the harness): the consumer never writes.
WITH f AS (SELECT id, ts FROM heap_topic WHERE id > :pos ORDER BY id LIMIT :batch),
     r AS (SELECT id, extract(epoch FROM clock_timestamp() - ts) * 1000 AS ms FROM f)
SELECT coalesce(max(id), :pos) AS pos, count(*) AS n,
       w7_note(string_agg((id - 1) || ':' || round(ms, 3), ' ')) AS noted
FROM r
\gset
\if :n = 0
\sleep 1 ms
\endif
