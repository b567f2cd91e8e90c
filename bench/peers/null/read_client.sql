-- Floor for a reader that keeps its position itself, to the client (see read_server.sql).
SELECT g AS id, now() AS ts, 'AAAAAAAAAAAAAAAA'::text AS key,
       decode(repeat('5a', 100), 'hex') AS value
  FROM generate_series(:pos::bigint + 1, :pos::bigint + :batch) g \aset
\if :id != :pos + :batch
SELECT 'read_client: a call returned fewer rows than asked' / 0;
\endif
\set pos :id
-- at the end of the backlog, start again from its beginning (a second pass in the same
-- connection; the harness times it separately)
\if :pos >= :backlog
\set pos 0
\endif
