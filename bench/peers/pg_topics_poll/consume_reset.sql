-- forget group 'bench' (its members, pgbench's sessions, are gone): its next poll starts at
-- the log start (pg_topics.auto_offset_reset = earliest)
DO $$
BEGIN
    PERFORM topics.delete_group('bench_topic', 'bench');
EXCEPTION WHEN undefined_object THEN
    NULL;
END $$;
