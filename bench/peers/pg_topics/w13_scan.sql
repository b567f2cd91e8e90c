-- workload 13: an analyst's plain SQL over the whole topic, touching every value; fails the
-- run unless it saw the whole backlog, every value intact
SELECT count(*) AS n, coalesce(sum(length(value ->> 'event_id')), 0) AS chars FROM w13_topic \gset
\if :n != :backlog
SELECT 'w13_scan: the scan did not see the whole backlog' / 0;
\endif
\if :chars != 36 * :n
SELECT 'w13_scan: a value lost its event_id' / 0;
\endif
