CREATE EXTENSION IF NOT EXISTS pg_topics;
DO $$
BEGIN
    IF to_regclass('bench_topic') IS NOT NULL THEN
        BEGIN
            PERFORM topics.delete_group('bench_topic', 'bench');
        EXCEPTION WHEN undefined_object THEN NULL;   -- 42704: no such group yet
        END;
        PERFORM topics.drop_topic('bench_topic');
    END IF;
END $$;
-- one partition, like the single heap table and the single PgQ queue
SELECT topics.create_topic('bench_topic', 1, 'text'::regtype, 'bytea'::regtype);
