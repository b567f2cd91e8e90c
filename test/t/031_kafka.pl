# The Kafka listener with real clients: kcat (librdkafka 2.0.2),
# kafka-python 2.0.2 and confluent-kafka 1.7.0, as Debian 12 ships them,
# produce and consume the same records SQL sees; and raw frames for what
# clients never send.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use IO::Socket::INET;
use IPC::Run qw(run timeout);
use JSON::PP;
use Time::HiRes qw(time usleep);

my $node = PostgreSQL::Test::Cluster->new('kafka');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport)
	  . "pg_topics.kafka_group_initial_rebalance_delay = 0\n");
$node->start;
wait_for_kafka_listener($kport);
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('orders', 3, 'bytea', 'bytea');
SELECT topics.create_topic('events', 2, 'text', 'jsonb');
SELECT topics.create_topic('logs', 1, 'text', 'text');
});
my $dsn = 'host=' . $node->host . ' port=' . $node->port . ' dbname=postgres';

# Run kcat with arguments (and stdin); its stdout
sub kcat
{
	my ($stdin, @args) = @_;
	my ($ok, $out, $err) = kcat_run($bootstrap, $stdin, @args);
	die "kcat @args failed: $err" unless $ok;
	return $out;
}

# Run a command of test/kafka/clients.py; its JSON answer
sub client
{
	return kafka_script('clients.py', $bootstrap, @_);
}

# What SQL sees of a topic: partition offset key value timestamp-ms, a line each
sub sql_records
{
	my ($topic, $cols) = @_;
	$cols //= q{partition, "offset", encode(key::bytea, 'escape'), encode(value::bytea, 'escape')};
	return $node->safe_psql('postgres',
		qq{SELECT $cols FROM $topic ORDER BY partition, "offset"});
}

# ---- Metadata
my $meta = decode_json(kcat('', '-L', '-J'));
is_deeply([ map { $_->{name} } @{ $meta->{brokers} } ], ["127.0.0.1:$kport"],
	'one broker, at the listen address and port');
is($meta->{controllerid}, $meta->{brokers}[0]{id}, 'the broker is the controller');
my %leaders = map { $_->{leader} => 1 } map { @{ $_->{partitions} } } @{ $meta->{topics} };
is_deeply([ keys %leaders ], [ $meta->{brokers}[0]{id} ], 'and leads every partition');
my %parts = map { $_->{topic} => scalar @{ $_->{partitions} } } @{ $meta->{topics} };
is_deeply(\%parts, { orders => 3, events => 2, logs => 1, __consumer_offsets => 1 },
	'every topic of the schema with its partitions, and __consumer_offsets (listed to superusers and pg_monitor)');

# ---- Produce with kcat: routing equals SQL's, for every acks
for my $case ([ -1, 'all' ], [ 1, 'one' ], [ 0, 'none' ])
{
	my ($acks, $name) = @$case;
	my $input = join '', map { "$name-k$_:v$_\n" } 1 .. 20;
	kcat($input, '-P', '-t', 'orders', '-K:', '-X', 'partitioner=murmur2_random',
		'-X', "acks=$acks");
	# acks=0 gets no answer: wait until the records are there
	$node->poll_query_until('postgres',
		qq{SELECT count(*) = 20 FROM orders WHERE encode(key, 'escape') LIKE '$name-%'})
	  or die "records of acks=$acks never arrived";
	my $mismatch = $node->safe_psql('postgres', qq{
SELECT count(*) FROM orders
WHERE encode(key, 'escape') LIKE '$name-%'
  AND partition <> topics.partition_for_insert('orders'::regclass, key)});
	is($mismatch, '0', "kcat acks=$acks: every record in the partition SQL routes its key to");
}
my $values = $node->safe_psql('postgres',
	q{SELECT count(*), count(DISTINCT value), min(encode(value, 'escape')) FROM orders});
is($values, '60|20|v1', 'values byte for byte');

# ---- compressed batches: every codec stores the same records
$node->safe_psql('postgres', q{SELECT topics.create_topic('codecs', 5, 'text', 'text')});
my $lines = join '', map { "record $_ " . ('x' x ($_ % 50)) . "\n" } 1 .. 1000;
my @codecs = ([ 'none', '-z', 'none' ], [ 'gzip', '-z', 'gzip' ], [ 'snappy', '-z', 'snappy' ],
	[ 'lz4', '-z', 'lz4' ], [ 'zstd', '-X', 'compression.codec=zstd' ]);
for my $p (0 .. $#codecs)
{
	my ($codec, @opt) = @{ $codecs[$p] };
	kcat($lines, '-P', '-t', 'codecs', '-p', $p, @opt, '-X', 'linger.ms=100');
}
my $digests = $node->safe_psql('postgres', q{
SELECT string_agg(partition || ':' || n || ':' || d, ' ' ORDER BY partition) FROM (
	SELECT partition, count(*) AS n, md5(string_agg(value, ',' ORDER BY "offset")) AS d
	FROM codecs GROUP BY partition) s});
my @d = map { (split /:/)[2] } split / /, $digests;
is(scalar(grep { $_ eq $d[0] } @d), 5, "none, gzip, snappy, lz4 and zstd batches store the same 1000 records ($digests)");

# ---- a topic's max.message.bytes (topic configuration) bounds Kafka's
# produce as it bounds SQL's
$node->safe_psql('postgres', q{
SELECT topics.create_topic('capped', 1, 'text', 'text', configs => '{"max.message.bytes": "100"}')});
my ($cap_ok, $cap_out, $cap_err) = kcat_run($bootstrap, ('x' x 101) . "\n", '-P', '-t', 'capped', '-p', '0');
like($cap_err, qr/Message size too large/i,
	'kcat: a value over the topic\'s max.message.bytes is refused (MESSAGE_TOO_LARGE)');
kcat(('x' x 100) . "\n", '-P', '-t', 'capped', '-p', '0');
is($node->safe_psql('postgres', q{SELECT string_agg(length(value)::text, ',') FROM capped}), '100',
	'kcat: a value of max.message.bytes is stored, the larger one is not');
$node->safe_psql('postgres', q{SELECT topics.drop_topic('capped')});

# ---- Consume with kcat: what SQL sees, timestamps included
my $fmt = '%p %o %k %s %T\n';
my $kc = kcat('', '-C', '-t', 'orders', '-o', 'beginning', '-e', '-f', $fmt);
my $sql = sql_records('orders',
	q{partition || ' ' || "offset" || ' ' || encode(key, 'escape') || ' ' || encode(value, 'escape') || ' ' || floor(extract(epoch FROM "timestamp") * 1000)::bigint});
is(join("\n", sort split /\n/, $kc), join("\n", sort split /\n/, $sql),
	'kcat -C -e reads every record, with the stored timestamps, and ends');

# rolled-back offsets: kcat steps over them and still reaches the end
$node->safe_psql('postgres', q{
BEGIN; SELECT topics.produce('logs', 'gone 1'); SELECT topics.produce('logs', 'gone 2'); ROLLBACK;
SELECT topics.produce('logs', 'kept');
BEGIN; SELECT topics.produce('logs', 'gone at the end'); ROLLBACK;
});
$kc = kcat('', '-C', '-t', 'logs', '-o', 'beginning', '-e', '-f', '%o %s\n');
is($kc, "2 kept\n", 'kcat -e steps over rolled-back offsets, before a record and at the end');

# an open transaction holds its records back, and kcat -e still ends
my $open = $node->background_psql('postgres');
$open->query_safe(q{BEGIN; SELECT topics.produce('logs', 'not yet');});
for my $iso ('read_committed', 'read_uncommitted')
{
	$kc = kcat('', '-C', '-t', 'logs', '-o', 'beginning', '-e', '-f', '%o %s\n',
		'-X', "isolation.level=$iso");
	is($kc, "2 kept\n", "$iso: an uncommitted record is not shown, and kcat -e ends");
}
$open->query_safe('COMMIT');
$open->quit;
$kc = kcat('', '-C', '-t', 'logs', '-o', 'beginning', '-e', '-f', '%o %s\n');
is($kc, "2 kept\n4 not yet\n", 'after the commit it is');

# ---- Headers: the object form, and the array form that keeps everything
kcat(qq{"v"\n}, '-P', '-t', 'events', '-p', '0', '-k', 'h1', '-H', 'trace=abc', '-H', 'span=def');
kcat(qq{"v"\n}, '-P', '-t', 'events', '-p', '0', '-k', 'h2', '-H', 'trace=abc',
	'-H', 'trace=def', '-H', 'solo');
my $headers = $node->safe_psql('postgres',
	q{SELECT key || ' ' || headers::text FROM events WHERE key IN ('h1', 'h2') ORDER BY key});
is($headers, qq{h1 {"span": "def", "trace": "abc"}\nh2 [["trace", "abc"], ["trace", "def"], ["solo", null]]},
	'unique names are an object; duplicates and nulls an array of pairs in order');
$kc = kcat('', '-C', '-t', 'events', '-p', '0', '-o', 'beginning', '-e', '-f', '%k %h\n');
is($kc, "h1 span=def,trace=abc\nh2 trace=abc,trace=def,solo=NULL\n",
	'headers go back out as they came in (object names in jsonb order)');
$node->safe_psql('postgres',
	q{SELECT topics.produce('events', '{"sql": true}', 'from-sql', 1, '{"a": "x", "b": 2, "c": null}')});
$kc = kcat('', '-C', '-t', 'events', '-p', '1', '-o', 'beginning', '-e', '-f', '%k %s %h\n');
is($kc, qq{from-sql {"sql": true} a=x,b=2,c=NULL\n},
	'headers written by SQL reach Kafka consumers; non-string values as their JSON text');

# ---- kafka-python: producer (acks=all) and consumer with CRC checks
my $sent = client('kp_produce', 'orders', 30, 'all');
my $rows = $node->safe_psql('postgres', q{
SELECT count(*) FROM orders o JOIN topics.topics t ON true
WHERE t.topic = 'orders'::regclass AND encode(o.key, 'escape') LIKE 'kp-%'});
is($rows, '30', 'kafka-python KafkaProducer(acks=all) stored every record');
my $bad = 0;
for my $s (@$sent)
{
	my ($p, $o, $ts) = @$s;
	my $r = $node->safe_psql('postgres',
		qq{SELECT floor(extract(epoch FROM "timestamp") * 1000)::bigint / 10 FROM orders WHERE partition = $p AND "offset" = $o AND encode(key, 'escape') LIKE 'kp-%'});
	$bad++ unless $r ne '' && abs($r - int($ts / 10)) <= 1;
}
is($bad, 0, 'its futures give each record\'s partition, offset and log-append time');

my $read = client('kp_read', 'orders');
my $bounds = $node->safe_psql('postgres',
	q{SELECT string_agg(partition || ':' || log_start_offset || ':' || last_stable_offset, ' ' ORDER BY partition) FROM topics.offsets('orders')});
is(join(' ', map { "$_:$read->{begin}{$_}:$read->{end}{$_}" } sort keys %{ $read->{begin} }),
	$bounds, 'beginning_offsets and end_offsets are the log start and the last stable offset');
is(scalar @{ $read->{records} }, $node->safe_psql('postgres', 'SELECT count(*) FROM orders'),
	'KafkaConsumer (check_crcs) reads every record');
my $kp_headers = (grep { $_->[3] eq 'kp-7' } @{ $read->{records} })[0]->[5];
is_deeply($kp_headers, [ [ 'n', '7' ] ], 'with its headers');
my ($times_ok, $later_none) = (1, 1);
for my $p (keys %{ $read->{times} })
{
	my ($ts, $found, $later) = @{ $read->{times}{$p} };
	my $expect = $node->safe_psql('postgres',
		qq{SELECT "offset" FROM topics.offsets_for_times('orders', to_timestamp($ts / 1000.0)) WHERE partition = $p});
	$times_ok = 0 unless defined $found && $found == $expect;
	$later_none = 0 if defined $later;
}
ok($times_ok, 'offsets_for_times agrees with topics.offsets_for_times');
ok($later_none, 'and finds nothing after the newest record');
ok(defined $read->{seek} && defined $read->{seek}[2] && $read->{seek}[2] == $read->{seek}[1],
	'KafkaConsumer.seek to an offset reads on from that offset');

# kcat -Q: offsets by time, as topics.offsets_for_times finds them
my ($q_part, $q_ts) = split /\|/, $node->safe_psql('postgres',
	q{SELECT partition, floor(extract(epoch FROM "timestamp") * 1000)::bigint FROM orders ORDER BY "offset" DESC, partition LIMIT 1});
my $q_out = kcat('', '-Q', '-t', "orders:$q_part:$q_ts");
my ($q_offset) = $q_out =~ /\[$q_part\] offset (-?\d+)/;
is($q_offset, $node->safe_psql('postgres',
		qq{SELECT coalesce((SELECT "offset" FROM topics.offsets_for_times('orders', to_timestamp($q_ts / 1000.0)) WHERE partition = $q_part), -1)}),
	'kcat -Q finds the offset of a time as topics.offsets_for_times does');
ok(defined $q_offset && $q_offset >= 0, 'a record of that time exists');

# ---- confluent-kafka: delivery reports are what SQL stored
my $reports = client('ck_produce', 'events', 10);
my $report_bad = 0;
for my $r (@$reports)
{
	my ($err, $p, $o, $ts, $key) = @$r;
	my $stored = $node->safe_psql('postgres',
		qq{SELECT key FROM events WHERE partition = $p AND "offset" = $o});
	$report_bad++ if defined $err || $stored ne $key;
}
is($report_bad, 0, 'confluent Producer delivery reports give the stored partition and offset');

# one bad record fails its partition's batch, and only that
my $mixed = client('ck_produce_mixed', 'events');
is_deeply([ map { [ $_->[0], $_->[1] ] } @$mixed ],
	[ [ 0, 87 ], [ 0, 87 ], [ 1, undef ], [ 1, undef ] ],
	'invalid JSON fails its partition with INVALID_RECORD; the other partition succeeds');
is($node->safe_psql('postgres', q{SELECT count(*) FROM events WHERE value = '{"ok": 1}'}), '0',
	'and nothing of the failed batch is stored');
is($node->safe_psql('postgres', q{SELECT count(*) FROM events WHERE key = 'tombstone' AND value IS NULL}), '1',
	'a null value is a tombstone');

# ---- a compacted topic refuses a batch with a keyless record, as Kafka
# does (the config written into topics.topic_config by hand, as a
# superuser may)
$node->safe_psql('postgres', q{
SELECT topics.create_topic('compacted', 1, 'text', 'text');
UPDATE topics.topic_config SET configs = configs || '{"cleanup.policy": "compact"}'
WHERE topic = 'compacted'::regclass;});
is_deeply(client('raw_produce_keyless', 'compacted'),
	[ 87, -1, 'Compacted topic cannot accept message without key in topic partition compacted-0.' ],
	'a compacted topic answers a batch with a keyless record INVALID_RECORD, with Kafka\'s message');
is($node->safe_psql('postgres', q{SELECT format('%s', o) FROM topics.offsets('compacted') o}),
	'(0,0,0,0)', 'and stores nothing of the batch, not even its offsets');
is(client('raw_produce', 'compacted', 'k')->[0], 0, 'a keyed record goes in');
$node->safe_psql('postgres', q{SELECT topics.drop_topic('compacted')});

# ---- long-poll: a waiting consumer gets a record as soon as it commits
my $lat = client('ck_latency', 'logs', 0, $dsn, 5);
my @sorted = sort { $a <=> $b } @$lat;
diag("Kafka long-poll wake-up (ms, SQL produce to consumer): @$lat");
ok($sorted[-1] < 5000, 'a Fetch waiting 10 s returns when a record commits');

# ---- idempotent producers: a batch sent again is not stored twice
my $idem = client('idempotent_retry', 'logs');
is($idem->{error}, 0, 'InitProducerId gives an idempotent producer its id');
is($idem->{first}[0], 0, 'its first batch is stored');
is_deeply($idem->{again}, $idem->{first}, 'the same batch sent again is answered with the same offset');
is($node->safe_psql('postgres', q{SELECT count(*) FROM logs WHERE key = 'idem'}), '6',
	'and stored once (3 records, then the 3 that follow)');
is($idem->{gap}[0], 45, 'a batch that skips sequence numbers is OUT_OF_ORDER_SEQUENCE_NUMBER');
is_deeply($idem->{following}, [ 0, $idem->{first}[1] + 3 ], 'the batch that follows is stored after the first');
# ---- an idempotent producer whose answer is lost sends its batch again
my $lost = client('ck_idempotent_lost_answer', 'logs', 20);
is($lost->{lost}, 1, 'the proxy lost the answer to the first Produce request');
is(scalar(grep { !defined $_->[0] } @{ $lost->{reports} }), 40,
	'confluent-kafka (enable.idempotence) reports every record delivered');
is($node->safe_psql('postgres', q{SELECT count(*) || ' ' || count(DISTINCT key) FROM logs WHERE key LIKE 'lost-%'}),
	'40 40', 'and every record is stored once, though its batch was sent twice');
is(join(',', map { "$_->[2]:$_->[3]" } @{ $lost->{reports} }),
	$node->safe_psql('postgres', q{SELECT string_agg("offset" || ':' || key, ',' ORDER BY "offset") FROM logs WHERE key LIKE 'lost-%'}),
	'at the offsets the delivery reports give');

# ---- an idempotent batch whose listener exits while writing it is not left
# in flight: the producer's retry is stored once the listener is back
my $exit_locker = $node->background_psql('postgres');
my $exit_part = $node->safe_psql('postgres',
	q{SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'logs'::regclass});
$exit_locker->query_safe("BEGIN; LOCK TABLE $exit_part IN ACCESS EXCLUSIVE MODE");
my ($eout, $eerr) = ('', '');
my $exiting = IPC::Run::start([ '/usr/bin/python3', PgTopicsTest::kafka_script_path('clients.py'),
		$bootstrap, 'idempotent_after_listener_exit', 'logs' ], '>', \$eout, '2>', \$eerr);
$node->poll_query_until('postgres',
	qq{SELECT count(*) > 0 FROM pg_locks WHERE relation = '$exit_part'::regclass AND NOT granted})
  or die 'the batch never waited for the partition';
$node->safe_psql('postgres',
	qq{SELECT pg_terminate_backend(pid) FROM pg_locks WHERE relation = '$exit_part'::regclass AND NOT granted});
$exit_locker->query_safe('ROLLBACK');
$exit_locker->quit;
$exiting->finish or die "idempotent_after_listener_exit failed: $eerr";
my $exit = decode_json($eout);
is($exit->{retry}[0], 0,
	'a batch whose listener exited while writing it is stored when the producer sends it again');
is($node->safe_psql('postgres', q{SELECT count(*) FROM logs WHERE key = 'exit'}), '2', 'once');

# ---- pipelined Produce requests share one transaction (one WAL flush)
my $pipe = client('pipelined_produce', 'logs');
is_deeply([ map { [ $_->[0], $_->[1] ] } @{ $pipe->{answers} } ],
	[ map { [ 10 + $_, 0 ] } 0 .. 4 ],
	'five pipelined batches of an idempotent producer are all stored, answered in order');
is_deeply([ map { $_->[2] - $pipe->{answers}[0][2] } @{ $pipe->{answers} } ],
	[ 0, 2, 4, 6, 8 ], 'at consecutive offsets');
is_deeply($pipe->{again}, [ 20, 0, $pipe->{answers}[2][2] ],
	'the third sent again alone is answered with its offset');
is($node->safe_psql('postgres', q{SELECT count(*) FROM logs WHERE key = 'pipe'}), '10',
	'and nothing is stored twice');
ok($pipe->{closed} && !@{ $pipe->{answered_before_close} },
	'a malformed request in a pipeline closes the connection, answering none of its requests');
is($node->safe_psql('postgres', q{SELECT count(*) FROM logs WHERE key = 'bad-pipe'}), '0',
	'and none of them is stored, so that the client sends them again without duplicates');
# ---- a request never waits long for a lock: the client gets a retriable error
my $locker = $node->background_psql('postgres');
$locker->query_safe('BEGIN; LOCK TABLE logs IN ACCESS EXCLUSIVE MODE');
my $locked = client('raw_produce', 'logs', 'locked');
is($locked->[0], 7, 'a Produce to a topic locked by a SQL session is REQUEST_TIMED_OUT');
ok($locked->[2] < 10, 'after about a second (lock_timeout), not when the lock goes');
my $meta_locked = kcat('', '-L');
like($meta_locked, qr/topic "orders" with 3 partitions/, 'other clients are served meanwhile');
like($meta_locked, qr/topic "logs" with 0 partitions: Broker: Leader not available/,
	'and the locked topic is listed as LEADER_NOT_AVAILABLE, for them to ask again');
$locker->query_safe('ROLLBACK');
$locker->quit;
is(client('raw_produce', 'logs', 'locked')->[0], 0, 'once the lock goes, the same Produce is stored');

# a partition locked by its owner's SQL session: the same for its requests
$locker = $node->background_psql('postgres');
$locker->query_safe(q{BEGIN; SELECT format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', inhrelid::regclass) FROM pg_inherits WHERE inhparent = 'logs'::regclass \gexec});
my $part_locked = client('raw_list_offsets', 'logs');
is($part_locked->[0], 7, 'ListOffsets of a partition locked by a SQL session is REQUEST_TIMED_OUT');
$locker->query_safe('ROLLBACK');
$locker->quit;
is(client('raw_list_offsets', 'logs')->[0], 0, 'and answered once the lock goes');
is($node->safe_psql('postgres', q{SELECT count(*) FROM logs WHERE key = 'locked'}), '1',
	'once');
kcat(join('', map { "e$_\n" } 1 .. 50), '-P', '-t', 'logs', '-X', 'enable.idempotence=true');
is($node->safe_psql('postgres', q{SELECT count(*) FROM logs WHERE value LIKE 'e%'}), '50',
	'kcat -X enable.idempotence=true produces through InitProducerId');

# ---- the admin client creates and deletes topics
my $admin = client('ck_admin');
is_deeply($admin->{create}, { t2 => undef, t_ret => undef }, 'AdminClient.create_topics creates topics');
is($admin->{listed}{t2}, 4, 'with the partitions asked for');
is($node->safe_psql('postgres', q{SELECT partitions || ' ' || key_type || ' ' || value_type FROM topics.topics WHERE topic = 't_ret'::regclass}),
	'2 bytea bytea', 'and bytea keys and values');
is($node->safe_psql('postgres', q{SELECT retention || ' ' || retention_bytes FROM topics.topics WHERE topic = 't_ret'::regclass}),
	'01:00:00 1048576', 'retention.ms and retention.bytes become its retention');
is_deeply($admin->{again}, { t2 => 'TOPIC_ALREADY_EXISTS' }, 'creating it again is TOPIC_ALREADY_EXISTS');
is_deeply($admin->{validate}, { t3 => undef }, 'validate_only succeeds');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname = 't3'}), '0',
	'and creates nothing');
is_deeply($admin->{bad}, { t4 => 'INVALID_REPLICATION_FACTOR', t5 => 'INVALID_CONFIG',
		'bad name!' => 'TOPIC_EXCEPTION' },
	'a replication factor above 1, an unsupported config and a bad name are refused');
ok(exists $admin->{listed}{t2}, 'the new topic is listed at once');
is_deeply($admin->{delete}, { t2 => undef, nope => 'UNKNOWN_TOPIC_OR_PART' },
	'delete_topics drops a topic; an unknown one is UNKNOWN_TOPIC_OR_PARTITION');
ok(!(grep { $_ eq 't2' } @{ $admin->{after} }), 'and it is gone from the list at once');

# ---- raw frames

# Send a request (key, version, correlation id, body) on $sock
sub send_request
{
	my ($sock, $key, $version, $corr, $body, $extra_header) = @_;
	my $payload = pack('n n N n/a*', $key, $version, $corr, 'raw-test')
	  . ($extra_header // '') . ($body // '');
	print $sock pack('N', length $payload) . $payload;
}

# Read one response frame: its bytes, or undef if the connection closed
sub read_frame
{
	my ($sock) = @_;
	my $len;
	return undef unless read($sock, $len, 4) == 4;
	my $data;
	$len = unpack('N', $len);
	return undef unless read($sock, $data, $len) == $len;
	return $data;
}

sub connect_raw
{
	my $sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $kport,
		Proto => 'tcp', Timeout => 10)
	  or die "connect: $!";
	$sock->autoflush(1);
	return $sock;
}

my $sock = connect_raw();
send_request($sock, 18, 5, 7, '');
my $resp = read_frame($sock);
my ($corr, $err, $n) = unpack('N n N', $resp);
my %ranges;
for my $i (0 .. $n - 1)
{
	my ($k, $min, $max) = unpack('n n n', substr($resp, 10 + 6 * $i, 6));
	$ranges{$k} = "$min-$max";
}
is("$corr $err", '7 35', 'ApiVersions v5: UNSUPPORTED_VERSION in the version-0 form');
is($ranges{18}, '0-4', 'listing the ApiVersions versions offered');
is($ranges{3}, '0-12', 'listing the Metadata versions offered');
is($ranges{10}, '0-5', 'listing the FindCoordinator versions offered');

# kafka-python pipelines ApiVersions v0 and Metadata v0
my $p1 = pack('n n N n/a*', 18, 0, 100, 'x');
my $p2 = pack('n n N n/a*', 3, 0, 101, 'x') . pack('N', 0);
print $sock pack('N', length $p1) . $p1 . pack('N', length $p2) . $p2;
my @corrs = map { unpack('N', read_frame($sock)) } 1 .. 2;
is("@corrs", '100 101', 'pipelined requests are answered in order');

send_request($sock, 99, 0, 102, '');
is(read_frame($sock), undef, 'an unknown API closes the connection');

for my $case ([ 'a size of 2 GB', pack('N', 0x7fffffff) ],
	[ 'a negative size', pack('N', 0xffffffff) ],
	[ 'a truncated header', pack('N', 3) . 'abc' ],
	[ 'Metadata v9 (not offered)', pack('N/a*', pack('n n N n/a* N', 3, 9, 1, 'x', 0)) ])
{
	my ($what, $bytes) = @$case;
	$sock = connect_raw();
	print $sock $bytes;
	is(read_frame($sock), undef, "$what closes the connection");
}
$meta = decode_json(kcat('', '-L', '-J'));
is(scalar @{ $meta->{topics} }, 6, 'and the listener serves the next client');

# a second cluster configured with the same port says so and leaves it alone
my $other = PostgreSQL::Test::Cluster->new('kafka_same_port');
$other->init;
$other->append_conf('postgresql.conf', kafka_node_conf($kport));
$other->start;
ok($other->log_contains(qr/could not bind Kafka listener to "127.0.0.1" port $kport/),
	'a second cluster on the same Kafka port warns that it cannot bind it');
$meta = decode_json(kcat('', '-L', '-J'));
is(scalar @{ $meta->{topics} }, 6, 'and clients still reach the first');
$other->stop;

$node->stop;
done_testing();
