-- workload 8: segments of about an eighth of the bytes to drop, so that retention has whole
-- segments to take (the topic has no retention setting: the drop below is on request)
ALTER SYSTEM SET pg_topics.segment_size = :'segment_size';
SELECT pg_reload_conf();
SELECT pg_sleep(0.2);
