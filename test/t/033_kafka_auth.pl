# Kafka clients authenticate as PostgreSQL roles with their PostgreSQL
# passwords (SCRAM-SHA-256 against the stored verifier, or PLAIN), and the
# roles' GRANTs decide what they may produce, see and read.  Trust is
# refused while the listener listens beyond loopback.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use IO::Socket::INET;
use IPC::Run qw(run timeout);
use JSON::PP;

my $node = PostgreSQL::Test::Cluster->new('kafka_auth');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_auth = 'scram-sha-256'
password_encryption = 'scram-sha-256'
});
$node->start;
wait_for_kafka_listener($kport);
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('orders', 1, 'text', 'text');
SELECT topics.create_topic('readonly', 1, 'text', 'text');
SELECT topics.create_topic('hidden', 1, 'text', 'text');
CREATE ROLE alice LOGIN PASSWORD 'alice-pw';
CREATE ROLE nologin NOLOGIN PASSWORD 'pw';
CREATE ROLE expired LOGIN PASSWORD 'pw' VALID UNTIL '2000-01-01';
CREATE ROLE nopw LOGIN;
SET password_encryption = 'md5';
CREATE ROLE md5user LOGIN PASSWORD 'md5-pw';
RESET password_encryption;
GRANT SELECT, INSERT ON orders TO alice, md5user;
GRANT SELECT ON readonly TO alice;
SELECT topics.produce('hidden', 'secret');
});

# kcat as user/password over SASL_PLAINTEXT with mechanism: (status, stdout, stderr)
sub kcat_as
{
	my ($mechanism, $user, $password, $stdin, @args) = @_;
	my ($ok, $out, $err) = kcat_run($bootstrap, $stdin,
		'-X', 'security.protocol=SASL_PLAINTEXT',
		'-X', "sasl.mechanisms=$mechanism", '-X', "sasl.username=$user",
		'-X', "sasl.password=$password", '-X', 'socket.timeout.ms=5000',
		'-m', '10', @args);
	return ($ok ? 0 : 1, $out, $err);
}

sub client
{
	return kafka_script('clients.py', $bootstrap, @_);
}

# ---- SCRAM-SHA-256 with librdkafka
my ($st, $out, $err) = kcat_as('SCRAM-SHA-256', 'alice', 'alice-pw', '', '-L', '-J');
my $meta = decode_json($out);
is_deeply([ sort map { $_->{topic} } @{ $meta->{topics} } ], [ 'orders', 'readonly' ],
	'SCRAM-SHA-256 as alice: Metadata lists the topics alice may SELECT, not the others');

($st, $out, $err) = kcat_as('SCRAM-SHA-256', 'alice', 'alice-pw', "one\ntwo\n", '-P', '-t', 'orders');
is($st, 0, 'alice produces to a topic she may INSERT into');
is($node->safe_psql('postgres', q{SELECT string_agg(value, ',' ORDER BY "offset") FROM orders}),
	'one,two', 'and the records are there');
($st, $out, $err) = kcat_as('SCRAM-SHA-256', 'alice', 'alice-pw', "no\n", '-P', '-t', 'readonly');
like($err, qr/Topic authorization failed/, 'producing without INSERT is TOPIC_AUTHORIZATION_FAILED');
is($node->safe_psql('postgres', 'SELECT count(*) FROM readonly'), '0', 'and nothing is stored');
($st, $out, $err) = kcat_as('SCRAM-SHA-256', 'alice', 'alice-pw', '', '-C', '-t', 'hidden', '-p', '0',
	'-o', 'beginning', '-e');
unlike($out, qr/secret/, 'a topic alice may not SELECT is not read');
like($err, qr/authorization failed|Unknown topic/i, 'Fetch of it is refused');

for my $case ([ 'alice', 'wrong', 'a wrong password' ],
	[ 'nobody', 'pw', 'an unknown role' ],
	[ 'nologin', 'pw', 'a NOLOGIN role' ],
	[ 'expired', 'pw', 'a role past VALID UNTIL' ],
	[ 'md5user', 'md5-pw', 'a role with an md5 password (SCRAM needs a SCRAM secret)' ])
{
	my ($user, $pw, $what) = @$case;
	($st, $out, $err) = kcat_as('SCRAM-SHA-256', $user, $pw, '', '-L');
	like($err, qr/Authentication failed|SASL authentication error|invalid credentials/i,
		"$what does not authenticate");
}
($st, $out, $err) = kcat_as('SCRAM-SHA-256', 'nopw', 'pw', '', '-L');
like($err, qr/Authentication failed|SASL authentication error|invalid credentials/i,
	'a role without a password does not authenticate');

# The server log gives each failure's real reason, in the words of
# PostgreSQL's own failed logins
sub logged_reason
{
	my ($user, $reason, $offset) = @_;
	return slurp_file($node->logfile, $offset // 0) =~
	  qr/Kafka client authentication failed for user "\Q$user\E" from [^\n]*\n[^\n]*DETAIL:  \Q$reason\E/;
}
for my $case ([ 'alice', 'Password does not match for user "alice".' ],
	[ 'nobody', 'Role "nobody" does not exist.' ],
	[ 'nologin', 'Role "nologin" is not permitted to log in.' ],
	[ 'expired', 'User "expired" has an expired password.' ],
	[ 'md5user', 'User "md5user" does not have a valid SCRAM secret.' ],
	[ 'nopw', 'User "nopw" has no password assigned.' ])
{
	ok(logged_reason(@$case), "SCRAM: the server log says \"$case->[1]\"");
}

# ---- SCRAM with kafka-python (SaslHandshake v0 and unframed tokens)
my $kp = client('kp_sasl', 'SCRAM-SHA-256', 'alice', 'alice-pw', 'orders');
is($kp->{read}, 3, 'kafka-python authenticates with SCRAM-SHA-256, produces and consumes') or diag(encode_json($kp));
$kp = client('kp_sasl', 'SCRAM-SHA-256', 'alice', 'bad', 'orders');
ok(exists $kp->{error}, "kafka-python with a wrong password is refused ($kp->{error})");

# ---- a client that ignores a failed exchange gets nothing
sub request
{
	my ($sock, $key, $version, $corr, $body) = @_;
	my $payload = pack('n n N n/a*', $key, $version, $corr, 'raw') . $body;
	print $sock pack('N', length $payload) . $payload;
	my $len;
	return undef unless read($sock, $len, 4) == 4;
	my $data;
	$len = unpack('N', $len);
	return undef unless read($sock, $data, $len) == $len;
	return $data;
}
my $sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $kport, Timeout => 10)
  or die "connect: $!";
my $r = request($sock, 17, 1, 1, pack('n/a*', 'SCRAM-SHA-256'));
is(unpack('x4 n', $r), 0, 'SaslHandshake SCRAM-SHA-256');
$r = request($sock, 36, 0, 2, pack('N/a*', 'n,,n=alice,r=abcdefghijklmnop'));
my ($code, $msg_len) = unpack('x4 n n', $r);
my $server_first = substr($r, 4 + 2 + 2 + ($msg_len == 0xffff ? 0 : $msg_len) + 4);
like($server_first, qr/^r=abcdefghijklmnop[^,]+,s=[^,]+,i=4096$/, 'server-first-message');
my ($nonce) = $server_first =~ /^r=([^,]+)/;
$r = request($sock, 36, 0, 3, pack('N/a*', "c=biws,r=$nonce,p=" . ('A' x 43) . '='));
is(unpack('x4 n', $r), 58, 'a bad proof is SASL_AUTHENTICATION_FAILED');
is(request($sock, 3, 1, 4, pack('N', 0)), undef, 'and the connection is closed: no request gets through');

$sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $kport, Timeout => 10)
  or die "connect: $!";
is(request($sock, 3, 1, 5, pack('N', 0)), undef,
	'a request other than ApiVersions and SaslHandshake before authenticating closes the connection');

# ---- PLAIN
$node->append_conf('postgresql.conf', "pg_topics.kafka_auth = 'plain'\n");
$node->reload;
sleep 1;
($st, $out, $err) = kcat_as('PLAIN', 'md5user', 'md5-pw', '', '-L', '-J');
is_deeply([ map { $_->{topic} } @{ decode_json($out)->{topics} } ], ['orders'],
	'PLAIN authenticates a role with an md5 password too');
($st, $out, $err) = kcat_as('PLAIN', 'alice', 'nope', '', '-L');
like($err, qr/Authentication failed|SASL authentication error|invalid credentials/i, 'PLAIN with a wrong password does not');
($st, $out, $err) = kcat_as('SCRAM-SHA-256', 'alice', 'alice-pw', '', '-L');
like($err, qr/mechanism|Authentication failed|SASL/i, 'under plain, SCRAM-SHA-256 is not offered');
$kp = client('kp_sasl', 'PLAIN', 'alice', 'alice-pw', 'orders');
is($kp->{read}, 4, 'kafka-python authenticates with PLAIN') or diag(encode_json($kp));

# PLAIN answers every failure alike and as late: a role that does not
# exist (or cannot use its password) costs a password check as a wrong
# password does, as SCRAM's mock exchange does
my @plain = ('alice:wrong', 'nobody:wrong', 'nologin:pw', 'expired:pw', 'nopw:pw');
# a failed login is logged once per client address, mechanism and user every
# 10 s (kafka/log_limit.c): alice's failed PLAIN login above must not be in
# the window of these
sleep(10);
my $log_offset = -s $node->logfile;
my $logins = kafka_script('protocol.py', $bootstrap, 'plain_logins', 15, @plain);
my $alice_ms = $logins->{'alice:wrong'}{median_ms};
for my $login (@plain)
{
	is_deeply($logins->{$login}{answers}, [ [ 58, 'Authentication failed: invalid credentials' ] ],
		"PLAIN $login is answered as every failed login is");
}
note(join(', ', map { "$_: $logins->{$_}{median_ms} ms" } @plain)
	  . ' (median SaslAuthenticate round trips of 15 PLAIN logins)');
for my $login (@plain[ 1 .. $#plain ])
{
	ok($logins->{$login}{median_ms} >= $alice_ms / 3,
		"PLAIN $login takes about as long as a wrong password ($logins->{$login}{median_ms} ms vs $alice_ms ms)");
}
for my $case ([ 'alice', 'Password does not match for user "alice".' ],
	[ 'nologin', 'Role "nologin" is not permitted to log in.' ],
	[ 'expired', 'User "expired" has an expired password.' ],
	[ 'nopw', 'User "nopw" has no password assigned.' ],
	[ 'nobody', 'Role "nobody" does not exist.' ])
{
	ok(logged_reason(@$case, $log_offset), "PLAIN: the server log says \"$case->[1]\"");
}
$node->stop;

# ---- trust only on loopback
my $open = PostgreSQL::Test::Cluster->new('kafka_trust_open');
my $oport = PostgreSQL::Test::Cluster::get_free_port();
$open->init;
$open->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
pg_topics.kafka_port = $oport
pg_topics.kafka_listen_addresses = '*'
pg_topics.kafka_auth = 'trust'
});
$open->start;
$open->safe_psql('postgres', 'CREATE EXTENSION pg_topics');
ok($open->wait_for_log(qr/Kafka listener does not accept connections: pg_topics.kafka_auth is trust/),
	'trust with a non-loopback listen address: the listener says why it accepts nobody');
($out, $err) = ('', '');
run([ 'kcat', '-b', "127.0.0.1:$oport", '-L', '-m', '3' ], '>', \$out, '2>', \$err, timeout(30));
unlike($out, qr/broker \d+ at/, 'and no client gets an answer');
$open->append_conf('postgresql.conf', "pg_topics.kafka_auth = 'scram-sha-256'\n");
$open->reload;
sleep 1;
$sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $oport, Timeout => 10);
ok(defined $sock && defined request($sock, 18, 0, 1, ''),
	'with scram-sha-256 it accepts connections, after a reload');
$open->stop;

done_testing();
