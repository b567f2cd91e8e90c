-- PgQ consumer loop: next_batch / get_batch_events / finish_batch in one transaction
BEGIN;
SELECT pgq.next_batch('bench', 'c1') AS batch_id \gset
SELECT count(*) FROM pgq.get_batch_events(:batch_id);
SELECT pgq.finish_batch(:batch_id);
COMMIT;
