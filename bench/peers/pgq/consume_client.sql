BEGIN;
SELECT pgq.next_batch('bench', 'c1') AS batch_id \gset
SELECT * FROM pgq.get_batch_events(:batch_id);
SELECT pgq.finish_batch(:batch_id);
COMMIT;
