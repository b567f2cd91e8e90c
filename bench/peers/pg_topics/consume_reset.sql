DO $$
BEGIN
    PERFORM topics.reset_group('bench_topic', 'bench', 'earliest');
EXCEPTION WHEN undefined_object THEN NULL;   -- 42704: group not created yet (first poll creates it)
END $$;
