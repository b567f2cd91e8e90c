SELECT pg_total_relation_size('w13_heap') + pg_total_relation_size('w13_heap_cursor');
