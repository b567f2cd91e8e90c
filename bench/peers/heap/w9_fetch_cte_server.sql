-- workload 9: the issue's reader over the heap. The position lives in w9_pos (made by the
-- harness); one statement reads the next :batch rows by the primary key and moves it (the
-- data-modifying CTE), count only. :pos mirrors it client-side, to check every call.
WITH b AS (SELECT * FROM heap_topic
           WHERE id > (SELECT p.pos FROM w9_pos p WHERE p.id = 1) ORDER BY id LIMIT :batch),
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
