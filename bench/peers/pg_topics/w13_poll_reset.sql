-- workload 13: forget group 'w13'; its next poll starts at the log start
-- (pg_topics.auto_offset_reset = earliest)
DO $$
BEGIN
    PERFORM topics.delete_group('w13_topic', 'w13');
EXCEPTION WHEN undefined_object THEN
    NULL;
END $$;
