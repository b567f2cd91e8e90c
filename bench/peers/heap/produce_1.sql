\set id random(1, :nrows)
INSERT INTO heap_topic (key, value) SELECT key, value FROM payload WHERE id = :id;
