-- Bad-input sweep: every function of schema topics, taken from the catalog, is
-- called with each argument in turn replaced by each bad value of a class that
-- fits the argument (NULL, empty, negative, zero, huge, a relation of the wrong
-- kind, odd names, values over pg_topics.max_message_bytes), the other
-- arguments being good.  Each call runs in a subtransaction that is rolled
-- back; the outcome (a SQLSTATE, or "ok") is what docs/topics.md §12 and
-- docs/consumer-groups.md §11 list.  No call may answer XX000, and no call may
-- change anything that outlives a rollback.  The sweep runs twice: as a
-- superuser, and as the role that owns the topic and everything else swept
-- (which is refused what is not its own: the segments, the internal tables).
\set SHOW_CONTEXT never
SET client_min_messages = warning;
SET pg_topics.max_message_bytes = 1000;
SET statement_timeout = '60s';
-- the durable members the sweep's polls join stay for the whole sweep, however slow
SET pg_topics.session_timeout = '1h';
CREATE ROLE sweep_owner;
GRANT CREATE ON SCHEMA public TO sweep_owner;
SET ROLE sweep_owner;

SELECT topics.create_topic('sweep', partitions => 2);
SELECT count(*) FROM topics.produce_batch('sweep', ARRAY['{"a":1}', '{"a":2}', '{"a":3}'], partition => 0);
SELECT count(*) FROM topics.produce('sweep', '{"b":1}', partition => 1);
SELECT count(*) FROM topics.poll(NULL::sweep, 'sweep_g', max_records => 1);
SELECT topics.create_topic('sweep_dropped');
CREATE TEMP TABLE sweep_dropped_oid AS SELECT 'sweep_dropped'::regclass::oid AS oid;
SELECT topics.drop_topic('sweep_dropped');
CREATE TABLE sweep_plain (a int);
CREATE TABLE sweep_lookalike (partition int, "offset" bigint, "timestamp" timestamptz,
    key text, value jsonb, headers jsonb);
CREATE TABLE sweep_parted (partition int, v text) PARTITION BY LIST (partition);
CREATE VIEW sweep_view AS SELECT * FROM sweep_lookalike;
SELECT topics.create_topic('sweep_viewed');
CREATE VIEW sweep_viewed_v AS SELECT * FROM sweep_viewed;
CREATE DOMAIN sweep_row_domain AS sweep_viewed;
CREATE SEQUENCE sweep_seq;
CREATE TYPE sweep_type AS (partition int, "offset" bigint);
CREATE DOMAIN sweep_domain AS text;
-- one of the topic's segment relations (its name varies: only its kind matters)
CREATE TEMP TABLE sweep_segment AS
SELECT format('%I.%I', n.nspname, c.relname) AS name
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'topics_segments' AND c.relkind = 'r'
ORDER BY c.oid LIMIT 1;
SELECT count(*) AS segments_found FROM sweep_segment;

-- Good values: by function and argument, else by argument name and type
CREATE TEMP TABLE sweep_good (fn text, arg text, typ regtype, expr text);
INSERT INTO sweep_good VALUES
    (NULL, 'topic', 'text', '''sweep'''),
    ('create_topic', 'topic', 'text', '''sweep_new'''),
    (NULL, 'topic', 'regclass', '''sweep''::regclass'),
    (NULL, 'topic', 'oid', '''sweep''::regclass::oid'),
    (NULL, 'topic', 'anyelement', 'NULL::sweep'),
    (NULL, 'key', 'anyelement', '''k''::text'),
    (NULL, 'partitions', 'int4', '2'),
    (NULL, 'partition', 'int4', '0'),
    (NULL, 'from_offset', 'int8', '0'),
    (NULL, 'next_offset', 'int8', '0'),
    (NULL, 'before_offset', 'int8', '0'),
    (NULL, 'max_records', 'int4', '10'),
    (NULL, 'wait', 'interval', '''0'''),
    (NULL, 'group_name', 'text', '''sweep_g'''),
    (NULL, 'consumer', 'text', 'NULL'),
    (NULL, 'to', 'text', '''earliest'''),
    (NULL, 'key_type', 'regtype', '''text'''),
    (NULL, 'value_type', 'regtype', '''jsonb'''),
    (NULL, 'retention', 'interval', 'NULL'),
    (NULL, 'retention_bytes', 'int8', 'NULL'),
    (NULL, 'value', '"any"', '''{"a":1}'''),
    (NULL, 'key', '"any"', '''k'''),
    (NULL, 'values', '"any"', 'ARRAY[''{"a":1}'']'),
    (NULL, 'keys', '"any"', 'ARRAY[''k'']'),
    (NULL, 'headers', 'jsonb', 'NULL'),
    (NULL, 'configs', 'jsonb', '''{"segment.ms": "60000"}'''),
    (NULL, 'set', 'jsonb', '''{"segment.ms": "60000"}'''),
    (NULL, 'reset', 'text[]', '''{retention.ms}'''),
    (NULL, 'ts', 'timestamptz', '''2000-01-01 00:00+00'''),
    (NULL, 'key', 'bytea', '''\x01'''),
    (NULL, NULL, 'internal', 'NULL');

-- Bad values: by class of argument
CREATE TEMP TABLE sweep_bad (class text, label text, expr text);
INSERT INTO sweep_bad VALUES
    ('topic text', 'NULL', 'NULL::text'),
    ('topic text', 'empty', ''''''),
    ('topic text', 'quotes only', '''""'''),
    ('topic text', '64+ bytes', quote_literal(repeat('t', 70))),
    ('topic text', 'space', '''sweep x'''),
    ('topic text', 'quote', '''sweep"x'''),
    ('topic text', 'unterminated quote', '''"sweep'''),
    ('topic text', 'newline', quote_literal(E'sweep\nx')),
    ('topic text', 'upper case quoted', '''"SWEEP"'''),
    ('topic text', 'missing', '''no_such_topic'''),
    ('topic text', 'missing schema', '''no_such_schema.sweep'''),
    ('topic text', 'three-part name', '''a.b.c'''),
    ('topic text', 'four-part name', '''a.b.c.d'''),
    ('topic text', 'dropped topic', '''sweep_dropped'''),
    ('topic text', 'topic with a view', '''sweep_viewed'''),
    ('topic text', 'plain table', '''sweep_plain'''),
    ('topic text', 'partitioned table', '''sweep_parted'''),
    ('topic text', 'view', '''sweep_view'''),
    ('topic text', 'sequence', '''sweep_seq'''),
    ('topic text', 'partition', '''sweep_p0'''),
    ('topic text', 'segment', quote_literal((SELECT name FROM sweep_segment))),
    ('topic text', 'internal log', '''topics.consumer_offsets'''),
    ('topic text', 'internal table', '''topics.topic_config'''),
    ('topic text', 'catalog', '''pg_class'''),
    ('topic text', 'type', '''sweep_type'''),

    ('topic regclass', 'NULL', 'NULL::regclass'),
    ('topic regclass', 'zero', '0::regclass'),
    ('topic regclass', 'huge', '4294967295::oid::regclass'),
    ('topic regclass', 'dropped topic', format('%s::oid::regclass', (SELECT oid FROM sweep_dropped_oid))),
    ('topic regclass', 'plain table', '''sweep_plain''::regclass'),
    ('topic regclass', 'partitioned table', '''sweep_parted''::regclass'),
    ('topic regclass', 'view', '''sweep_view''::regclass'),
    ('topic regclass', 'sequence', '''sweep_seq''::regclass'),
    ('topic regclass', 'index', '''pg_class_oid_index''::regclass'),
    ('topic regclass', 'partition', '''sweep_p0''::regclass'),
    ('topic regclass', 'segment', format('%L::regclass', (SELECT name FROM sweep_segment))),
    ('topic regclass', 'internal log', '''topics.consumer_offsets''::regclass'),
    ('topic regclass', 'internal table', '''topics.topic_config''::regclass'),
    ('topic regclass', 'catalog', '''pg_class''::regclass'),

    ('topic oid', 'NULL', 'NULL::oid'),
    ('topic oid', 'zero', '0::oid'),
    ('topic oid', 'huge', '4294967295::oid'),
    ('topic oid', 'dropped topic', format('%s::oid', (SELECT oid FROM sweep_dropped_oid))),
    ('topic oid', 'plain table', '''sweep_plain''::regclass::oid'),
    ('topic oid', 'partitioned table', '''sweep_parted''::regclass::oid'),
    ('topic oid', 'view', '''sweep_view''::regclass::oid'),
    ('topic oid', 'sequence', '''sweep_seq''::regclass::oid'),
    ('topic oid', 'index', '''pg_class_oid_index''::regclass::oid'),
    ('topic oid', 'partition', '''sweep_p0''::regclass::oid'),
    ('topic oid', 'segment', format('%L::regclass::oid', (SELECT name FROM sweep_segment))),
    ('topic oid', 'internal log', '''topics.consumer_offsets''::regclass::oid'),
    ('topic oid', 'catalog', '''pg_class''::regclass::oid'),

    ('topic row', 'untyped NULL', 'NULL'),
    ('topic row', 'scalar', 'NULL::int'),
    ('topic row', 'record', 'ROW(1, 2)'),
    ('topic row', 'topic row value', '(SELECT s FROM sweep s ORDER BY "offset" LIMIT 1)'),
    ('topic row', 'composite type', 'NULL::sweep_type'),
    ('topic row', 'domain over a topic row type', 'NULL::sweep_row_domain'),
    ('topic row', 'array of the topic row type', 'NULL::sweep[]'),
    ('topic row', 'look-alike table', 'NULL::sweep_lookalike'),
    ('topic row', 'plain table', 'NULL::sweep_plain'),
    ('topic row', 'partitioned table', 'NULL::sweep_parted'),
    ('topic row', 'view', 'NULL::sweep_view'),
    ('topic row', 'sequence', 'NULL::sweep_seq'),
    ('topic row', 'partition', 'NULL::sweep_p0'),
    ('topic row', 'segment', format('NULL::%s', (SELECT name FROM sweep_segment))),
    ('topic row', 'internal log', 'NULL::topics.consumer_offsets'),
    ('topic row', 'catalog', 'NULL::pg_class'),

    ('element', 'NULL', 'NULL::text'),
    ('element', 'untyped NULL', 'NULL'),
    ('element', 'empty', '''''::text'),
    ('element', 'int', '1'),
    ('element', 'jsonb', '''{}''::jsonb'),
    ('element', 'record', 'ROW(1, 2)'),
    ('element', 'over max_message_bytes', format('%L::text', repeat('k', 1001))),

    ('name', 'NULL', 'NULL::text'),
    ('name', 'empty', ''''''),
    ('name', '63 bytes', quote_literal(repeat('g', 63))),
    ('name', '64+ bytes', quote_literal(repeat('g', 64))),
    ('name', 'multibyte 64+ bytes', quote_literal(repeat('é', 32))),
    ('name', 'quotes, spaces, newline', quote_literal(E'a "b''\nc')),
    ('name', 'missing', '''no_such_group'''),

    ('word', 'NULL', 'NULL::text'),
    ('word', 'empty', ''''''),
    ('word', 'upper case', '''EARLIEST'''),
    ('word', 'other word', '''middle'''),
    ('word', '64+ bytes', quote_literal(repeat('w', 70))),

    ('int', 'NULL', 'NULL::int'),
    ('int', 'negative', '-1'),
    ('int', 'zero', '0'),
    ('int', 'one', '1'),
    ('int', 'two', '2'),
    ('int', 'huge', '2147483647'),
    ('int', 'most negative', '(-2147483647 - 1)'),

    ('bigint', 'NULL', 'NULL::bigint'),
    ('bigint', 'negative', '-1::bigint'),
    ('bigint', 'zero', '0::bigint'),
    ('bigint', 'above high watermark', '1000000::bigint'),
    ('bigint', 'huge', '9223372036854775807'),
    ('bigint', 'most negative', '(-9223372036854775807 - 1)'),

    ('interval', 'NULL', 'NULL::interval'),
    ('interval', 'negative', '''-1 second''::interval'),
    ('interval', 'zero', '''0''::interval'),
    ('interval', 'months', '''1 month''::interval'),
    ('interval', 'huge', '''178000000 years''::interval'),
    ('interval', 'most negative', '''-178000000 years''::interval'),

    ('regtype', 'NULL', 'NULL::regtype'),
    ('regtype', 'zero', '0::regtype'),
    ('regtype', 'int', '''int4''::regtype'),
    ('regtype', 'varchar', '''varchar''::regtype'),
    ('regtype', 'json', '''json''::regtype'),
    ('regtype', 'array', '''text[]''::regtype'),
    ('regtype', 'domain', '''sweep_domain''::regtype'),
    ('regtype', 'row type', '''sweep''::regtype'),
    ('regtype', 'pseudo-type', '''anyelement''::regtype'),

    ('timestamptz', 'NULL', 'NULL::timestamptz'),
    ('timestamptz', '-infinity', '''-infinity''::timestamptz'),
    ('timestamptz', 'infinity', '''infinity''::timestamptz'),
    ('timestamptz', 'earliest', '''4713-01-01 00:00+00 BC''::timestamptz'),
    ('timestamptz', 'latest', '''294276-12-31 00:00+00''::timestamptz'),

    ('jsonb', 'NULL', 'NULL::jsonb'),
    ('jsonb', 'empty object', '''{}''::jsonb'),
    ('jsonb', 'array', '''[1]''::jsonb'),
    ('jsonb', 'scalar', '''1''::jsonb'),
    ('jsonb', 'json null', '''null''::jsonb'),
    ('jsonb', 'nested', '''{"a":{"b":1}}''::jsonb'),
    ('jsonb', 'null member', '''{"a":null}''::jsonb'),
    ('jsonb', 'over max_message_bytes', format('jsonb_build_object(''h'', %L)', repeat('h', 1001))),

    ('text array', 'NULL', 'NULL::text[]'),
    ('text array', 'empty', '''{}''::text[]'),
    ('text array', 'NULL element', 'ARRAY[NULL]::text[]'),
    ('text array', 'empty element', 'ARRAY['''']'),
    ('text array', 'unknown word', 'ARRAY[''no.such.word'']'),
    ('text array', 'twice', 'ARRAY[''retention.ms'', ''retention.ms'']'),
    ('text array', 'two dimensions', '''{{a},{b}}''::text[]'),

    ('bytea', 'NULL', 'NULL::bytea'),
    ('bytea', 'empty', '''''::bytea'),
    ('bytea', 'large', 'decode(repeat(''ff'', 3000), ''hex'')'),

    ('value', 'NULL', 'NULL'),
    ('value', 'empty', ''''''),
    ('value', 'quotes only', '''""'''),
    ('value', 'invalid JSON', '''not json'''),
    ('value', 'int', '1'),
    ('value', 'numeric', '1.5'),
    ('value', 'varchar', '''{}''::varchar'),
    ('value', 'jsonb', '''{}''::jsonb'),
    ('value', 'bytea', '''\x00''::bytea'),
    ('value', 'array', 'ARRAY[''{}'']'),
    ('value', 'record', 'ROW(1, 2)'),
    ('value', 'over max_message_bytes', format('%L::text', '"' || repeat('v', 1001) || '"')),

    ('values', 'NULL', 'NULL::text[]'),
    ('values', 'untyped NULL', 'NULL'),
    ('values', 'empty array', '''{}''::text[]'),
    ('values', 'NULL element', 'ARRAY[NULL]::text[]'),
    ('values', 'two elements', 'ARRAY[''{}'', ''{}'']'),
    ('values', 'two dimensions', '''{{"{}"},{"{}"}}''::text[]'),
    ('values', 'lower bound 2', '''[2:2]={"{}"}''::text[]'),
    ('values', 'scalar', '''{}''::text'),
    ('values', 'untyped literal', '''{"{}"}'''),
    ('values', 'int array', 'ARRAY[1]'),
    ('values', 'jsonb array', 'ARRAY[''{}''::jsonb]'),
    ('values', 'invalid JSON element', 'ARRAY[''not json'']'),
    ('values', 'element over max_message_bytes', format('ARRAY[%L]', '"' || repeat('v', 1001) || '"'));

-- which class of bad values an argument gets
CREATE FUNCTION pg_temp.sweep_class(arg text, typ regtype) RETURNS text LANGUAGE sql AS $$
SELECT CASE
    WHEN arg = 'topic' AND typ = 'text'::regtype THEN 'topic text'
    WHEN arg = 'topic' AND typ = 'regclass'::regtype THEN 'topic regclass'
    WHEN arg = 'topic' AND typ = 'oid'::regtype THEN 'topic oid'
    WHEN arg = 'topic' AND typ = 'anyelement'::regtype THEN 'topic row'
    WHEN typ = 'anyelement'::regtype THEN 'element'
    WHEN arg IN ('group_name', 'consumer') AND typ = 'text'::regtype THEN 'name'
    WHEN arg = 'to' AND typ = 'text'::regtype THEN 'word'
    WHEN arg IN ('value', 'key') AND typ = '"any"'::regtype THEN 'value'
    WHEN arg IN ('values', 'keys') AND typ = '"any"'::regtype THEN 'values'
    WHEN typ IN ('int4'::regtype, 'int8'::regtype, 'interval'::regtype, 'regtype'::regtype,
                 'timestamptz'::regtype, 'jsonb'::regtype, 'bytea'::regtype)
        THEN CASE typ WHEN 'int4'::regtype THEN 'int' WHEN 'int8'::regtype THEN 'bigint'
                      ELSE typ::text END
    WHEN typ = 'text[]'::regtype THEN 'text array'
    WHEN typ = 'internal'::regtype THEN 'internal'
END
$$;

-- every function's input arguments, from the catalog
CREATE TEMP TABLE sweep_args AS
SELECT p.oid::regprocedure::text AS fn, p.proname::text AS proname, a.pos,
       coalesce(p.proargnames[a.pos], '$' || a.pos) AS arg, a.typ::regtype AS typ,
       p.pronargs
FROM pg_proc p,
     LATERAL unnest(p.proargtypes::oid[]) WITH ORDINALITY AS a(typ, pos)
WHERE p.pronamespace = 'topics'::regnamespace;
-- (with proargmodes, input arguments come first, so position i is argument i)

-- a function or argument the sweep has no good value or no class for fails the test here
SELECT fn, arg, typ FROM sweep_args s
WHERE NOT EXISTS (SELECT FROM sweep_good g
                  WHERE (g.fn IS NULL OR g.fn = s.proname)
                    AND (g.arg IS NULL OR g.arg = s.arg) AND g.typ = s.typ)
   OR pg_temp.sweep_class(arg, typ) IS NULL
   OR (pg_temp.sweep_class(arg, typ) <> 'internal'
       AND NOT EXISTS (SELECT FROM sweep_bad b WHERE b.class = pg_temp.sweep_class(arg, typ)));

-- the call of a function with good arguments, but expr at position pos
CREATE FUNCTION pg_temp.sweep_sql(fn_oid regprocedure, pos int, expr text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    args text;
BEGIN
    SELECT string_agg(CASE WHEN s.pos = sweep_sql.pos THEN expr
                           ELSE (SELECT g.expr FROM sweep_good g
                                 WHERE (g.fn IS NULL OR g.fn = s.proname)
                                   AND (g.arg IS NULL OR g.arg = s.arg) AND g.typ = s.typ
                                 ORDER BY g.fn NULLS LAST, g.arg NULLS LAST LIMIT 1) END,
                      ', ' ORDER BY s.pos)
    INTO args FROM sweep_args s WHERE s.fn = fn_oid::text;
    -- a set-returning function is called in FROM, any other in the select list
    RETURN format(CASE WHEN (SELECT proretset FROM pg_proc WHERE oid = fn_oid)
                       THEN 'SELECT count(*) FROM %s.%I(%s)'
                       ELSE 'SELECT count(*) FROM (SELECT %s.%I(%s)) f' END,
                  'topics', (SELECT proname FROM pg_proc WHERE oid = fn_oid), coalesce(args, ''));
END
$$;

-- what a failed call must leave as it was, even where a rolled-back call
-- that succeeded may not (high watermarks, group members): the sweep topic's
-- offsets and log starts, its groups, their members and positions, the
-- topics, and the relations of schemas public and topics (earlier tests'
-- durable members may expire meanwhile, and the worker creates segments)
CREATE FUNCTION pg_temp.sweep_state() RETURNS text LANGUAGE sql AS $$
SELECT concat_ws(E'\n',
    (SELECT string_agg(o::text, ' ' ORDER BY o.partition) FROM topics.offsets('sweep') o),
    (SELECT string_agg(g::text, ' ' ORDER BY g::text) FROM topics.consumer_groups g
     WHERE g.topic = 'sweep'::regclass),
    (SELECT string_agg(concat_ws(' ', m.group_name, m.member, m.durable, m.generation, m.partitions),
                       ' ' ORDER BY m.group_name, m.member) FROM topics.group_members m
     WHERE m.topic = 'sweep'::regclass),
    (SELECT string_agg(c::text, ' ' ORDER BY c::text) FROM topics.group_offset_info() c
     WHERE c.topic = 'sweep'::regclass),
    (SELECT string_agg(t.topic::text || ' ' || t.partitions, ' ' ORDER BY t.topic::text) FROM topics.topics t),
    (SELECT count(*)::text FROM pg_class
     WHERE relnamespace IN ('public'::regnamespace, 'topics'::regnamespace)))
$$;

-- a call's outcome: a SQLSTATE, or ok; either way it is rolled back, and a
-- failed call that changed something says so
CREATE FUNCTION pg_temp.sweep_run(call text, check_state boolean DEFAULT true)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
    before text := CASE WHEN check_state THEN pg_temp.sweep_state() END;
BEGIN
    BEGIN
        EXECUTE call INTO n;
        -- succeeded: undo it, so that the next call starts from the same state
        RAISE EXCEPTION USING ERRCODE = 'T0PIC', MESSAGE = 'ok';
    EXCEPTION WHEN OTHERS THEN
        IF SQLSTATE = 'T0PIC' THEN
            RETURN 'ok';
        END IF;
        IF check_state AND pg_temp.sweep_state() IS DISTINCT FROM before THEN
            RETURN SQLSTATE || ' and changed something';
        END IF;
        RETURN SQLSTATE;
    END;
END
$$;

-- what must not change even through calls that succeeded and were rolled
-- back: records, log starts, committed positions, topics, relations, types
CREATE FUNCTION pg_temp.sweep_snapshot() RETURNS SETOF text LANGUAGE sql AS $$
SELECT 'records ' || count(*) || ' ' || coalesce(sum(hashtext(s::text)), 0) FROM sweep s
UNION ALL
SELECT 'log start ' || o.partition || ' ' || o.log_start_offset FROM topics.offsets('sweep') o
UNION ALL
SELECT 'position ' || c::text FROM topics.group_offset_info() c
UNION ALL
SELECT 'topic ' || t.topic::text || ' ' || t.partitions FROM topics.topics t
UNION ALL
SELECT 'relations ' || n.nspname || ' ' || count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname IN ('public', 'topics') GROUP BY n.nspname
UNION ALL
SELECT 'types ' || count(*) FROM pg_type WHERE typnamespace = 'public'::regnamespace
$$;

-- the sweep, in a fixed order; poll last, as it creates the groups it names
-- and joins members to them
CREATE FUNCTION pg_temp.sweep_pass() RETURNS TABLE(fn text, pos int, arg text, label text, outcome text)
LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    FOR r IN
        SELECT * FROM (
            SELECT a.fn, a.pos::int, a.arg, b.label, b.expr FROM sweep_args a
            JOIN sweep_bad b ON b.class = pg_temp.sweep_class(a.arg, a.typ)
            UNION ALL
            -- and each function with good arguments only
            SELECT p.oid::regprocedure::text, 0, '(good)', 'good', NULL
            FROM pg_proc p WHERE p.pronamespace = 'topics'::regnamespace) c
        -- (its wait before its consumer, whose durable members take partitions away
        -- from this session, which then would wait for good)
        ORDER BY c.fn ~ '^topics\.poll\(', c.fn,
                 CASE WHEN c.fn ~ '^topics\.poll\(' THEN -c.pos ELSE c.pos END, c.label
    LOOP
        fn := r.fn;
        pos := r.pos;
        arg := r.arg;
        label := r.label;
        outcome := pg_temp.sweep_run(pg_temp.sweep_sql(r.fn::regprocedure, r.pos, r.expr));
        RETURN NEXT;
    END LOOP;
END
$$;

-- the owner's pass (first: the groups its polls create are its own) uses a
-- group of its own, so that the durable members it joins take no partitions
-- from the superuser's pass
SELECT count(*) FROM topics.poll(NULL::sweep, 'sweep_og', max_records => 1);
-- (the snapshot as a superuser, who sees every topic's positions)
RESET ROLE;
CREATE TEMP TABLE sweep_before AS SELECT * FROM pg_temp.sweep_snapshot() s;
SET ROLE sweep_owner;

UPDATE sweep_good SET expr = '''sweep_og''' WHERE arg = 'group_name';
CREATE TEMP TABLE sweep_owner_result AS SELECT * FROM pg_temp.sweep_pass();
UPDATE sweep_good SET expr = '''sweep_g''' WHERE arg = 'group_name';
RESET ROLE;
CREATE TEMP TABLE sweep_result AS SELECT * FROM pg_temp.sweep_pass();

-- one line per function, argument and outcome, with the classes that gave it
SELECT fn, arg, outcome, string_agg(label, ', ' ORDER BY label) AS classes
FROM sweep_result
GROUP BY fn, pos, arg, outcome ORDER BY fn, pos, outcome;

-- where the owner's pass answered otherwise
SELECT o.fn, o.arg, o.outcome, string_agg(o.label, ', ' ORDER BY o.label) AS classes
FROM sweep_owner_result o JOIN sweep_result r USING (fn, pos, label)
WHERE o.outcome IS DISTINCT FROM r.outcome
GROUP BY o.fn, o.pos, o.arg, o.outcome ORDER BY o.fn, o.pos, o.outcome;

-- no internal error
SELECT fn, arg, label, outcome FROM sweep_result WHERE outcome LIKE 'XX%'
UNION ALL
SELECT fn, arg, label, outcome FROM sweep_owner_result WHERE outcome LIKE 'XX%';

-- nothing changed
(SELECT 'lost: ' || s FROM sweep_before s EXCEPT ALL SELECT 'lost: ' || s FROM pg_temp.sweep_snapshot() s)
UNION ALL
(SELECT 'new: ' || s FROM pg_temp.sweep_snapshot() s EXCEPT ALL SELECT 'new: ' || s FROM sweep_before s);

-- each SQLSTATE and the functions that answered it (docs/topics.md §12, docs/consumer-groups.md §11)
SELECT outcome, string_agg(DISTINCT regexp_replace(fn, '^topics\.("?)(\w+)\1\(.*$', '\2'), ', ') AS functions
FROM (SELECT * FROM sweep_result UNION ALL SELECT * FROM sweep_owner_result) r
GROUP BY outcome ORDER BY outcome;

-- as a role with no privileges on anything, every function is refused or sees nothing
CREATE ROLE sweep_nobody;
CREATE TEMP TABLE sweep_good_calls AS
SELECT p.oid::regprocedure::text AS fn, pg_temp.sweep_sql(p.oid::regprocedure, 0, NULL) AS call
FROM pg_proc p WHERE p.pronamespace = 'topics'::regnamespace;
GRANT SELECT ON sweep_good_calls TO sweep_nobody;
SET ROLE sweep_nobody;
SELECT fn, pg_temp.sweep_run(call, false) AS outcome FROM sweep_good_calls ORDER BY fn;
RESET ROLE;
DROP OWNED BY sweep_nobody;
DROP ROLE sweep_nobody;

(SELECT 'lost: ' || s FROM sweep_before s EXCEPT ALL SELECT 'lost: ' || s FROM pg_temp.sweep_snapshot() s)
UNION ALL
(SELECT 'new: ' || s FROM pg_temp.sweep_snapshot() s EXCEPT ALL SELECT 'new: ' || s FROM sweep_before s);

-- the longest retention is one that retention can apply (before: accepted, then
-- enforce_retention and every round of the worker failed with 22003)
\set VERBOSITY terse
SET ROLE sweep_owner;
SELECT topics.create_topic('sweep_forever', retention => '178000000 years');
SELECT topics.create_topic('sweep_forever', retention => '100000 years');
SELECT topics.create_topic('sweep_forever', retention => '99999 years', retention_bytes => 9223372036854775807);
SELECT count(*) FROM topics.produce('sweep_forever', '{}');
SELECT * FROM topics.enforce_retention('sweep_forever');
SELECT topics.drop_topic('sweep_forever');
\set VERBOSITY default
RESET ROLE;

RESET statement_timeout;
RESET pg_topics.session_timeout;
RESET pg_topics.max_message_bytes;
DROP VIEW sweep_viewed_v;
DROP DOMAIN sweep_row_domain;
SELECT topics.drop_topic('sweep_viewed');
DROP TABLE sweep_plain, sweep_lookalike, sweep_parted CASCADE;
DROP SEQUENCE sweep_seq;
DROP TYPE sweep_type;
DROP DOMAIN sweep_domain;
SELECT topics.drop_topic('sweep');
DROP OWNED BY sweep_owner;
DROP ROLE sweep_owner;
-- not where pg_dump does not look
SELECT topics.create_topic('information_schema.hidden', 1);
SELECT topics.create_topic('visible', 2);
ALTER TABLE visible SET SCHEMA information_schema;
ALTER TABLE visible_p1 SET SCHEMA information_schema;
SELECT topics.drop_topic('visible');
-- the last offset: preserve mode may write it, and nothing is assigned after it
SELECT topics.create_topic('last_offset', 1, 'text', 'text');
SET session_replication_role = replica;
INSERT INTO last_offset (partition, "offset", "timestamp", key, value)
    VALUES (0, 4611686018427387902, now(), 'a', 'b');
RESET session_replication_role;
SELECT * FROM topics.produce('last_offset', 'x');
INSERT INTO last_offset (key, value) VALUES ('k', 'v');
SELECT "offset" FROM last_offset;
SELECT topics.drop_topic('last_offset');
RESET client_min_messages;
