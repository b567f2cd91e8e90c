-- workload 13: the bytes the topic's partition occupies on disk (every segment), as the
-- product reports it
SELECT coalesce(sum(bytes), 0) FROM topics.partitions WHERE topic = 'w13_topic'::regclass;
