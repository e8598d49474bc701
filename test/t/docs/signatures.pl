# The signatures the docs write, against pg_proc.  Every routine of the
# extension (found through pg_depend) must be in docs/reference.md's function
# index, linked to the section that holds its signature block, and every
# signature and call written in docs/reference.md, README.md and
# ranread_help() must name the routine's arguments as pg_proc has them.  Three
# forms are read (docs/reference.md, "Functions", states them for writers):
# - a signature, in a sql block of docs/reference.md, on a line that starts
#   with the routine's name (or CALL and it): every argument in order, as
#   "name type" ("type" alone for an unnamed one, OUT/VARIADIC as in SQL),
#   with DEFAULT exactly where pg_proc has a default, and RETURNS TABLE's
#   columns by name and type ("name() RETURNS ..." for none);
# - a usage, in README.md or in a line of ranread_help():
#   argument names only, in order, "[" before the first one with a default,
#   and "…" (or "...") last for the remaining ones with defaults:
#   ranread_run(processes, iterations [, target, …]);
# - a call (anything with a literal or "=>"), anywhere in these files: every
#   name before "=>" must be an argument, and there must not be more
#   positional values than arguments.
# "name()" names a routine in prose, and is not read.
# README's function table may name only routines and relations of the
# extension.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $top = "$FindBin::RealBin/../../..";
my $reference = slurp_file("$top/docs/reference.md");
my $readme = slurp_file("$top/README.md");

my $node = new_node('signatures');

# name => { kind, args => [ { mode, name, type } ], inputs, required }
my %routine;
foreach my $line (split /\n/, $node->safe_psql('postgres', q{
	SELECT p.proname, p.prokind, p.pronargs, p.pronargdefaults,
		   coalesce((SELECT string_agg(coalesce(p.proargmodes[a.n]::text, 'i') || ':' || coalesce(p.proargnames[a.n], '')
									   || ':' || format_type(a.t, NULL), ';' ORDER BY a.n)
					 FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) WITH ORDINALITY a(t, n)), '')
	FROM pg_proc p
	JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
	JOIN pg_extension e ON e.oid = d.refobjid AND d.refclassid = 'pg_extension'::regclass
	WHERE e.extname = 'ranread' ORDER BY 1}))
{
	my ($name, $kind, $nargs, $ndefaults, $args) = split /\|/, $line, 5;
	ok(!$routine{$name}, "$name is not overloaded (the docs and GRANTs name it alone)");
	my @args = map { my ($m, $n, $t) = split /:/, $_, 3; { mode => $m, name => $n, type => $t } }
	  grep { $_ ne '' } split /;/, $args;
	$routine{$name} = { kind => $kind, args => \@args, inputs => $nargs, required => $nargs - $ndefaults };
}
my %relation = map { $_ => 1 } split /\n/, $node->safe_psql('postgres', q{
	SELECT c.relname FROM pg_class c
	JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e'
	JOIN pg_extension e ON e.oid = d.refobjid AND d.refclassid = 'pg_extension'::regclass
	WHERE e.extname = 'ranread'});
my @help = split /\n/, $node->safe_psql('postgres', 'SELECT * FROM ranread_help()');
$node->stop;
cmp_ok(scalar(keys %routine), '>=', 30, scalar(keys %routine) . ' routines in the extension');
# psql prints a line of 118 characters within 120 columns (a space either side)
my ($longest_help) = sort { length($b) <=> length($a) } @help;
cmp_ok(length($longest_help), '<=', 118, "every line of ranread_help() fits a terminal of 120 columns in psql: $longest_help");

my $names = join '|', map { quotemeta } sort { length($b) <=> length($a) } keys %routine;

# The text between the parenthesis at $pos (just after it) and its match.
sub inside
{
	my ($text, $pos) = @_;
	my ($depth, $quote) = (1, 0);
	for (my $i = $pos; $i < length($text); $i++)
	{
		my $c = substr($text, $i, 1);
		$quote = !$quote if $c eq "'";
		next if $quote;
		$depth++ if $c eq '(';
		$depth-- if $c eq ')';
		return substr($text, $pos, $i - $pos) if $depth == 0;
	}
	return undef;
}

# Split on commas outside parentheses, brackets and quotes.
sub elements
{
	my ($list) = @_;
	my @out;
	my ($cur, $depth, $quote) = ('', 0, 0);
	foreach my $c (split //, $list)
	{
		$quote = !$quote if $c eq "'";
		$depth++ if !$quote && $c =~ /[(]/;
		$depth-- if !$quote && $c =~ /[)]/;
		if ($c eq ',' && !$depth && !$quote) { push @out, $cur; $cur = ''; }
		else { $cur .= $c; }
	}
	push @out, $cur;
	s/^\s+|\s+$//gs foreach @out;
	return grep { $_ ne '' } @out;
}

my %alias = (int => 'integer', int4 => 'integer', int8 => 'bigint', float8 => 'double precision',
	bool => 'boolean', timestamptz => 'timestamp with time zone');
sub type_of
{
	my ($t) = @_;
	$t = lc $t;
	$t =~ s/\s+/ /g;
	my $array = $t =~ s/\[\]$// ? '[]' : '';
	return ($alias{$t} // $t) . $array;
}

sub inputs_of { return grep { $_->{mode} =~ /^[ibv]$/ } @{ $_[0]{args} }; }

# A signature written in full: its problems, as a list of sentences.  The
# output columns are compared where the signature writes them: as OUT
# arguments, or as RETURNS TABLE after it.
sub check_signature
{
	my ($r, $list, $returns) = @_;
	my @got = elements($list);
	my $out_written = grep { /^(?:OUT|INOUT)\s/ } @got;
	my @want = grep { $_->{mode} =~ /^[ibv]$/ || ($out_written && $_->{mode} eq 'o') } @{ $r->{args} };
	my @wrong;
	my $input = 0;
	for (my $i = 0; $i < @got || $i < @want; $i++)
	{
		my ($g, $w) = ($got[$i], $want[$i]);
		if (!defined $g) { push @wrong, "omits $w->{name}"; next; }
		if (!defined $w) { push @wrong, "names $g, which it does not have"; next; }
		my $default = $g =~ s/\s+DEFAULT\s+.*$//s;
		my $mode = $g =~ s/^(OUT|INOUT|VARIADIC|IN)\s+// ? { OUT => 'o', INOUT => 'b', VARIADIC => 'v', IN => 'i' }->{$1} : 'i';
		my ($name, $type) = $g =~ /^(\w+)\s+(\S.*)$/ ? ($1, $2) : ('', $g);
		push @wrong, "argument " . ($i + 1) . " is $name, not $w->{name}" if $name ne $w->{name};
		push @wrong, "$w->{name} is $type, not $w->{type}" if type_of($type) ne $w->{type};
		push @wrong, "$w->{name}'s mode is wrong" if $mode ne $w->{mode};
		if ($w->{mode} =~ /^[ibv]$/)
		{
			my $has = $input++ >= $r->{required};
			push @wrong, $has ? "$w->{name} has a default" : "$w->{name} has no default" if $has != $default;
		}
	}
	my @table = grep { $_->{mode} =~ /^[ot]$/ } @{ $r->{args} };
	if (defined $returns)
	{
		my $columns = join ', ', map { "$_->{name} $_->{type}" } @table;
		my $written = join ', ', map { /^(\w+)\s+(.*)$/ ? "$1 " . type_of($2) : $_ } elements($returns);
		push @wrong, "RETURNS TABLE is ($written), not ($columns)" if $written ne $columns;
	}
	return @wrong;
}

# A usage (names only, "[" and "…"): its problems.
sub check_usage
{
	my ($r, $list) = @_;
	my @inputs = inputs_of($r);
	my $bracket = $list =~ /\[/ ? 1 : 0;
	(my $before) = $list =~ /^([^\[]*)/;
	my $required_written = scalar(elements($before));
	$list =~ s/[\[\]]//g;
	my @got = map { s/^VARIADIC\s+//r } elements($list);
	my $more = @got && $got[-1] =~ /^(…|\.\.\.)$/ ? pop @got : undef;
	my @wrong;
	for (my $i = 0; $i < @got; $i++)
	{
		if ($i >= @inputs) { push @wrong, "names $got[$i], which it does not have"; next; }
		push @wrong, "argument " . ($i + 1) . " is $got[$i], not $inputs[$i]{name}"
		  if $inputs[$i]{name} ne '' && $got[$i] ne $inputs[$i]{name};
	}
	push @wrong, 'omits ' . join(', ', map { $_->{name} } @inputs[ scalar(@got) .. $#inputs ]) . ' (no "…" at the end)'
	  if !defined $more && @got < @inputs;
	push @wrong, "\"…\" stands for required arguments" if defined $more && @got < $r->{required};
	push @wrong, "\"…\" stands for nothing" if defined $more && @got >= @inputs;
	if ($r->{required} < @inputs && (@got > $r->{required} || defined $more))
	{
		push @wrong, "\"[\" must come before argument " . ($r->{required} + 1)
		  if !$bracket || $required_written != $r->{required};
	}
	elsif ($bracket)
	{
		push @wrong, '"[" marks no argument with a default';
	}
	return @wrong;
}

# A call: its problems.
sub check_call
{
	my ($r, $list) = @_;
	my %has = map { $_->{name} => 1 } inputs_of($r);
	my ($positional, @wrong) = (0);
	foreach my $e (elements($list))
	{
		if ($e =~ /^(\w+)\s*=>/) { push @wrong, "has no argument $1" unless $has{$1}; }
		else { $positional++; }
	}
	my $variadic = grep { $_->{mode} eq 'v' } @{ $r->{args} };
	push @wrong, "takes at most $r->{inputs} arguments, not $positional" if !$variadic && $positional > $r->{inputs};
	return @wrong;
}

# Every ranread_NAME( in $text, classified and checked; returns the problems
# found, each prefixed with $where and the routine, and counts each form.
# $reference: signatures are read at the start of a line, and usages are
# not read (its prose writes calls with placeholders, ranread_chart(N)).
# "name()" names the routine in prose and is not read.
my %forms;
sub check_text
{
	my ($where, $text, $reference) = @_;
	my @problems;
	while ($text =~ /(?<![\w.])($names)\(/g)
	{
		my ($name, $pos) = ($1, pos($text));
		my $list = inside($text, $pos) // next;
		my $r = $routine{$name};
		my $line = 1 + (() = substr($text, 0, $pos) =~ /\n/g);
		my @wrong;
		my $call = $list =~ /=>/ || grep { /^(?:-?[0-9]|'|NULL\b|true\b|false\b|ARRAY\b|\$|:)/ } elements($list);
		my $after = substr($text, $pos + length($list) + 1, 400);
		if ($reference && !$call && substr($text, 0, $pos) =~ /(?:^|\n)(?:CALL )?\Q$name\E\($/
			&& ($list !~ /^\s*$/ || $after =~ /^\s*RETURNS\b/))
		{
			my ($returns) = $after =~ /^\s*RETURNS\s+TABLE\s*\(/s ? inside($after, $+[0]) : (undef);
			@wrong = check_signature($r, $list, $returns);
			$forms{signature}{$name}++;
			push @{ $forms{signature_at}{$where}{$name} }, $pos;
		}
		elsif ($list =~ /^\s*$/)
		{
			next;
		}
		elsif ($call)
		{
			@wrong = check_call($r, $list);
			$forms{call}++;
		}
		elsif (!$reference && $list =~ /^(?:[\w\s,\[\].]|…)+$/)
		{
			@wrong = check_usage($r, $list);
			$forms{usage}++;
		}
		else
		{
			next;
		}
		push @problems, map { "$where:$line: $name(…) $_" } @wrong;
	}
	return @problems;
}

# (b) signatures, usages and calls
my @problems = check_text('docs/reference.md', $reference, 1);
is(join("\n", @problems), '', 'every signature and call in docs/reference.md names the arguments pg_proc has');
my @pages = grep { !m{/reference\.md$} } glob("$top/docs/*.md");
is(join("\n", map { my $f = $_; check_text($f =~ s{^.*/}{docs/}r, slurp_file($f), 1) } @pages), '',
	'and every one in the other pages of docs/ (' . scalar(@pages) . ')');
is(join("\n", check_text('README.md', $readme, 0)), '', 'and every one in README.md');
my $i = 0;
is(join("\n", map { $i++; check_text("ranread_help() line $i", $_, 0) } @help), '', 'and every one in ranread_help()');
is(join(', ', sort grep { !$forms{signature_at}{'docs/reference.md'}{$_} } keys %routine), '',
	'docs/reference.md writes every routine\'s signature');
cmp_ok($forms{usage} // 0, '>', 10, ($forms{usage} // 0) . ' usages and ' . ($forms{call} // 0) . ' calls read');

# The argument tables of docs/reference.md ("| argument | default | meaning |"),
# a row an argument: those of the signature written last before the table, in
# order, "(required" in the default column exactly for those without one.  A
# table whose rows name several arguments (the fleet's two routines) is not read.
my @at = sort { $a->[0] <=> $b->[0] }
  map { my $n = $_; map { [ $_, $n ] } @{ $forms{signature_at}{'docs/reference.md'}{$n} } }
  keys %{ $forms{signature_at}{'docs/reference.md'} };
my ($tables, @table_problems) = (0);
while ($reference =~ /^\| argument \| default \| meaning \|\n\|[-|]+\|\n((?:\|.*\n)+)/mg)
{
	my ($rows, $pos) = ($1, $-[0]);
	my @rows = map { [ /^\| `(\w+)` \|([^|]*)\|/ ] } split /\n/, $rows;
	next if grep { !defined $_->[0] } @rows;
	my ($sig) = reverse grep { $_->[0] < $pos } @at;
	next unless $sig;
	my $r = $routine{ $sig->[1] };
	my @inputs = inputs_of($r);
	my $line = 1 + (() = substr($reference, 0, $pos) =~ /\n/g);
	$tables++;
	push @table_problems, "docs/reference.md:$line: the table of $sig->[1] names " . join(', ', map { $_->[0] } @rows)
	  . ', not ' . join(', ', map { $_->{name} } @inputs)
	  if join(',', map { $_->[0] } @rows) ne join(',', map { $_->{name} } @inputs);
	for (my $k = 0; $k < @rows && $k < @inputs; $k++)
	{
		my $required = $rows[$k][1] =~ /\(required/ ? 1 : 0;
		push @table_problems, "docs/reference.md:$line: $sig->[1]'s $rows[$k][0] "
		  . ($required ? 'has a default' : 'has none') if $required != ($k < $r->{required});
	}
}
cmp_ok($tables, '>=', 4, "$tables argument tables read");
is(join("\n", @table_problems), '', 'each names its routine\'s arguments in order, and which are required');

# (a) the index: a link per routine, to the section that holds its signature
my (%section, @headings);
while ($reference =~ /^(#+) (.*)$/mg)
{
	my ($level, $title, $at) = (length($1), $2, $-[0]);
	(my $slug = lc $title) =~ s/[^\w\- ]//g;
	$slug =~ s/ /-/g;
	push @headings, { level => $level, slug => $slug, at => $at };
}
for (my $h = 0; $h < @headings; $h++)
{
	my $end = length($reference);
	for (my $n = $h + 1; $n < @headings; $n++)
	{
		if ($headings[$n]{level} <= $headings[$h]{level}) { $end = $headings[$n]{at}; last; }
	}
	$section{ $headings[$h]{slug} } //= [ $headings[$h]{at}, $end ];
}
my ($functions) = $reference =~ /^## Functions\n(.*?)^## /ms;
my ($index) = ($functions // '') =~ /^(\|.*?)\n(?!\|)/ms;
ok(defined $index, 'docs/reference.md has a function index, a table under "Functions"');
$index //= '';
my (%linked, @bad_links);
while ($index =~ /\[`?(?:CALL )?(ranread_\w+)`?\]\(#([\w-]+)\)/g)
{
	my ($name, $slug) = ($1, $2);
	$linked{$name} = 1;
	my $s = $section{$slug};
	if (!$routine{$name}) { push @bad_links, "$name is no routine"; }
	elsif (!$s) { push @bad_links, "$name links to #$slug, which is no heading"; }
	elsif (!grep { $_ >= $s->[0] && $_ < $s->[1] } @{ $forms{signature_at}{'docs/reference.md'}{$name} // [] })
	{
		push @bad_links, "$name links to #$slug, which does not hold its signature";
	}
}
is(join(', ', sort grep { !$linked{$_} } keys %routine), '', 'the function index of docs/reference.md lists every routine');
is(join("\n", @bad_links), '', 'each linked to the section that holds its signature');

# (c) README's function table names only routines and relations of the extension
my ($table) = $readme =~ /^## Functions\n+(\|.*?)\n(?!\|)/ms;
ok(defined $table, 'README.md has a function table');
my @unknown;
foreach my $row (split /\n/, $table // '')
{
	my ($first) = $row =~ /^\|([^|]*)\|/;
	push @unknown, grep { !$routine{$_} && !$relation{$_} } ($first // '') =~ /\b(ranread_\w+)/g;
}
is(join(', ', @unknown), '', "README.md's function table names only the extension's routines and relations");

done_testing();
