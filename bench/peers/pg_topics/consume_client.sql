SELECT * FROM bench_fetch('c1', :batch);
