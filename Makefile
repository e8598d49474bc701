# ranread: PGXS build, like contrib/pg_prewarm and pgvector.
EXTENSION = ranread
# The version the control file installs: one place to change it.
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" ranread.control)

MODULE_big = ranread
# Every .c of src/ and its folders (one a role: docs/architecture.md) is part
# of the library: a new file needs no line here.
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c src/*/*.c)))
# Private headers: not installed (PGXS installs HEADERS, so they are not called that).
PRIVATE_HEADERS = $(wildcard src/*.h src/*/*.h)

# The library refuses to run against another version's SQL objects.
PG_CPPFLAGS = -DRANREAD_VERSION=\"$(EXTVERSION)\"
# Includes name their folder from src/ ("rules/histogram.h"); the shared
# headers at its root are named alone ("ranread.h").
PG_CPPFLAGS += -Isrc

# iodepth > 1 (several reads in flight per worker) needs io_uring through
# liburing (Debian: liburing-dev, see scripts/install-deps.sh).  Without it
# the rest builds, and ranread_run refuses iodepth > 1 with a clear error.
ifeq ($(shell pkg-config --exists liburing 2>/dev/null && echo yes),yes)
PG_CPPFLAGS += -DRANREAD_HAVE_LIBURING $(shell pkg-config --cflags liburing)
SHLIB_LINK += $(shell pkg-config --libs liburing)
endif

# The current version's SQL is defined once, in sql/src: one file per role,
# in the order below (each file needs only those before it).  The Makefile
# makes two scripts of it:
# - the install script, every file in turn;
# - the update from the version before, the deltas the sources cannot say
#   by running again (sql/update/: new columns, objects dropped to change
#   their result columns, grants moved), around every file of sql/src but
#   the tables: their comments, routines and views are made again (COMMENT
#   ON, CREATE OR REPLACE).
# The earlier versions' install and update scripts stay as released (when a
# version is released, its generated update script is committed as sql/'s).
SQL_ROUTINES = $(addprefix sql/src/,numbers.sql run.sql readers.sql \
	calibration.sql sweep.sql fleet.sql views.sql fleet_run.sql \
	fleet_sweep.sql write_sweep.sql grants.sql)
SQL_INSTALL = sql/ranread--$(EXTVERSION).sql
SQL_UPDATE = sql/ranread--1.3--$(EXTVERSION).sql
DATA_built = $(SQL_INSTALL) $(SQL_UPDATE)
DATA = $(filter-out $(DATA_built),$(wildcard sql/ranread--*.sql))

TESTS = $(wildcard test/sql/*.sql)
REGRESS = $(patsubst test/sql/%.sql,%,$(TESTS))
REGRESS_OPTS = --inputdir=test --load-extension=ranread

# The fault-injection suites (test/t/AREA/*.pl, PostgreSQL::Test::Cluster) run
# through PGXS's prove_installcheck.  They make their own clusters, and
# initdb refuses root, so they are a target of their own (test/run-tap.sh
# runs it as the postgres user) rather than part of installcheck.
# The files that take longest (each over half a minute alone) start first,
# so that with several files at once (RANREAD_TAP_JOBS) none of them is
# left to run alone at the end; the rest follow in name order.
TAP_SLOW_FIRST = $(wildcard test/t/lab/lab_caps.pl test/t/security/forged_rows_superuser.pl test/t/security/forged_rows_bench.pl \
	test/t/fleet/fleet.pl test/t/security/trojans.pl test/t/history/chart.pl test/t/history/report_html.pl \
	test/t/programs/sweep.pl test/t/lab/lab_fuse.pl test/t/lab/lab_bucket.pl)
PROVE_TESTS ?= $(TAP_SLOW_FIRST) $(filter-out $(TAP_SLOW_FIRST),$(sort $(wildcard test/t/*/*.pl)))

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# (after PGXS, whose first target, all, stays the default; made again when
# the Makefile's lists change)
$(SQL_INSTALL): Makefile sql/src/header.sql sql/src/guard.sql sql/src/history_tables.sql \
		sql/src/history_comments.sql $(SQL_ROUTINES)
	cat $(filter %.sql,$^) >$@

$(SQL_UPDATE): Makefile sql/update/ranread--1.3--$(EXTVERSION).head.sql sql/src/guard.sql \
		sql/update/ranread--1.3--$(EXTVERSION).before.sql sql/src/history_comments.sql $(SQL_ROUTINES) \
		sql/update/ranread--1.3--$(EXTVERSION).after.sql
	cat $(filter %.sql,$^) >$@

# After PGXS, whose Makefile.global empties PROVE_FLAGS: each file's time,
# and RANREAD_TAP_JOBS files at once (test/run-tap.sh passes it on; the
# files wait far more than they compute, and each makes its own clusters
# on ports PostgreSQL::Test::Cluster locks).
PROVE_FLAGS = -I test/t --timer $(if $(RANREAD_TAP_JOBS),-j$(RANREAD_TAP_JOBS))

# The majors ranread builds for (src/compat.h is the one file that knows
# them); the test matrix (scripts/test.sh) runs those of tested-majors, the
# one list of them (META.json and the docs are checked against it).
PG_MAJOR := $(shell $(PG_CONFIG) --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
TESTED_MAJORS := $(shell cat tested-majors)
BUILDABLE_MAJORS = 15 16 17 18 19
ifeq ($(filter $(PG_MAJOR),$(BUILDABLE_MAJORS)),)
$(error ranread builds on PostgreSQL $(BUILDABLE_MAJORS) (tested on $(TESTED_MAJORS)), but $(PG_CONFIG) is PostgreSQL $(PG_MAJOR))
endif
ifeq ($(filter $(PG_MAJOR),$(TESTED_MAJORS)),)
$(warning ranread is untested on PostgreSQL $(PG_MAJOR): its test matrix runs $(TESTED_MAJORS))
endif

# Objects are built for one major: a build against another one starts afresh
# (its objects would link, and fail at load with an undefined symbol).  PGXS
# makes every target .SECONDARY, so a stamp file cannot be a prerequisite:
# the check runs as the Makefile is read.
EXTRA_CLEAN += .built-for-pg
ifneq ($(shell cat .built-for-pg 2>/dev/null),$(PG_MAJOR))
$(shell rm -f $(OBJS) $(OBJS:.o=.bc) $(shlib) && echo $(PG_MAJOR) >.built-for-pg)
endif

.PHONY: tapcheck
tapcheck:
	$(prove_installcheck)

# PGXS tracks no header dependencies; every object reads the shared layouts.
# (scripts/test.sh builds with COPT=-Werror, so CI catches every new warning;
# a user's make does not fail on a new compiler's new warning.)
$(OBJS): $(PRIVATE_HEADERS)
