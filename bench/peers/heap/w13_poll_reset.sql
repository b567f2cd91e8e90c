UPDATE w13_heap_cursor SET pos = 0 WHERE consumer = 'c1';
