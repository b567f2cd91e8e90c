-- Floor for a reader that keeps its position itself: :batch rows of the same shape made on
-- the fly (a 16-character key, a 100-byte value), no storage; the same \gset bookkeeping.
SELECT count(*) AS n, max(id) AS pos
  FROM (SELECT g AS id, now() AS ts, 'AAAAAAAAAAAAAAAA'::text AS key,
               decode(repeat('5a', 100), 'hex') AS value
          FROM generate_series(:pos::bigint + 1, :pos::bigint + :batch) g) s \gset
\if :n != :batch
SELECT 'read_server: a call returned fewer rows than asked' / 0;
\endif
-- at the end of the backlog, start again from its beginning (a second pass in the same
-- connection; the harness times it separately)
\if :pos >= :backlog
\set pos 0
\endif
