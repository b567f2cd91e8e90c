-- workload 9 floor for the fetch-in-a-CTE reader, count only: the same statement with the
-- rows made on the fly (read_server.sql's), the position kept in w9_pos (made by the harness)
-- and moved by the same UPDATE. :pos mirrors it client-side, to check every call.
WITH b AS (SELECT g AS id, now() AS ts, 'AAAAAAAAAAAAAAAA'::text AS key,
                  decode(repeat('5a', 100), 'hex') AS value
           FROM generate_series((SELECT p.pos FROM w9_pos p WHERE p.id = 1) + 1,
                                (SELECT p.pos FROM w9_pos p WHERE p.id = 1) + :batch) g),
     ack AS (UPDATE w9_pos SET pos = pos + (SELECT count(*) FROM b) WHERE id = 1)
SELECT count(*) AS n FROM b \gset
\if :n != :batch
SELECT 'w9_fetch_cte_server: a call returned fewer rows than asked' / 0;
\endif
\set pos :pos + :batch
-- at the end of the backlog, start again from its beginning (the second pass)
\if :pos >= :backlog
UPDATE w9_pos SET pos = 0 WHERE id = 1;
\set pos 0
\endif
