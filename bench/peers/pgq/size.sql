-- every table in schema pgq (queue event tables, their children and indexes, ticks, subscriptions)
SELECT sum(pg_total_relation_size(c.oid))
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'pgq' AND c.relkind IN ('r', 'p');
