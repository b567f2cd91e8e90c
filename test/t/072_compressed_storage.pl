# Compressed storage (compression.type zstd and lz4) beyond one server's
# SQL: Kafka's config APIs take the codecs and refuse gzip and snappy;
# Kafka consumers with the codecs (librdkafka: confluent-kafka, kcat also
# as a 0.10 client) and without them (kafka-python without lz4 and zstd)
# read a compressed topic's records as they read its uncompressed twin's,
# Fetch before v10 never gets zstd; Kafka producers of every codec write
# compressed topics; a streaming standby, a logical subscriber (its own
# topics compressed with the other codec) and pg_dump/pg_restore give back
# every column; kill -9 while SQL sessions and an idempotent Kafka producer
# write compressed batches loses no acknowledged record and doubles none,
# and the standby and subscriber follow through it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use IPC::Run;
use JSON::PP;
use Time::HiRes qw(usleep);

my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
my $node = PostgreSQL::Test::Cluster->new('primary');
$node->init(allows_streaming => 'logical');
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . qq{
pg_topics.worker_naptime = '1000ms'
checkpoint_timeout = 30s
wal_consistency_checking = 'pg_topics'
});
$node->start;
wait_for_kafka_listener($kport);
$node->safe_psql('postgres', 'CREATE EXTENSION pg_topics');

sub kafka
{
	my ($script, @args) = @_;
	return kafka_script($script, $bootstrap, @args);
}

# ---- Kafka's config APIs on the same model
my $ct = kafka('configs.py', 'create_topics', 5, 'false', 'kz:2:-1:compression.type=zstd',
	'kl:2:-1:compression.type=lz4', 'kg:1:-1:compression.type=gzip', 'ks:1:-1:compression.type=snappy',
	'kb:1:-1:compression.type=brotli');
is_deeply([ map { $_->{error} } @$ct ], [ 0, 0, 40, 40, 40 ],
	'CreateTopics: zstd and lz4 created; gzip, snappy and an unknown codec INVALID_CONFIG');
like($ct->[2]{message}, qr/"compression\.type".*"gzip"|"gzip".*"compression\.type"/, 'gzip: naming the key and value');
my $cfg = sub {
	my ($topic) = @_;
	return $node->safe_psql('postgres',
		qq{SELECT value || '/' || source FROM topics.topic_configs WHERE topic = '$topic'::regclass AND name = 'compression.type'});
};
is_deeply([ $cfg->('kz'), $cfg->('kl') ], [ 'zstd/topic', 'lz4/topic' ], 'topics.topic_configs shows them');
is(kafka('configs.py', 'describe', 3, 'false', 'topic:kz:compression.type')->[0][4]{'compression.type'}[0], 'zstd',
	'DescribeConfigs: zstd');
is_deeply(kafka('configs.py', 'incremental', 1, 'false', 'topic:kl 0:compression.type=zstd'),
	[ [ 0, undef, 2, 'kl' ] ], 'IncrementalAlterConfigs: lz4 to zstd');
is($cfg->('kl'), 'zstd/topic', 'the view follows');
is_deeply(kafka('configs.py', 'incremental', 1, 'false', 'topic:kl 0:compression.type=lz4'),
	[ [ 0, undef, 2, 'kl' ] ], 'and back to lz4');
is_deeply([ map { $_->[0] } @{ kafka('configs.py', 'alter', 1, 'false', 'topic:kz compression.type=snappy') },
		@{ kafka('configs.py', 'incremental', 1, 'false', 'topic:kz 0:compression.type=gzip') } ],
	[ 40, 40 ], 'AlterConfigs snappy, IncrementalAlterConfigs gzip: INVALID_CONFIG');
is($cfg->('kz'), 'zstd/topic', 'and nothing changed');

# ---- SQL writes the same calls into an uncompressed topic and its zstd and
# lz4 twins: keyed, keyless, tombstones, headers, 100 kB values among small
# ones, a rolled-back batch
$node->safe_psql('postgres', q{
SELECT topics.create_topic('tn', 2, 'bytea', 'bytea');
SELECT topics.create_topic('tz', 2, 'bytea', 'bytea', configs => '{"compression.type": "zstd"}');
SELECT topics.create_topic('tl', 2, 'bytea', 'bytea', configs => '{"compression.type": "lz4"}');
CREATE FUNCTION fill(t text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM topics.produce_batch(t,
        (SELECT array_agg(CASE WHEN g % 11 = 0 THEN NULL ELSE convert_to(format(
            '{"n": %s, "event": "order_created", "customer": "cust-%s", "pad": "%s"}', g, g % 97, repeat('abc', g % 50)), 'UTF8') END ORDER BY g)
         FROM generate_series(1, 800) g),
        (SELECT array_agg(CASE WHEN g % 9 = 0 THEN NULL ELSE convert_to('k' || g % 31, 'UTF8') END ORDER BY g)
         FROM generate_series(1, 800) g), partition => 0);
    PERFORM topics.produce_batch(t,
        (SELECT array_agg(convert_to(format('{"keyless": %s, "note": "%s"}', g, repeat('xyz', g % 40)), 'UTF8') ORDER BY g)
         FROM generate_series(1, 400) g), partition => 1);
    PERFORM topics.produce(t, convert_to('object headers', 'UTF8'), convert_to('h', 'UTF8'), 0, '{"trace": "abc", "n": 2}');
    PERFORM topics.produce(t, convert_to('array headers', 'UTF8'), NULL::bytea, 1, '[["a", "b"], ["a", "c"], ["bin", {"base64": "/wE="}]]');
    PERFORM topics.produce(t, NULL::bytea, convert_to('h', 'UTF8'), 0, '{"tombstone": "yes"}');
    EXECUTE format($i$INSERT INTO %s (key, value) VALUES
        ('big-1', (SELECT convert_to(string_agg(md5(i::text), ''), 'UTF8') FROM generate_series(1, 3200) i)),
        ('small', 'between'),
        ('big-2', convert_to(repeat('z', 100000), 'UTF8')),
        ('big-3', (SELECT convert_to(string_agg(md5('3:' || i), ''), 'UTF8') FROM generate_series(1, 3200) i)),
        ('small-2', NULL)$i$, t);
    BEGIN
        PERFORM topics.produce_batch(t, (SELECT array_agg(convert_to('undone ' || g, 'UTF8')) FROM generate_series(1, 30) g), partition => 0);
        RAISE EXCEPTION 'undone';
    EXCEPTION WHEN raise_exception THEN
        NULL;
    END;
    PERFORM topics.produce_batch(t,
        (SELECT array_agg(convert_to(format('{"after": %s, "pad": "%s"}', g, repeat('q', g)), 'UTF8') ORDER BY g) FROM generate_series(1, 100) g),
        (SELECT array_agg(convert_to('k' || g % 31, 'UTF8') ORDER BY g) FROM generate_series(1, 100) g), partition => 0);
END
$$;
SELECT fill('tn'), fill('tz'), fill('tl');
});

# every column of every record of a topic, one line each (timestamps in ms,
# as Kafka has them)
my $records_sql = q{SELECT string_agg(concat_ws('|', partition, "offset", floor(extract(epoch FROM "timestamp") * 1000),
	encode(key, 'hex'), encode(value, 'hex'), headers), E'\n' ORDER BY partition, "offset") FROM %s};
my $checksum_sql = q{SELECT count(*) || ' ' || md5(string_agg(concat_ws('|', partition, "offset", "timestamp",
	encode(key, 'hex'), encode(value, 'hex'), headers), E'\n' ORDER BY partition, "offset")) FROM %s};
my $without_times = sub { my ($r) = @_; return [ map { [ @$_[ 0 .. 4 ] ] } @$r ]; };
my $times_of = sub {
	my ($topic) = @_;
	return [ map { my @f = split /\|/; "$f[0]/$f[1]/$f[2]" }
		  split /\n/, $node->safe_psql('postgres', sprintf($records_sql, $topic)) ];
};
my $consumer_times = sub { my ($r) = @_; return [ map { "$_->[0]/$_->[1]/$_->[5]" } @$r ]; };

# ---- Kafka consumers: what they read of tz and tl is what they read of tn
my $read = kafka('compressed_storage.py', 'read_all', 'tn,tz,tl', 2);
my %ck = %{ $read->{ck} };
my %kp = %{ $read->{kp} };
my $nrecords = $node->safe_psql('postgres', 'SELECT count(*) FROM tn');
is(scalar @{ $ck{tn} }, $nrecords, "confluent-kafka reads the uncompressed topic's $nrecords records");
for my $t (qw(tz tl))
{
	is_deeply($without_times->($ck{$t}), $without_times->($ck{tn}),
		"confluent-kafka: $t gives tn's records (partition, offset, key, value, headers)");
	is_deeply($consumer_times->($ck{$t}), $times_of->($t), "confluent-kafka: $t with its own timestamps");
	is_deeply($without_times->($kp{$t}), $without_times->($ck{tn}),
		"kafka-python without lz4 and zstd: $t gives tn's records");
	is_deeply($consumer_times->($kp{$t}), $times_of->($t), "kafka-python: $t with its own timestamps");
}
is_deeply($without_times->($kp{tn}), $without_times->($ck{tn}), 'both clients read tn alike');

# kcat as a 0.10 client (Fetch v2, message format v1: no headers)
my $kcat_old = sub {
	my ($topic) = @_;
	my ($ok, $out, $err) = kcat_run($bootstrap, '', '-C', '-t', $topic, '-o', 'beginning', '-e', '-J',
		'-X', 'api.version.request=false', '-X', 'broker.version.fallback=0.10.0.0');
	die "kcat failed: $err" unless $ok;
	return [ sort { $a->[0] <=> $b->[0] || $a->[1] <=> $b->[1] }
		  map { my $m = JSON::PP->new->decode($_); [ $m->{partition}, $m->{offset}, $m->{key}, $m->{payload} ] }
		  grep { /^\{/ } split /\n/, $out ];
};
my $old_tn = $kcat_old->('tn');
is(scalar @$old_tn, $nrecords, 'kcat as a 0.10 client reads every record of tn');
is_deeply($kcat_old->('tz'), $old_tn, 'and of tz the same');
is_deeply($kcat_old->('tl'), $old_tn, 'and of tl the same');

# Fetch before v10 gets no zstd batch; every record comes in each answer
for my $v (4, 9, 11)
{
	my @batches = map { @{ kafka('compressed_storage.py', 'fetch_codecs', 'tz', $_, $v) } } 0, 1;
	my $n = 0;
	$n += $_->[2] for @batches;
	is($n, $nrecords, "Fetch v$v of tz: every record");
	if ($v < 10)
	{
		is(scalar(grep { $_->[1] == 4 } @batches), 0, "Fetch v$v: no zstd batch (its clients cannot read one)");
	}
}

# Fetch from inside batches, with room for one record or a few: tz and
# tl answer what tn answers
my $fetched = kafka('compressed_storage.py', 'fetch_from', 'tn,tz,tl', '4,11', '0,5,401,799,820,900', 1);
is(scalar(@{ $fetched->{tn}{'11/401'} }), 1, 'Fetch with max_bytes 1 gets a record');
my $fetched_more = kafka('compressed_storage.py', 'fetch_from', 'tn,tz,tl', '4,11', '0,5,401,799,820,900', 3000);
for my $t (qw(tz tl))
{
	is_deeply($fetched->{$t}, $fetched->{tn}, "raw Fetch v4 and v11 of $t from inside batches, max_bytes 1: what tn answers");
	is_deeply($fetched_more->{$t}, $fetched_more->{tn}, "and with max_bytes 3000");
}

# ---- Kafka producers of every codec into compressed topics
my %delivered;
for my $p ([ 'kz', 'none' ], [ 'kz', 'zstd' ], [ 'kz', 'lz4' ], [ 'kl', 'gzip' ], [ 'kl', 'snappy' ], [ 'kl', 'zstd' ])
{
	my ($topic, $codec) = @$p;
	push @{ $delivered{$topic} }, @{ kafka('compressed_storage.py', 'ck_produce', $topic, $codec, "p-$codec", 700) };
}
for my $t (qw(kz kl))
{
	my @want = sort { $a->[0] <=> $b->[0] || $a->[1] <=> $b->[1] } @{ $delivered{$t} };
	is(scalar @want, 2100, "$t: every record produced was delivered");
	my $got = kafka('compressed_storage.py', 'read_all', $t, 2);
	is_deeply($without_times->($got->{ck}{$t}), \@want,
		"$t: confluent-kafka reads what the producers delivered, at the offsets they were told");
	is_deeply($without_times->($got->{kp}{$t}), \@want, "$t: kafka-python too");
	is($node->safe_psql('postgres', qq{SELECT count(*) FROM $t WHERE value IS NULL}),
		scalar(grep { !defined $_->[3] } @want), "$t: SQL sees the tombstones");
}
is($node->safe_psql('postgres', q{
SELECT count(*) FROM (SELECT * FROM topics.verify('tz') UNION ALL SELECT * FROM topics.verify('tl')
	UNION ALL SELECT * FROM topics.verify('kz') UNION ALL SELECT * FROM topics.verify('kl')) v}),
	'0', 'verify finds nothing');

# ---- a streaming standby and a logical subscriber
$node->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($node, 'base', has_streaming => 1);
$standby->start;

my $sub = start_logical_node('subscriber', '1000ms', q{
SELECT topics.create_topic('tz', 2, 'bytea', 'bytea', configs => '{"compression.type": "lz4"}');
SELECT topics.create_topic('tl', 2, 'bytea', 'bytea', configs => '{"compression.type": "zstd"}');
SELECT topics.create_topic('kz', 2, 'bytea', 'bytea', configs => '{"compression.type": "zstd"}');
});
$node->safe_psql('postgres',
	'CREATE PUBLICATION compressed FOR TABLE tz, tl, kz WITH (publish_via_partition_root = true)');
my $connstr = $node->connstr('postgres');
$connstr =~ s/'/''/g;
$sub->safe_psql('postgres', qq{CREATE SUBSCRIPTION compressed CONNECTION '$connstr' PUBLICATION compressed});
$sub->wait_for_subscription_sync($node, 'compressed');

# ---- kill -9 while SQL sessions and an idempotent Kafka producer write
# compressed batches
my (@harness, @outfile);
for my $p (1 .. 2)
{
	my $topic = $p == 1 ? 'tz' : 'tl';
	my $script = '';
	for my $i (1 .. 2000)
	{
		my $n = 1 + ($i * 37 + $p) % 60;
		$script .= qq{SELECT count(*) FROM topics.produce_batch('$topic', (SELECT array_agg(convert_to(format('{"s": %s, "i": $i, "status": "order_shipped", "pad": "%s"}', g, repeat('ab', g)), 'UTF8')) FROM generate_series(1, $n) g), (SELECT array_agg(convert_to('s$p-$i-' || g, 'UTF8')) FROM generate_series(1, $n) g), partition => } . ($i % 2) . qq{);\n\\echo ack s$p-$i $n\n};
	}
	my ($h, $out) = start_psql_script($node, "producer$p", $script);
	push @harness, $h;
	push @outfile, $out;
}
my $kafka_acks = $node->basedir . '/kafka_producer.out';
my $kafka_producer = IPC::Run::start(
	[ '/usr/bin/python3', kafka_script_path('compressed_storage.py'), $bootstrap, 'ck_produce_until', 'kz', 'zstd', 'crash', 5, $kafka_acks ],
	'>', $node->basedir . '/kafka_producer.json', '2>', $node->basedir . '/kafka_producer.err');

my $acks_in = sub {
	my $n = 0;
	for my $file (@_)
	{
		open my $fh, '<', $file or next;
		$n += grep { /^ack / } <$fh>;
		close $fh;
	}
	return $n;
};
my $deadline = time + 60;
usleep(100_000) until time > $deadline || ($acks_in->(@outfile) > 100 && $acks_in->($kafka_acks) > 200);
my $kafka_acked_at_kill = $acks_in->($kafka_acks);
kill9_server($node);
$_->finish for @harness;
$node->start;
wait_for_kafka_listener($kport);
$kafka_producer->finish;
my %acked;
for my $file (@outfile)
{
	open my $fh, '<', $file or die;
	while (<$fh>) { $acked{$1} = $2 if /^ack (\S+) (\d+)$/; }
	close $fh;
}
ok(scalar(keys %acked) > 20, 'SQL sessions were acknowledged batches before the crash: ' . scalar(keys %acked));
my %found = map { split /\|/ } split /\n/, $node->safe_psql('postgres', q{
SELECT split_part(convert_from(key, 'UTF8'), '-', 1) || '-' || split_part(convert_from(key, 'UTF8'), '-', 2), count(*)
FROM (SELECT key FROM tz UNION ALL SELECT key FROM tl) r WHERE convert_from(key, 'UTF8') ~ '^s[12]-' GROUP BY 1});
my @wrong = grep { ($found{$_} // 0) != $acked{$_} } sort keys %acked;
is(scalar @wrong, 0, 'every batch a SQL session was acknowledged is there, whole, once')
  or diag("missing or wrong: @wrong[0 .. ($#wrong < 9 ? $#wrong : 9)]");
is($node->safe_psql('postgres', q{
SELECT count(*) FROM (SELECT key FROM tz UNION ALL SELECT key FROM tl) r
WHERE convert_from(key, 'UTF8') ~ '^s[12]-' GROUP BY key HAVING count(*) > 1}), '', 'no record twice');

open my $kfh, '<', $kafka_acks or die "no $kafka_acks";
my @kafka_lines = <$kfh>;
close $kfh;
my @kacks = map { [ /^ack (\d+) (\d+) (\S+)$/ ] } grep { /^ack / } @kafka_lines;
like($kafka_lines[-1] // '', qr/^sent \d+ left 0$/, 'the Kafka producer had every record delivered in the end');
ok(scalar(@kacks) > 200, 'the Kafka producer was acknowledged records: ' . scalar(@kacks));
ok(scalar(@kacks) > $kafka_acked_at_kill,
	"and went on after the restart (acknowledged at the crash: $kafka_acked_at_kill)");
my %at = map { my ($p, $o, $k) = split /\|/; ("$p/$o" => $k) } split /\n/, $node->safe_psql('postgres',
	q{SELECT partition || '|' || "offset" || '|' || convert_from(key, 'UTF8') FROM kz WHERE convert_from(key, 'UTF8') LIKE 'crash-%'});
my @kwrong = grep { ($at{"$_->[0]/$_->[1]"} // '') ne $_->[2] } @kacks;
is(scalar @kwrong, 0, 'every record acknowledged to Kafka is at its offset')
  or diag('wrong: ' . join(' ', map { "@$_" } @kwrong[0 .. ($#kwrong < 4 ? $#kwrong : 4)]));
is(scalar(keys %at), scalar(@kacks), 'and none is there twice (or unacknowledged)');
is($node->safe_psql('postgres', q{
SELECT count(*) FROM (SELECT * FROM topics.verify('tz') UNION ALL SELECT * FROM topics.verify('tl')
	UNION ALL SELECT * FROM topics.verify('kz')) v}), '0', 'verify finds nothing after crash recovery');
is($node->safe_psql('postgres', q{SELECT count(*) FROM tz}),
	$node->safe_psql('postgres', q{SELECT sum(n) FROM (SELECT count(*) AS n FROM topics.offsets('tz') o, LATERAL topics.fetch(NULL::tz, o.partition, 0, 1000000) GROUP BY o.partition) s}),
	'fetch reads every record of tz after recovery');
# the log goes on, compressed
$node->safe_psql('postgres', q{SELECT count(*) FROM topics.produce_batch('tz', (SELECT array_agg(convert_to('after ' || g, 'UTF8')) FROM generate_series(1, 100) g), partition => 0)});

# ---- the standby and the subscriber hold the same records
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
$node->wait_for_catchup('compressed');
for my $t (qw(tn tz tl kz kl))
{
	my $q = sprintf($checksum_sql, $t);
	is($standby->safe_psql('postgres', $q), $node->safe_psql('postgres', $q), "standby: $t has every column of every record");
}
is($standby->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('tz')}), '0', 'standby: verify finds nothing');
ok(!$standby->log_contains('inconsistent page found'), 'wal_consistency_checking found no difference');
my $fetch_sql = q{SELECT count(*) || ' ' || md5(string_agg(concat_ws('|', f.partition, f."offset", encode(f.value, 'hex')), ',' ORDER BY f.partition, f."offset"))
	FROM topics.offsets('tz') o, LATERAL topics.fetch(NULL::tz, o.partition, o.log_start_offset, 1000000) f};
is($standby->safe_psql('postgres', $fetch_sql), $node->safe_psql('postgres', $fetch_sql), 'standby: fetch reads tz as the primary does');
for my $t (qw(tz tl kz))
{
	my $q = sprintf($checksum_sql, $t);
	$sub->poll_query_until('postgres', qq{SELECT ($q) = '} . $node->safe_psql('postgres', $q) . q{'})
	  or diag("subscriber's $t: " . $sub->safe_psql('postgres', $q));
	is($sub->safe_psql('postgres', $q), $node->safe_psql('postgres', $q),
		"subscriber: $t has every column of every record");
}
is($sub->safe_psql('postgres', q{
SELECT count(*) FROM (SELECT * FROM topics.verify('tz') UNION ALL SELECT * FROM topics.verify('tl')
	UNION ALL SELECT * FROM topics.verify('kz')) v}), '0', 'subscriber: verify finds nothing');
diag('disk bytes of kz: publisher ' . $node->safe_psql('postgres', q{SELECT sum(bytes) FROM topics.partitions WHERE topic = 'kz'::regclass})
	  . ', subscriber ' . $sub->safe_psql('postgres', q{SELECT sum(bytes) FROM topics.partitions WHERE topic = 'kz'::regclass}));

# ---- pg_dump / pg_restore
my $dump = $node->basedir . '/compressed.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('postgres') ], 'pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE restored');
{
	local $ENV{PGOPTIONS} = '-c session_replication_role=replica';
	$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('restored'), $dump ],
		'pg_restore in preserve mode');
}
for my $t (qw(tn tz tl kz kl))
{
	my $q = sprintf($checksum_sql, $t);
	is($node->safe_psql('restored', $q), $node->safe_psql('postgres', $q), "restored: $t has every column of every record");
}
is($node->safe_psql('restored', q{
SELECT string_agg(topic || '=' || value, ',' ORDER BY topic::text) FROM topics.topic_configs WHERE name = 'compression.type'}),
	'kl=lz4,kz=zstd,tl=lz4,tn=uncompressed,tz=zstd', 'restored: compression.type');
is($node->safe_psql('restored', q{
SELECT count(*) FROM (SELECT * FROM topics.verify('tz') UNION ALL SELECT * FROM topics.verify('tl')
	UNION ALL SELECT * FROM topics.verify('kz')) v}), '0', 'restored: verify finds nothing');

# pg_dump lists the partitions' data (schema public) before
# topics.topic_config's, so a plain restore writes every record before its
# topic's compression.type is back and stores it uncompressed; restoring
# the configs first, in the order of a list (docs/operations.md, "pg_dump
# and pg_restore"), stores it compressed as in the source
my $list = $node->basedir . '/compressed.list';
my $order = $node->basedir . '/compressed.order';
$node->command_ok([ 'pg_restore', '-l', '-f', $list, $dump ], 'pg_restore -l');
{
	my $config = 'TABLE DATA topics topic_config ';
	my @lines = split /\n/, slurp_file($list);
	my @config = grep { index($_, $config) >= 0 } @lines;
	my @rest = grep { index($_, $config) < 0 } @lines;
	my ($first_data) = grep { $rest[$_] =~ /TABLE DATA/ } 0 .. $#rest;
	is(scalar(@config), 1, 'the list has the configs\' data');
	open my $fh, '>', $order or die "could not write $order: $!";
	print $fh join("\n", @rest[ 0 .. $first_data - 1 ], @config, @rest[ $first_data .. $#rest ]), "\n";
	close $fh;
}
$node->safe_psql('postgres', 'CREATE DATABASE restored_ordered');
{
	local $ENV{PGOPTIONS} = '-c session_replication_role=replica';
	$node->command_ok([ 'pg_restore', '--exit-on-error', '-L', $order, '-d', $node->connstr('restored_ordered'), $dump ],
		'pg_restore of the configs first');
}
for my $t (qw(tz tl))
{
	my $q = sprintf($checksum_sql, $t);
	is($node->safe_psql('restored_ordered', $q), $node->safe_psql('postgres', $q),
		"configs first: $t has every column of every record");
	my $bytes = qq{SELECT sum(bytes) FROM topics.partitions WHERE topic = '$t'::regclass};
	my ($restored, $source, $plain) = ($node->safe_psql('restored_ordered', $bytes),
		$node->safe_psql('postgres', $bytes), $node->safe_psql('restored', $bytes));
	ok($restored < $source * 1.5 && $restored * 2 < $plain,
		"configs first: $t is stored compressed ($restored bytes, $source in the source, $plain restored plainly)");
}

$sub->stop;
$standby->stop;
$node->stop;
done_testing();
