-- workload 9: the same reader (w9_fetch_cte_server.sql), every row to the client; \aset keeps
-- the last row, so :id is where the reader got to
WITH b AS (SELECT * FROM heap_topic
           WHERE id > (SELECT p.pos FROM w9_pos p WHERE p.id = 1) ORDER BY id LIMIT :batch),
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
