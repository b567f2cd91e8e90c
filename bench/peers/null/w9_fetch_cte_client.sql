-- workload 9 floor for the fetch-in-a-CTE reader, every row to the client (see
-- w9_fetch_cte_server.sql); \aset keeps the last row, so :id is where the reader got to
WITH b AS (SELECT g AS id, now() AS ts, 'AAAAAAAAAAAAAAAA'::text AS key,
                  decode(repeat('5a', 100), 'hex') AS value
           FROM generate_series((SELECT p.pos FROM w9_pos p WHERE p.id = 1) + 1,
                                (SELECT p.pos FROM w9_pos p WHERE p.id = 1) + :batch) g),
     ack AS (UPDATE w9_pos SET pos = pos + (SELECT count(*) FROM b) WHERE id = 1)
SELECT * FROM b \aset
\if :id != :pos + :batch
SELECT 'w9_fetch_cte_client: a call returned fewer rows than asked' / 0;
\endif
\set pos :id
\if :pos >= :backlog
UPDATE w9_pos SET pos = 0 WHERE id = 1;
\set pos 0
\endif
