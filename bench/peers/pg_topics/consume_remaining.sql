-- before the group exists nothing has been consumed: everything is remaining
SELECT CASE WHEN EXISTS (SELECT FROM topics.consumer_lag WHERE group_name = 'bench' AND topic = 'bench_topic'::regclass)
            THEN (SELECT sum(lag) FROM topics.consumer_lag WHERE group_name = 'bench' AND topic = 'bench_topic'::regclass)
            ELSE (SELECT sum(high_watermark - log_start_offset) FROM topics.offsets('bench_topic'))
       END;
