SELECT high_watermark - (SELECT pos FROM bench_cursor WHERE consumer = 'c1') FROM topics.offsets('bench_topic') WHERE partition = 0;
