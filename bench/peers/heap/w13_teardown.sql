DROP TABLE IF EXISTS w13_heap, w13_heap_cursor CASCADE;
