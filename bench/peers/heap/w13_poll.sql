-- workload 13: the consumer whose position the database keeps (cursor row), every value touched
SELECT count(*) AS n, coalesce(sum(length(value ->> 'event_id')), 0) AS chars
  FROM w13_heap_consume('c1', :batch) \gset
\if :chars != 36 * :n
SELECT 'w13_poll: a value lost its event_id' / 0;
\endif
