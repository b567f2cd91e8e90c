-- workload 13: a reader that keeps its position itself (as read_server.sql) reads :batch
-- records and touches every value (a field of each event: the whole value is decompressed
-- and read); fails the run when a call returns fewer records or a value is not the one
-- stored (every event_id is a 36-character UUID). At the end of the backlog it starts again
-- from the beginning (the second pass, which the harness times separately).
SELECT count(*) AS n, coalesce(max("offset") + 1, -1) AS pos,
       coalesce(sum(length(value ->> 'event_id')), 0) AS chars
  FROM topics.fetch(NULL::w13_topic, 0, :pos, :batch) \gset
\if :n != :batch
SELECT 'w13_fetch: a call returned fewer records than asked' / 0;
\endif
\if :chars != 36 * :n
SELECT 'w13_fetch: a value lost its event_id' / 0;
\endif
\if :pos >= :backlog
\set pos 0
\endif
