-- workload 8: Kafka's DeleteRecords below offset :cut; whole segments go, files and all
SELECT topics.delete_records('bench_topic', 0, :cut);
