SELECT coalesce((SELECT sum(lag) FROM topics.consumer_lag WHERE group_name = 'bench' AND topic = 'bench_topic'::regclass),
                (SELECT sum(high_watermark - log_start_offset) FROM topics.offsets('bench_topic')));
