SELECT * FROM heap_consume('c1', :batch);
