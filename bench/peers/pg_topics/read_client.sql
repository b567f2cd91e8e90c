-- A reader that keeps its position itself (see read_server.sql); every record goes to the
-- client, and \aset keeps the last one's columns, so :offset is where the reader got to.
SELECT * FROM topics.fetch(NULL::bench_topic, 0, :pos, :batch) \aset
\if :offset != :pos + :batch - 1
SELECT 'read_client: a call returned fewer records than asked' / 0;
\endif
\set pos :offset + 1
-- at the end of the backlog, start again from its beginning (a second pass in the same
-- connection; the harness times it separately)
\if :pos >= :backlog
\set pos 0
\endif
