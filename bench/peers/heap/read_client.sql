-- A reader that keeps its position itself (see read_server.sql); every row goes to the
-- client, and \aset keeps the last one's columns, so :id is where the reader got to.
SELECT * FROM heap_topic WHERE id > :pos ORDER BY id LIMIT :batch \aset
\if :id != :pos + :batch
SELECT 'read_client: a call returned fewer rows than asked' / 0;
\endif
\set pos :id
-- at the end of the backlog, start again from its beginning (a second pass in the same
-- connection; the harness times it separately)
\if :pos >= :backlog
\set pos 0
\endif
