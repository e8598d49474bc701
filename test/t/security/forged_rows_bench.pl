# Forged history rows, every call made as role bench (the GRANT block's):
# the cases and the checks are forged_rows.pm's (its header says what they
# are); the other role's calls run beside these, in forged_rows_superuser.pl.
use strict;
use warnings;
use FindBin;
# loaded here, as the file compiles: PostgreSQL::Test's INIT blocks would not run under do
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

our @FORGED_AS = ('bench');
do "$FindBin::RealBin/forged_rows.pm";
die $@ if $@;
