-- workload 13: consumer group 'w13' (session member, commit-on-poll in this transaction)
-- reads the next :batch records; every value touched as in w13_fetch.sql
SELECT count(*) AS n, coalesce(sum(length(value ->> 'event_id')), 0) AS chars
  FROM topics.poll(NULL::w13_topic, 'w13', max_records => :batch) \gset
\if :chars != 36 * :n
SELECT 'w13_poll: a value lost its event_id' / 0;
\endif
