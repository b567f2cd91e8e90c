-- workload 9: the same reader (w9_fetch_cte_server.sql), every record to the client; \aset
-- keeps the last one, so :offset is where the reader got to
WITH b AS (SELECT * FROM topics.fetch(NULL::bench_topic, 0,
                                      (SELECT p.pos FROM w9_pos p WHERE p.id = 1), :batch)),
     ack AS (UPDATE w9_pos SET pos = pos + (SELECT count(*) FROM b) WHERE id = 1)
SELECT * FROM b \aset
\if :offset != :pos + :batch - 1
SELECT 'w9_fetch_cte_client: a call returned fewer records than asked' / 0;
\endif
\set pos :offset + 1
\if :pos >= :backlog
UPDATE w9_pos SET pos = 0 WHERE id = 1;
\set pos 0
\endif
