# Produce at every version Kafka 3.9 serves: the old message formats
# (MessageSets of magic 0 and 1, plain and in gzip wrappers) of Produce
# v0-2 stored as the records of any other producer, checked by the same
# rules (CRC, valid JSON for a jsonb topic); the flexible encoding of v9+;
# kafka-python 2.0.2 told the broker is 0.9 or 0.10 (Produce v1 of magic
# 0, Produce v2 of magic 1) as a real old client, which reads them back
# with Fetch v2; Produce requests of the flexible versions sent back to
# back, served in one transaction; Fetch at every version (the old formats
# for v0-3, without headers; flexible versions; topic ids).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use JSON::PP;

my $node = PostgreSQL::Test::Cluster->new('kafka_message_formats');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport));
$node->start;
wait_for_kafka_listener($kport);
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('old', 1, 'text', 'text');
SELECT topics.create_topic('oldjson', 1, 'text', 'jsonb');
SELECT topics.create_topic('kp', 1, 'bytea', 'bytea');
});

sub fmt
{
	return kafka_script('message_formats.py', $bootstrap, @_);
}

sub rows_from
{
	my ($first) = @_;
	return $node->safe_psql('postgres', qq{
SELECT string_agg("offset" || '=' || coalesce(key, 'null') || ':' || coalesce(value, 'null')
                  || ':' || coalesce(headers::text, 'none'), ' ' ORDER BY "offset")
FROM old WHERE "offset" >= $first});
}

is_deeply(kafka_script('protocol.py', $bootstrap, 'api_versions')->{0}, [ 0, 11 ],
	'ApiVersions lists Produce versions 0 to 11');

# ---- the old formats: each version, each magic, plain and gzip-wrapped
my $next = 0;
for my $version (0 .. 2)
{
	for my $format ('magic0', 'magic1', 'magic0-gzip', 'magic1-gzip')
	{
		my $tag = "v$version-$format";
		my $answer = fmt('produce', $version, $format, 'old',
			encode_json([ [ "$tag-k", "$tag a" ], [ undef, "$tag b" ] ]));
		is_deeply($answer->{answer},
			[ [ 'old', 0, 0, $next, ($version >= 2 ? (JSON::PP::true) : ()) ] ],
			"Produce v$version of a $format message set: stored at offset $next"
			  . ($version >= 2 ? ', with its log-append time' : ''));
		is($answer->{rest}, 0, "the answer is of the layout of v$version, to its last byte");
		is(rows_from($next),
			"$next=$tag-k:$tag a:none " . ($next + 1) . "=null:$tag b:none",
			"SQL sees its two records, keys and values as sent, without headers");
		$next += 2;
	}
}

# a RecordBatch (magic 2) in Produce v2 is taken too, as Kafka takes it
my $answer = fmt('produce', 2, 'batch', 'old', encode_json([ [ 'b', 'batch in v2' ] ]));
is_deeply($answer->{answer}, [ [ 'old', 0, 0, $next, JSON::PP::true ] ],
	'Produce v2 carrying a record batch of magic 2 is stored');
is(rows_from($next), qq{$next=b:batch in v2:{"h": "x"}}, 'with its header');
$next++;

# ---- the same checks as for record batches
$answer = fmt('produce', 0, 'magic0-corrupt', 'old', encode_json([ [ 'x', 'corrupt' ] ]));
is_deeply($answer->{answer}, [ [ 'old', 0, 2, -1 ] ],
	'a message whose CRC does not match is CORRUPT_MESSAGE');
$answer = fmt('produce', 1, 'magic1-gzip', 'oldjson',
	encode_json([ [ 'ok', '{"a": 1}' ], [ 'bad', 'not json' ] ]));
is_deeply($answer->{answer}, [ [ 'oldjson', 0, 87, -1 ] ],
	'a value that is not JSON for a jsonb topic is INVALID_RECORD, even in a gzip wrapper');
$answer = fmt('produce', 0, 'magic0', 'oldjson', encode_json([ [ 'ok', '{"a": 1}' ] ]));
is_deeply($answer->{answer}, [ [ 'oldjson', 0, 0, 0 ] ], 'valid JSON is stored');
is($node->safe_psql('postgres', q{SELECT count(*) FROM old WHERE value = 'corrupt'}), '0',
	'nothing of the corrupt message is stored');
is($node->safe_psql('postgres', q{SELECT string_agg(key || '=' || value::text, ',') FROM oldjson}),
	'ok={"a": 1}', 'nor anything of the partition with the invalid record');

# a compacted topic refuses keyless records whatever the framing: here a
# message set of two gzip wrappers, each a batch of its own, the second
# holding more keyless records than the first (the refusal's index of them
# once grew from the first batch's size and wrote past its end: silently
# on a server built without memory checking, as Debian's is)
$node->safe_psql('postgres', q{
SELECT topics.create_topic('oldc', 1, 'text', 'text', configs => '{"cleanup.policy": "compact"}')});
my $log_offset = -s $node->logfile;
$answer = fmt('produce', 2, 'magic1-gzip2', 'oldc',
	encode_json([ map { [ undef, "keyless $_" ] } 1 .. 200 ]));
is_deeply($answer->{answer}, [ [ 'oldc', 0, 87, -1, JSON::PP::false ] ],
	'a compacted topic answers keyless records in two gzip wrappers with INVALID_RECORD');
$answer = fmt('produce', 2, 'magic1-gzip2', 'oldc',
	encode_json([ [ 'k1', 'one' ], map { [ "k$_", "kept $_" ] } 2 .. 40 ]));
is_deeply($answer->{answer}, [ [ 'oldc', 0, 0, 0, JSON::PP::true ] ],
	'and stores keyed ones framed so');
is($node->safe_psql('postgres', q{SELECT count(*) FROM oldc WHERE key IS NULL}), '0',
	'no keyless record is stored');
unlike(slurp_file($node->logfile, $log_offset), qr/write past chunk end|TRAP:|terminated by signal/,
	'the server neither crashed nor found memory written past a chunk');

# ---- the versions of record batches, flexible ones included
for my $version (3, 5, 8, 9, 10, 11)
{
	$answer = fmt('produce', $version, 'batch', 'old', encode_json([ [ "v$version", 'new' ] ]));
	is_deeply($answer->{answer},
		[ [ 'old', 0, 0, $next, JSON::PP::true, ($version >= 5 ? (0) : ()),
			($version >= 8 ? (undef) : ()) ] ],
		"Produce v$version: stored at offset $next" . ($version >= 9 ? ' (flexible)' : ''));
	is($answer->{rest}, 0, "the answer is of the layout of v$version, to its last byte");
	$next++;
}
is($node->safe_psql('postgres', qq{SELECT count(*) FROM old WHERE value = 'new'}), '6',
	'SQL sees each of them');

# ---- back to back in one transaction, flexible
is_deeply(fmt('pipelined', 9, 'old', 'pipe'),
	[ [ 0, $next ], [ 0, $next + 1 ], [ 0, $next + 2 ] ],
	'three Produce v9 requests sent back to back are each answered, in order');
is($node->safe_psql('postgres', q{SELECT count(*) FROM old WHERE key = 'pipe'}), '3',
	'and stored');
$next += 3;
is_deeply(fmt('pipelined', 11, 'old', 'bad-pipe', 1), { closed => [] },
	'a Produce v11 pipeline whose third request is malformed closes the connection, answering none');
is($node->safe_psql('postgres', q{SELECT count(*) FROM old WHERE key = 'bad-pipe'}), '0',
	'and none of them is stored: they shared one transaction');

# ---- Fetch at the versions served, flexible ones and topic ids included
my @first = ([ 0, 'v0-magic0-k', 'v0-magic0 a', [] ], [ 1, undef, 'v0-magic0 b', [] ]);
for my $version (0, 2, 4, 7, 11, 12, 13, 17)
{
	my $topic = 'old';
	if ($version >= 13)
	{
		# the topic id: kafka/topic_id.c's derivation, from SQL
		$topic = $node->safe_psql('postgres', q{
SELECT encode(set_byte(set_byte(substring(
         sha256('pg_topics topic'::bytea || '\x00'::bytea
                || int8send(system_identifier)
                || int4send((SELECT oid FROM pg_database WHERE datname = current_database())::int4)
                || int4send('old'::regclass::oid::int4)) FROM 1 FOR 16),
       6, (get_byte(substring(sha256('pg_topics topic'::bytea || '\x00'::bytea
                || int8send(system_identifier)
                || int4send((SELECT oid FROM pg_database WHERE datname = current_database())::int4)
                || int4send('old'::regclass::oid::int4)) FROM 1 FOR 16), 6) & 15) | 128),
       8, (get_byte(substring(sha256('pg_topics topic'::bytea || '\x00'::bytea
                || int8send(system_identifier)
                || int4send((SELECT oid FROM pg_database WHERE datname = current_database())::int4)
                || int4send('old'::regclass::oid::int4)) FROM 1 FOR 16), 8) & 63) | 128), 'hex')
FROM pg_control_system()});
	}
	# max_wait 20 s, min_bytes 1: records are there, so no waiting for more
	my $got = fmt('fetch', $version, $topic, 0, 200, 20000);
	is($got->{error}, 0, "Fetch v$version" . ($version >= 13 ? ' by topic id' : '') . ': no error');
	ok($got->{seconds} < 10,
		"answered at once with records there, not after its max_wait of 20 s ($got->{seconds} s)");
	is($got->{rest}, 0, "its answer is of the layout of v$version, to its last byte");
	is_deeply([ @{ $got->{records} }[ 0 .. 1 ] ], \@first,
		'the first records, as produced in message sets (no headers)');
	# the two offsets of the malformed pipeline, rolled back, are below it
	is($got->{high_watermark}, $next + 2, 'the high watermark');
	is($got->{magic}, $version < 2 ? 0 : $version < 4 ? 1 : 2,
		'in message format v' . ($version < 2 ? 0 : $version < 4 ? 1 : 2));
}
my $some = fmt('fetch', 12, 'old', 24, 1048576);
is_deeply($some->{records}[0], [ 24, 'b', 'batch in v2', [ [ 'h', 'x' ] ] ],
	'Fetch v12 gives a record batch\'s headers back');
$some = fmt('fetch', 3, 'old', 24, 1048576);
is_deeply($some->{records}[0], [ 24, 'b', 'batch in v2', [] ],
	'Fetch v3 drops them (message format v1 has none)');
is(scalar(@{ fmt('fetch', 1, 'old', 0, 10)->{records} }), 1,
	'Fetch v1 answers the first record whatever its size too');
is(scalar(@{ fmt('fetch', 2, 'old', 0, 110)->{records} }), 2,
	'and keeps within partition_max_bytes: two messages of magic 1 (101 bytes) in 110');
my $small = fmt('fetch', 12, 'old', 0, 100);
ok(@{ $small->{records} } >= 1 && @{ $small->{records} } < 4,
	'and keeps within partition_max_bytes (' . scalar(@{ $small->{records} }) . ' records in 100 bytes)');
is(scalar(@{ fmt('fetch', 12, 'old', 0, 10)->{records} }), 1,
	'except for the first record, answered whatever its size');
is(fmt('fetch', 13, '00112233445566778899aabbccddeeff', 0)->{error}, 100,
	'an unknown topic id is UNKNOWN_TOPIC_ID');
is(fmt('fetch', 12, 'nosuch', 0)->{error}, 3, 'an unknown topic name UNKNOWN_TOPIC_OR_PARTITION');

# ---- kafka-python as a client of Kafka 0.9 and 0.10
for my $api ([ '0.9', 'magic 0 (Produce v1)' ], [ '0.10', 'magic 1 (Produce v2)' ])
{
	my ($version, $what) = @$api;
	my $sent = fmt('kp_produce', $version, 'kp', 5);
	my $n = $node->safe_psql('postgres',
		qq{SELECT count(*) FROM kp WHERE convert_from(value, 'UTF8') LIKE '$version %'});
	is($n, '10', "kafka-python with api_version $version produces in $what, plain and gzip");
	my @none = @{ $sent->{none} };
	my @gzip = @{ $sent->{gzip} };
	is_deeply([ @none, @gzip ], [ $none[0] .. $none[0] + 9 ],
		'its futures report the offsets stored') or diag(encode_json($sent));
}
is($node->safe_psql('postgres', q{
SELECT count(*) FROM kp
WHERE convert_from(key, 'UTF8') = 'kp-' || split_part(convert_from(value, 'UTF8'), ' ', 3)}),
	'20', 'each record with its key');
my $read = fmt('kp_consume', '0.10', 'kp');
is(scalar(@$read), 20, 'kafka-python with api_version 0.10 reads them all back (Fetch v2, magic 1)');
is($read->[5][1], '0.9 gzip 0', 'in the order stored');

$node->stop;
done_testing();
