ALTER SYSTEM RESET pg_topics.segment_size;
SELECT pg_reload_conf();
