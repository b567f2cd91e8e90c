# Physical replication: a streaming standby replays topic_log WAL exactly,
# with wal_consistency_checking on our resource manager, and answers
# hot-standby queries; writes there fail.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
wal_consistency_checking = 'pg_topics'
wal_keep_size = '2GB'
pg_topics.worker_naptime = '200ms'
# enough buffers for a fetch to keep pages pinned (tests default to 1MB)
shared_buffers = '32MB'
});
$primary->start;
$primary->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE TABLE t (partition int NOT NULL DEFAULT 0, "offset" bigint NOT NULL DEFAULT -1,
    "timestamp" timestamptz NOT NULL DEFAULT '-infinity', key text, value bytea, headers jsonb) USING topic_log;
INSERT INTO t (key, value) SELECT 'before-backup', int4send(g) FROM generate_series(1, 1000) g;
});

$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;

# a mixed workload: single rows, multi-page inserts, COPY, toasted and
# compressed values, rollbacks, savepoints, truncate, freezing, a checkpoint
# in between
$primary->safe_psql('postgres', q{
INSERT INTO t (key, value) VALUES ('one', '\x01');
INSERT INTO t (key, value, headers) SELECT 'many' || g, decode(md5(g::text), 'hex'), '{"h": 1}' FROM generate_series(1, 20000) g;
BEGIN; INSERT INTO t (key, value) VALUES ('rolled-back', '\x02'); ROLLBACK;
BEGIN; INSERT INTO t (key, value) VALUES ('sp1', '\x03'); SAVEPOINT s; INSERT INTO t (key, value) VALUES ('sp2', '\x04'); ROLLBACK TO s; COMMIT;
CHECKPOINT;
INSERT INTO t (key, value) SELECT 'big' || g, (SELECT string_agg(decode(md5(g || ':' || i), 'hex'), ''::bytea) FROM generate_series(1, 20000) i) FROM generate_series(1, 5) g;
INSERT INTO t (key, value) SELECT 'compressible', convert_to(repeat('abc', 100000), 'UTF8');
CREATE TABLE src (k text, v bytea);
INSERT INTO src SELECT 'copied' || g, decode(md5(g::text), 'hex') FROM generate_series(1, 3000) g;
COPY src TO '/dev/null';
});
$primary->safe_psql('postgres', q{
CREATE TABLE t2 (partition int NOT NULL DEFAULT 7, "offset" bigint NOT NULL DEFAULT -1,
    "timestamp" timestamptz NOT NULL DEFAULT '-infinity', key text, value text, headers jsonb) USING topic_log;
INSERT INTO t2 (key, value) SELECT 'x', 'y' FROM generate_series(1, 500);
TRUNCATE t2;
INSERT INTO t2 (key, value) VALUES ('after-truncate', 'z');
});
# COPY FROM goes through multi_insert
my $copy = join('', map { "copy$_\t\\\\x" . sprintf('%08x', $_) . "\n" } 1 .. 5000);
$primary->psql('postgres', "COPY t (key, value) FROM stdin;\n$copy\\.\n");
# freezing: the rolled-back batches get flagged and the resolved mark moves
# past everything; on the standby only those WAL records (no hint bits) keep
# the rollbacks invisible
$primary->safe_psql('postgres', 'VACUUM (FREEZE) t; VACUUM (FREEZE) t2;');

$primary->wait_for_catchup($standby);

my $content = q{SELECT count(*), max("offset"), md5(string_agg(concat_ws('|', partition, "offset", "timestamp", key, encode(value, 'hex'), headers), ',' ORDER BY "offset")) FROM t};
my $on_primary = $primary->safe_psql('postgres', $content);
my $on_standby = $standby->safe_psql('postgres', $content);
is($on_standby, $on_primary, 'standby has every record, byte for byte');
like($on_primary, qr/^26008\|/, 'the primary has the records it was given');

is($standby->safe_psql('postgres', q{SELECT string_agg("offset" || ':' || key, ',') FROM t2}),
	'500:after-truncate', 'TRUNCATE replays, and offsets continue on the standby');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('t')}), '0',
	'verify on the standby finds nothing');

my ($ret, $out, $err) = $standby->psql('postgres', q{INSERT INTO t (key) VALUES ('no')});
like($err, qr/read-only transaction/, 'writes fail on the standby');

# the standby survived every consistency check
ok(!$standby->log_contains('inconsistent page found'), 'wal_consistency_checking found no difference');

# a restart of the standby replays from its last restartpoint again
$standby->restart;
is($standby->safe_psql('postgres', $content), $on_primary, 'standby restart replays the same records');

# segments under consistency checking: rolls onto segments the worker
# created, retention by bytes, delete_records and enforce_retention dropping
# segments (TOAST included), freezing, TRUNCATE of a topic, all while the
# standby replays
$primary->safe_psql('postgres', q{
SELECT topics.create_topic('seg', 2, 'text', 'bytea', retention_bytes => 300000);
});
for my $round (1 .. 24)
{
	$primary->safe_psql('postgres', qq{
SELECT count(*) FROM topics.produce_batch('seg',
    (SELECT array_agg(decode(repeat(md5(g::text), 4), 'hex')) FROM generate_series(1, 300) g),
    (SELECT array_agg('k' || g || '-$round') FROM generate_series(1, 300) g));
SELECT count(*) FROM topics.produce('seg',
    (SELECT string_agg(decode(md5(i || ':$round'), 'hex'), ''::bytea) FROM generate_series(1, 3000) i),
    'toasted'::text, partition => $round % 2);
SELECT pg_sleep(0.1);});
}
$primary->safe_psql('postgres', q{
SELECT * FROM topics.enforce_retention('seg');
SELECT topics.delete_records('seg', 1, (SELECT high_watermark - 100 FROM topics.offsets('seg') WHERE partition = 1));
VACUUM (FREEZE) seg;
});
my $seg_start = $primary->safe_psql('postgres',
	q{SELECT string_agg(partition || ':' || log_start_offset, ',' ORDER BY partition) FROM topics.offsets('seg')});
unlike($seg_start, qr/^0:0,/, "retention dropped old segments on the primary ($seg_start)");
$primary->wait_for_catchup($standby);
my $seg_content = q{
SELECT count(*), md5(string_agg(concat_ws('|', partition, "offset", "timestamp", key, md5(value)), ','
                                ORDER BY partition, "offset"))
FROM seg};
is($standby->safe_psql('postgres', $seg_content), $primary->safe_psql('postgres', $seg_content),
	'the standby reads the same records from its replayed segments');
is($standby->safe_psql('postgres', q{
SELECT count(*) FROM topics.fetch(NULL::seg, 0, (SELECT log_start_offset FROM topics.offsets('seg') WHERE partition = 0), 100000)}),
	$primary->safe_psql('postgres', q{
SELECT count(*) FROM topics.fetch(NULL::seg, 0, (SELECT log_start_offset FROM topics.offsets('seg') WHERE partition = 0), 100000)}),
	'fetch from the log start returns the same records on both');
$primary->safe_psql('postgres', q{
TRUNCATE seg;
SELECT count(*) FROM topics.produce('seg', '\\x00'::bytea, 'after-truncate'::text, partition => 0);
});
$primary->wait_for_catchup($standby);
my $seg_state = q{
SELECT string_agg(partition || ':' || log_start_offset || ':' || high_watermark, ',' ORDER BY partition)
FROM topics.offsets('seg')};
is($standby->safe_psql('postgres', $seg_state), $primary->safe_psql('postgres', $seg_state),
	'after retention, delete_records and TRUNCATE the standby has the same log starts and ends');
my $seg_count = q{
SELECT count(*) FROM pg_class WHERE relnamespace = 'topics_segments'::regnamespace
AND relname LIKE 'seg\\_' || 'seg_p0'::regclass::oid || '\\_%'};
# the background worker may create a spare segment at any moment: compare
# with the primary's count as the standby has replayed it
my ($primary_segs, $standby_segs);
for my $try (1 .. 10)
{
	$primary_segs = $primary->safe_psql('postgres', $seg_count);
	$primary->wait_for_catchup($standby);
	$standby_segs = $standby->safe_psql('postgres', $seg_count);
	last if $primary->safe_psql('postgres', $seg_count) eq $primary_segs;
}
is($standby_segs, $primary_segs, 'the standby has the same segments');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('seg')}), '0',
	'verify on the standby finds nothing in the segmented topic');
ok(!$standby->log_contains('inconsistent page found'),
	'wal_consistency_checking found no difference through segment rolls and drops');

# topics on the standby: fetch works, writes fail with 25006, and a
# long-poll there returns soon after the primary commits
$primary->safe_psql('postgres', q{
SELECT topics.create_topic('st', 2, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('st', ARRAY['a', 'b', 'c'], partition => 0);
});
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', q{SELECT string_agg(value, ',' ORDER BY "offset") FROM topics.fetch(NULL::st, 0, 0)}),
	'a,b,c', 'fetch works on the standby');
like($standby->safe_psql('postgres', q{
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM topics.fetch(NULL::st, 0, 0)}),
	qr/Records: copied/,
	'on the standby fetch copies its records: a segment it kept would hold back the replay of its drop');
like($primary->safe_psql('postgres', q{
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM topics.fetch(NULL::st, 0, 0)}),
	qr/Records: in place/, 'on the primary it hands them out in place');
is($standby->safe_psql('postgres', q{SELECT string_agg(partition || ':' || high_watermark, ',') FROM topics.offsets('st')}),
	'0:3,1:0', 'offsets on the standby match the primary');
for my $write (
	q{SELECT topics.produce('st', 'x')},
	q{SELECT topics.produce_batch('st', ARRAY['x'])},
	q{INSERT INTO st (value) VALUES ('x')},
	q{SELECT topics.create_topic('st2')},
	q{SELECT topics.add_partitions('st', 3)},
	q{SELECT topics.drop_topic('st')},
	q{SELECT topics.delete_records('st', 0, 1)},
	q{SELECT * FROM topics.enforce_retention('st')},
	q{SELECT count(*) FROM topics.poll(NULL::st, 'sg')},
	q{SELECT topics.commit('st', 'sg', 0, 1)},
	q{SELECT topics.seek('st', 'sg', 0, 1)},
	q{SELECT topics.reset_group('st', 'sg', 'latest')},
	q{SELECT topics.delete_group('st', 'sg')})
{
	my ($r, $o, $e) = $standby->psql('postgres', $write, extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	like($e, qr/25006/, "on the standby, $write fails with 25006");
}
my $poller = $standby->background_psql('postgres');
$poller->query_until(qr/started/, q{
\echo started
SELECT count(*) AS n FROM topics.fetch(NULL::st, 1, 0, wait => '60 s') \gset
\echo done :n
});
my $t0 = time();
$primary->safe_psql('postgres', q{SELECT count(*) FROM topics.produce('st', 'woken', partition => 1)});
$poller->query_until(qr/done 1/, '');
my $waited = time() - $t0;
ok($waited < 20, "a long-poll on the standby returns soon after the primary commits ($waited s)");
$poller->quit;

# pg_walinspect describes our records
$primary->safe_psql('postgres', 'CREATE EXTENSION pg_walinspect');
my $lsn = $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
$primary->safe_psql('postgres', q{INSERT INTO t (key, value) VALUES ('walinspect', '\x05')});
my $desc = $primary->safe_psql('postgres',
	qq{SELECT record_type || ': ' || description FROM pg_get_wal_records_info('$lsn', pg_current_wal_lsn()) WHERE resource_manager = 'pg_topics'});
like($desc, qr/^INSERT: partition 0, 1 records from offset \d+/, 'pg_walinspect shows pg_topics records');

$standby->stop;
$primary->stop;
done_testing();
