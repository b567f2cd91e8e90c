SELECT count(*) FROM heap_topic WHERE id > (SELECT pos FROM heap_cursor WHERE consumer = 'c1');
