UPDATE heap_cursor SET pos = 0 WHERE consumer = 'c1';
