-- workload 11, timed: compaction on, and one topics.compact over the whole sealed log, in one
-- transaction, so that the background worker cannot start on the topic first (it sees the
-- policy only once this commits, and then finds nothing left to clean).  Prints the records
-- removed.
BEGIN;
SELECT topics.alter_topic_configs('w11_topic', '{"cleanup.policy": "compact"}') IS NULL;
SELECT topics.compact('w11_topic');
COMMIT;
