SELECT count(*) FROM w13_heap WHERE id > (SELECT pos FROM w13_heap_cursor WHERE consumer = 'c1');
