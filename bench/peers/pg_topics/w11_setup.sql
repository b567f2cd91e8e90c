-- workload 11: the keyed topic compaction cleans, w11_topic (key text, value bytea, 1
-- partition), in segments of :segment_size so that most of the log is sealed when it is
-- compacted.  It is loaded with cleanup.policy delete (the default): on a compacted topic the
-- background worker, woken by every segment roll, would compact it during the load, and
-- workload 11 measures topics.compact over the whole log.  w11_compact.sql turns compaction on.
ALTER SYSTEM SET pg_topics.segment_size = :'segment_size';
SELECT pg_reload_conf();
SELECT pg_sleep(0.2);
DO $$
BEGIN
    IF to_regclass('w11_topic') IS NOT NULL THEN
        PERFORM topics.drop_topic('w11_topic');
    END IF;
END $$;
SELECT topics.create_topic('w11_topic', 1, 'text'::regtype, 'bytea'::regtype);
