-- workload 10: produce_batch of :batch records per call, the records kcat sends over the Kafka
-- protocol, in the same order: batch :b of kafka_batches (the harness makes it from the
-- payload, untimed), then the next one (\gset carries :b to the next transaction)
SELECT count(*) AS n, (:b + 1) % :nbatches AS b
FROM kafka_batches p, LATERAL topics.produce_batch('bench_topic', p.vals, p.keys) AS r
WHERE p.b = :b \gset
\if :n != :batch
SELECT 'w10_produce_batch: a call produced fewer records than asked' / 0;
\endif
