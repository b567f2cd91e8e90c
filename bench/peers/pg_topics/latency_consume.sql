-- workload 7 consumer: one long-poll fetch from :pos (pgbench keeps :pos between transactions).
-- Receipt time = clock_timestamp() once fetch has returned (the SRF result is materialised before
-- the outer query reads it). The latencies leave as a NOTICE (w7_note, created by the harness),
-- so the consumer never writes: it takes no transaction id and commits nothing.
-- Offsets are contiguous here (no aborted producers), so pos = last offset + 1.
WITH f AS (SELECT "offset", (headers ->> 'sent')::timestamptz AS sent
           FROM topics.fetch(NULL::bench_topic, 0, :pos, :batch, wait => '1 s')),
     r AS (SELECT "offset", extract(epoch FROM clock_timestamp() - sent) * 1000 AS ms FROM f)
SELECT coalesce(max("offset") + 1, :pos) AS pos,
       w7_note(string_agg("offset" || ':' || round(ms, 3), ' ')) AS noted
FROM r
\gset
