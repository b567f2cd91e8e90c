-- workload 13: a reader keeping the last id it read (as read_server.sql), every value touched
SELECT count(*) AS n, coalesce(max(id), -1) AS pos,
       coalesce(sum(length(value ->> 'event_id')), 0) AS chars
  FROM (SELECT * FROM w13_heap WHERE id > :pos ORDER BY id LIMIT :batch) s \gset
\if :n != :batch
SELECT 'w13_fetch: a call returned fewer rows than asked' / 0;
\endif
\if :chars != 36 * :n
SELECT 'w13_fetch: a value lost its event_id' / 0;
\endif
\if :pos >= :backlog
\set pos 0
\endif
