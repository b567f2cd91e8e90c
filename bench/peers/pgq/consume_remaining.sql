-- events after the consumer's last finished tick
SELECT coalesce(max(t.tick_event_seq), 0) - coalesce(
         (SELECT lt.tick_event_seq FROM pgq.tick lt WHERE lt.tick_queue = s.sub_queue AND lt.tick_id = s.sub_last_tick), 0)
FROM pgq.subscription s
JOIN pgq.queue q ON q.queue_id = s.sub_queue
JOIN pgq.consumer c ON c.co_id = s.sub_consumer
JOIN pgq.tick t ON t.tick_queue = q.queue_id
WHERE q.queue_name = 'bench' AND c.co_name = 'c1'
GROUP BY s.sub_queue, s.sub_last_tick;
