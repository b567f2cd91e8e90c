-- workload 13: the floor stores nothing; its scripts read the pre-built batches of events
SELECT 1;
