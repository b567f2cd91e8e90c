-- workload 5: the timestamp of the record at offset :o (id :o + 1)
SELECT ts FROM heap_topic WHERE id = :o + 1;
