# The user guides' examples run as the pages show them: for each page, a
# fresh server and database, every ```sql block in page order through psql,
# and its output compared with the output block the page shows after it (or,
# for a block without one, its errors with the block's "-- ERROR:" comments).
# The page conventions are in docs/testing.md ("Doc tests").
use strict;
use warnings;
use File::Basename qw(dirname);
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $root = dirname(__FILE__) . '/../..';
# DOC_PAGES=topics.md runs one page; README.md is the repository's, the
# others are in docs/
my @pages = $ENV{DOC_PAGES} ? split(/,/, $ENV{DOC_PAGES})
  : ('topics.md', 'consumer-groups.md', 'operations.md', 'replication.md', 'README.md');
sub page_file
{
	my ($page) = @_;
	return $page eq 'README.md' ? "$root/$page" : "$root/docs/$page";
}

# seconds a block may take before the test gives up on it
my $block_timeout = 60;

# The page's fenced blocks: [{ lang, line (of the opening fence, from 1),
# lines => [[page line, text]], directive, reason }], with the fence's indent
# or blockquote prefix removed.  A directive is an HTML comment
# <!-- doctest: WORD (REASON) --> on the line right before the fence.
sub parse_blocks
{
	my ($file) = @_;
	my @text = split /\n/, slurp_file($file), -1;
	my (@blocks, $cur, $prefix_re, $fence, $pending);
	for my $i (0 .. $#text)
	{
		my $line = $text[$i];
		my $n = $i + 1;
		if ($cur)
		{
			my $body = $line;
			$body =~ s/$prefix_re//;
			if ($body =~ /^\Q$fence\E`*\s*$/)
			{
				push @blocks, $cur;
				$cur = undef;
				$pending = undef;
				next;
			}
			push @{ $cur->{lines} }, [ $n, $body ];
			next;
		}
		if ($line =~ /^((?:\s*>)?\s*)(`{3,})\s*([\w-]*)\s*$/)
		{
			my ($prefix, $lang) = ($1, $3);
			$fence = $2;
			# a block quoted ("> ") or indented (in a list item) loses that
			# prefix on each of its lines
			my $k = length($prefix);
			$prefix_re = $prefix =~ />/ ? qr/^\s*> ?/ : qr/^ {0,$k}/;
			$cur = { lang => $lang, line => $n, lines => [] };
			if ($pending && $pending->{line} == $n - 1)
			{
				$cur->{directive} = $pending->{word};
				$cur->{reason} = $pending->{reason};
			}
			$pending = undef;
			next;
		}
		if ($line =~ /<!--\s*doctest:\s*([\w-]+)\s*(?:\((.*)\))?\s*-->/)
		{
			$pending = { line => $n, word => $1, reason => $2 };
			next;
		}
	}
	die "$file: unterminated block at line $cur->{line}\n" if $cur;
	# an output block is the plain (or text) block on the line right after a
	# sql block's closing fence
	my @sql;
	for my $b (0 .. $#blocks)
	{
		my $block = $blocks[$b];
		$block->{end} = $block->{lines}[-1] ? $block->{lines}[-1][0] + 1 : $block->{line} + 1;
	}
	for my $b (0 .. $#blocks)
	{
		my $block = $blocks[$b];
		next unless $block->{lang} eq 'sql';
		my $next = $blocks[ $b + 1 ];
		if ($next && ($next->{lang} eq '' || $next->{lang} eq 'text')
			&& $next->{line} == $block->{end} + 1)
		{
			$block->{output} = $next;
		}
		push @sql, $block;
	}
	return @sql;
}

# A psql session on the page's database: -X (no psqlrc), -q (no command
# tags), errors interleaved with results as a terminal shows them.
sub start_session
{
	my ($node, $db) = @_;
	my $s = { in => '', out => '' };
	$s->{timer} = IPC::Run::timeout($block_timeout);
	$s->{h} = IPC::Run::start(
		[ 'psql', '-X', '-q', '-d', $node->connstr($db) . ' user=postgres' ],
		'<', \$s->{in}, '>&', \$s->{out}, $s->{timer});
	return $s;
}

# Run $sql in session $s and return what psql printed for it
my $marker_count = 0;
sub run_in_session
{
	my ($s, $sql) = @_;
	my $marker = 'doctest-end-' . ++$marker_count;
	$s->{out} = '';
	$s->{in} .= "$sql\n\\echo $marker\n";
	$s->{timer}->start($block_timeout);
	eval {
		$s->{h}->pump until $s->{out} =~ /^\Q$marker\E$/m;
		1;
	} or return (undef, $s->{out});
	(my $out = $s->{out}) =~ s/^\Q$marker\E\n.*//ms;
	return ($out, undef);
}

# lines without trailing blanks, and without blank lines at the end
sub normalize
{
	my @l = map { (my $x = $_) =~ s/\s+$//; $x } @_;
	pop @l while @l && $l[-1] eq '';
	return @l;
}

# A line diff of expected (with page line numbers) and actual, for failures
sub line_diff
{
	my ($page, $exp, $act) = @_;    # $exp: [[line, text]], $act: [text]
	my ($n, $m) = (scalar @$exp, scalar @$act);
	my @lcs = map { [ (0) x ($m + 1) ] } 0 .. $n;
	for (my $i = $n - 1; $i >= 0; $i--)
	{
		for (my $j = $m - 1; $j >= 0; $j--)
		{
			$lcs[$i][$j] = $exp->[$i][1] eq $act->[$j]
			  ? $lcs[ $i + 1 ][ $j + 1 ] + 1
			  : ($lcs[ $i + 1 ][$j] > $lcs[$i][ $j + 1 ] ? $lcs[ $i + 1 ][$j] : $lcs[$i][ $j + 1 ]);
		}
	}
	my @d;
	my ($i, $j) = (0, 0);
	while ($i < $n || $j < $m)
	{
		if ($i < $n && $j < $m && $exp->[$i][1] eq $act->[$j])
		{
			push @d, sprintf("%s:%-5s   %s", $page, $exp->[$i][0], $exp->[$i][1]);
			$i++, $j++;
		}
		elsif ($j < $m && ($i == $n || $lcs[$i][ $j + 1 ] >= $lcs[ $i + 1 ][$j]))
		{
			push @d, sprintf("%s:%-5s + %s", $page, '', $act->[$j]);
			$j++;
		}
		else
		{
			push @d, sprintf("%s:%-5s - %s", $page, $exp->[$i][0], $exp->[$i][1]);
			$i++;
		}
	}
	return join("\n", "(- the page, + psql)", @d);
}

my $node_count = 0;
for my $page (@pages)
{
	my @blocks = parse_blocks(page_file($page));
	my $start = time;

	# a fresh server per page: roles are the cluster's
	my $node = PostgreSQL::Test::Cluster->new('doc_' . ++$node_count);
	$node->init;
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
});
	$node->start;
	# the pages run as superuser "postgres", in a database it owns
	$node->safe_psql('postgres', q{
DO $$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'postgres') THEN
		CREATE ROLE postgres SUPERUSER LOGIN;
	END IF;
END $$;
CREATE DATABASE doc OWNER postgres TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C';
});
	local $ENV{PGCLIENTENCODING} = 'UTF8';
	local $ENV{PGTZ} = 'UTC';
	local $ENV{PGDATESTYLE} = 'ISO, YMD';

	my %sessions;
	my @replaced;
	my ($run, $skipped) = (0, 0);
	for my $block (@blocks)
	{
		my $where = "$page:$block->{line}";
		my $d = $block->{directive};
		if (defined $d && $d eq 'skip')
		{
			ok(defined $block->{reason} && $block->{reason} ne '', "$where: skipped, with a reason")
			  or diag("$where: <!-- doctest: skip (why) --> needs its reason");
			note("$where: skipped ($block->{reason})") if defined $block->{reason};
			$skipped++;
			next;
		}
		if (defined $d)
		{
			fail("$where: unknown doctest directive \"$d\"");
			next;
		}
		$run++;
		my @sql = map { $_->[1] } @{ $block->{lines} };
		# "-- session NAME" on the first line: that session (opened at its
		# first use), otherwise the page's main session
		my $name = (@sql && $sql[0] =~ /^--\s*session\s+(\S+)/) ? $1 : '';
		$sessions{$name} //= start_session($node, 'doc');
		my ($out, $partial) = run_in_session($sessions{$name}, join("\n", @sql));
		if (!defined $out)
		{
			fail("$where: the block ends within ${block_timeout} s");
			diag("$where: psql printed so far:\n$partial");
			# that session is stuck: the next block of it starts another
			eval { $sessions{$name}{h}->kill_kill; };
			delete $sessions{$name};
			next;
		}
		my @actual = normalize(split /\n/, $out);
		my @expected;
		my $what;
		if ($block->{output})
		{
			$what = "output block at line $block->{output}{line}";
			my @l = @{ $block->{output}{lines} };
			my @t = normalize(map { $_->[1] } @l);
			@expected = map { [ $l[$_][0], $t[$_] ] } 0 .. $#t;
		}
		else
		{
			# only the errors count: those the block's comments show
			$what = 'errors in its "-- ERROR:" comments';
			@expected = map { [ $_->[0], $_->[1] =~ s/^\s*--\s?//r =~ s/\s+$//r ] }
			  grep { $_->[1] =~ /^\s*--\s?(ERROR|DETAIL|HINT):/ } @{ $block->{lines} };
			my $in_error = 0;
			@actual = grep {
				$in_error = $1 eq 'ERROR' if /^(ERROR|WARNING|NOTICE|INFO|LOG|DEBUG\d?):/;
				$in_error && /^(ERROR|DETAIL|HINT):/
			} @actual;
		}
		my $same = @expected == @actual
		  && !grep { $expected[$_][1] ne $actual[$_] } 0 .. $#actual;
		ok($same, "$where: psql shows the $what")
		  or diag("$where: the block's psql output differs from the page's:\n"
			  . line_diff($page, \@expected, \@actual));
		push @replaced, [ $block->{output}, [@actual] ] if $block->{output} && !$same;
	}
	# the page with psql's output in its output blocks, to compare or copy
	if (@replaced)
	{
		my @text = split /\n/, slurp_file(page_file($page)), -1;
		for my $r (reverse @replaced)
		{
			my ($o, $lines) = @$r;
			# the output block's lines, between its fences, keep its prefix
			my ($prefix) = $text[ $o->{line} - 1 ] =~ /^(.*?)`/;
			splice @text, $o->{line}, $o->{end} - $o->{line} - 1,
			  map { ($prefix . $_) =~ s/\s+$//r } @$lines;
		}
		my $file = "${PostgreSQL::Test::Utils::tmp_check}/$page";
		open my $fh, '>', $file or die "could not write $file: $!";
		print $fh join("\n", @text);
		close $fh;
		diag("$page as psql ran it: $file");
	}
	for my $s (values %sessions)
	{
		$s->{in} .= "\\q\n";
		eval { $s->{h}->finish; };
	}
	note(sprintf("%s: %d blocks run, %d skipped, %d s", $page, $run, $skipped, time - $start));
	$node->stop;
}

done_testing();
