-- rewind consumer c1 to the queue's first tick (taken by create_queue, before the backlog)
SELECT pgq.register_consumer_at('bench', 'c1',
    (SELECT min(t.tick_id) FROM pgq.tick t JOIN pgq.queue q ON q.queue_id = t.tick_queue
     WHERE q.queue_name = 'bench'));
