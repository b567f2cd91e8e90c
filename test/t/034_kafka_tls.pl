# TLS for Kafka clients with the server's own certificate: security.protocol
# SSL and SASL_SSL on the listener's one port, next to plaintext clients.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use IPC::Run qw(run timeout);
use JSON::PP;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('kafka_tls');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
my $data = $node->data_dir;
# a self-signed certificate for the server, as a test CA of its own
my ($o, $e) = ('', '');
run([ 'openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2',
		'-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
		'-keyout', "$data/server.key", '-out', "$data/server.crt" ],
	'>', \$o, '2>', \$e) or die "openssl: $e";
chmod 0600, "$data/server.key";
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
ssl = on
pg_topics.kafka_auth = 'scram-sha-256'
});
$node->start;
wait_for_kafka_listener($kport);
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('secure', 1, 'text', 'text');
CREATE ROLE app LOGIN PASSWORD 'app-pw';
GRANT SELECT, INSERT ON secure TO app;
});
my $ca = "$data/server.crt";

sub kcat
{
	my ($stdin, @args) = @_;
	return kcat_run($bootstrap, $stdin, '-m', '10', @args);
}

my @sasl = ('-X', 'sasl.mechanisms=SCRAM-SHA-256', '-X', 'sasl.username=app',
	'-X', 'sasl.password=app-pw');
my ($ok, $out, $err) = kcat("one\ntwo\n", '-P', '-t', 'secure', '-X', 'security.protocol=SASL_SSL',
	'-X', "ssl.ca.location=$ca", @sasl);
ok($ok, 'kcat produces over SASL_SSL, verifying the server\'s certificate') or diag($err);
($ok, $out, $err) = kcat('', '-C', '-t', 'secure', '-o', 'beginning', '-e', '-f', '%s\n',
	'-X', 'security.protocol=SASL_SSL', '-X', "ssl.ca.location=$ca", @sasl);
is($out, "one\ntwo\n", 'and consumes over it');

($ok, $out, $err) = kcat('', '-L', '-X', 'security.protocol=SSL', '-X', "ssl.ca.location=$ca");
unlike($out, qr/secure/, 'TLS alone does not authenticate under scram-sha-256: nothing is listed');

my $kp = kafka_script('clients.py', $bootstrap, 'kp_tls', $ca, 'secure', 'SCRAM-SHA-256',
	'app', 'app-pw');
is($kp->{read}, 3, 'kafka-python over SASL_SSL produces and consumes');

($ok, $out, $err) = kcat('', '-L', '-J', '-X', 'security.protocol=SASL_PLAINTEXT', @sasl);
is(scalar @{ decode_json($out)->{topics} }, 1, 'plaintext clients share the port');

# ---- the server's TLS settings (ssl_min_protocol_version,
# ssl_max_protocol_version, ssl_ciphers) apply to the Kafka port as to
# PostgreSQL's own, and follow a reload as the postmaster's do
sub probe
{
	my ($min, $max, $ciphers) = @_;
	return kafka_script('protocol.py', $bootstrap, 'tls_probe', $ca, $min, $max, $ciphers);
}

# probe until the listeners have reloaded: the answer matching $expected
sub probe_after_reload
{
	my ($expected, @args) = @_;
	my $answer;
	for (1 .. 40)
	{
		$answer = probe(@args);
		last if $answer =~ $expected;
		usleep(250_000);
	}
	return $answer;
}

like(probe('', 'TLSv1_2', ''), qr/^ok TLSv1\.2 /,
	'by default (ssl_min_protocol_version TLSv1.2) a TLS 1.2 client connects');
$node->append_conf('postgresql.conf', "ssl_min_protocol_version = 'TLSv1.3'\n");
$node->reload;
like(probe_after_reload(qr/^refused/, '', 'TLSv1_2', ''), qr/^refused/,
	'with ssl_min_protocol_version TLSv1.3, a client that speaks at most TLS 1.2 is refused');
like(probe('TLSv1_3', '', ''), qr/^ok TLSv1\.3 /, 'a TLS 1.3 client connects');

$node->append_conf('postgresql.conf', q{
ssl_min_protocol_version = 'TLSv1.2'
ssl_max_protocol_version = 'TLSv1.2'
ssl_ciphers = 'ECDHE-RSA-AES256-GCM-SHA384'
});
$node->reload;
like(probe_after_reload(qr/^ok TLSv1\.2/, '', '', ''), qr/^ok TLSv1\.2 ECDHE-RSA-AES256-GCM-SHA384$/,
	'with ssl_max_protocol_version TLSv1.2 and one cipher in ssl_ciphers, a client gets TLS 1.2 and that cipher');
like(probe('', '', 'ECDHE-RSA-AES128-GCM-SHA256'), qr/^refused/,
	'a client without that cipher is refused');
like(probe('TLSv1_3', '', ''), qr/^refused/, 'a client that speaks only TLS 1.3 is refused');

$node->append_conf('postgresql.conf', "ssl_ciphers = 'NO-SUCH-CIPHER'\n");
$node->reload;
ok($node->wait_for_log(qr/Kafka listener cannot use these TLS settings: ssl_ciphers "NO-SUCH-CIPHER" names no cipher available/),
	'settings that cannot be used are logged');
like(probe('', '', ''), qr/^ok TLSv1\.2 ECDHE-RSA-AES256-GCM-SHA384$/,
	'and the listener keeps the TLS settings it had, as the postmaster does');

$node->stop;
done_testing();
