#!/usr/bin/env bash
# run-suite.sh: run every ranread test against the cluster in PGHOST/PGPORT
# (normally one made by pg_virtualenv; see scripts/test.sh).
#
#   pg_regress  test/sql, test/expected   the stable SQL surface
#   pgTAP       test/pgtap/*.sql          behaviour, in database ranread_tap
set -euo pipefail
cd "$(dirname "$0")/.."

psql -XAtc "SELECT 'data_checksums=' || current_setting('data_checksums')"

make installcheck || { cat regression.diffs 2>/dev/null; exit 1; }

dropdb --if-exists ranread_tap
createdb ranread_tap
psql -X -q -d ranread_tap -c "CREATE EXTENSION pgtap; CREATE EXTENSION ranread; CREATE EXTENSION dblink; CREATE EXTENSION amcheck; CREATE EXTENSION pageinspect; CREATE EXTENSION pg_prewarm;"
PGDATABASE=ranread_tap pg_prove --ext .sql test/pgtap/

