DROP TABLE IF EXISTS heap_topic, heap_cursor CASCADE;
CREATE TABLE heap_topic (
    id    bigserial PRIMARY KEY,
    ts    timestamptz DEFAULT now(),
    key   text,
    value bytea
);
CREATE TABLE heap_cursor (consumer text PRIMARY KEY, pos bigint NOT NULL);
INSERT INTO heap_cursor VALUES ('c1', 0);

-- One consume call: lock the consumer's cursor, find the id p_max records further on
-- (index-only scan), move the cursor there and return the records in between.
CREATE FUNCTION heap_consume(p_consumer text, p_max int) RETURNS SETOF heap_topic
LANGUAGE plpgsql AS $$
DECLARE
    lo bigint;
    hi bigint;
BEGIN
    SELECT pos INTO lo FROM heap_cursor WHERE consumer = p_consumer FOR UPDATE;
    SELECT max(s.id) INTO hi FROM (SELECT t.id FROM heap_topic t WHERE t.id > lo
                                   ORDER BY t.id LIMIT p_max) s;
    IF hi IS NULL THEN
        RETURN;
    END IF;
    UPDATE heap_cursor SET pos = hi WHERE consumer = p_consumer;
    RETURN QUERY SELECT * FROM heap_topic t WHERE t.id > lo AND t.id <= hi ORDER BY t.id;
END $$;
