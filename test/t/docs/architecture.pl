# The map of docs/architecture.md ("The map: src/ by folder") against src/
# itself: every folder of src/ has its paragraph, every file of src/ (build
# products aside) is listed once, under its own folder, and the map lists no
# file that is not there.  Every path of a C file that the page names
# anywhere (src/run/run.c, or run/run.c in the diagrams) must exist too, and
# so must every test file it names.
#
# Every number the page states is checked against what it counts: the
# floors against scripts/lint.sh, each SQLSTATE, threshold, version and count
# against the code that has it, the run-parameter recipe's files against
# every run parameter there is.  A number the page gains without a check here
# fails the last of these tests ("every number ... is checked"): digits
# anywhere on the page (list markers and file names aside) and the words
# three to ten, twice, half and third.
#
# And the docs' form, for a DBA who reads them to the end:
# - sizes: README.md at most 15,000 bytes, docs/reference.md at most 100,000,
#   README.md and docs/*.md together at most 300,000;
# - no internal issue or review numbers ("issue 41", "#38", "stop 49",
#   "item 4", a label such as "D4"): a reader cannot open them;
# - one screen per routine: each ### section of docs/reference.md has at most
#   40 lines of prose (lines outside tables, code blocks and headings; its
#   #### subsections count with it), and no prose line there is wider than
#   120 characters, so that the count is a height.
# Needs no cluster.
use strict;
use warnings;
use File::Find;
use FindBin;
use PostgreSQL::Test::Utils;
use Test::More;

my $top = "$FindBin::RealBin/../../..";
my $doc = slurp_file("$top/docs/architecture.md");

# What src/ holds, as paths under it; objects and bitcode are the build's.
my %on_disk;
find(
	{
		no_chdir => 1,
		wanted => sub {
			return unless -f $_;
			return if /\.(o|bc|so)$/;
			(my $rel = $_) =~ s{^\Q$top\E/src/}{};
			$on_disk{$rel} = 1;
		}
	},
	"$top/src");
ok(scalar(keys %on_disk) > 0, scalar(keys %on_disk) . ' files in src/');

# "run.{c,h}" names run.c and run.h.
sub expand
{
	my ($name) = @_;
	return ($name) unless $name =~ /^(.*)\{([^}]*)\}(.*)$/;
	my ($before, $alternatives, $after) = ($1, $2, $3);
	return map { expand("$before$_$after") } split /,/, $alternatives;
}

# The map: a ### heading per folder, then one "- `file`: purpose" line a file.
my ($map) = $doc =~ /^## The map: `src\/` by folder\n(.*?)^## /ms;
ok(defined $map, 'docs/architecture.md has its section "The map: `src/` by folder"');
$map //= '';
my (%listed, %folders, $folder, @twice, @misplaced);
foreach my $line (split /\n/, $map)
{
	if ($line =~ /^### `src\/` \(the root\)/)
	{
		$folder = '';
		$folders{''} = 1;
	}
	elsif ($line =~ /^### `([a-z_]+)\/`/)
	{
		$folder = "$1/";
		$folders{$folder} = 1;
	}
	elsif ($line =~ /^- `([^`]+)`:/ && defined $folder)
	{
		foreach my $file (expand($1))
		{
			push @misplaced, "$folder$file" if $file =~ m{/};
			push @twice, "$folder$file" if $listed{"$folder$file"}++;
		}
	}
}
my %disk_folders = map { m{^(.*/)?} ? (($1 // '') => 1) : () } keys %on_disk;
my @without_paragraph = sort grep { !$folders{$_} } keys %disk_folders;
my @no_such_folder = sort grep { !$disk_folders{$_} } keys %folders;
my @unlisted = sort grep { !$listed{$_} } keys %on_disk;
my @not_there = sort grep { !$on_disk{$_} } keys %listed;

is(join(', ', @without_paragraph), '', 'every folder of src/ has its paragraph in the map');
is(join(', ', @no_such_folder), '', 'every folder of the map is in src/');
is(join(', ', @unlisted), '', 'every file of src/ is in the map, under its folder');
is(join(', ', @not_there), '', 'every file of the map is in src/');
is(join(', ', @twice, @misplaced), '', 'the map lists each file once, by its name alone');
is(scalar(keys %listed), scalar(keys %on_disk), 'the map has as many files as src/');

# Anywhere on the page: src/FOLDER/FILE.c, src/FILE.h and FOLDER/FILE.c name
# files that exist (run/run.c in the diagrams; placeholders like <name> aside).
my $folder_names = join '|', map { quotemeta(substr($_, 0, -1)) } grep { $_ ne '' } keys %disk_folders;
my (%named, @missing);
while ($doc =~ m{(?<![\w/.-])((?:src/)?(?:(?:$folder_names)/)?[\w{},]+\.(?:[ch]|\{[ch],[ch]\}))(?![\w/])}g)
{
	my $path = $1;
	next unless $path =~ m{/};
	(my $rel = $path) =~ s{^src/}{};
	$named{$_} = 1 foreach expand($rel);
}
@missing = sort grep { !$on_disk{$_} } keys %named;
is(join(', ', @missing), '', scalar(keys %named) . ' paths of C files named on the page exist');

# Test files the page names (test/t/docs/architecture.pl, run/bad_input.pl,
# test/pgtap/40_modes.sql, test/unit/run_rules_test.c) exist.
my (%test_named, @no_test);
while ($doc =~ m{(?<![\w/.-])((?:test/[\w/]+/)?\w+\.(?:pl|sql|c))(?![\w/])}g)
{
	my $name = $1;
	next unless $name =~ m{^test/} || $name =~ /^\d+_\w+\.(?:pl|sql)$/;
	$test_named{$name} = 1;
}
foreach my $name (sort keys %test_named)
{
	my @found = $name =~ m{^test/} ? (-f "$top/$name" ? ($name) : ())
	  : grep { -f "$top/$_" } map { "test/$_/$name" } qw(t pgtap sql unit);
	push @no_test, $name unless @found;
}
is(join(', ', @no_test), '', scalar(keys %test_named) . ' test files named on the page exist');

# --- Every number the page states, checked ---------------------------------
# Each check records the stretches of the page it covers; the last test
# fails on a number outside them.
my @covered;

# The page's stretches that match $re (every one of them); a check with no
# stretch fails, since the page no longer says what it checks.
sub says
{
	my ($re, $what) = @_;
	my $n = 0;
	while ($doc =~ /$re/g)
	{
		push @covered, [ $-[0], $+[0] ];
		$n++;
	}
	ok($n > 0, "the page says $what") or diag("no match for $re");
	return $n;
}

sub src_text { my ($path) = @_; return -f "$top/$path" ? slurp_file("$top/$path") : ''; }

# The floors: the table and each folder's heading against lint.sh's FLOORS.
my $lint = src_text('scripts/lint.sh');
my ($floors_py) = $lint =~ /^FLOORS = \[(.*?)\]\n/ms;
my @lint_floors = map { join ' ', sort /"(\w+)"/g } ($floors_py // '') =~ /\[([^\]]*)\]/g;
says(qr/^\| floor \| folders \|\n\|---\|---\|\n(?:\| \d+ \| .* \|\n)+/m, 'its floors in a table');
my %page_floor;
while ($doc =~ /^\| (\d+) \| (.*) \|$/mg)
{
	my ($n, $cells) = ($1, $2);
	$page_floor{$n} = join ' ', sort $cells =~ /`(\w+)\/`/g;
}
is(join('; ', map { "$_: $page_floor{$_}" } sort { $a <=> $b } keys %page_floor),
	join('; ', map { ($_ + 1) . ": $lint_floors[$_]" } 0 .. $#lint_floors),
	scalar(@lint_floors) . ' floors, each with the folders scripts/lint.sh puts on it');
my @heading_off;
says(qr/^### `\w+\/` \(floor \d+\)$/m, 'each folder\'s floor in its heading');
while ($doc =~ /^### `(\w+)\/` \(floor (\d+)\)$/mg)
{
	my ($folder, $n) = ($1, $2);
	push @heading_off, "$folder/ (floor $n)" unless ($lint_floors[ $n - 1 ] // '') =~ /(?:^| )\Q$folder\E(?: |$)/;
}
is(join(', ', @heading_off), '', 'each folder\'s heading names its floor in lint.sh');

# The code's own numbers: [what, the page's words, file, the code's words].
my @in_code = (
	[ 'SQLSTATE 42804 for a row without the columns a function fills', qr/SQLSTATE 42804/,
	  'src/extension.c', qr/ERRCODE_DATATYPE_MISMATCH/ ],
	[ 'a moved or renamed run argument refused with 55000', qr/a moved or renamed argument is refused \(55000\)/,
	  'src/run/run_arguments.c', qr/ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE/ ],
	[ 'calibrate\'s io_workers part on 18', qr/on 18, optionally, the `io_workers` that pays/,
	  'src/programs/calibrate.c', qr/on PostgreSQL 18, optionally, io_workers/ ],
	[ 'where io_workers does not exist (before 18), the part is refused', qr/on 18, optionally/,
	  'src/programs/io_workers.c', qr/GetConfigOption\("io_workers", true, false\) == NULL\)\s*ereport\(ERROR/ ],
	[ 'path stream: PostgreSQL 18\'s read_stream', qr/PostgreSQL 18's `read_stream`/,
	  'src/readpath/readpath_stream.c', qr/PostgreSQL 18's read_stream.*#if RANREAD_HAVE_AIO/s ],
	[ 'RANREAD_HAVE_AIO from 18', qr/PostgreSQL 18's `read_stream`/,
	  'src/compat.h', qr/#define RANREAD_HAVE_AIO\s+\(PG_VERSION_NUM >= 180000\)/ ],
	[ 'io_uring, pread() where a ring is refused at iodepth 1', qr/`pread` where a ring is refused at `iodepth` 1/,
	  'src/readpath/readpath_direct.c', qr/shared->params\.iodepth == 1 \? &state->uring_refused : NULL/ ],
	[ 'the median\'s 95 % band', qr/the median of measured values and its 95 % band/,
	  'src/rules/order_statistics.h', qr/#define RANREAD_MEDIAN_BAND_CONFIDENCE\s+0\.95\b/ ],
	[ 'each layer share\'s 95 % band', qr/each share's 95 % band/,
	  'src/rules/layer_rules.c', qr/Student's t, two-sided 95 %/ ],
	[ 'the least setting within 10 % of the best', qr/the least setting within 10 % of the best/,
	  'src/rules/calibrate_rules.h', qr/#define RANREAD_CALIBRATE_SHORT_PCT\s+10\.0\b/ ],
	[ 'the checkpoint a third into the reads', qr/a\s+third\s+into\s+its\s+reads/,
	  'src/record/checkpoint_window.c', qr/ramp_ns\) \/ 1e9 \/ 3;/ ],
	[ 'no unit twice before every unit once', qr/no unit twice before every unit once/,
	  'src/rules/permutation.c', qr/reads no unit twice until it has read every unit once/ ],
	[ 'no SQL routine\'s body over 200 lines', qr/no routine's body is over 200 lines/,
	  'test/t/docs/comments.pl', qr/^my \$max_lines = 200;$/m ],
	[ 'no C function\'s body over 200 lines', qr/no routine's body is over 200 lines/,
	  'scripts/lint.sh', qr/^MAX_BODY_LINES = 200$/m ],
	[ 'the run lock in database 0', qr/the run lock in database 0/,
	  'src/run/registry.c', qr/SET_LOCKTAG_ADVISORY\(\*tag, InvalidOid, RANREAD_LOCK_RUN,/ ],
	[ 'ranread_run returns five figures', qr/`ranread_run` returns\s+five\s+figures/,
	  'src/run/report.h', qr/#define RANREAD_RUN_RESULT_COLUMNS\s+5\b/ ],
	[ 'the Makefile builds for 15 to 19', qr/for\s+\(15–19;\s+it\s+refuses\s+others\s+before\s+compiling\)/,
	  'Makefile', qr/^BUILDABLE_MAJORS = 15 16 17 18 19$/m ],
	[ 'compat.h refuses majors outside 15 to 19', qr/for\s+\(15–19;\s+it\s+refuses\s+others\s+before\s+compiling\)/,
	  'src/compat.h', qr/#if PG_VERSION_NUM < 150000 \|\| PG_VERSION_NUM >= 200000/ ],
	[ 'the install script is 1.4\'s', qr/`sql\/ranread--1\.4\.sql`/,
	  'ranread.control', qr/^default_version = '1\.4'$/m ],
	[ 'the update is from 1.3', qr/the update from 1\.3,/,
	  'Makefile', qr/^SQL_UPDATE = sql\/ranread--1\.3--\$\(EXTVERSION\)\.sql$/m ],
	[ 'the released scripts from 1.0 to 1.2--1.3', qr/\(`sql\/ranread--1\.0\.sql` \.\.\. `1\.2--1\.3\.sql`\)/,
	  'sql/ranread--1.2--1.3.sql', qr/ALTER EXTENSION|CREATE/ ],
	[ 'the released 1.0 script', qr/`sql\/ranread--1\.0\.sql`/, 'sql/ranread--1.0.sql', qr/CREATE/ ],
);
foreach my $claim (@in_code)
{
	my ($what, $page_re, $file, $code_re) = @$claim;
	says($page_re, $what);
	like(src_text($file), $code_re, "$what: $file has it");
}

# ranread_run's result: five OUT arguments in sql/src/run.sql, as report.h's count.
my $run_sql = src_text('sql/src/run.sql');
my ($run_signature) = $run_sql =~ /CREATE OR REPLACE FUNCTION ranread_run\((.*?)\)\nRETURNS/s;
$run_signature //= '';
my @run_lines = grep { /\S/ } map { s/--.*$//r } split /,\s*(?:--[^\n]*)?\n/, $run_signature;
my @out = grep { /^\s*OUT\b/ } @run_lines;
is(scalar(@out), 5, 'ranread_run has five OUT arguments in sql/src/run.sql');

# The data path's call, ranread_run(16, 10000): its first two arguments
# are integers without defaults, and every later argument has one.
says(qr/SELECT ranread_run\(16, 10000\)/, 'the data path\'s call');
my @in_args = map { [ /^\s*(\w+)\s+(\w+(?: with time zone)?)(.*)$/s ] } grep { !/^\s*OUT\b/ } @run_lines;
ok(@in_args > 2 && $in_args[0][1] =~ /^(int|bigint)$/ && $in_args[1][1] =~ /^(int|bigint)$/
	  && $in_args[0][2] !~ /DEFAULT/ && $in_args[1][2] !~ /DEFAULT/
	  && !grep({ $_->[2] !~ /DEFAULT/ } @in_args[ 2 .. $#in_args ]),
	'ranread_run(16, 10000) is a call sql/src/run.sql accepts: two integers, the rest by default');

# history_rows.c: four tables.
says(qr/record\s+their\s+rows:\s+four\s+tables/, 'the fleet run and write sweep record four tables');
my ($history_tables) = src_text('src/record/history_rows.c') =~ /history_tables\[\] = \{\n(.*?)\n\};/s;
is(scalar(() = ($history_tables // '') =~ /^\t\{"ranread_\w+",/mg), 4, 'src/record/history_rows.c has four tables');

# "Three rules hold everywhere": the list after it.
my ($rules_list) = $doc =~ /Three\s+rules\s+hold\s+everywhere:\n\n((?:- .*\n(?:  .*\n)*)+)/;
says(qr/Three\s+rules\s+hold\s+everywhere/, 'three rules hold everywhere');
is(scalar(() = ($rules_list // '') =~ /^- /mg), 3, 'and lists three');

# The SQL wing: sql/src's files in the order the Makefile concatenates them,
# and the two scripts it makes.
my $makefile = src_text('Makefile');
my ($install_rule) = $makefile =~ /^\$\(SQL_INSTALL\): (.*?)\n\tcat/ms;
my ($routines) = $makefile =~ /^SQL_ROUTINES = \$\(addprefix sql\/src\/,(.*?)\)\n/ms;
my @make_order = ((($install_rule // '') =~ /sql\/src\/(\w+\.sql)/g), (($routines // '') =~ /(\w+\.sql)/g));
my ($wing) = $doc =~ /^(The current version's SQL is written once.*?\n\n)/ms;
my ($wing_list) = ($wing // '') =~ /each file needs only those before it\): (.*?)\. Every routine/s;
my @page_order = ($wing_list // '') =~ /`(\w+\.sql)`/g;
is(join(' ', @page_order), join(' ', @make_order), 'the page lists sql/src\'s files in the Makefile\'s order');
says(qr/The\s+Makefile\s+makes\s+two\s+scripts\s+of\s+them/, 'the Makefile makes two scripts');
my ($built) = $makefile =~ /^DATA_built = (.*)$/m;
is(scalar(split ' ', $built // ''), 2, 'DATA_built has two scripts');

# compat.h: each release the paragraph names is a boundary of compat.h
# within 20 lines of what the page says changed there.
my ($versions) = $doc =~ /Each definition names\s+the\s+release\s+that\s+changed\s+it: (.*?)\.\s+The\s+`Makefile`/s;
says(qr/Each definition names\s+the\s+release\s+that\s+changed\s+it: .*?\.\s+The\s+`Makefile`/s, 'what changed in which release');
my @compat = split /\n/, src_text('src/compat.h');
my (@unpaired, $pairs);
my $rest = $versions // '';
while ($rest =~ /\G(.*?)\b(until |since |gone in |\()?(1[5-9])\b/gs)
{
	my ($before, $how, $major) = ($1, $2 // '', $3);
	my $boundary = ($how eq 'until ' ? $major + 1 : $major) * 10000;
	my @names = map { s/\(\)$//r =~ s/^.*\.//r } $before =~ /`([^`]+)`/g;
	@names = ($names[-1]) if @names;
	push @unpaired, "$major (nothing named before it)" unless @names;
	foreach my $name (@names)
	{
		my @at = grep { $compat[$_] =~ /\b\Q$name\E\b/ } 0 .. $#compat;
		my @near = grep { my $i = $_; grep { abs($_ - $i) <= 20 && $compat[$_] =~ /PG_VERSION_NUM [<>]=? $boundary\b/ } 0 .. $#compat } @at;
		$pairs++;
		push @unpaired, "$name ($major)" unless @near;
	}
}
is(join(', ', @unpaired), '', ($pairs // 0) . ' releases the page names are compat.h\'s, beside what changed');

# The run-parameter recipe: the files it names hold every run parameter,
# and no other file lists ranread_run's arguments.
my ($recipe_files, $recipe_count) = (undef, undef);
if ($doc =~ /A\s+run\s+parameter\s+is\s+written\s+in\s+(\d+)\s+files: (.*?) \(measured\s+by\s+a\s+real\s+edit/s)
{
	($recipe_count, $recipe_files) = ($1, $2);
}
says(qr/A\s+run\s+parameter\s+is\s+written\s+in\s+\d+\s+files: .*? \(measured\s+by\s+a\s+real\s+edit/s, 'how many files a run parameter is written in');
my @recipe = ($recipe_files // '') =~ /`([^`]+)`/g;
is(scalar(@recipe), $recipe_count // -1, "the recipe names its $recipe_count files");
my @run_args = map { $_->[0] } @in_args;
my %type_of = map { $_->[0] => $_->[1] } @in_args;
sub sql_type
{
	my ($t) = @_;
	$t = lc $t;
	return { int => 'integer', int4 => 'integer', int8 => 'bigint', float8 => 'double precision',
		bool => 'boolean', timestamptz => 'timestamp with time zone' }->{$t} // $t;
}
my $run_types = join ',', map { sql_type($type_of{$_}) } @run_args;
my %params_alias = (mode => 'readpath', arrivals => 'poisson', steady_state => 'steady_window_ns',
	checkpoint => 'checkpoint_during', target => 'target_name', write_target => 'write_target_name');
my %holds = (
	'src/ranread.h' => sub {
		my ($struct) = $_[0] =~ /typedef struct RanreadParams\n\{(.*?)\} RanreadParams;/s;
		my @fields = ($struct // '') =~ /^\t\w[\w ]*?\s+\*?(\w+)(?:\[\w+\])?;/mg;
		return grep { my $a = $_; my $f = $params_alias{$a} // $a;
			!grep { $_ eq $f || /^\Q$f\E_(ns|pct)$/ } @fields } @run_args;
	},
	'src/run/run_arguments.h' => sub {
		my ($enum) = $_[0] =~ /typedef enum RunArgument\n\{(.*?)RUN_ARG_COUNT/s;
		my @listed = map { lc } ($enum // '') =~ /RUN_ARG_(\w+),/g;
		return join(',', @listed) eq join(',', @run_args) ? () : ('RunArgument: ' . join(',', @listed));
	},
	'src/run/run_arguments.c' => sub {
		my $c = $_[0];
		return grep { $c !~ /\[RUN_ARG_\U$_\E\] = "$_",/ } @run_args;
	},
	'sql/src/run.sql' => sub {
		my ($types, $comment) = $_[0] =~ /COMMENT ON FUNCTION ranread_run\(([^)]*)\) IS '(.*?)';/s;
		my @missing = grep { ($comment // '') !~ /^\Q$_\E: /m } @run_args;
		push @missing, "COMMENT ON's types ($types)" unless ($types // '') eq $run_types;
		return @missing;
	},
	'sql/src/grants.sql' => sub {
		my ($types) = $_[0] =~ /REVOKE ALL ON FUNCTION ranread_run\(([^)]*)\) FROM PUBLIC;/;
		return join(',', map { sql_type($_) } split /,\s*/, $types // '') eq $run_types ? () : ("REVOKE's types (" . ($types // 'none') . ')');
	},
	'docs/reference.md' => sub {
		my ($section) = $_[0] =~ /^### ranread_run\n(.*?)^### /ms;
		$section //= '';
		return grep { $section !~ /\b\Q$_\E $type_of{$_}\b/ || $section !~ /^\| `\Q$_\E` \|/m } @run_args;
	},
	'test/expected/ranread.out' => sub {
		my ($types) = $_[0] =~ /^ function ranread_run\(([^)]*)\)$/m;
		return ($types // '') eq $run_types ? () : ('\dx+ member (' . ($types // 'none') . ')');
	},
);
my @not_held;
foreach my $file (@recipe)
{
	if (!$holds{$file}) { push @not_held, "$file: the test knows no place in it"; next; }
	push @not_held, map { "$file: $_" } $holds{$file}->(src_text($file));
}
push @not_held, map { "$_: not in the recipe's list" } grep { my $f = $_; !grep { $_ eq $f } @recipe } sort keys %holds;
is(join('; ', @not_held), '', 'each file of the recipe holds every one of ranread_run\'s ' . scalar(@run_args) . ' run parameters');

# A list of ranread_run's arguments elsewhere (its first five in order, as
# names or RUN_ARG_ values) would be a place the recipe does not name.  The
# released scripts stay as they were; src/sweep/sweep.c sets the arguments it
# passes by name, and the recipe says when it changes.
my @first = @run_args[ 0 .. 4 ];
my $list_re = join '\W{1,60}?', map { '(?:(?<=RUN_ARG_)|(?<![\w]))' . quotemeta($_) . '(?![\w])' } @first;
my (@other_lists, %in_recipe);
%in_recipe = map { $_ => 1 } @recipe, 'src/sweep/sweep.c';
my @tree;
find({ no_chdir => 1, wanted => sub {
	return unless -f $_ && /\.(c|h|sql|md|out|pl|pm|sh|py)$/;
	(my $rel = $_) =~ s{^\Q$top\E/}{};
	return if $rel =~ m{^sql/ranread--[\d.-]+\.sql$|(?:^|/)tmp_check/|^test/results/};
	push @tree, $rel;
} }, grep { -e } map { "$top/$_" } qw(README.md docs src sql test scripts bench));
foreach my $rel (sort @tree)
{
	next if $in_recipe{$rel};
	push @other_lists, $rel if slurp_file("$top/$rel") =~ /$list_re/is;
}
is(join(', ', @other_lists), '', 'no file outside the recipe lists ranread_run\'s arguments');

# Every number on the page is in a stretch checked above: digits (not in a
# file name, an ordered list's marker or the test names checked first) and
# the words three to ten, twice, half and third.
my @unchecked;
while ($doc =~ /(?<![\w.\/-])(\d[\d.,]*\d|\d)(?![\w\/-]|\.\w)|\b(three|four|five|six|seven|eight|nine|ten|twice|half|third)\b/gi)
{
	my ($from, $to, $token) = ($-[0], $+[0], $&);
	next if substr($doc, 0, $from) =~ /(?:^|\n) *\z/ && substr($doc, $to, 2) eq '. ';   # "1. " of a list
	next if grep { $from >= $_->[0] && $to <= $_->[1] } @covered;
	my $line = 1 + (() = substr($doc, 0, $from) =~ /\n/g);
	push @unchecked, "line $line: $token";
}
is(join(', ', @unchecked), '', 'every number docs/architecture.md states is checked');

# --- The docs' form ----------------------------------------------------------
my @pages = ('README.md', map { s{^\Q$top\E/}{}r } glob("$top/docs/*.md"));
my %size = map { $_ => -s "$top/$_" } @pages;
cmp_ok($size{'README.md'}, '<=', 15_000, "README.md is at most 15,000 bytes ($size{'README.md'})");
cmp_ok($size{'docs/reference.md'}, '<=', 100_000, "docs/reference.md is at most 100,000 bytes ($size{'docs/reference.md'})");
my $all = 0;
$all += $_ foreach values %size;
cmp_ok($all, '<=', 300_000, "README.md and docs/*.md are at most 300,000 bytes together ($all)");

my @internal;
foreach my $page (@pages)
{
	my $text = slurp_file("$top/$page");
	while ($text =~ /\b(?:issues?|stop|item|review|ticket)\s+#?\d+\b|(?<![\w(&\/])#\d+\b|\b[A-Z]\d{1,2}\b(?![.\w-])/g)
	{
		my $line = 1 + (() = substr($text, 0, $-[0]) =~ /\n/g);
		push @internal, "$page:$line: $&";
	}
}
is(join(', ', @internal), '', 'no internal issue or review number in README.md or docs/');

# One screen per routine: prose lines of each ### section of reference.md.
use constant SCREEN_LINES => 40;
use constant SCREEN_COLUMNS => 120;
my (%prose, $section, $in_code, @wide);
my $line_no = 0;
foreach my $line (split /\n/, slurp_file("$top/docs/reference.md"))
{
	$line_no++;
	if ($line =~ /^```/) { $in_code = !$in_code; next; }
	next if $in_code;
	if ($line =~ /^(#{1,3}) (.*)$/) { $section = length($1) == 3 ? $2 : undef; next; }
	next if $line =~ /^#/ || $line =~ /^\|/ || $line =~ /^\s*$/ || $line =~ /^<!--/;
	next unless defined $section;
	$prose{$section}++;
	push @wide, "line $line_no (" . length($line) . ')' if length($line) > SCREEN_COLUMNS;
}
my @long = map { "$_: $prose{$_}" } grep { $prose{$_} > SCREEN_LINES } sort keys %prose;
my ($longest) = sort { $prose{$b} <=> $prose{$a} } keys %prose;
is(join(', ', @long), '', 'each routine section of docs/reference.md has at most ' . SCREEN_LINES
	  . " lines of prose (the longest, $longest, has $prose{$longest})");
is(join(', ', @wide), '', 'no prose line of docs/reference.md is wider than ' . SCREEN_COLUMNS . ' characters');

done_testing();
