-- A reader that keeps its position (the last id it read) itself: the next :batch rows by
-- the primary key (pgbench keeps :pos between transactions). A call that returns fewer rows
-- than asked fails the run.
SELECT count(*) AS n, coalesce(max(id), -1) AS pos
  FROM (SELECT * FROM heap_topic WHERE id > :pos ORDER BY id LIMIT :batch) s \gset
\if :n != :batch
SELECT 'read_server: a call returned fewer rows than asked' / 0;
\endif
-- at the end of the backlog, start again from its beginning (a second pass in the same
-- connection; the harness times it separately)
\if :pos >= :backlog
\set pos 0
\endif
