# pg_upgrade and pg_dump from an earlier PostgreSQL major to this one (15 to
# 17 in CI: scripts/test-major.sh copies the Debian 12 host's PostgreSQL 15,
# with the pg_topics build of the same checkout, into the root where 17
# runs, and names its bin directory in PGTOPICS_OLD_BINDIR and the shared
# libraries its programs need there in PGTOPICS_OLD_LIBS).
#
# A cluster of the earlier major gets what users keep in topics: topics of
# every key and value type over several partitions, records with keys and
# headers, a TOASTed value, a rolled-back transaction (a gap), log starts
# moved by TRUNCATE, delete_records and retention (which dropped segments), a
# frozen partition, topic settings, DDL a topic accepts, consumer groups with
# positions from poll, commit and seek, and roles with grants on topics and
# functions.  Then, as docs/operations.md tells users:
#  - pg_upgrade (--check first, then --copy) into a new cluster of this
#    major: records, offsets, partitions, segments, settings, log starts,
#    group positions, privileges, DDL and the extension's release are what
#    they were, and topics.verify finds nothing;
#  - this major's pg_dump of the earlier cluster's database, restored in
#    preserve mode into a new cluster after the roles (pg_dumpall
#    --globals-only): the same, segments aside (the restore lays them out
#    anew);
#  - the earlier cluster (which --copy leaves as it was), the upgraded and
#    the restored one then produce, poll and commit alike.
use strict;
use warnings;
use File::Basename qw(dirname);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $old_bindir = $ENV{PGTOPICS_OLD_BINDIR} // '';
plan skip_all => 'no earlier PostgreSQL major with pg_topics: PGTOPICS_OLD_BINDIR is not set '
  . '(scripts/test-major.sh sets it in the root where PostgreSQL 17 runs)'
  if $old_bindir eq '';
my $old_libs = $ENV{PGTOPICS_OLD_LIBS} // '';

# Run $code with the earlier major's shared libraries in LD_LIBRARY_PATH:
# for its programs, and for pg_upgrade, which starts them.  This major's
# programs need other sonames (Debian 13's ICU and LDAP), so they run the
# same in that environment.
sub with_old_libs(&)
{
	my ($code) = @_;
	local $ENV{LD_LIBRARY_PATH} = join(':', grep { $_ ne '' } $old_libs, $ENV{LD_LIBRARY_PATH} // '');
	return $code->();
}

# install_path is the directory above the installation's bin and lib
my $old = with_old_libs { PostgreSQL::Test::Cluster->new('old', install_path => dirname($old_bindir)) };
my $new = PostgreSQL::Test::Cluster->new('new');
my $new_bindir = $new->config_data('--bindir');
my ($old_major, $new_major) = ($old->pg_version->major, $new->pg_version->major);
ok($old_major < $new_major, "PostgreSQL $old_major is an earlier major than $new_major");
# the same settings in every cluster (pg_upgrade does not carry
# postgresql.conf); the worker's rounds are short, to wait for them
my $conf = q{
shared_preload_libraries = 'pg_topics'
pg_topics.worker_naptime = '200ms'
};
with_old_libs
{
	$old->init;
	$old->append_conf('postgresql.conf', $conf);
	$old->start;
};

# --- the cluster of the earlier major ----------------------------------------

my @types = ('bytea', 'text', 'jsonb');
my $fill = q{
CREATE EXTENSION pg_topics;
CREATE ROLE app_producer;
CREATE ROLE app_reader;
CREATE ROLE order_admin;
};
# every key type with every value type: keys (NULL among them) and values
# made in SQL, a record with headers, a rolled-back one (a gap between
# committed records) and a row INSERTed
for my $k (@types)
{
	for my $v (@types)
	{
		my $t = "kv_${k}_$v";
		my $key = "(CASE g % 5 WHEN 0 THEN NULL ELSE "
		  . ($k eq 'bytea' ? "convert_to('k' || g % 7, 'UTF8')"
			: $k eq 'jsonb' ? "jsonb_build_object('k', g % 7)" : "'k' || g % 7") . " END)";
		my $value = $v eq 'bytea' ? "decode(md5(g::text), 'hex')"
		  : $v eq 'jsonb' ? "jsonb_build_object('n', g)" : "'value ' || g";
		$fill .= qq{
SELECT topics.create_topic('$t', 3, '$k', '$v');
SELECT count(*) FROM topics.produce_batch('$t',
	(SELECT array_agg($value ORDER BY g) FROM generate_series(1, 60) g),
	(SELECT array_agg($key ORDER BY g) FROM generate_series(1, 60) g));
SELECT topics.produce('$t', @{[ type_literal($v, 1000) ]}, NULL, 1, '{"trace": "t-1", "n": "1"}');
BEGIN;
SELECT topics.produce('$t', @{[ type_literal($v, 1001) ]}, NULL, 2);
ROLLBACK;
SELECT topics.produce('$t', @{[ type_literal($v, 1002) ]}, NULL, 2, '{"after": "gap"}');
INSERT INTO $t (key, value) VALUES (NULL, @{[ type_literal($v, 1003) ]});
};
	}
}
$fill .= q{
-- settings, a partition added, a TOASTed value, log starts moved
SELECT topics.create_topic('orders', 4, 'text', 'jsonb', retention => '7 days');
SELECT topics.add_partitions('orders', 5);
SELECT count(*) FROM topics.produce_batch('orders',
	(SELECT array_agg(jsonb_build_object('n', g) ORDER BY g) FROM generate_series(1, 500) g),
	(SELECT array_agg('customer-' || g % 23 ORDER BY g) FROM generate_series(1, 500) g));
SELECT topics.produce('orders', jsonb_build_object('big',
	(SELECT string_agg(md5(i::text), '') FROM generate_series(1, 3000) i)), 'big', 3);
SELECT topics.delete_records('orders', 0, 10);
SELECT topics.delete_records('kv_text_text', 1, 5);
TRUNCATE kv_jsonb_jsonb_p2;
SELECT topics.produce('kv_jsonb_jsonb', '{"after": "truncate"}', NULL, 2);
CREATE SCHEMA shop;
SELECT topics.create_topic('shop."Audit"', 1, 'text', 'text');
SELECT topics.produce('shop."Audit"', 'first', 'k');
TRUNCATE shop."Audit";
SELECT topics.produce('shop."Audit"', 'after truncate', 'k');
-- partitions without records: where they start comes from topics.log_starts
SELECT topics.create_topic('emptied', 2, 'text', 'text');
SELECT count(*) FROM topics.produce_batch('emptied', ARRAY['a', 'b', 'c', 'd', 'e'], partition => 0);
SELECT count(*) FROM topics.produce_batch('emptied', ARRAY['a', 'b', 'c'], partition => 1);
TRUNCATE emptied_p0;
SELECT topics.delete_records('emptied', 1, 3);
-- retention_bytes: segments of a quarter of it, and retention drops the
-- oldest ones (600 kB of values that do not compress)
SELECT topics.create_topic('blobs', 2, 'bytea', 'bytea', retention_bytes => 200000);
SELECT count(*) FROM topics.produce_batch('blobs',
	(SELECT array_agg((SELECT string_agg(decode(md5(g || '/' || i), 'hex'), ''::bytea)
		FROM generate_series(1, 125) i) ORDER BY g) FROM generate_series(1, 300) g),
	partition => 0);
SELECT count(*) FROM topics.produce_batch('blobs', ARRAY['\x01', '\x02', NULL]::bytea[],
	ARRAY[NULL, '\x'::bytea, '\x03'], partition => 1);
SELECT * FROM topics.enforce_retention('blobs');
-- DDL a topic accepts
ALTER TABLE orders ALTER COLUMN key SET STATISTICS 500;
ALTER TABLE orders_p1 ALTER COLUMN key SET (n_distinct = 17);
ALTER TABLE orders_p1 SET (autovacuum_enabled = false);
ALTER TABLE orders REPLICA IDENTITY FULL;
CREATE STATISTICS orders_kv ON key, value FROM orders;
COMMENT ON TABLE orders_p0 IS 'first partition';
ALTER TABLE orders_p2 OWNER TO order_admin;
CREATE PUBLICATION orders_pub FOR TABLE orders;
-- groups: positions from poll, commit and seek
SELECT count(*) FROM topics.poll(NULL::orders, 'billing', max_records => 120);
SELECT topics.commit('orders', 'billing', 1, 40);
SELECT count(*) FROM topics.poll(NULL::orders, 'audit', max_records => 30);
SELECT topics.seek('orders', 'audit', 2, 3);
SELECT count(*) FROM topics.poll(NULL::blobs, 'archiver', max_records => 10);
-- privileges: a producer, a reader, and a function closed to PUBLIC
GRANT INSERT ON orders TO app_producer;
GRANT SELECT ON orders, kv_text_text TO app_reader;
REVOKE EXECUTE ON FUNCTION topics.offsets_for_times(text, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION topics.offsets_for_times(text, timestamptz) TO app_reader;
SET ROLE app_reader;
SELECT count(*) FROM topics.poll(NULL::kv_text_text, 'readers', max_records => 25);
RESET ROLE;
};
with_old_libs
{
	$old->safe_psql('postgres', $fill);
	$old->safe_psql('postgres', 'VACUUM (FREEZE) kv_text_jsonb');
	$old->safe_psql('postgres', q{SELECT topics.produce('kv_text_jsonb', '{"after": "freeze"}', 'k2')});
};

my @topics = split /\n/, with_old_libs { $old->safe_psql('postgres',
	q{SELECT topic FROM topics.topics ORDER BY topic::text}) };
is(scalar(@topics), 13, 'the earlier cluster has its topics');

# What a database holds, query by query.  Privileges are compared by what
# each role may do: a relation's ACL reads differently on 17, whose owners
# also have MAINTAIN.
my %state_sql = (
	topic_state_sql(@topics),
	partitions => q{
SELECT string_agg(format('%s %s %s %s %s %s %s %s', topic, partition, relation,
	log_start_offset, high_watermark, last_stable_offset, records, logical_replica),
	E'\n' ORDER BY topic::text, partition)
FROM topics.partitions},
	partition_times => q{
SELECT string_agg(format('%s %s %s %s', topic, partition, oldest_timestamp, newest_timestamp),
	E'\n' ORDER BY topic::text, partition)
FROM topics.partitions},
	segments => q{
SELECT string_agg(format('%s %s %s %s %s %s', topic, partition, segment, state, base_offset, relation),
	E'\n' ORDER BY topic::text, partition, segment)
FROM topics.segments WHERE state <> 'spare'},
	privileges => q{
SELECT string_agg(format('%s %s %s %s', c.oid::regclass, r.rolname, p.priv,
	has_table_privilege(r.oid, c.oid, p.priv)), E'\n' ORDER BY c.oid::regclass::text, r.rolname, p.priv)
FROM pg_class c
CROSS JOIN (SELECT oid, rolname FROM pg_roles
	WHERE rolname IN ('app_producer', 'app_reader', 'order_admin')) r
CROSS JOIN unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']) p(priv)
WHERE c.relnamespace IN ('public'::regnamespace, 'shop'::regnamespace, 'topics'::regnamespace)
  AND c.relkind IN ('r', 'p', 'v')},
	function_privileges => q{
SELECT string_agg(format('%s %s %s %s', p.oid::regprocedure, p.proacl,
	has_function_privilege('app_reader', p.oid, 'EXECUTE'),
	has_function_privilege('app_producer', p.oid, 'EXECUTE')), E'\n' ORDER BY p.oid::regprocedure::text)
FROM pg_proc p WHERE p.pronamespace = 'topics'::regnamespace},
	ddl => q{
SELECT string_agg(format('%s %s %s %s %s %s %s', c.oid::regclass, coalesce(a.attstattarget::int, -1),
		array(SELECT o FROM unnest(a.attoptions) o WHERE o LIKE 'n\_distinct=%'), c.reloptions,
		c.relreplident, pg_get_userbyid(c.relowner) = current_user, obj_description(c.oid, 'pg_class')),
		E'\n' ORDER BY c.oid::regclass::text)
	|| E'\n' || (SELECT string_agg(stxname, ',' ORDER BY stxname) FROM pg_statistic_ext)
	|| E'\n' || (SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_publication_tables
		WHERE pubname = 'orders_pub')
FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'key'
WHERE c.relname LIKE 'orders%'},
	extension => q{
SELECT extversion || ' ' || extnamespace::regnamespace FROM pg_extension WHERE extname = 'pg_topics'},
);

sub snapshot
{
	my ($node, $db) = @_;
	my %s;
	$s{$_} = $node->safe_psql($db, $state_sql{$_}) for keys %state_sql;
	return \%s;
}

# $node's database $db holds what the earlier cluster held (all of
# %state_sql but @skip), and topics.verify finds nothing in any topic
sub same_state
{
	my ($what, $node, $db, $before, @skip) = @_;
	my $after = snapshot($node, $db);
	for my $k (sort keys %state_sql)
	{
		next if grep { $_ eq $k } @skip;
		is($after->{$k}, $before->{$k}, "$what: $k as they were");
	}
	is($node->safe_psql($db, q{
SELECT count(*) FROM topics.topics t, LATERAL topics.verify(t.topic::text)}),
		'0', "$what: verify finds nothing");
	return;
}

# The background worker settles what the fill left, a round at a time: it
# rolls a full segment, applies retention, drops the segments retention
# retired.  Wait for a round that changes nothing: what the snapshot holds
# is then what each cluster keeps.
sub settle
{
	my ($node, $db) = @_;
	my $last = '';
	for (1 .. 100)
	{
		my $now = $node->safe_psql($db, 'SELECT clock_timestamp()');
		$node->poll_query_until($db, qq{SELECT last_round > '$now' FROM topics.maintenance})
		  or die 'the background worker does not finish a round';
		my $state = $node->safe_psql($db, "$state_sql{segments};\n$state_sql{offsets}");
		return if $state eq $last && $state !~ / retired /;
		$last = $state;
	}
	die 'the background worker does not settle';
}
my $before = with_old_libs { settle($old, 'postgres'); snapshot($old, 'postgres') };
like($before->{records}, qr/^emptied\|0\|\n/m, 'a topic has no records left');
like($before->{offsets}, qr/^blobs \(0,[1-9]\d*,300,300\)$/m, 'retention moved the log start of blobs');
like($before->{offsets}, qr/^shop\."Audit" \(0,1,2,2\)$/m, 'TRUNCATE moved the log start of shop."Audit"');
like($before->{offsets}, qr/^emptied \(0,5,5,5\)\nemptied \(1,3,3,3\)$/m,
	'partitions without records start where TRUNCATE and delete_records left them');
like($before->{segments}, qr/^blobs 0 [1-9]\d* sealed /m, 'retention dropped the first segments of blobs');
like($before->{function_privileges}, qr/^topics\.offsets_for_times\(text,timestamp with time zone\) \S+ t f$/m,
	'a function is granted to one role only');

# --- pg_dump of the earlier major's database, by this major's pg_dump --------

my $dump = $new->basedir . '/old.dump';
my $globals = $new->basedir . '/globals.sql';
command_ok([ "$new_bindir/pg_dumpall", '--globals-only', '-f', $globals, '-d', $old->connstr('postgres') ],
	'pg_dumpall --globals-only of the earlier cluster');
command_ok([ "$new_bindir/pg_dump", '-Fc', '-f', $dump, '-d', $old->connstr('postgres') ],
	'pg_dump -Fc of the earlier cluster');
my ($toc) = run_command([ "$new_bindir/pg_restore", '-l', $dump ]);
like($toc, qr/Dumped from database version: $old_major\..*\n.*Dumped by pg_dump version: $new_major\./,
	'the dump is of the earlier major, by the later pg_dump');

# --- pg_upgrade ---------------------------------------------------------------

with_old_libs { $old->stop };
# as the earlier cluster: without data checksums, which initdb turns on by
# default from 18
$new->init($new_major >= 18 ? (extra => ['--no-data-checksums']) : ());
$new->append_conf('postgresql.conf', $conf);

# pg_upgrade writes its logs in its working directory; --no-sync only
# saves time here (the test does not crash the cluster)
my $workdir = PostgreSQL::Test::Utils::tempdir;
chdir $workdir;
my @upgrade = ("$new_bindir/pg_upgrade", '--no-sync',
	'-b', $old_bindir, '-B', $new_bindir,
	'-d', $old->data_dir, '-D', $new->data_dir,
	'-p', $old->port, '-P', $new->port, '-s', $new->host);
with_old_libs
{
	command_ok([ @upgrade, '--check' ], 'pg_upgrade --check finds nothing against topics');
	command_ok([ @upgrade, '--copy' ], 'pg_upgrade --copy of a cluster with topics');
};
$new->start;
same_state('pg_upgrade', $new, 'postgres', $before);
my ($ret, $out, $err) = $new->psql('postgres', 'DROP EXTENSION pg_topics');
like($err, qr/other objects depend on it/, 'pg_upgrade: the topics still depend on the extension');

# --- pg_restore in preserve mode into a new cluster ---------------------------

my $restored = PostgreSQL::Test::Cluster->new('restored');
$restored->init;
$restored->append_conf('postgresql.conf', $conf);
$restored->start;
# the roles; the one running the restore exists already
($out, $err) = run_command([ "$new_bindir/psql", '-X', '-q', '-d', $restored->connstr('postgres'), '-f', $globals ]);
is(join("\n", grep { !/role "\Q@{[ $restored->safe_psql('postgres', 'SELECT current_user') ]}\E" already exists/ }
	split /\n/, $err), '', 'the roles restore');
$restored->safe_psql('postgres', 'CREATE DATABASE shop_copy');
{
	local $ENV{PGOPTIONS} = '-c session_replication_role=replica';
	command_ok([ "$new_bindir/pg_restore", '--exit-on-error', '-d', $restored->connstr('shop_copy'), $dump ],
		'pg_restore in preserve mode');
}
# segments are laid out anew, and the time range of a partition's records
# on disk no longer counts those below the log start that were still there
# (the records' own timestamps are in the checksum)
same_state('pg_dump', $restored, 'shop_copy', $before, 'segments', 'partition_times');

# --- all three go on alike ----------------------------------------------------

with_old_libs { $old->start };
my ($hw) = $before->{offsets} =~ /^orders \(1,\d+,(\d+),/m;
my @steps = (
	[ "produce continues at the high watermark ($hw)",
		q{SELECT string_agg(partition || ':' || "offset", ',') FROM topics.produce('orders', '{"next": 1}', 'customer-1', 1)} ],
	[ 'produce into the added partition, the retained one and a truncated one', q{
SELECT string_agg(format('%s:%s', partition, "offset"), ',') FROM (
	SELECT * FROM topics.produce('orders', '{"next": 2}', NULL, 4)
	UNION ALL SELECT * FROM topics.produce('blobs', '\xff'::bytea, NULL, 0)
	UNION ALL SELECT * FROM topics.produce('kv_jsonb_jsonb', '{"next": 3}', NULL, 2)
	UNION ALL SELECT * FROM topics.produce('shop."Audit"', 'next', 'k')) s} ],
	[ 'groups resume where they were', q{
SELECT string_agg(format('%s %s', g, r), E'\n' ORDER BY g) FROM (
	SELECT 'billing' AS g, (SELECT count(*) || ':' || md5(string_agg(format('%s/%s/%s/%s', partition, "offset", key, value), ',' ORDER BY partition, "offset"))
		FROM topics.poll(NULL::orders, 'billing', max_records => 1000)) AS r
	UNION ALL SELECT 'audit', (SELECT count(*) || ':' || md5(string_agg(format('%s/%s/%s/%s', partition, "offset", key, value), ',' ORDER BY partition, "offset"))
		FROM topics.poll(NULL::orders, 'audit', max_records => 1000))
	UNION ALL SELECT 'archiver', (SELECT count(*) || ':' || md5(string_agg(format('%s/%s/%s', partition, "offset", value), ',' ORDER BY partition, "offset"))
		FROM topics.poll(NULL::blobs, 'archiver', max_records => 1000))) s} ],
	[ 'the roles may do what they were granted', q{
SET ROLE app_reader;
SELECT count(*) FROM topics.poll(NULL::kv_text_text, 'readers', max_records => 1000);
SELECT string_agg(format('%s:%s', partition, "offset"), ',' ORDER BY partition) FROM topics.offsets_for_times('orders', '-infinity');
SET ROLE app_producer;
INSERT INTO orders (key, value) VALUES ('customer-2', '{"by": "app_producer"}');
RESET ROLE;
SELECT count(*) FROM orders} ],
	[ 'offsets and positions after all that', $state_sql{offsets} . ";\n" . $state_sql{positions} ],
);
for my $step (@steps)
{
	my ($what, $sql) = @$step;
	my $expected = with_old_libs { $old->safe_psql('postgres', $sql) };
	is($new->safe_psql('postgres', $sql), $expected, "pg_upgrade: $what");
	is($restored->safe_psql('shop_copy', $sql), $expected, "pg_dump: $what");
	is($expected, "1:$hw", "the earlier cluster: $what") if $step == $steps[0];
}

with_old_libs { $old->stop };
$new->stop;
$restored->stop;
done_testing();
