# ranread: PGXS build, like contrib/pg_prewarm and pgvector.
EXTENSION = ranread
# The version the control file installs: one place to change it.
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" ranread.control)

MODULE_big = ranread
OBJS = src/admin.o src/arrivals.o src/chart.o src/compare.o src/compare_noise.o src/export.o src/extension.o src/help.o src/histogram.o src/histogram_sql.o \
	src/osstats.o src/permutation.o src/readahead.o src/readpath.o src/readpath_buffer.o src/readpath_direct.o \
	src/readpath_smgr.o src/registry.o src/report.o src/residency.o src/results.o src/run.o \
	src/run_arguments.o src/run_rules.o src/segments.o src/series.o src/series_rules.o src/setup.o src/setup_progress.o src/svg.o src/sweep.o \
	src/sweep_rules.o src/sweep_verdict.o src/target.o src/uring.o src/worker.o
# Private headers: not installed (PGXS installs HEADERS, so they are not called that).
PRIVATE_HEADERS = $(wildcard src/*.h)

# The library refuses to run against another version's SQL objects.
PG_CPPFLAGS = -DRANREAD_VERSION=\"$(EXTVERSION)\"

# iodepth > 1 (several reads in flight per worker) needs io_uring through
# liburing (Debian: liburing-dev, see scripts/install-deps.sh).  Without it
# the rest builds, and ranread_run refuses iodepth > 1 with a clear error.
ifeq ($(shell pkg-config --exists liburing 2>/dev/null && echo yes),yes)
PG_CPPFLAGS += -DRANREAD_HAVE_LIBURING $(shell pkg-config --cflags liburing)
SHLIB_LINK += $(shell pkg-config --libs liburing)
endif

# The current version's script, 1.0's (the upgrade test starts from it) and every update script.
DATA = sql/ranread--1.0.sql sql/ranread--$(EXTVERSION).sql $(wildcard sql/ranread--*--*.sql)

TESTS = $(wildcard test/sql/*.sql)
REGRESS = $(patsubst test/sql/%.sql,%,$(TESTS))
REGRESS_OPTS = --inputdir=test --load-extension=ranread

# The fault-injection suites (test/t/*.pl, PostgreSQL::Test::Cluster) run
# through PGXS's prove_installcheck.  They make their own clusters, and
# initdb refuses root, so they are a target of their own (test/run-tap.sh
# runs it as the postgres user) rather than part of installcheck.
PROVE_TESTS ?= test/t/*.pl
PROVE_FLAGS = -I test/t

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

.PHONY: tapcheck
tapcheck:
	$(prove_installcheck)

# PGXS tracks no header dependencies; every object reads the shared layouts.
# (scripts/test.sh builds with COPT=-Werror, so CI catches every new warning;
# a user's make does not fail on a new compiler's new warning.)
$(OBJS): $(PRIVATE_HEADERS)
