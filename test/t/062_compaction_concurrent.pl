# Log compaction while the log is in use: SQL and Kafka producers, SQL
# fetch readers, a Kafka consumer and a consumer group polling, all at once,
# while topics.compact() and the background worker compact again and again.
# Every reader sees offsets strictly increasing, nobody gets an error but a
# documented one (lock_timeout of topics.compact), the group ends holding
# each key's newest value, a reader from 0 after the last compaction finds
# each key's newest record, and verify is clean.  Then a reader holding
# segments (REPEATABLE READ, an open cursor): the worker leaves them for a
# later round, topics.compact fails under lock_timeout or waits, the reader
# reads every row it saw before, and the segments are compacted once it ends.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use IPC::Run;
use Time::HiRes qw(usleep time);

my $node = PostgreSQL::Test::Cluster->new('compaction_concurrent');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.worker_naptime = '100ms'
});
$node->start;
wait_for_kafka_listener($kport);

# segments of 4 pages and a worker that compacts as soon as a little is
# dirty: many swaps while the clients run
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('cc', 1, 'text', 'text',
    configs => '{"cleanup.policy": "compact", "segment.bytes": "32768",
                 "min.cleanable.dirty.ratio": "0.01"}');
-- what the SQL producer wrote (committed with its records)
CREATE TABLE sent (key text, "offset" bigint, value text);
-- what the group read
CREATE TABLE polled ("offset" bigint, key text, value text);
CREATE TABLE passes (reader text, pass int, reached bigint);

-- keys s0..s99, 20 a transaction, every 9th record a tombstone
CREATE PROCEDURE sql_producer(secs float8) LANGUAGE plpgsql AS $$
DECLARE
    stop timestamptz := clock_timestamp() + secs * interval '1 second';
    i int := 0;
BEGIN
    WHILE clock_timestamp() < stop LOOP
        i := i + 1;
        WITH r AS (SELECT 's' || (random() * 99)::int AS key, g FROM generate_series(1, 20) g),
             a AS (SELECT array_agg(key ORDER BY g) AS keys,
                          array_agg(CASE WHEN (i + g) % 9 = 0 THEN NULL
                                         ELSE repeat('v', 60) || ':' || i || ':' || key END ORDER BY g) AS vals
                   FROM r)
        INSERT INTO sent
        SELECT a.keys[p.n], p."offset", a.vals[p.n]
        FROM a, topics.produce_batch('cc', a.vals, a.keys) WITH ORDINALITY p(partition, "offset", n);
        COMMIT;
        PERFORM pg_sleep(0.01);
    END LOOP;
END $$;

-- topics.fetch from 0 to the end, 37 records a transaction, then again:
-- offsets strictly increasing within a pass, none below the position
CREATE PROCEDURE fetch_reader(reader text, secs float8) LANGUAGE plpgsql AS $$
DECLARE
    stop timestamptz := clock_timestamp() + secs * interval '1 second';
    pos bigint := 0;
    last bigint := -1;
    pass int := 1;
    got int;
    r record;
BEGIN
    WHILE clock_timestamp() < stop LOOP
        got := 0;
        FOR r IN SELECT "offset" FROM topics.fetch(NULL::cc, 0, pos, 37) LOOP
            IF r."offset" <= last OR r."offset" < pos THEN
                RAISE EXCEPTION '% pass %: offset % after % (position %)', reader, pass, r."offset", last, pos;
            END IF;
            last := r."offset";
            got := got + 1;
        END LOOP;
        pos := last + 1;
        IF got = 0 THEN
            INSERT INTO passes VALUES (reader, pass, pos);
            pass := pass + 1;
            pos := 0;
            last := -1;
        END IF;
        COMMIT;
    END LOOP;
END $$;

-- the group: 50 records a poll, each committed with its position
CREATE PROCEDURE poller(secs float8) LANGUAGE plpgsql AS $$
DECLARE
    stop timestamptz := clock_timestamp() + secs * interval '1 second';
BEGIN
    WHILE clock_timestamp() < stop LOOP
        PERFORM poll_once();
        COMMIT;
        PERFORM pg_sleep(0.005);
    END LOOP;
END $$;
CREATE FUNCTION poll_once() RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    last bigint := (SELECT coalesce(max("offset"), -1) FROM polled);
    n int := 0;
    r record;
BEGIN
    FOR r IN SELECT "offset", key, value FROM topics.poll(NULL::cc, 'g', max_records => 50) LOOP
        IF r."offset" <= last THEN
            RAISE EXCEPTION 'the group read offset % after %', r."offset", last;
        END IF;
        INSERT INTO polled VALUES (r."offset", r.key, r.value);
        last := r."offset";
        n := n + 1;
    END LOOP;
    RETURN n;
END $$;
});

my $secs = 8;
my @clients;
push @clients, [ "sql_producer", start_psql_script($node, 'sql_producer', "CALL sql_producer($secs);\n") ];
push @clients, [ "fetch_reader_$_", start_psql_script($node, "fetch_reader_$_", "CALL fetch_reader('f$_', $secs);\n") ] for 1 .. 2;
push @clients, [ "poller", start_psql_script($node, 'poller', "CALL poller($secs);\n") ];

# Kafka: kcat produces 30 rounds of keys q0..q29 (each round after the
# previous one is acknowledged), and kcat consumers read the partition from
# the beginning to its end, again and again
my $kafka_rounds = 30;
my $kdir = $node->basedir;
my $kprod = IPC::Run::start([ 'bash', '-c', qq{
set -e
for r in \$(seq 1 $kafka_rounds); do
    for k in \$(seq 0 29); do echo "q\$k:kafka:\$r:q\$k"; done |
        kcat -P -b $bootstrap -t cc -K: -X acks=all
    sleep 0.2
done} ], '>', "$kdir/kprod.out", '2>', "$kdir/kprod.err");
my $kcons = IPC::Run::start([ 'bash', '-c', qq{
set -e
end=\$((\$(date +%s) + $secs))
while [ \$(date +%s) -lt \$end ]; do
    kcat -C -b $bootstrap -t cc -p 0 -o beginning -e -c 2000 -q -f '%o\\n'
    echo pass
done} ], '>', "$kdir/kcons.out", '2>', "$kdir/kcons.err");

# topics.compact again and again meanwhile; a lock timeout (a reader in
# the way) is the one error it may give
my ($compactions, $timeouts, $removed) = (0, 0, 0);
my $until = time + $secs;
while (time < $until)
{
	my ($ret, $out, $err) = $node->psql('postgres',
		"SET lock_timeout = '1s'; SELECT topics.compact('cc')");
	if ($ret == 0)
	{
		$compactions++;
		$removed += $out;
	}
	elsif ($err =~ /canceling statement due to lock timeout/)
	{
		$timeouts++;
	}
	else
	{
		fail("topics.compact during the clients: $err");
	}
	usleep(200_000);
}
for my $c (@clients)
{
	my ($name, $h) = @$c;
	ok($h->finish, "$name ends without an error")
	  or diag(slurp_file("$kdir/$name.err"));
}
ok($kprod->finish, 'kcat produces every round') or diag(slurp_file("$kdir/kprod.err"));
ok($kcons->finish, 'kcat consumers end') or diag(slurp_file("$kdir/kcons.err"));
cmp_ok($compactions, '>=', 5, "topics.compact ran $compactions times (removing $removed records; $timeouts lock timeouts)");
cmp_ok($removed, '>', 0, 'topics.compact removed records');
cmp_ok($node->safe_psql('postgres', q{SELECT count(*) FROM passes}), '>=', 2,
	'the fetch readers read the whole log several times');

# each kcat consumer pass: offsets strictly increasing
my @passes = split /^pass\n/m, slurp_file("$kdir/kcons.out");
my $bad = 0;
for my $p (@passes)
{
	my @o = split /\n/, $p;
	$bad += scalar grep { $o[$_] <= $o[ $_ - 1 ] } 1 .. $#o;
}
cmp_ok(scalar(@passes), '>=', 2, 'kcat read the partition from the beginning ' . scalar(@passes) . ' times');
is($bad, 0, 'kcat consumers saw offsets strictly increasing');

# the worker compacted too
ok($node->poll_query_until('postgres',
		q{SELECT last_compaction IS NOT NULL FROM topics.partitions WHERE topic = 'cc'::regclass}),
	'the worker or topics.compact set last_compaction');

# Each key's newest record: SQL keys from what the producer committed,
# Kafka keys from kcat's last round
$node->safe_psql('postgres', qq{
CREATE TABLE newest AS
SELECT DISTINCT ON (key) key, "offset", value FROM sent ORDER BY key, "offset" DESC;
INSERT INTO newest
SELECT 'q' || k, (SELECT max("offset") FROM cc WHERE key = 'q' || k), 'kafka:$kafka_rounds:q' || k
FROM generate_series(0, 29) k;
});
my $compacted = $node->safe_psql('postgres', q{SELECT topics.compact('cc')});
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('cc')}), '0',
	'verify finds nothing after the last compaction');

# a reader from 0 after the last compaction (fetch, 13 at a time)
$node->safe_psql('postgres', q{
CREATE TABLE from_zero AS
WITH RECURSIVE r(pos, recs) AS (
    SELECT 0::bigint, NULL::cc[]
    UNION ALL
    SELECT (SELECT max("offset") + 1 FROM unnest(f.recs)), f.recs
    FROM r, LATERAL (SELECT array_agg(x ORDER BY x."offset") AS recs
                     FROM topics.fetch(NULL::cc, 0, r.pos, 13) x) f
    WHERE f.recs IS NOT NULL)
SELECT x.* FROM r, unnest(r.recs) x;
});
is($node->safe_psql('postgres', q{
SELECT count(*) FILTER (WHERE f."offset" IS NULL), count(*) FILTER (WHERE f.value IS DISTINCT FROM n.value)
FROM newest n LEFT JOIN from_zero f ON f."offset" = n."offset" AND f.key = n.key}), '0|0',
	'a reader from 0 after the last compaction finds every key\'s newest record, with its value');
is($node->safe_psql('postgres', q{
SELECT count(*) FROM (SELECT key FROM from_zero WHERE key IS NOT NULL GROUP BY key
                      HAVING max("offset") <> (SELECT "offset" FROM newest n WHERE n.key = from_zero.key)) x}),
	'0', 'and no record newer than that for any key');

# the group, drained, holds every key's newest value
$node->poll_query_until('postgres', q{SELECT poll_once() = 0}) or die 'the group does not drain';
is($node->safe_psql('postgres', q{
SELECT count(*) FROM newest n
WHERE (SELECT p.value FROM polled p WHERE p.key = n.key ORDER BY p."offset" DESC LIMIT 1)
      IS DISTINCT FROM n.value
   OR NOT EXISTS (SELECT FROM polled p WHERE p.key = n.key)}), '0',
	'the group, having read through the compactions, holds each key\'s newest value');

# ---- a reader holding segments delays their swap, and loses no row.
# The records that supersede the held segments' are written before the
# reader's snapshot (so that the reader's xmin does not keep them from
# counting), while min.compaction.lag.ms keeps compaction off; it goes back
# to 0 once the reader holds the segments.
sub lag
{
	my ($ms) = @_;
	$node->safe_psql('postgres',
		qq{SELECT topics.alter_topic_configs('cc', '{"min.compaction.lag.ms": "$ms"}')});
}
sub filenodes
{
	my ($segments) = @_;
	my $where = defined $segments ? "segment IN ($segments)" : "state = 'sealed'";
	return $node->safe_psql('postgres', qq{
SELECT string_agg(segment || ':' || pg_relation_filenode(relation), ',' ORDER BY segment)
FROM topics.segment_info('cc') WHERE $where});
}
# every SQL key again, so that the held segments' records are superseded
sub supersede
{
	my ($v) = @_;
	$node->safe_psql('postgres', qq{
SELECT count(*) FROM topics.produce_batch('cc',
    (SELECT array_agg(repeat('$v', 200) || g) FROM generate_series(0, 399) g),
    (SELECT array_agg('s' || (g % 100)) FROM generate_series(0, 399) g));});
}
# a reader in REPEATABLE READ that has read every segment and has a cursor
# open over them: what it saw, and the segments it holds
sub hold
{
	my $holder = $node->background_psql('postgres');
	$holder->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	my $seen = $holder->query_safe(
		q{SELECT count(*) || '|' || sum(hashtext("offset" || key || coalesce(value, ''))) FROM cc});
	$holder->query_safe(q{DECLARE c CURSOR FOR SELECT "offset", key, value FROM cc ORDER BY "offset"});
	$holder->query_safe('FETCH 5 FROM c');
	my $held = filenodes();
	(my $segments = $held) =~ s/:\d+//g;
	return ($holder, $seen, $held, $segments);
}
sub release
{
	my ($holder, $seen, $what) = @_;
	is($holder->query_safe(
			q{SELECT count(*) || '|' || sum(hashtext("offset" || key || coalesce(value, ''))) FROM cc}),
		$seen, "$what: the reader still reads every row of its snapshot");
	my $rest = $holder->query_safe('FETCH ALL FROM c');
	is(scalar(split /\n/, $rest) + 5, (split /\|/, $seen)[0], "$what: its cursor reads every row");
	$holder->query_safe('COMMIT');
	$holder->quit;
}
sub swapped
{
	my ($held) = @_;
	my @pairs = map { [ split /:/ ] } split /,/, $held;
	my $now = { map { split /:/ } split /,/, filenodes(join ',', map { $_->[0] } @pairs) };
	return scalar grep { $now->{ $_->[0] } ne $_->[1] } @pairs;
}

# the worker: leaves held segments, compacts them at a round after the reader
lag(3600000);
supersede('w');
my ($holder, $seen, $held, $segments) = hold();
lag(0);
sleep 2;	# 20 worker rounds
is(swapped($held), 0, "the worker leaves the segments a reader holds as they were ($segments)");
my ($ret, $out, $err) = $node->psql('postgres',
	"SET lock_timeout = '300ms'; SELECT topics.compact('cc')");
like($err, qr/canceling statement due to lock timeout/,
	'topics.compact gives up on a held segment under lock_timeout');
release($holder, $seen, 'worker');
ok(wait_for_swap($held), 'the worker compacts held segments at a round after the reader ends');
sub wait_for_swap
{
	my ($held) = @_;
	for (1 .. 300)
	{
		return 1 if swapped($held) > 0;
		usleep(100_000);
	}
	diag('still as they were: ' . filenodes());
	return 0;
}

# topics.compact: waits for the reader, then compacts
lag(3600000);
supersede('x');
($holder, $seen, $held, $segments) = hold();
lag(0);
my ($waiter) = start_psql_script($node, 'compact_waits', "SELECT topics.compact('cc');\n");
ok($node->poll_query_until('postgres', q{
SELECT count(*) = 1 FROM pg_stat_activity
WHERE query LIKE 'SELECT topics.compact%' AND wait_event_type = 'Lock'}),
	'topics.compact waits for the reader');
release($holder, $seen, 'topics.compact');
ok($waiter->finish, 'topics.compact ends once the reader is done')
  or diag(slurp_file($node->basedir . '/compact_waits.err'));
ok(wait_for_swap($held), 'segments the reader held are compacted');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('cc')}), '0',
	'verify finds nothing at the end');

done_testing();
