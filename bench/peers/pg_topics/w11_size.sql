-- workload 11: the disk bytes of w11_topic's segments (every fork, TOAST included), its
-- segments and its records
SELECT sum(bytes) || ',' || count(*) || ',' || (SELECT count(*) FROM w11_topic)
FROM topics.segments WHERE topic = 'w11_topic'::regclass;
