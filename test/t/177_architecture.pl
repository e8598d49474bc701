# The map of docs/architecture.md ("The map: src/ by folder") against src/
# itself: every folder of src/ has its paragraph, every file of src/ (build
# products aside) is listed once, under its own folder, and the map lists no
# file that is not there.  Every path of a C file that the page names
# anywhere (src/run/run.c, or run/run.c in the diagrams) must exist too.
# Needs no cluster.
use strict;
use warnings;
use File::Find;
use FindBin;
use PostgreSQL::Test::Utils;
use Test::More;

my $top = "$FindBin::RealBin/../..";
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

done_testing();
