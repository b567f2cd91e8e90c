# kafkajs, the Node.js Kafka client, for a TAP test: the version that
# test/kafka/kafkajs/package-lock.json pins, installed from npm's registry
# into a directory of the test (npm's cache and logs too), so that the
# test's scripts (test/kafka/kafkajs/*.js) find it through NODE_PATH.
# Used by test/t/058_kafka_kafkajs.pl and 069.
package PgTopicsKafkajs;

use strict;
use warnings;
use Exporter 'import';
use File::Copy qw(copy);
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();
use PgTopicsTest;

our @EXPORT = qw(install_kafkajs);

# Install kafkajs into a new directory of the test and point NODE_PATH at
# it; returns the directory.  Skips the whole test, saying why, only when
# npm's registry cannot be reached: anything else that fails is a failure.
sub install_kafkajs
{
	my $js = kafka_script_path('kafkajs');
	my $npm_dir = PostgreSQL::Test::Utils::tempdir('kafkajs');

	for my $f ('package.json', 'package-lock.json')
	{
		copy("$js/$f", "$npm_dir/$f") or die "could not copy $js/$f: $!";
	}
	for my $tool ('node', 'npm')
	{
		system('sh', '-c', "command -v $tool >/dev/null") == 0
		  or die "$tool is not installed (scripts/test.sh installs Node.js and npm)";
	}
	# npm's cache and logs stay in the test's directory, its update check off
	my @npm = ('npm', '--prefix', $npm_dir, '--cache', "$npm_dir/cache",
		'--no-audit', '--no-fund', '--no-update-notifier');
	my $started = Time::HiRes::time();
	my ($out, $err) = ('', '');

	# the registry first, retrying for seconds, not npm's minutes
	if (!IPC::Run::run([ @npm, 'ping', '--fetch-retries=2', '--fetch-retry-mintimeout=1000',
				'--fetch-retry-maxtimeout=3000' ], '>', \$out, '2>', \$err,
			IPC::Run::timeout(120)))
	{
		my ($why) = ($err =~ /^npm error (?:FetchError: )?(request to .*)$/m);
		($why) = ($err =~ /^npm error (.*)$/m) unless defined $why;
		plan skip_all => "npm's registry cannot be reached, so kafkajs cannot be installed ("
		  . ($why // 'npm ping failed') . ')';
	}
	IPC::Run::run([ @npm, 'ci', '--ignore-scripts' ], '>', \$out, '2>', \$err,
		IPC::Run::timeout(600))
	  or die "npm ci of kafkajs failed, though npm's registry answers:\n$out$err";
	note(sprintf('kafkajs installed (npm ping, npm ci) in %.1f s', Time::HiRes::time() - $started));
	$ENV{NODE_PATH} = "$npm_dir/node_modules";
	return $npm_dir;
}

1;
