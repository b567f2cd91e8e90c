-- A reader that keeps its position itself, as a Kafka consumer using assign() and seek()
-- does: fetch from it, move it past the last record returned (pgbench keeps :pos between
-- transactions). A call that returns fewer records than asked fails the run.
SELECT count(*) AS n, coalesce(max("offset") + 1, -1) AS pos
  FROM topics.fetch(NULL::bench_topic, 0, :pos, :batch) \gset
\if :n != :batch
SELECT 'read_server: a call returned fewer records than asked' / 0;
\endif
-- at the end of the backlog, start again from its beginning (a second pass in the same
-- connection; the harness times it separately)
\if :pos >= :backlog
\set pos 0
\endif
