-- workload 11: drop the compacted topic, segment size back to the default
DO $$
BEGIN
    IF to_regclass('w11_topic') IS NOT NULL THEN
        PERFORM topics.drop_topic('w11_topic');
    END IF;
END $$;
ALTER SYSTEM RESET pg_topics.segment_size;
SELECT pg_reload_conf();
