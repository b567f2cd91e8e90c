-- workload 13: free the topic's space before the next variant
DO $$
BEGIN
    IF to_regclass('w13_topic') IS NOT NULL THEN
        PERFORM topics.drop_topic('w13_topic');
    END IF;
END $$;
