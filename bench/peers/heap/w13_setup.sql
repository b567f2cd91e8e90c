-- workload 13 (1 kB JSON events): heap_topic's shape with a jsonb value (a 1.2 kB jsonb image
-- stays inline: TOAST starts at about 2 kB), a cursor row, and the consumer of w13_poll.sql
-- (heap_consume of setup.sql over this table)
DROP TABLE IF EXISTS w13_heap, w13_heap_cursor CASCADE;
CREATE TABLE w13_heap (
    id    bigserial PRIMARY KEY,
    ts    timestamptz DEFAULT now(),
    key   text,
    value jsonb
);
CREATE TABLE w13_heap_cursor (consumer text PRIMARY KEY, pos bigint NOT NULL);
INSERT INTO w13_heap_cursor VALUES ('c1', 0);

CREATE FUNCTION w13_heap_consume(p_consumer text, p_max int) RETURNS SETOF w13_heap
LANGUAGE plpgsql AS $$
DECLARE
    lo bigint;
    hi bigint;
BEGIN
    SELECT pos INTO lo FROM w13_heap_cursor WHERE consumer = p_consumer FOR UPDATE;
    SELECT max(s.id) INTO hi FROM (SELECT t.id FROM w13_heap t WHERE t.id > lo
                                   ORDER BY t.id LIMIT p_max) s;
    IF hi IS NULL THEN
        RETURN;
    END IF;
    UPDATE w13_heap_cursor SET pos = hi WHERE consumer = p_consumer;
    RETURN QUERY SELECT * FROM w13_heap t WHERE t.id > lo AND t.id <= hi ORDER BY t.id;
END $$;
