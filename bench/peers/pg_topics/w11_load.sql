-- workload 11's load (pgbench, 1 client, one transaction per version): one new version of
-- each of the first :keys payload keys, in payload order, so that after :versions calls every
-- key has :versions records and only its last one is its newest.
INSERT INTO w11_topic (key, value) SELECT key, value FROM payload WHERE id <= :keys ORDER BY id;
