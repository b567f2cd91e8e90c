-- workload 13: records group 'w13' has not consumed (must be 0 after the run)
SELECT coalesce((SELECT sum(lag) FROM topics.consumer_lag WHERE group_name = 'w13' AND topic = 'w13_topic'::regclass),
                (SELECT sum(high_watermark - log_start_offset) FROM topics.offsets('w13_topic')));
