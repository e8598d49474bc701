#!/usr/bin/env bash
# longest-cell.sh: the longest cell of any markdown table, per file, in
# characters, with its line number and the cell's first words; and the
# number of cells over 200 characters.  Arguments are markdown files
# (default: README.md and docs/*.md, from the top of the tree).  A table
# row is a line that starts with "|"; cells are split on "|" that is not
# inside backticks or escaped.  Used to measure how wide the docs' tables
# are (docs/architecture.md, "What a change costs").
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- README.md docs/*.md
command -v perl >/dev/null || { echo "longest-cell.sh: needs perl (apt-get install perl)" >&2; exit 2; }
perl -CSD -Mutf8 -e '
	printf "%-28s %8s %6s %10s  %s\n", "file", "longest", "line", "cells>200", "starts with";
	foreach my $file (@ARGV)
	{
		open(my $fh, "<:encoding(UTF-8)", $file) or die "$file: $!";
		my ($max, $at, $text, $over) = (0, 0, "", 0);
		while (my $line = <$fh>)
		{
			next unless $line =~ /^\|/;
			chomp $line;
			my ($cell, $tick, @cells) = ("", 0);
			foreach my $ch (split //, $line)
			{
				$tick = !$tick if $ch eq "`";
				if ($ch eq "|" && !$tick && $cell !~ /\\\z/) { push @cells, $cell; $cell = ""; }
				else { $cell .= $ch; }
			}
			push @cells, $cell;
			foreach my $c (@cells)
			{
				$c =~ s/^\s+|\s+$//g;
				$over++ if length($c) > 200;
				($max, $at, $text) = (length($c), $., $c) if length($c) > $max;
			}
		}
		close $fh;
		printf "%-28s %8d %6s %10d  %s\n", $file, $max, $at || "-", $over, substr($text, 0, 40);
	}' "$@"
