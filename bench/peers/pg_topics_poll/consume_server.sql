-- consumer group 'bench', session member; poll commits the group's position in this transaction
SELECT count(*) FROM topics.poll(NULL::bench_topic, 'bench', max_records => :batch);
