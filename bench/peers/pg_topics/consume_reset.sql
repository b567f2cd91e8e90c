UPDATE bench_cursor SET pos = (SELECT log_start_offset FROM topics.offsets('bench_topic') WHERE partition = 0) WHERE consumer = 'c1';
