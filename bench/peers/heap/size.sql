SELECT pg_total_relation_size('heap_topic') + pg_total_relation_size('heap_cursor');
