SELECT * FROM topics.poll(NULL::bench_topic, 'bench', max_records => :batch);
