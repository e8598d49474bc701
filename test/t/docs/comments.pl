# Every routine, table, view and column of ranread has a comment (psql's \df+
# and \d+ show them), written once beside its definition in sql/src; and
# docs/reference.md says the same:
# - the function index's "in one line" is the first line of the routine's
#   comment;
# - each row of an argument table is a line "argument: meaning" of the
#   routine's comment (a meaning that starts with a routine's name and a
#   colon is that routine's alone);
# - each row of a table's or view's column table is its columns' comment,
#   "unit: meaning" where the table has a unit; a meaning "from X" or "as in
#   X" is X's column's comment, and an empty one says nothing.
# The docs' markdown is read as text (links, backticks and bold dropped) and
# their few signs outside ASCII as the scripts write them (the scripts are
# ASCII: a database in any encoding reads them).
use strict;
use warnings;
use utf8;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;
use Encode ();

my $top = "$FindBin::RealBin/../../..";
my $node = RanreadTest::new_node('comments');

sub psql_rows
{
	my ($sql) = @_;
	return map { [ split /\t/, $_, -1 ] } grep { $_ ne '' } split /\n/,
	  $node->safe_psql('postgres', "COPY ($sql) TO STDOUT");
}

# The catalog: every object and its comment ('' when it has none).
my %routine_comment;
foreach my $row (psql_rows(q{
	SELECT p.proname, coalesce(pg_catalog.obj_description(p.oid, 'pg_proc'), '')
	  FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
	  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread'}))
{
	$row->[1] =~ s/\\n/\n/g;
	$routine_comment{ $row->[0] } = $row->[1];
}
my (%relation_comment, %column_comment);
foreach my $row (psql_rows(q{
	SELECT c.relname, coalesce(pg_catalog.obj_description(c.oid, 'pg_class'), '')
	  FROM pg_class c JOIN pg_depend d ON d.objid = c.oid AND d.deptype = 'e'
	  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread'
	 WHERE c.relkind IN ('r', 'v')}))
{
	$relation_comment{ $row->[0] } = $row->[1];
}
foreach my $row (psql_rows(q{
	SELECT c.relname, a.attname, coalesce(pg_catalog.col_description(c.oid, a.attnum), '')
	  FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
	 WHERE c.relname LIKE 'ranread%' AND c.relkind IN ('r', 'v')}))
{
	$column_comment{"$row->[0].$row->[1]"} = $row->[2];
}

my @uncommented = ((grep { $routine_comment{$_} eq '' } sort keys %routine_comment),
	(grep { $relation_comment{$_} eq '' } sort keys %relation_comment),
	(grep { $column_comment{$_} eq '' } sort keys %column_comment));
ok(keys(%routine_comment) >= 36 && keys(%column_comment) >= 400,
	scalar(keys %routine_comment) . ' routines, ' . scalar(keys %relation_comment) . ' tables and views, '
	  . scalar(keys %column_comment) . ' columns');
is(join(', ', @uncommented), '', 'every routine, table, view and column has a comment');

# Each named argument a caller passes has a line "argument: meaning" in its
# routine's comment.
is($node->safe_psql('postgres', q{
	SELECT string_agg(p.proname || '(' || a.name || ')', ', ' ORDER BY p.proname, a.n)
	  FROM pg_proc p,
		   unnest(p.proargnames, coalesce(p.proargmodes::text[], array_fill('i'::text, ARRAY[coalesce(cardinality(p.proargnames), 0)])))
			 WITH ORDINALITY AS a(name, mode, n)
	 WHERE p.proname LIKE 'ranread%' AND a.mode IN ('i', 'b', 'v') AND a.name <> ''
	   AND strpos(E'\n' || obj_description(p.oid, 'pg_proc'), E'\n' || a.name || ': ') = 0}), '',
	'every named argument is described in its routine\'s comment');

# No routine's body is over 200 lines: prosrc, a PL/pgSQL program's text, or
# a SQL-standard body as PostgreSQL prints it (a C function's prosrc is its
# symbol; scripts/lint.sh bounds its body in src/).  A longer program gives a
# phase a function of its own.
my $max_lines = 200;
my $routine_lines = q{
	SELECT p.oid::regprocedure AS routine,
		   coalesce(array_length(string_to_array(coalesce(nullif(p.prosrc, ''), pg_get_function_sqlbody(p.oid)), E'\n'), 1), 0) AS lines
	  FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
	  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread'};
note('the longest bodies: ' . $node->safe_psql('postgres', qq{
	SELECT string_agg(format('%s %s', routine, lines), ', ' ORDER BY lines DESC) FROM ($routine_lines ORDER BY lines DESC LIMIT 3) r}));
is($node->safe_psql('postgres', qq{
	SELECT string_agg(format('%s: %s lines', routine, lines), ', ' ORDER BY lines DESC, routine::text)
	  FROM ($routine_lines) r WHERE lines > $max_lines}), '',
	"no routine's body is over $max_lines lines");

# The docs' text, as the comments write it.
sub as_text
{
	my ($md) = @_;
	$md =~ s/\[([^\]]+)\]\([^)]*\)/$1/g;
	$md =~ s/\*\*|`//g;
	$md =~ s/\\\|/|/g;
	$md =~ s/×/x/g;
	$md =~ s/÷/\//g;
	$md =~ s/θ/theta/g;
	$md =~ s/…/.../g;
	$md =~ s/\s+/ /g;
	$md =~ s/^ | $//g;
	return $md;
}

my $reference = Encode::decode('UTF-8', slurp_file("$top/docs/reference.md"));
my @lines = split /\n/, $reference;
my (@mismatches, $checked);
my ($heading, @block_routines, $in_sql);
for (my $i = 0; $i < @lines; $i++)
{
	my $line = $lines[$i];
	if ($line =~ /^#+ (.*)$/)
	{
		($heading, @block_routines) = ($1);
		next;
	}
	if ($line =~ /^```/)
	{
		$in_sql = !$in_sql && $line =~ /^```sql/;
		next;
	}
	push @block_routines, $1 if $in_sql && $line =~ /^(?:CALL )?(ranread_\w+)\(/;
	my ($header_cells) = $line =~ /^\| (.*) \|$/;
	next unless defined $header_cells && ($lines[ $i + 1 ] // '') =~ /^\|---/;
	my @header = map { s/^\s+|\s+$//gr } split /\|/, $header_cells;
	my @rows;
	for ($i += 2; $i < @lines && $lines[$i] =~ /^\|(.*)\|$/; $i++)
	{
		push @rows, [ map { s/^\s+|\s+$//gr } split /(?<!\\)\|/, $1 ];
	}
	$i--;
	my %at;
	@at{@header} = (0 .. $#header);
	if ($header[0] eq 'routine' && defined $at{'in one line'})
	{
		foreach my $row (@rows)
		{
			my ($name) = $row->[0] =~ /`(\w+)`/;
			my ($first) = split /\n/, $routine_comment{$name} // '';
			$checked++;
			push @mismatches, "$name: the index says \"" . as_text($row->[ $at{'in one line'} ]) . "\", its comment \"$first\""
			  unless ($first // '') eq as_text($row->[ $at{'in one line'} ]);
		}
	}
	elsif ($header[0] eq 'argument' && defined $at{meaning})
	{
		my @routines = @block_routines ? @block_routines : ($heading =~ /^(ranread_\w+)/);
		foreach my $row (@rows)
		{
			my $meaning = as_text($row->[ $at{meaning} ]);
			my @for = @routines;
			@for = ($1) if $meaning =~ s/^(ranread_\w+): //;
			foreach my $argument ($row->[0] =~ /`(\w+)`/g)
			{
				foreach my $routine (@for)
				{
					my @comment = split /\n/, $routine_comment{$routine} // '';
					my @has = grep { /^\Q$argument\E: / } @comment;
					my $declared = $node->safe_psql('postgres', qq{
						SELECT count(*) FROM pg_proc WHERE proname = '$routine' AND '$argument' = ANY (proargnames)});
					next if $declared eq '0' && @for > 1;
					$checked++;
					push @mismatches, "$routine($argument): the docs say \"$meaning\", its comment \"" . ($has[0] // 'nothing') . '"'
					  unless @has == 1 && $has[0] eq "$argument: $meaning";
				}
			}
		}
	}
	elsif ($header[0] eq 'column' && defined $at{meaning}
		&& $heading =~ /^(?:Table |View )?(ranread_\w+)$/ && exists $relation_comment{$1})
	{
		my $relation = $1;
		foreach my $row (@rows)
		{
			my $meaning = as_text($row->[ $at{meaning} ]);
			next if $meaning eq '';
			my $unit = defined $at{unit} ? as_text($row->[ $at{unit} ]) : '';
			foreach my $column ($row->[0] =~ /`(\w+)`/g)
			{
				my $want = $meaning =~ /^(?:from|as in) (ranread_\w+)$/ ? $column_comment{"$1.$column"}
				  : $unit ne '' ? "$unit: $meaning" : $meaning;
				my $has = $column_comment{"$relation.$column"};
				$checked++;
				push @mismatches, "$relation.$column: the docs say \"" . ($want // "nothing in $meaning")
				  . '", its comment "' . ($has // 'no such column') . '"'
				  unless defined $has && defined $want && $has eq $want;
			}
		}
	}
}
ok($checked > 300, "$checked lines of docs/reference.md's tables checked against the comments");
is(Encode::encode('UTF-8', join("\n", @mismatches)), '', 'docs/reference.md says what the comments say');

$node->stop;
done_testing();
