# pg_dump / pg_restore of a database with topics and groups: restored with
# session_replication_role = replica (preserve mode), every column of every
# record comes back, and so do offsets, timestamps, log starts, topic
# settings and committed group offsets; the restored topics keep working
# (produce continues the offsets, a group resumes where it was) and are
# tied to the extension again.  Without preserve mode the restore refuses.
# DDL a topic accepts (statistics targets, column and storage options,
# replica identity, extended statistics, comments, a partition's owner, a
# publication) is dumped, restored and leaves the topics working.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('dump');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_topics'");
$node->start;

$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('orders', 3, 'text', 'jsonb', retention => '7 days');
SELECT topics.create_topic('blobs', 2, 'bytea', 'bytea', retention_bytes => 1000000000);
CREATE SCHEMA shop;
SELECT topics.create_topic('shop."Audit"', 1, 'text', 'text');
SELECT topics.create_topic('emptied', 2, 'text', 'text');
CREATE ROLE order_admin;
ALTER TABLE orders ALTER COLUMN key SET STATISTICS 500;
ALTER TABLE orders_p1 ALTER COLUMN key SET (n_distinct = 17);
ALTER TABLE orders_p1 SET (autovacuum_enabled = false);
ALTER TABLE orders REPLICA IDENTITY FULL;
ALTER TABLE orders_p2 REPLICA IDENTITY FULL;
CREATE STATISTICS orders_kv ON key, value FROM orders;
CREATE STATISTICS orders_p0_kv ON key, value FROM orders_p0;
COMMENT ON TABLE orders_p0 IS 'first partition';
ALTER TABLE orders_p2 OWNER TO order_admin;
CREATE PUBLICATION orders_pub FOR TABLE orders;
SELECT topics.alter_topic_configs('orders', '{"segment.bytes": "65536", "max.message.bytes": 100000, "segment.ms": "3600000"}');
});
# records of every shape, rollbacks in between, several transactions
$node->safe_psql('postgres', q{
SELECT count(*) FROM topics.produce_batch('orders',
	(SELECT array_agg(jsonb_build_object('n', g)) FROM generate_series(1, 300) g),
	(SELECT array_agg('customer-' || (g % 17)) FROM generate_series(1, 300) g));
BEGIN;
SELECT topics.produce('orders', '{"rolled": "back"}', 'customer-1');
ROLLBACK;
SELECT topics.produce('orders', NULL, 'customer-1');
SELECT topics.produce('orders', '{"keyless": true}', NULL, headers => '{"trace": "abc"}');
SELECT topics.produce('blobs', (SELECT string_agg(decode(md5(i::text), 'hex'), ''::bytea) FROM generate_series(1, 20000) i), '\x00ff'::bytea);
SELECT count(*) FROM topics.produce_batch('blobs', ARRAY['\x01', '\x02', NULL]::bytea[], ARRAY[NULL, '\x'::bytea, '\x03']);
SELECT topics.produce('shop."Audit"', 'first', 'k');
TRUNCATE shop."Audit";
SELECT topics.produce('shop."Audit"', 'after truncate', 'k');
SELECT count(*) FROM topics.produce_batch('emptied', ARRAY['a','b','c','d','e'], partition => 0);
SELECT count(*) FROM topics.produce_batch('emptied', ARRAY['a','b','c'], partition => 1);
TRUNCATE emptied_p0;
SELECT topics.delete_records('emptied', 1, 3);
SELECT count(*) FROM topics.poll(NULL::orders, 'billing', max_records => 120);
SELECT count(*) FROM topics.poll(NULL::blobs, 'archiver', max_records => 1);
SELECT topics.seek('blobs', 'archiver', 1, 2);
});

my $records_sql = q{
SELECT string_agg(t || ':' || n || ':' || h, ',' ORDER BY t) FROM (
	SELECT 'orders' AS t, count(*) AS n, md5(string_agg(format('%s/%s/%s/%s/%s/%s', partition, "offset", "timestamp", key, value, headers), ',' ORDER BY partition, "offset")) AS h FROM orders
	UNION ALL
	SELECT 'blobs', count(*), md5(string_agg(format('%s/%s/%s/%s/%s/%s', partition, "offset", "timestamp", key, value, headers), ',' ORDER BY partition, "offset")) FROM blobs
	UNION ALL
	SELECT 'audit', count(*), md5(string_agg(format('%s/%s/%s/%s/%s/%s', partition, "offset", "timestamp", key, value, headers), ',' ORDER BY partition, "offset")) FROM shop."Audit") s};
my $offsets_sql = q{
SELECT string_agg(t || '/' || o::text, ',' ORDER BY t, o::text) FROM (
	SELECT 'orders' AS t, o FROM topics.offsets('orders') o
	UNION ALL SELECT 'blobs', o FROM topics.offsets('blobs') o
	UNION ALL SELECT 'audit', o FROM topics.offsets('shop."Audit"') o
	UNION ALL SELECT 'emptied', o FROM topics.offsets('emptied') o) s};
my $groups_sql = q{
SELECT string_agg(format('%s/%s/%s/%s', group_name, topic, partition, committed_offset), ',' ORDER BY group_name, topic::text, partition)
FROM topics.consumer_lag};
my $settings_sql = q{
SELECT string_agg(format('%s/%s/%s/%s', topic, partitions, retention, retention_bytes), ',' ORDER BY topic::text)
FROM topics.topics};
my $configs_sql = q{
SELECT string_agg(format('%s/%s=%s', topic, name, value), ',' ORDER BY topic::text, name)
FROM topics.topic_configs WHERE source = 'topic'};

my $ddl_sql = q{
SELECT string_agg(format('%s/%s/%s/%s/%s/%s', c.relname, a.attstattarget,
		array(SELECT o FROM unnest(a.attoptions) o WHERE o LIKE 'n\_distinct=%'), c.reloptions,
		c.relreplident, pg_get_userbyid(c.relowner) = current_user), ',' ORDER BY c.relname)
	|| ';' || (SELECT string_agg(stxname, ',' ORDER BY stxname) FROM pg_statistic_ext)
	|| ';' || obj_description('orders_p0'::regclass, 'pg_class')
	|| ';' || (SELECT string_agg(tablename, ',') FROM pg_publication_tables WHERE pubname = 'orders_pub')
FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'key'
WHERE c.relname LIKE 'orders%'};
my %source = map { $_ => $node->safe_psql('postgres', $_) }
  ($records_sql, $offsets_sql, $groups_sql, $settings_sql, $configs_sql, $ddl_sql);
is($source{$configs_sql},
	'blobs/retention.bytes=1000000000,orders/max.message.bytes=100000,orders/retention.ms=604800000,orders/segment.bytes=65536,orders/segment.ms=3600000',
	'the source has the topic configs it was given');
is($source{$ddl_sql}, 'orders/500/{}//f/t,orders_p0/500/{}//d/t,orders_p1/500/{n_distinct=17}/{autovacuum_enabled=false}/d/t,orders_p2/500/{}//f/f;orders_kv,orders_p0_kv;first partition;orders_p0,orders_p1,orders_p2',
	'the source has the DDL it was given');
like($source{$records_sql}, qr/audit:1:.*blobs:4:.*orders:302:/, 'the source has the records it was given');
like($source{$offsets_sql}, qr/audit\/\(0,1,2,2\)/, 'the truncated topic starts at its old end');
like($source{$offsets_sql}, qr/emptied\/\(0,5,5,5\),emptied\/\(1,3,3,3\)/,
	'partitions without records start where TRUNCATE and delete_records left them');

my $dump = $node->basedir . '/topics.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('postgres') ],
	'pg_dump of a database with topics');

# a restore without preserve mode cannot rebuild topics
$node->safe_psql('postgres', 'CREATE DATABASE plain');
my ($out, $err) = run_command([ 'pg_restore', '-d', $node->connstr('plain'), $dump ]);
like($err, qr/attaching a topic_log relation as a partition is not supported.*\n.*session_replication_role=replica/,
	'pg_restore without preserve mode refuses to attach, and the hint says how');

$node->safe_psql('postgres', 'CREATE DATABASE restored');
{
	local $ENV{PGOPTIONS} = '-c session_replication_role=replica';
	$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('restored'), $dump ],
		'pg_restore with session_replication_role = replica');
}

for my $sql ($records_sql, $offsets_sql, $groups_sql, $settings_sql, $ddl_sql)
{
	is($node->safe_psql('restored', $sql), $source{$sql},
		'restored: ' . (split /\n/, $sql)[1]);
}
is($node->safe_psql('restored', q{
SELECT count(*) FROM topics.verify('orders') UNION ALL SELECT count(*) FROM topics.verify('blobs')}),
	"0\n0", 'verify finds nothing in the restored topics');

# the restored configs apply
my ($cret, $cout, $cerr) = $node->psql('restored', q{SELECT topics.produce('orders', jsonb_build_object('big', repeat('x', 100000)))});
like($cerr, qr/larger than max\.message\.bytes of topic "orders" \(100000 bytes\)/,
	'the restored max.message.bytes applies');

# the restored topics work: offsets continue, groups resume
is($node->safe_psql('postgres', q{SELECT string_agg("offset"::text, ',') FROM topics.produce('orders', '{"next": 1}', partition => 0)}),
	$node->safe_psql('restored', q{SELECT string_agg("offset"::text, ',') FROM topics.produce('orders', '{"next": 1}', partition => 0)}),
	'produce continues at the same offset as in the source');
is($node->safe_psql('restored', q{SELECT count(*) || '/' || min("offset") FROM topics.poll(NULL::orders, 'billing', max_records => 1000) WHERE partition = 0}),
	$node->safe_psql('postgres', q{SELECT count(*) || '/' || min("offset") FROM topics.poll(NULL::orders, 'billing', max_records => 1000) WHERE partition = 0}),
	'the group resumes from the same committed offsets');

my $ret;
($ret, $out, $err) = $node->psql('restored', 'DROP EXTENSION pg_topics');
like($err, qr/cannot drop extension pg_topics because other objects depend on it/,
	'restored topics depend on the extension again');
$node->safe_psql('restored', 'DROP EXTENSION pg_topics CASCADE');
is($node->safe_psql('restored', q{SELECT count(*) FROM pg_class WHERE relname IN ('orders', 'blobs', 'Audit', 'emptied')}),
	'0', 'DROP EXTENSION CASCADE removes whole restored topics');

$node->stop;
done_testing();
