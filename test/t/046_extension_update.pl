# ALTER EXTENSION pg_topics UPDATE from release 0.1 to the current one.
# A database installed at 0.1 from its own script (pg_topics--0.1.sql) is
# filled: topics of every key and value type, records with headers over
# several partitions, a rolled-back transaction (a gap), log starts moved by
# delete_records and TRUNCATE, settings, consumer groups with positions from
# poll, commit and seek, a durable member, a producer role with INSERT only
# and a reader with SELECT, a changed function privilege.
#  - The current library serves the database while its SQL is at 0.1 (the
#    window between installing a new library and the UPDATE): every function
#    of the extension works, and the roles produce and fetch as granted.
#  - After the UPDATE, extversion is the control file's default_version and
#    records, offsets, settings, group positions and members, privileges and
#    the extension's objects are what they were; after a restart too.
#  - Every function of the extension works after the UPDATE; producing and
#    polling continue at the right offsets.  A function of the extension that
#    this test does not call fails it (%exercise names each one, and
#    track_functions counts the calls).
#  - The extension's objects in a database updated from 0.1 are those of a
#    database where CREATE EXTENSION made the default version (a catalog
#    query, and pg_dump --binary-upgrade --schema-only of two empty
#    databases).
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('update');
$node->init;
# track_functions counts the calls of C functions too; a durable member
# stays for the whole test
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'pg_topics'
track_functions = 'all'
pg_topics.session_timeout = '1h'
});
$node->start;

# the release this test starts from, and the one the control file makes
my $default_version = $node->safe_psql('postgres',
	q{SELECT default_version FROM pg_available_extensions WHERE name = 'pg_topics'});
isnt($default_version, '0.1', "default_version $default_version is a later release than 0.1");
is($node->safe_psql('postgres', qq{
SELECT string_agg(version, ',' ORDER BY version) FROM pg_available_extension_versions
WHERE name = 'pg_topics' AND version IN ('0.1', '$default_version')}),
	"0.1,$default_version", 'both releases are installable');

$node->safe_psql('postgres', q{CREATE EXTENSION pg_topics VERSION '0.1'});
is($node->safe_psql('postgres', q{SELECT extversion FROM pg_extension WHERE extname = 'pg_topics'}),
	'0.1', q{CREATE EXTENSION pg_topics VERSION '0.1' installs 0.1});

# --- the database at 0.1 ---------------------------------------------------

my @types = ('bytea', 'text', 'jsonb');
my @topics;
for my $k (@types)
{
	for my $v (@types)
	{
		my $t = "kv_${k}_$v";
		push @topics, $t;
		my $key = "(CASE g % 5 WHEN 0 THEN NULL ELSE "
		  . ($k eq 'bytea' ? "convert_to('k' || g % 7, 'UTF8')"
			: $k eq 'jsonb' ? "jsonb_build_object('k', g % 7)" : "'k' || g % 7") . " END)";
		my $value = $v eq 'bytea' ? "decode(md5(g::text), 'hex')"
		  : $v eq 'jsonb' ? "jsonb_build_object('n', g)" : "'value ' || g";
		my $settings = $t eq 'kv_bytea_bytea' ? ', retention_bytes => 1000000000' : '';
		$node->safe_psql('postgres', qq{
SELECT topics.create_topic('$t', 3, '$k', '$v'$settings);
SELECT count(*) FROM topics.produce_batch('$t',
	(SELECT array_agg($value ORDER BY g) FROM generate_series(1, 60) g),
	(SELECT array_agg($key ORDER BY g) FROM generate_series(1, 60) g));
SELECT topics.produce('$t', @{[ type_literal($v, 1000) ]}, NULL, 1, '{"trace": "t-1", "n": "1"}');
BEGIN;
SELECT topics.produce('$t', @{[ type_literal($v, 1001) ]}, NULL, 2);
ROLLBACK;
SELECT topics.produce('$t', @{[ type_literal($v, 1002) ]}, NULL, 2, '{"after": "gap"}');
INSERT INTO $t (key, value) VALUES (NULL, @{[ type_literal($v, 1003) ]});
});
	}
}
$node->safe_psql('postgres', q{
-- settings
SELECT topics.create_topic('orders', 4, 'text', 'jsonb', retention => '7 days');
SELECT topics.add_partitions('orders', 5);
SELECT count(*) FROM topics.produce_batch('orders',
	(SELECT array_agg(jsonb_build_object('n', g) ORDER BY g) FROM generate_series(1, 500) g),
	(SELECT array_agg('customer-' || g % 23 ORDER BY g) FROM generate_series(1, 500) g));
-- log starts moved
SELECT topics.delete_records('orders', 0, 10);
SELECT topics.delete_records('kv_text_text', 1, 5);
TRUNCATE kv_jsonb_jsonb_p2;
SELECT topics.produce('kv_jsonb_jsonb', '{"after": "truncate"}', NULL, 2);
-- groups: positions from poll, commit and seek, a durable member
SELECT count(*) FROM topics.poll(NULL::orders, 'billing', max_records => 120);
SELECT topics.commit('orders', 'billing', 1, 40);
SELECT count(*) FROM topics.poll(NULL::orders, 'audit', max_records => 30);
SELECT topics.seek('orders', 'audit', 2, 3);
SELECT count(*) FROM topics.poll(NULL::kv_bytea_bytea, 'durable', 'worker-1', max_records => 1000);
-- privileges: a producer, a reader, and a function closed to PUBLIC
CREATE ROLE app_producer;
CREATE ROLE app_reader;
GRANT INSERT ON orders TO app_producer;
GRANT SELECT ON orders, kv_text_text TO app_reader;
REVOKE EXECUTE ON FUNCTION topics.offsets_for_times(text, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION topics.offsets_for_times(text, timestamptz) TO app_reader;
SET ROLE app_reader;
SELECT count(*) FROM topics.poll(NULL::kv_text_text, 'readers', max_records => 25);
RESET ROLE;
});
my $n_topics = $node->safe_psql('postgres', q{SELECT count(*) FROM topics.topics});
is($n_topics, scalar(@topics) + 1, 'the topics exist');

# What the database holds: persistent state (records, offsets, settings,
# log starts, group positions and owners, privileges) and, separately, what
# lives in shared memory until a restart (group generations and members)
my %state_sql = (
	topic_state_sql(@topics, 'orders'),
	partitions => q{
SELECT string_agg(format('%s %s %s %s %s %s %s %s %s %s', topic, partition, relation,
	log_start_offset, high_watermark, last_stable_offset, records, oldest_timestamp,
	newest_timestamp, logical_replica), E'\n' ORDER BY topic::text, partition)
FROM topics.partitions},
	segments => q{
SELECT string_agg(format('%s %s %s %s %s', topic, partition, segment, base_offset, relation),
	E'\n' ORDER BY topic::text, partition, segment)
FROM topics.segments WHERE state <> 'spare'},
	privileges => q{
SELECT string_agg(format('%s %s %s %s', c.oid::regclass, r.rolname, p.priv,
	has_table_privilege(r.oid, c.oid, p.priv)), E'\n' ORDER BY c.oid::regclass::text, r.rolname, p.priv)
FROM pg_class c
CROSS JOIN (SELECT oid, rolname FROM pg_roles WHERE rolname IN ('app_producer', 'app_reader')) r
CROSS JOIN unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) p(priv)
WHERE c.relnamespace IN ('public'::regnamespace, 'topics'::regnamespace)
  AND c.relkind IN ('r', 'p', 'v')},
	acls => q{
SELECT string_agg(format('%s %s', c.oid::regclass, c.relacl), E'\n' ORDER BY c.oid::regclass::text)
FROM pg_class c WHERE c.relnamespace IN ('public'::regnamespace, 'topics'::regnamespace)
  AND c.relkind IN ('r', 'p', 'v')},
	function_acls => q{
SELECT string_agg(format('%s %s %s %s', p.oid::regprocedure, p.proacl,
	has_function_privilege('app_reader', p.oid, 'EXECUTE'),
	has_function_privilege('app_producer', p.oid, 'EXECUTE')), E'\n' ORDER BY p.oid::regprocedure::text)
FROM pg_proc p WHERE p.pronamespace = 'topics'::regnamespace},
);
my %memory_sql = (
	group_generations => q{
SELECT string_agg(format('%s', g), E'\n' ORDER BY group_name, topic::text) FROM topics.consumer_groups g},
	members => q{
SELECT string_agg(format('%s %s %s %s %s %s', group_name, topic, member, durable, generation, partitions),
	E'\n' ORDER BY group_name, topic::text, member)
FROM topics.group_members},
);

# What the updates since 0.1 add or change on purpose, left out of the
# comparisons of the database before and after its update (the comparison
# with a fresh database covers them): 0.3's topic configuration (its view
# and functions, create_topic's configs argument, the configs column and
# trigger of topics.topic_config), its Kafka topic names (the table
# topics.kafka_topic_names and the event trigger that forgets dropped
# topics' names), the members' instance ids (topics.member_info() made
# anew with the column instance_id, and topics.group_members, which shows
# it), topics.consumer_lag, whose lag counts a negative committed offset
# as none, log compaction (topics.compact, topics.compaction_info, and
# topics.partitions' columns after the old ones), topics.latest() (named
# by its call: "latest" is a word of other objects' text), the table
# topics.replica_removals of logical subscribers, and Kafka transactions'
# table topics.kafka_transactional_ids and view topics.kafka_transactions.
# A release that adds or changes objects names them here.
my @updated_objects = qw(topic_configs alter_topic_configs topic_config_changed topic_config_info
  kafka_topic_names forget_dropped_kafka_names topics_forget_dropped_kafka_names
  member_info group_members consumer_lag compact compaction_info replica_removals
  kafka_transactional_ids kafka_transactions);
my $updated_re = '(^|[^_a-z])(' . join('|', @updated_objects) . ')([^_a-z]|$)'
  . '|create_topic\\(|topics\\.latest\\(|^table topics\\.topic_config:|^view topics\\.partitions:';

# $text without the lines (rows) that name an object of @updated_objects
sub without_updated
{
	my ($text) = @_;
	return join("\n", grep { !/$updated_re/ } split /\n/, $text);
}

sub snapshot
{
	my ($db, $with_memory) = @_;
	my %s;
	my %sql = ($with_memory ? (%state_sql, %memory_sql) : %state_sql);
	$s{$_} = without_updated($node->safe_psql($db, $sql{$_})) for keys %sql;
	return \%s;
}

# The extension's objects, as the catalogs describe them: one line per
# object (its definition, comment and, with $acl, its privileges), the
# privileges the extension's scripts gave them (pg_init_privs) and the
# extension's own row; segments (members made as partitions grow) left out,
# and with $skip_updated the objects of @updated_objects
sub catalog
{
	my ($db, $acl, $skip_updated) = @_;
	my $show_acl = $acl ? 'true' : 'false';
	my $skip = $skip_updated ? "WHERE line !~ '$updated_re'" : '';
	return $node->safe_psql($db, qq{
WITH m AS (
	SELECT d.classid, d.objid, d.objsubid
	FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
	WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND e.extname = 'pg_topics'
	  AND NOT EXISTS (SELECT FROM pg_class c WHERE d.classid = 'pg_class'::regclass
		AND c.oid = d.objid AND c.relnamespace = 'topics_segments'::regnamespace)
)
SELECT string_agg(line, E'\n' ORDER BY line) FROM (
	SELECT pg_describe_object(m.classid, m.objid, m.objsubid) || ': '
		|| coalesce(obj_description(m.objid, (SELECT relname FROM pg_class WHERE oid = m.classid)), '') || ' '
		|| coalesce(CASE m.classid
		WHEN 'pg_proc'::regclass THEN (
			SELECT pg_get_functiondef(p.oid) || CASE WHEN $show_acl THEN ' acl ' || coalesce(p.proacl::text, '-') ELSE '' END
			FROM pg_proc p WHERE p.oid = m.objid)
		WHEN 'pg_class'::regclass THEN (
			SELECT format('kind %s persistence %s am %s options %s owner %s', c.relkind, c.relpersistence,
				(SELECT amname FROM pg_am WHERE oid = c.relam), c.reloptions, c.relowner::regrole)
				|| CASE WHEN $show_acl THEN ' acl ' || coalesce(c.relacl::text, '-') ELSE '' END
				|| ' columns ' || coalesce((SELECT string_agg(format('%s %s %s %s', a.attname,
					format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(ad.adbin, ad.adrelid)), ', ' ORDER BY a.attnum)
					FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
					WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '')
				|| ' view ' || coalesce(CASE WHEN c.relkind = 'v' THEN pg_get_viewdef(c.oid) END, '-')
				|| ' indexes ' || coalesce((SELECT string_agg(pg_get_indexdef(i.indexrelid), '; ' ORDER BY 1)
					FROM pg_index i WHERE i.indrelid = c.oid), '-')
				|| ' constraints ' || coalesce((SELECT string_agg(k.conname || ' ' || pg_get_constraintdef(k.oid), '; ' ORDER BY 1)
					FROM pg_constraint k WHERE k.conrelid = c.oid), '-')
				|| ' triggers ' || coalesce((SELECT string_agg(pg_get_triggerdef(t.oid) || ' ' || t.tgenabled::text, '; ' ORDER BY 1)
					FROM pg_trigger t WHERE t.tgrelid = c.oid), '-')
			FROM pg_class c WHERE c.oid = m.objid)
		WHEN 'pg_namespace'::regclass THEN (
			SELECT format('owner %s', n.nspowner::regrole)
				|| CASE WHEN $show_acl THEN ' acl ' || coalesce(n.nspacl::text, '-') ELSE '' END
			FROM pg_namespace n WHERE n.oid = m.objid)
		WHEN 'pg_am'::regclass THEN (
			SELECT format('type %s handler %s', a.amtype, a.amhandler) FROM pg_am a WHERE a.oid = m.objid)
		WHEN 'pg_event_trigger'::regclass THEN (
			SELECT format('event %s function %s enabled %s tags %s', t.evtevent, t.evtfoid::regprocedure,
				t.evtenabled, t.evttags) FROM pg_event_trigger t WHERE t.oid = m.objid)
		WHEN 'pg_type'::regclass THEN format_type(m.objid, NULL)
		END, '?') AS line
	FROM m
	UNION ALL
	SELECT 'initial privileges of ' || pg_describe_object(i.classoid, i.objoid, i.objsubid) || ': '
		|| i.privtype::text || ' ' || i.initprivs::text
	FROM pg_init_privs i JOIN m ON m.classid = i.classoid AND m.objid = i.objoid
	UNION ALL
	SELECT format('extension %s %s owner %s relocatable %s schema %s',
		e.extname, e.extversion, e.extowner::regrole, e.extrelocatable, e.extnamespace::regnamespace)
	FROM pg_extension e WHERE e.extname = 'pg_topics'
	UNION ALL
	-- a line per table pg_dump carries, so that a release's new ones are
	-- left out as its other objects are
	SELECT format('extension config table %s condition %L', c.tab::regclass, c.cond)
	FROM pg_extension e, unnest(e.extconfig, e.extcondition) AS c(tab, cond)
	WHERE e.extname = 'pg_topics') s $skip});
}

# --- every function of the extension, called and checked -----------------

# name => sub($db, $t): calls the function on topics of its own (named
# after $t) and checks what it did.  A function of the extension missing
# here fails the test; so does one the calls did not reach (track_functions).
my %exercise;
sub q1 { my ($db, $sql) = @_; return $node->safe_psql($db, $sql); }
%exercise = (
	create_topic => sub {
		my ($db, $t) = @_;
		is(q1($db, qq{SELECT topics.create_topic('$t', 2, 'text', 'text', retention => '1 day')}),
			$t, "$t: create_topic");
	},
	add_partitions => sub {
		my ($db, $t) = @_;
		q1($db, qq{SELECT topics.add_partitions('$t', 4)});
		is(q1($db, qq{SELECT partitions FROM topics.topics WHERE topic = '$t'::regclass}),
			'4', "$t: add_partitions");
	},
	topic_log_handler => sub {
		my ($db, $t) = @_;
		# the access method's handler: a standalone topic_log table
		is(q1($db, qq{
CREATE TABLE ${t}_log (partition int NOT NULL DEFAULT 0, "offset" bigint NOT NULL DEFAULT -1,
	"timestamp" timestamptz NOT NULL DEFAULT '-infinity', key text, value text, headers jsonb)
	USING topic_log;
INSERT INTO ${t}_log (value) VALUES ('a'), ('b');
SELECT string_agg("offset" || ':' || value, ',' ORDER BY "offset") FROM ${t}_log;}),
			'0:a,1:b', "$t: a topic_log table (the access method's handler)");
	},
	produce => sub {
		my ($db, $t) = @_;
		is(q1($db, qq{SELECT format('%s', p) FROM topics.produce('$t', 'one', 'k', 0, '{"h": "1"}') p}),
			'(0,0)', "$t: produce");
	},
	produce_batch => sub {
		my ($db, $t) = @_;
		is(q1($db, qq{SELECT string_agg(format('%s', p), ',') FROM topics.produce_batch('$t', ARRAY['a', 'b', 'c'], partition => 1) p}),
			'(1,0),(1,1),(1,2)', "$t: produce_batch");
	},
	partition_for_insert => sub {
		my ($db, $t) = @_;
		# INSERT routes a keyed row by the planner-inserted partition_for_insert
		is(q1($db, qq{
INSERT INTO $t (key, value) VALUES ('foobar', 'inserted');
SELECT partition = (topics.murmur2(convert_to('foobar', 'UTF8')) & 2147483647) % 4
FROM $t WHERE value = 'inserted'}),
			't', "$t: INSERT routes by key (partition_for_insert)");
	},
	murmur2 => sub {
		my ($db, $t) = @_;
		is(q1($db, q{SELECT topics.murmur2('21')}), '-973932308', "$t: murmur2");
	},
	fetch => sub {
		my ($db, $t) = @_;
		is(q1($db, qq{SELECT string_agg("offset" || ':' || value, ',') FROM topics.fetch(NULL::$t, 1, 0)}),
			'0:a,1:b,2:c', "$t: fetch");
	},
	latest => sub {
		my ($db, $t) = @_;
		# 0.3: the newest record of each key (the others are keyless)
		is(q1($db, qq{SELECT string_agg(key || '=' || value, ',' ORDER BY key) FROM topics.latest(NULL::$t)}),
			'foobar=inserted,k=one', "$t: latest");
	},
	next_offset => sub {
		my ($db, $t) = @_;
		q1($db, qq{BEGIN; SELECT topics.produce('$t', 'gone', NULL, 2); ROLLBACK;
SELECT topics.produce('$t', 'kept', NULL, 2);});
		is(q1($db, qq{SELECT topics.next_offset('$t', 2, 1)}), '2',
			"$t: next_offset steps over a rolled-back record");
	},
	offsets => sub {
		my ($db, $t) = @_;
		is(q1($db, qq{SELECT string_agg(format('%s', o), ',' ORDER BY partition) FROM topics.offsets('$t') o WHERE partition < 3}),
			'(0,0,1,1),(1,0,3,3),(2,0,3,3)', "$t: offsets");
	},
	offsets_for_times => sub {
		my ($db, $t) = @_;
		is(q1($db, qq{SELECT string_agg(format('%s', o), ',' ORDER BY partition) FROM topics.offsets_for_times('$t', '-infinity') o WHERE partition < 3}),
			'(0,0),(1,0),(2,0)', "$t: offsets_for_times");
	},
	partition_info => sub {
		my ($db, $t) = @_;
		is(q1($db, qq{SELECT string_agg(partition || ':' || high_watermark, ',' ORDER BY partition) FROM topics.partition_info('$t')}),
			'0:1,1:3,2:3,3:0', "$t: partition_info");
	},
	segment_info => sub {
		my ($db, $t) = @_;
		is(q1($db, qq{SELECT count(DISTINCT partition) FROM topics.segment_info('$t') WHERE state = 'live'}),
			'4', "$t: segment_info");
	},
	verify => sub {
		my ($db, $t) = @_;
		is(q1($db, qq{SELECT count(*) FROM topics.verify('$t')}), '0', "$t: verify finds nothing wrong");
	},
	poll => sub {
		my ($db, $t) = @_;
		is(q1($db, qq{SELECT count(*) FROM topics.poll(NULL::$t, 'g', max_records => 100)}),
			'6', "$t: poll");
	},
	commit => sub {
		my ($db, $t) = @_;
		q1($db, qq{SELECT topics.commit('$t', 'g', 1, 1)});
		is(q1($db, qq{SELECT committed_offset FROM topics.group_offset_info() WHERE topic = '$t'::regclass AND group_name = 'g' AND partition = 1}),
			'1', "$t: commit (group_offset_info)");
	},
	group_offset_info => sub { },    # with commit
	seek => sub {
		my ($db, $t) = @_;
		q1($db, qq{SELECT topics.seek('$t', 'g', 1, 2)});
		is(q1($db, qq{SELECT committed_offset FROM topics.consumer_lag WHERE topic = '$t'::regclass AND group_name = 'g' AND partition = 1}),
			'2', "$t: seek");
	},
	reset_group => sub {
		my ($db, $t) = @_;
		q1($db, qq{SELECT topics.reset_group('$t', 'g', 'earliest')});
		is(q1($db, qq{SELECT count(*) FROM topics.poll(NULL::$t, 'g', max_records => 100)}),
			'6', "$t: reset_group to earliest, then poll reads everything again");
	},
	group_info => sub {
		my ($db, $t) = @_;
		is(q1($db, qq{SELECT format('%s %s %s', group_name, owner = current_user::regrole, members) FROM topics.group_info() WHERE topic = '$t'::regclass}),
			'g t 0', "$t: group_info");
	},
	member_info => sub {
		my ($db, $t) = @_;
		is(q1($db, qq{SELECT count(*) FROM topics.poll(NULL::$t, 'd', 'member-$t', max_records => 1);
SELECT format('%s %s %s', member, durable, cardinality(partitions)) FROM topics.member_info() WHERE topic = '$t'::regclass}),
			"1\nmember-$t t 4", "$t: member_info");
		# 0.3: the last column, instance_id, in the function and the view;
		# a member of SQL has none
		return unless q1($db, q{SELECT count(*) FROM pg_attribute
WHERE attrelid = 'topics.group_members'::regclass AND attname = 'instance_id'});
		is(q1($db, qq{SELECT format('%s %s', m.instance_id IS NULL, g.instance_id IS NULL)
FROM topics.member_info() m JOIN topics.group_members g USING (group_name, topic, member)
WHERE m.topic = '$t'::regclass}),
			't t', "$t: member_info and group_members end with instance_id, NULL for a member of SQL");
		is(q1($db, q{SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute
WHERE attrelid = 'topics.group_members'::regclass AND attnum > 0}),
			'group_name,topic,member,durable,pid,last_seen,generation,partitions,instance_id',
			"$t: group_members' columns, instance_id last");
	},
	delete_group => sub {
		my ($db, $t) = @_;
		q1($db, qq{SELECT topics.delete_group('$t', 'g')});
		is(q1($db, qq{SELECT count(*) FROM topics.consumer_groups WHERE topic = '$t'::regclass AND group_name = 'g'}),
			'0', "$t: delete_group");
	},
	delete_records => sub {
		my ($db, $t) = @_;
		is(q1($db, qq{SELECT topics.delete_records('$t', 1, 1)}), '1', "$t: delete_records");
	},
	restore_log_start => sub {
		my ($db, $t) = @_;
		# the trigger on topics.log_starts moves an empty partition's start
		is(q1($db, qq{INSERT INTO topics.log_starts VALUES ('${t}_p3', 7);
SELECT format('%s', o) FROM topics.offsets('$t') o WHERE partition = 3}),
			'(3,7,7,7)', "$t: restore_log_start");
	},
	enforce_retention => sub {
		my ($db, $t) = @_;
		is(q1($db, qq{SELECT string_agg(format('%s', r), ',' ORDER BY partition) FROM topics.enforce_retention('$t') r}),
			'(0,0),(1,1),(2,0),(3,7)', "$t: enforce_retention (nothing older than a day)");
	},
	maintenance_info => sub {
		my ($db, $t) = @_;
		ok($node->poll_query_until($db, q{SELECT running AND problem IS NULL FROM topics.maintenance_info()}),
			"$t: maintenance_info");
	},
	drop_topic => sub {
		my ($db, $t) = @_;
		q1($db, qq{SELECT topics.create_topic('${t}_gone'); SELECT topics.drop_topic('${t}_gone');});
		is(q1($db, qq{SELECT to_regclass('${t}_gone') IS NULL}), 't', "$t: drop_topic");
	},
	alter_topic_configs => sub {
		my ($db, $t) = @_;
		q1($db, qq{SELECT topics.alter_topic_configs('$t', '{"retention.bytes": "2000000", "segment.ms": 60000}')});
		is(q1($db, qq{SELECT retention_bytes FROM topics.topics WHERE topic = '$t'::regclass}),
			'2000000', "$t: alter_topic_configs sets retention.bytes, topics.topics shows it");
	},
	topic_config_info => sub {
		my ($db, $t) = @_;
		is(q1($db, qq{SELECT string_agg(format('%s=%s (%s)', name, value, source), ', ' ORDER BY name)
FROM topics.topic_configs WHERE topic = '$t'::regclass AND name IN ('retention.ms', 'retention.bytes', 'segment.ms')}),
			'retention.bytes=2000000 (topic), retention.ms=86400000 (topic), segment.ms=60000 (topic)',
			"$t: topic_configs (topic_config_info)");
	},
	topic_config_changed => sub {
		my ($db, $t) = @_;
		# the trigger on topics.topic_config drops the backends' cached
		# configs, whoever writes the row: a session that has produced to
		# the topic (and so cached them) sees a max.message.bytes written
		# into the table by hand
		my ($ret, $out, $err) = $node->psql($db, qq{
SELECT count(*) FROM topics.produce('$t', repeat('x', 100));
UPDATE topics.topic_config SET configs = configs || '{"max.message.bytes": "50"}' WHERE topic = '$t'::regclass;
SELECT count(*) FROM topics.produce('$t', repeat('x', 100));});
		like($err, qr/larger than max\.message\.bytes of topic "$t" \(50 bytes\)/,
			"$t: a config written into topics.topic_config applies at once (topic_config_changed)");
		q1($db, qq{SELECT topics.alter_topic_configs('$t', reset => '{max.message.bytes}')});
	},
	compact => sub {
		my ($db, $t) = @_;
		# 0.3: a compacted topic with two sealed segments of ten keys
		my $c = "${t}_compacted";
		q1($db, qq{SELECT topics.create_topic('$c', 1, 'text', 'text',
    configs => '{"cleanup.policy": "compact", "segment.bytes": "32768"}')});
		for my $round (1 .. 2)
		{
			q1($db, qq{SELECT count(*) FROM topics.produce_batch('$c',
    (SELECT array_agg(repeat('v', 100) || ':$round:' || g) FROM generate_series(1, 400) g),
    (SELECT array_agg('k' || g % 10) FROM generate_series(1, 400) g));
SELECT count(*) FROM topics.enforce_retention('$c');});
		}
		# the background worker may have compacted it first
		ok(q1($db, qq{SELECT topics.compact('$c')}) >= 0, "$t: compact");
		is(q1($db, qq{SELECT count(*) FROM (SELECT DISTINCT ON (key) value FROM $c ORDER BY key, "offset" DESC) s
WHERE value LIKE '%:2:%'}), '10', "$t: compact keeps each key's newest record");
		ok(q1($db, qq{SELECT count(*) FROM $c}) < 800, "$t: compact removes the older ones");
	},
	compaction_info => sub {
		my ($db, $t) = @_;
		is(q1($db, qq{SELECT last_compaction IS NOT NULL FROM topics.partitions
WHERE topic = '${t}_compacted'::regclass}), 't', "$t: topics.partitions shows the last compaction (compaction_info)");
	},
	forget_dropped_topics => sub {
		my ($db, $t) = @_;
		# the event trigger forgets a topic dropped with DROP TABLE
		my $oid = q1($db, qq{SELECT topics.create_topic('${t}_dropped')::oid});
		q1($db, qq{DROP TABLE ${t}_dropped});
		is(q1($db, qq{SELECT count(*) FROM topics.topic_config WHERE topic::oid = $oid}),
			'0', "$t: DROP TABLE of a topic forgets its settings (forget_dropped_topics)");
	},
	forget_dropped_kafka_names => sub {
		my ($db, $t) = @_;
		# 0.3: a topic with a Kafka name over 63 bytes; DROP TABLE forgets it
		my $long = "${t}_" . ('k' x 70);
		my $oid = q1($db, qq{SELECT topics.create_topic('$long')::oid});
		is(q1($db, qq{SELECT kafka_name FROM topics.kafka_topic_names WHERE topic::oid = $oid}),
			$long, "$t: create_topic keeps a long name as the topic's Kafka name");
		q1($db, qq{DROP TABLE } . q1($db, qq{SELECT ${oid}::regclass}));
		is(q1($db, qq{SELECT count(*) FROM topics.kafka_topic_names WHERE topic::oid = $oid}),
			'0', "$t: DROP TABLE of a topic forgets its Kafka name (forget_dropped_kafka_names)");
	},
);
# the order of the calls (each builds on the ones before)
my @exercise_order = qw(create_topic add_partitions topic_log_handler produce produce_batch
  partition_for_insert murmur2 fetch latest next_offset offsets offsets_for_times partition_info
  segment_info verify poll commit group_offset_info seek reset_group group_info member_info
  delete_group delete_records restore_log_start enforce_retention maintenance_info
  alter_topic_configs topic_config_info topic_config_changed compact compaction_info drop_topic
  forget_dropped_topics forget_dropped_kafka_names);

# Call every function of the extension; $t names this round's topics
sub exercise_all
{
	my ($db, $t, $when) = @_;
	my @functions = split /\n/, $node->safe_psql($db, q{
SELECT p.proname FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
JOIN pg_extension e ON e.oid = d.refobjid AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
WHERE e.extname = 'pg_topics' ORDER BY 1});
	my @missing = grep { !exists $exercise{$_} } @functions;
	is_deeply(\@missing, [], "$when: this test calls every function of the extension")
	  or diag("functions this test does not call (add them to %exercise): @missing");
	is_deeply([ sort @exercise_order ], [ sort keys %exercise ], 'the calls have an order');

	# the functions of the database's release: a later release's new ones
	# are called once a database has them
	my %present = map { $_ => 1 } @functions;
	$node->safe_psql($db, 'SELECT pg_stat_reset()');
	$exercise{$_}->($db, $t) for grep { $present{$_} } @exercise_order;
	# every backend that called them has ended, and so reported its counts
	my $uncalled = $node->safe_psql($db, q{
SELECT string_agg(p.oid::regprocedure::text, ', ' ORDER BY 1)
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
JOIN pg_extension e ON e.oid = d.refobjid AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
LEFT JOIN pg_stat_user_functions s ON s.funcid = p.oid
WHERE e.extname = 'pg_topics' AND coalesce(s.calls, 0) = 0
  -- the table access method's handler is called through the relation cache, which counts nothing
  AND p.proname <> 'topic_log_handler'});
	is($uncalled, '', "$when: every function of the extension was called");
}

# The two roles: the producer's records land at the high watermark, the
# reader fetches them; neither can do what it was not granted
sub role_actions
{
	my ($when) = @_;
	my $hwm = $node->safe_psql('postgres', q{SELECT high_watermark FROM topics.offsets('orders') WHERE partition = 3});
	is($node->safe_psql('postgres', qq{
SET ROLE app_producer;
SELECT format('%s', p) FROM topics.produce('orders', '{"by": "producer", "when": "$when"}', NULL, 3) p;
INSERT INTO orders (key, value) VALUES ('from-insert', '{"when": "$when"}');}),
		"(3,$hwm)", "$when: the producer role produces at the high watermark");
	is($node->safe_psql('postgres', qq{
SET ROLE app_reader;
SELECT value->>'by' FROM topics.fetch(NULL::orders, 3, $hwm, 1);}),
		'producer', "$when: the reader role fetches the record");
	my ($ret, $out, $err) = $node->psql('postgres', q{
SET ROLE app_producer; SELECT * FROM topics.fetch(NULL::orders, 0, 0)});
	like($err, qr/permission denied for table orders/, "$when: the producer role may not read");
	($ret, $out, $err) = $node->psql('postgres', q{
SET ROLE app_reader; SELECT * FROM topics.produce('orders', '{}')});
	like($err, qr/permission denied for table orders/, "$when: the reader role may not produce");
	($ret, $out, $err) = $node->psql('postgres', q{
SET ROLE app_producer; SELECT * FROM topics.offsets_for_times('orders', now())});
	like($err, qr/permission denied for function offsets_for_times/,
		"$when: the function closed to PUBLIC stays closed");
	is($node->safe_psql('postgres', q{
SET ROLE app_reader; SELECT count(*) FROM topics.offsets_for_times('orders', '-infinity')}),
		'5', "$when: the reader keeps EXECUTE on it");
}

my $before_restart = snapshot('postgres');
$node->restart;
is_deeply(snapshot('postgres'), $before_restart, '0.1: a restart keeps everything');
# the durable member joins again after the restart (it has read everything)
is($node->safe_psql('postgres',
		q{SELECT count(*) FROM topics.poll(NULL::kv_bytea_bytea, 'durable', 'worker-1')}),
	'0', 'the durable member is at the end');

# The window: the current library, the SQL of 0.1
exercise_all('postgres', 'ex_window', 'with the SQL of 0.1');
role_actions('with the SQL of 0.1');

my $before = snapshot('postgres', 1);
my $catalog_before = catalog('postgres', 1, 1);
like($before->{members}, qr/^durable kv_bytea_bytea worker-1 t \d+ \{0,1,2\}$/m,
	'the durable member is in its group');
like($before->{positions}, qr/^\(billing,orders,1,40,/m, 'a committed position');
like($before->{positions}, qr/^\(audit,orders,2,3,/m, 'a position from seek');
like($before->{offsets}, qr/^orders \(0,10,/m, 'a log start moved by delete_records');
like($before->{offsets}, qr/^kv_jsonb_jsonb \(2,[1-9]\d*,/m, 'a log start moved by TRUNCATE');

# --- the update ------------------------------------------------------------

$node->safe_psql('postgres', 'ALTER EXTENSION pg_topics UPDATE');
is($node->safe_psql('postgres', q{SELECT extversion FROM pg_extension WHERE extname = 'pg_topics'}),
	$default_version, "ALTER EXTENSION pg_topics UPDATE reaches $default_version");
my $after = snapshot('postgres', 1);
is($after->{$_}, $before->{$_}, "the update keeps $_") for sort keys %$before;
my $catalog_after = catalog('postgres', 1, 1);
$catalog_before =~ s/^(extension pg_topics) 0\.1 /$1 $default_version /m;
is($catalog_after, $catalog_before, "the update keeps the extension's objects and their privileges");

$node->restart;
# settings made before the update are the topics' configs: retention as
# retention.ms, retention_bytes as retention.bytes
is($node->safe_psql('postgres', q{
SELECT string_agg(format('%s %s=%s (%s)', topic, name, value, source), E'\n' ORDER BY topic::text, name)
FROM topics.topic_configs
WHERE topic IN ('orders'::regclass, 'kv_bytea_bytea'::regclass)
  AND name IN ('retention.ms', 'retention.bytes')}),
	"kv_bytea_bytea retention.bytes=1000000000 (topic)
kv_bytea_bytea retention.ms=-1 (default)
orders retention.bytes=-1 (default)
orders retention.ms=604800000 (topic)",
	'the update from 0.1 shows the retention settings as configs');

my $restarted = snapshot('postgres');
is($restarted->{$_}, $before->{$_}, "after a restart, the update keeps $_") for sort keys %state_sql;

# --- the same objects as a fresh CREATE EXTENSION --------------------------

$node->safe_psql('postgres', q{
CREATE DATABASE fresh;
CREATE DATABASE updated_empty;
});
$node->safe_psql('fresh', 'CREATE EXTENSION pg_topics');
is($node->safe_psql('fresh', q{SELECT extversion FROM pg_extension WHERE extname = 'pg_topics'}),
	$default_version, "CREATE EXTENSION makes $default_version (pg_topics--0.1.sql, then the upgrade scripts)");
is($node->safe_psql('fresh',
		qq{SELECT path FROM pg_extension_update_paths('pg_topics') WHERE source = '0.1' AND target = '$default_version'}),
	"0.1--0.2--$default_version", "the update path from 0.1 to $default_version, through 0.2");
$node->safe_psql('updated_empty', q{CREATE EXTENSION pg_topics VERSION '0.1'});
$node->safe_psql('updated_empty', 'ALTER EXTENSION pg_topics UPDATE');

# without privileges: the filled database changed one (its init privileges count)
is(catalog('postgres', 0), catalog('fresh', 0),
	"the filled database's extension objects, updated from 0.1, are those of a fresh $default_version");
is(catalog('updated_empty', 1), catalog('fresh', 1),
	"an empty database updated from 0.1 has the objects and privileges of a fresh $default_version");

# an update from 0.2 also shows the settings made before as configs
$node->safe_psql('postgres', 'CREATE DATABASE from_02');
$node->safe_psql('from_02', q{
CREATE EXTENSION pg_topics VERSION '0.2';
SELECT topics.create_topic('kept', retention => '3 days', retention_bytes => 123456789);
SELECT topics.create_topic('plain');
ALTER EXTENSION pg_topics UPDATE;});
is($node->safe_psql('from_02', q{
SELECT string_agg(format('%s %s=%s (%s)', topic, name, value, source), E'\n' ORDER BY topic::text, name)
FROM topics.topic_configs WHERE name IN ('retention.ms', 'retention.bytes')}),
	"kept retention.bytes=123456789 (topic)
kept retention.ms=259200000 (topic)
plain retention.bytes=-1 (default)
plain retention.ms=-1 (default)",
	'the update from 0.2 shows the retention settings as configs');

# pg_dump's binary-upgrade mode dumps each member of the extension, with its
# initial privileges; the OIDs, transaction IDs and LSNs it carries differ (so
# do the names of the segments, made of OIDs), and so does the key of
# psql's \restrict
sub schema_dump
{
	my ($db) = @_;
	my ($stdout, $stderr);
	# statistics (pg_dump 18 has them) are the planner's, not the extension's
	my @no_stats = `pg_dump --help` =~ /--no-statistics/ ? ('--no-statistics') : ();
	IPC::Run::run([ 'pg_dump', '--binary-upgrade', '--schema-only', @no_stats, '-d', $node->connstr($db) ],
		'>', \$stdout, '2>', \$stderr) or die "pg_dump $db failed: $stderr";
	$stdout =~ s/(?<!\d)\d{5,}(?!\d)/<oid>/g;
	$stdout =~ s/(rel(frozenxid|minmxid) = )'\d+'/$1'<xid>'/g;
	return join("\n", grep { !/^\\(un)?restrict |binary_upgrade_set_next_/ } split /\n/, $stdout);
}
my $dump_fresh = schema_dump('fresh');
like($dump_fresh, qr/ALTER EXTENSION pg_topics ADD FUNCTION topics\.poll/,
	'the binary-upgrade dump lists the members');
is(schema_dump('updated_empty'), $dump_fresh,
	"pg_dump --binary-upgrade --schema-only: updated from 0.1 and fresh $default_version are the same");

# --- every function, producing and polling go on ---------------------------

exercise_all('postgres', 'ex_updated', "at $default_version");
exercise_all('fresh', 'ex_fresh', "fresh at $default_version");
role_actions("at $default_version");

# producing continues each partition at its high watermark, the groups at
# their positions
for my $t (@topics)
{
	my $hwm = $node->safe_psql('postgres', qq{SELECT high_watermark FROM topics.offsets('$t') WHERE partition = 2});
	my $v = $t =~ /_bytea$/ ? q{'\x01'::bytea} : $t =~ /_jsonb$/ ? q{'{"after": "update"}'::jsonb} : q{'after update'};
	is($node->safe_psql('postgres', qq{SELECT "offset" FROM topics.produce('$t', $v, NULL, 2)}),
		$hwm, "$t: produce continues at offset $hwm");
}
my ($billing1) = $before->{positions} =~ /^\(billing,orders,1,(\d+),/m;
is($node->safe_psql('postgres', qq{
SELECT min("offset") FROM topics.poll(NULL::orders, 'billing', max_records => 1000) WHERE partition = 1}),
	$billing1, "group billing continues partition 1 at its committed offset $billing1");
is($node->safe_psql('postgres', qq{
SELECT min("offset") FROM topics.poll(NULL::orders, 'audit', max_records => 1000) WHERE partition = 2}),
	'3', 'group audit continues partition 2 where seek put it');
is($node->safe_psql('postgres', qq{
SELECT string_agg("offset"::text, ',') FROM topics.poll(NULL::kv_bytea_bytea, 'durable', 'worker-1')}),
	$node->safe_psql('postgres', q{SELECT high_watermark - 1 FROM topics.offsets('kv_bytea_bytea') WHERE partition = 2}),
	'the durable member reads the record produced after the update');
is($node->safe_psql('postgres', qq{
SET ROLE app_reader;
SELECT count(*) > 0 FROM topics.poll(NULL::kv_text_text, 'readers', max_records => 1000)}),
	't', "the reader's group goes on");

done_testing();
