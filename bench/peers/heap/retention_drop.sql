-- workload 8: a queue table's retention is DELETE of the oldest rows plus VACUUM, which
-- makes the space reusable by the table but returns only the empty tail to the filesystem
DELETE FROM heap_topic WHERE id <= :cut;
VACUUM heap_topic;
