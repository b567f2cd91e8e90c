CREATE EXTENSION IF NOT EXISTS pgq;
SELECT pgq.drop_queue('bench', true) FROM pgq.queue WHERE queue_name = 'bench';
SELECT pgq.create_queue('bench');
-- tick whenever there is at least one new event: the load script calls pgq.ticker()
-- after each committed batch, so every PgQ batch holds exactly one produce call (:batch events)
SELECT pgq.set_queue_config('bench', 'ticker_max_count', '1');
SELECT pgq.register_consumer('bench', 'c1');
