# Logical replication of topics with CREATE PUBLICATION / CREATE SUBSCRIPTION:
# records keep partition, offset, timestamp, key, value and headers (initial
# sync, streamed inserts, multi-row COPY of toasted values, rollbacks); a
# subscriber's readers never pass the publisher's stable offset, even when
# transactions commit out of offset order; local produce into a replica is
# refused; a partition-count mismatch is refused; test_decoding shows the
# decoded rows; the subscriber writes what it applies in batches, as its
# publisher does; a transaction that produces, truncates and produces again
# is applied whole.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $pub = start_logical_node('publisher', '1000ms');
my $sub = start_logical_node('subscriber', '1000ms');

# the same topics on both sides
for my $node ($pub, $sub)
{
	$node->safe_psql('postgres', q{
SELECT topics.create_topic('orders', 3, 'text', 'jsonb');
SELECT topics.create_topic('blobs', 2, 'text', 'bytea');
SELECT topics.create_topic('events', 2, 'bytea', 'text');
SELECT topics.create_topic('churn', 2, 'text', 'bytea');
});
}
$sub->safe_psql('postgres', q{SELECT topics.create_topic('mismatch', 3)});
$pub->safe_psql('postgres', q{SELECT topics.create_topic('mismatch', 2)});

# records before the subscription: they come with the initial sync
$pub->safe_psql('postgres', q{
SELECT count(*) FROM topics.produce_batch('orders',
    array(SELECT format('{"n": %s}', g) FROM generate_series(1, 500) g)::jsonb[],
    array(SELECT 'k' || (g % 37) FROM generate_series(1, 500) g));
BEGIN;
SELECT count(*) FROM topics.produce('orders', '{"rolled": "back"}'::jsonb, 'k1'::text);
ROLLBACK;
SELECT count(*) FROM topics.produce('orders', '{"h": true}'::jsonb, 'k2'::text, headers => '{"trace": "abc"}');
-- 800 kB, incompressible: TOAST
SELECT count(*) FROM topics.produce('blobs',
    (SELECT string_agg(decode(md5(i::text), 'hex'), ''::bytea) FROM generate_series(1, 50000) i), 'big'::text);
SELECT count(*) FROM topics.produce('events', 'before'::text, '\x01'::bytea, partition => 1);
});

$pub->safe_psql('postgres', q{
CREATE PUBLICATION whole FOR TABLE orders, blobs, churn WITH (publish_via_partition_root = true);
CREATE PUBLICATION one_partition FOR TABLE events_p1;
CREATE PUBLICATION wrong FOR TABLE mismatch WITH (publish_via_partition_root = true);
});
my $connstr = $pub->connstr('postgres');
$connstr =~ s/'/''/g;
$sub->safe_psql('postgres', qq{
CREATE SUBSCRIPTION whole CONNECTION '$connstr' PUBLICATION whole;
CREATE SUBSCRIPTION one_partition CONNECTION '$connstr' PUBLICATION one_partition;
});
$sub->wait_for_subscription_sync($pub, 'whole');
$sub->wait_for_subscription_sync($pub, 'one_partition');

# streamed: batches, a multi-row COPY of toasted values (the silent-NULL
# trap), savepoints and rollbacks, per-partition publication; INSERT ... SELECT,
# whose rows go in together at its end, calling a function that produces in
# subtransactions of which a third roll back
$pub->safe_psql('postgres', q{
CREATE FUNCTION try_produce(i int) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
    BEGIN
        PERFORM topics.produce('orders', jsonb_build_object('inner', i), 'k' || i);
        IF i % 3 = 0 THEN
            RAISE EXCEPTION 'undone';
        END IF;
    EXCEPTION WHEN raise_exception THEN
        NULL;
    END;
    RETURN jsonb_build_object('ins', i);
END $$;
INSERT INTO orders (key, value) SELECT 'k' || g, try_produce(g) FROM generate_series(1, 1500) g;
BEGIN;
INSERT INTO orders (key, value) SELECT 'k' || g, '{"sp": "kept"}' FROM generate_series(1, 500) g;
SAVEPOINT s2;
INSERT INTO orders (key, value) SELECT 'k' || g, '{"sp": "undone"}' FROM generate_series(1, 500) g;
ROLLBACK TO s2;
COMMIT;
SELECT count(*) FROM topics.produce_batch('orders',
    array(SELECT format('{"m": %s}', g) FROM generate_series(1, 3000) g)::jsonb[],
    array(SELECT 'k' || (g % 101) FROM generate_series(1, 3000) g));
BEGIN;
SELECT count(*) FROM topics.produce('orders', '{"sp": 1}'::jsonb, 'k3'::text);
SAVEPOINT s;
SELECT count(*) FROM topics.produce('orders', '{"sp": 2}'::jsonb, 'k3'::text);
ROLLBACK TO s;
SELECT count(*) FROM topics.produce('orders', '{"sp": 3}'::jsonb, 'k3'::text);
COMMIT;
CREATE TABLE src (k text, v bytea);
INSERT INTO src SELECT 'copied' || g, (SELECT string_agg(decode(md5(g || ':' || i), 'hex'), ''::bytea) FROM generate_series(1, 250) i) FROM generate_series(1, 2000) g;
COPY src TO '/tmp/pg_topics_014_copy.dat';
COPY blobs (key, value) FROM '/tmp/pg_topics_014_copy.dat';
SELECT count(*) FROM topics.produce('events', 'after'::text, '\x02'::bytea, partition => 1);
SELECT count(*) FROM topics.produce('events', 'not published'::text, '\x03'::bytea, partition => 0);
});
$pub->wait_for_catchup('whole');
$pub->wait_for_catchup('one_partition');

my $checksum = q{SELECT count(*), md5(string_agg(concat_ws('|', partition, "offset", "timestamp", key, %s, headers), ',' ORDER BY partition, "offset")) FROM %s};
for my $t (['orders', 'value::text'], ['blobs', "encode(value, 'hex')"])
{
	my $q = sprintf($checksum, $t->[1], $t->[0]);
	my $p = $pub->safe_psql('postgres', $q);
	is($sub->safe_psql('postgres', $q), $p,
		"$t->[0]: every column of every record is the same on the subscriber");
}
is($sub->safe_psql('postgres', q{SELECT count(*) FILTER (WHERE value ? 'ins'), count(*) FILTER (WHERE value ? 'inner'), count(*) FILTER (WHERE value->>'sp' = 'kept'), count(*) FILTER (WHERE value->>'sp' = 'undone') FROM orders}),
	'1500|1000|500|0', 'the rows of INSERT ... SELECT and of its committed subtransactions arrived, none of the rolled-back ones');
like($pub->safe_psql('postgres', sprintf($checksum, "encode(value, 'hex')", 'blobs')),
	qr/^2001\|/, 'blobs holds the big value and the COPY');
is($sub->safe_psql('postgres', q{SELECT count(*) FROM blobs WHERE value IS NULL}), '0',
	'no toasted value arrived as NULL');
is($sub->safe_psql('postgres', sprintf($checksum, 'value', 'events')),
	$pub->safe_psql('postgres', sprintf($checksum, 'value', 'events_p1')),
	'a per-partition publication ships that partition only');

# readers on the subscriber: fetch in offset order up to the stable offset
$pub->safe_psql('postgres', q{SELECT count(*) FROM topics.produce('orders', '{"x": 1}'::jsonb, partition => 0)});
$pub->wait_for_catchup('whole');
my $fetch_all = q{SELECT count(*), md5(string_agg(concat_ws('|', "offset", key, value::text, headers), ',' ORDER BY "offset")) FROM topics.fetch(NULL::orders, 0, 0, 100000)};
$sub->poll_query_until('postgres',
	q{SELECT (SELECT count(*) FROM topics.fetch(NULL::orders, 0, 0, 100000)) = (SELECT count(*) FROM orders_p0)})
  or die 'subscriber readers never reached the replicated records';
is($sub->safe_psql('postgres', $fetch_all),
	$pub->safe_psql('postgres', $fetch_all),
	'fetch on the subscriber returns what fetch on the publisher does');

# out of commit order: A takes lower offsets and commits after B
my $a = $pub->background_psql('postgres');
$a->query_safe(q{BEGIN; SELECT topics.produce('orders', '{"a": 1}'::jsonb, partition => 0);});
my $a_offset = $pub->safe_psql('postgres',
	q{SELECT high_watermark - 1 FROM topics.offsets('orders') WHERE partition = 0});
$pub->safe_psql('postgres', q{SELECT count(*) FROM topics.produce_batch('orders',
    array(SELECT format('{"b": %s}', g) FROM generate_series(1, 50) g)::jsonb[], partition => 0)});
$pub->wait_for_catchup('whole');
# B's records are on the subscriber, but A's offset is still open there
is($sub->safe_psql('postgres', qq{SELECT count(*) FROM orders_p0 WHERE "offset" > $a_offset}), '50',
	'the later transaction arrived first');
is($sub->safe_psql('postgres', qq{SELECT count(*) FROM topics.fetch(NULL::orders, 0, $a_offset, 1000)}), '0',
	'subscriber readers stop at the publisher\'s stable offset');
is($sub->safe_psql('postgres', qq{SELECT max("offset") FROM topics.fetch(NULL::orders, 0, 0, 100000)}),
	$a_offset - 1, 'nothing past the open transaction is returned');
my ($ret, $out, $err) = $sub->psql('postgres',
	q{SELECT topics.produce('orders', '{"local": 1}'::jsonb, partition => 0)});
like($err, qr/cannot write to partition "orders_p0": it is a logical replica/,
	'local produce into a replica is refused');
$a->query_safe('COMMIT');
$a->quit;
$pub->wait_for_catchup('whole');
$sub->poll_query_until('postgres',
	qq{SELECT count(*) = 51 FROM topics.fetch(NULL::orders, 0, $a_offset, 1000)})
  or die 'the late transaction never became readable';
is($sub->safe_psql('postgres',
		qq{SELECT string_agg("offset"::text, ',' ORDER BY "offset") = (SELECT string_agg(g::text, ',') FROM generate_series($a_offset, $a_offset + 50) g) FROM topics.fetch(NULL::orders, 0, $a_offset, 1000)}),
	't', 'after the late commit, fetch returns every offset in order, none skipped');
is($sub->safe_psql('postgres', qq{SELECT "offset" FROM topics.fetch(NULL::orders, 0, $a_offset, 1)}),
	$a_offset, 'a small fetch starts at the late record');
is($sub->safe_psql('postgres', q{SELECT count(*) FROM orders WHERE "offset" BETWEEN 0 AND 100000 AND partition = 0}),
	$pub->safe_psql('postgres', q{SELECT count(*) FROM orders WHERE partition = 0}),
	'offset predicates on the subscriber see late records too');
is($sub->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('orders')}), '0',
	'verify accepts the subscriber\'s log');
is($sub->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('blobs')}), '0',
	'verify accepts the subscriber\'s TOAST-heavy log');

# a partition-count mismatch is refused, with a clear error
$pub->safe_psql('postgres', q{SELECT count(*) FROM topics.produce('mismatch', '{"z": 1}'::jsonb, partition => 0)});
$sub->safe_psql('postgres', qq{CREATE SUBSCRIPTION wrong CONNECTION '$connstr' PUBLICATION wrong});
# the check is made when a marker is applied: the second record must come
# after the initial copy, or the copy may take it and nothing is applied (a
# marker of the publisher's worker may also come first and stop the copy's
# catch-up: then the error is there already)
my $mismatch_error = qr/topic "mismatch" has 3 partitions here but 2 on its publisher/;
for (1 .. 180)
{
	last if $sub->safe_psql('postgres', q{
SELECT count(*) = 0 FROM pg_subscription_rel r JOIN pg_subscription s ON s.oid = r.srsubid
WHERE s.subname = 'wrong' AND r.srsubstate NOT IN ('r', 's')}) eq 't'
	  || slurp_file($sub->logfile) =~ $mismatch_error;
	sleep 1;
}
$pub->safe_psql('postgres', q{SELECT count(*) FROM topics.produce('mismatch', '{"z": 2}'::jsonb, partition => 0)});
ok($sub->poll_query_until('postgres', q{SELECT true}, 't') &&
	wait_for_log($sub, $mismatch_error),
	'a partition-count mismatch stops the subscription with a clear error');
# (the rows of either partition may come first: the publisher's worker
# sends a marker for each published partition, written or not)
like(slurp_file($sub->logfile),
	qr/partitions here but 2 on its publisher\n(?:.*\n)*?.*CONTEXT:  writing the rows applied to partition public\.mismatch_p[01]\n/,
	'its context names the partition the applied rows were for');
$sub->safe_psql('postgres', 'DROP SUBSCRIPTION wrong');

# decoding as any plugin sees it
$pub->safe_psql('postgres', q{SELECT pg_create_logical_replication_slot('td', 'test_decoding')});
$pub->safe_psql('postgres', q{SELECT count(*) FROM topics.produce('events', 'decoded'::text, '\xab'::bytea, partition => 0, headers => '{"h": 1}')});
my $changes = $pub->safe_psql('postgres', q{SELECT string_agg(data, E'\n') FROM pg_logical_slot_get_changes('td', NULL, NULL)});
like($changes, qr/table public\.events_p0: INSERT: partition\[integer\]:0 "offset"\[bigint\]:1 "timestamp"\[timestamp with time zone\]:'[^']+' key\[bytea\]:'\\xab' value\[text\]:'decoded' headers\[jsonb\]:'\{"h": 1\}'/,
	'test_decoding reads the decoded row with the topic\'s own descriptor');
like($changes, qr/table public\.events_p0: INSERT: partition\[integer\]:0 "offset"\[bigint\]:2 "timestamp"\[timestamp with time zone\]:'infinity' key\[bytea\]:null value\[text\]:null headers\[jsonb\]:'\{"pg_topics.log_start": 0, "pg_topics.partitions": 2\}'/,
	'the stable-offset marker follows the records of the transaction');
$pub->safe_psql('postgres', q{SELECT pg_drop_replication_slot('td')});

# the subscriber's log starts where the publisher's does, whatever its own
# retention settings (019 covers rollbacks and retention), while TRUNCATE
# replicates and offsets keep growing on both sides
$pub->safe_psql('postgres', q{
SELECT topics.create_topic('kept', 1, 'text', 'text');
CREATE PUBLICATION kept FOR TABLE kept WITH (publish_via_partition_root = true);
});
$sub->safe_psql('postgres', q{SELECT topics.create_topic('kept', 1, 'text', 'text', retention_bytes => 200000)});
$sub->safe_psql('postgres', qq{CREATE SUBSCRIPTION kept CONNECTION '$connstr' PUBLICATION kept});
$sub->wait_for_subscription_sync($pub, 'kept');
$pub->safe_psql('postgres', q{
SELECT count(*) FROM topics.produce_batch('kept',
    (SELECT array_agg(repeat(md5(g::text), 8)) FROM generate_series(1, 3200) g))});
$pub->safe_psql('postgres', q{SELECT topics.delete_records('kept', 0, 3000)});
$pub->safe_psql('postgres', q{SELECT count(*) FROM topics.produce('kept', 'after delete_records')});
$pub->wait_for_catchup('kept');
ok($sub->poll_query_until('postgres', q{SELECT log_start_offset || ',' || last_stable_offset FROM topics.offsets('kept')}, '3000,3201'),
	'delete_records on the publisher moves the subscriber\'s log start');
is($sub->safe_psql('postgres', q{SELECT count(*) FROM topics.fetch(NULL::kept, 0, 3000, 1000)}),
	'201', 'the subscriber keeps what the publisher keeps, above its own retention_bytes');
my $hw = $pub->safe_psql('postgres', q{SELECT high_watermark FROM topics.offsets('kept')});
$pub->safe_psql('postgres', q{TRUNCATE kept});
$pub->safe_psql('postgres', q{SELECT count(*) FROM topics.produce('kept', 'after truncate')});
$pub->wait_for_catchup('kept');
is($sub->safe_psql('postgres', q{SELECT string_agg("offset" || ':' || value, ',') FROM kept}),
	"$hw:after truncate", 'TRUNCATE replicates, and offsets keep growing on the subscriber');
$sub->safe_psql('postgres', 'DROP SUBSCRIPTION kept');

# the apply worker inserts one row per call; the subscriber still writes
# batches, so its log takes about the publisher's room, give or take the
# space each took ahead of its tails (at most 32 zero pages per segment:
# architecture.md §3), which the sizes on disk count
my $churn_relations = q{FROM pg_class c
WHERE c.relnamespace = 'topics_segments'::regnamespace AND c.relname LIKE 'seg\_' || 'churn_p0'::regclass::oid || '\_%'};
$pub->safe_psql('postgres', q{SELECT count(*) FROM topics.produce_batch('churn',
    (SELECT array_agg(convert_to(md5(g::text), 'UTF8')) FROM generate_series(1, 20000) g),
    partition => 0)});
$pub->wait_for_catchup('whole');
my ($pub_bytes, $sub_bytes) = map {
	$_->safe_psql('postgres', "SELECT sum(pg_total_relation_size(c.oid)) $churn_relations")
} ($pub, $sub);
my $sub_ahead = 32 * 8192 * $sub->safe_psql('postgres', "SELECT count(*) $churn_relations");
cmp_ok($sub_bytes, '<=', $pub_bytes * 1.1 + $sub_ahead,
	"the subscriber's log of 20,000 applied records is about the publisher's size ($sub_bytes and $pub_bytes bytes)");

# produce, TRUNCATE and produce again in one transaction (twice): the
# subscriber applies the rows after a TRUNCATE into its fresh segment
$pub->safe_psql('postgres', q{
BEGIN;
SELECT count(*) FROM topics.produce('churn', '\x01'::bytea, 'a', partition => 0);
SELECT count(*) FROM topics.produce('churn', '\x11'::bytea, 'a1', partition => 1);
TRUNCATE churn;
SELECT count(*) FROM topics.produce('churn', '\x02'::bytea, 'b', partition => 0);
TRUNCATE churn;
SELECT count(*) FROM topics.produce('churn', '\x03'::bytea, 'c', partition => 0);
SELECT count(*) FROM topics.produce('churn', '\x13'::bytea, 'c1', partition => 1);
COMMIT;
SELECT count(*) FROM topics.produce('churn', '\x04'::bytea, 'd', partition => 0);
});
$pub->wait_for_catchup('whole');
my $churn = q{SELECT string_agg(partition || ':' || "offset" || ':' || key, ',' ORDER BY partition, "offset"),
    (SELECT string_agg(concat_ws('/', partition, log_start_offset, high_watermark, last_stable_offset), ',' ORDER BY partition) FROM topics.offsets('churn'))
FROM churn};
is($sub->safe_psql('postgres', $churn), $pub->safe_psql('postgres', $churn),
	'a transaction that produced, truncated and produced again is applied whole');
is($sub->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('churn')}), '0',
	"verify accepts the subscriber's log after it");
# partition 1 was truncated twice with no write in between: one fresh
# segment, as on the publisher
my $churn_segments = q{SELECT string_agg(partition || ':' || state, ',' ORDER BY partition, segment)
FROM topics.segments WHERE topic = 'churn'::regclass AND state <> 'spare'};
is($pub->safe_psql('postgres', $churn_segments), '0:live,1:live',
	'after the truncating transaction, each partition of the publisher has one segment');
is($sub->safe_psql('postgres', $churn_segments), '0:live,1:live',
	'and so has each partition of the subscriber');

# a subscription that also replicates a table whose trigger reads a topic
# (in a subtransaction): the trigger sees the topic's rows that the same
# transaction applied before, as the publisher's transaction did
for my $node ($pub, $sub)
{
	$node->safe_psql('postgres', q{
SELECT topics.create_topic('audit', 1, 'text', 'text');
CREATE TABLE tab (id int PRIMARY KEY, seen bigint);
});
}
$sub->safe_psql('postgres', q{
CREATE FUNCTION count_audit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    BEGIN
        NEW.seen := (SELECT count(*) FROM public.audit);
    EXCEPTION WHEN others THEN
        NEW.seen := -1;
    END;
    RETURN NEW;
END $$;
CREATE TRIGGER count_audit BEFORE INSERT ON tab FOR EACH ROW EXECUTE FUNCTION count_audit();
ALTER TABLE tab ENABLE ALWAYS TRIGGER count_audit;
});
$pub->safe_psql('postgres', q{CREATE PUBLICATION mixed FOR TABLE audit, tab WITH (publish_via_partition_root = true)});
$sub->safe_psql('postgres', qq{CREATE SUBSCRIPTION mixed CONNECTION '$connstr' PUBLICATION mixed});
$sub->wait_for_subscription_sync($pub, 'mixed');
$pub->safe_psql('postgres', q{
BEGIN;
SELECT count(*) FROM topics.produce('audit', 'one');
SELECT count(*) FROM topics.produce('audit', 'two');
INSERT INTO tab VALUES (1, NULL);
COMMIT;
});
$pub->wait_for_catchup('mixed');
is($sub->safe_psql('postgres', q{SELECT seen FROM tab WHERE id = 1}), '2',
	"a subscriber's trigger sees the topic rows its transaction applied before");
$sub->safe_psql('postgres', 'DROP SUBSCRIPTION mixed');

# detaching: drop the subscription, and the partition takes produce again
$sub->safe_psql('postgres', 'DROP SUBSCRIPTION whole');
is($sub->safe_psql('postgres', q{SELECT "offset" FROM topics.produce('orders', '{"local": 2}'::jsonb, partition => 0)}),
	$pub->safe_psql('postgres', q{SELECT high_watermark FROM topics.offsets('orders') WHERE partition = 0}),
	'after the subscription is dropped, local offsets continue after the publisher\'s');

sub wait_for_log
{
	my ($node, $re) = @_;
	for (1 .. 180)
	{
		return 1 if slurp_file($node->logfile) =~ $re;
		sleep 1;
	}
	return 0;
}

done_testing();
