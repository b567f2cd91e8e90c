-- workload 13's read floor (fetch and poll): :batch rows carrying one event already in
-- memory, every value touched as the peers' readers touch theirs: the statement and the
-- per-record work with no storage read (unnesting a pre-built batch would cost more than
-- the heap's read: a 1.2 MB array detoasted per call)
SELECT count(*) AS n, coalesce(sum(length(p.value ->> 'event_id')), 0) AS chars
  FROM w13_payload p, generate_series(1, :batch) AS g WHERE p.id = 1 \gset
\if :n != :batch
SELECT 'w13_fetch: the floor made fewer rows than asked' / 0;
\endif
\if :chars != 36 * :n
SELECT 'w13_fetch: a value lost its event_id' / 0;
\endif
