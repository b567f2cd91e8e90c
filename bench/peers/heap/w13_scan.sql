-- workload 13: plain SQL over the whole table, touching every value
SELECT count(*) AS n, coalesce(sum(length(value ->> 'event_id')), 0) AS chars FROM w13_heap \gset
\if :n != :backlog
SELECT 'w13_scan: the scan did not see the whole backlog' / 0;
\endif
\if :chars != 36 * :n
SELECT 'w13_scan: a value lost its event_id' / 0;
\endif
