# Forged history rows: every reader of ranread's tables treats each row as
# hostile.  This is the body of two test files, loaded with do:
# forged_rows_superuser.pl makes every call as the superuser,
# forged_rows_bench.pl as role bench (@main::FORGED_AS names the role), so
# that the two halves of the calls run beside each other.  The GRANT block of docs/reference.md creates role bench; every
# table of the extension that bench may read, and each of its columns, is
# read from the catalog.  Since 1.4 only ranread (and a superuser) writes
# them: the rows are forged through forge.apply(), a superuser's function,
# as a superuser's mistake or a row of an older version would be there.  Starting from real rows (two small
# sweeps, a batch with writers, and fleet rows forged as a fleet sweep
# records them), one case at a time replaces a column of a table's rows by
# an extreme value of its type (or NULL, or the two overflowing fleet
# shapes of review D2), then every reader (every function and view of the
# extension, also from the catalog, through the recipes below) that reads
# a table the case changed is called on them as bench and as the
# superuser, and the case is rolled back.  A reader may refuse a row or draw
# around a value, but no call may crash the server or raise an internal
# error (SQLSTATE class XX).  A function of the extension without a recipe,
# and not listed as reading no history, fails the test.
#
# Which tables a call reads is measured, not declared: on the real rows, as
# each role, the call's scans of each table (the transaction's own
# statistics, pg_stat_xact_user_tables: sequential and index scans) are
# counted, and after each case's forging, the rows it inserted, updated or
# deleted.  A call that scanned none of the tables a case changed is not
# made on that case: it would read exactly the rows it read unforged, which
# every call reads without error (checked below).  A call that failed on
# the real rows would be made on every case.  Every call (but those of
# %scans_no_table) must be seen to scan some table, or the test fails:
# statistics that counted nothing would otherwise skip every call.  (The
# tables that no call scans are noted: only the calls of a column's type,
# ranread_round_ms() and the histogram functions, read their columns.)
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use File::Path qw(make_path rmtree);
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

# How many cases one DO block runs, in one transaction.
my $CHUNK = 100;
# The role the calls are made as: the superuser, postgres, or bench.
our @FORGED_AS;
my ($as) = @FORGED_AS;
die "forged_rows.pm: \@FORGED_AS names postgres or bench" unless @FORGED_AS == 1 && $as =~ /^(postgres|bench)$/;
my $as_who = $as eq 'bench' ? 'bench' : 'the superuser';

# What each function of the extension is called with to read the forged
# rows: {S1} and {S2} are the two sweeps, {B1} and {B2} two batches of
# {S1}, {F} the fleet sweep, {DIR} a directory for the case's files.  A
# recipe whose first element is a type applies to a case that forged a
# column of that type, {T} and {C} naming the table and the column.
my %recipes = (
	ranread_chart => [ 'SELECT ranread_chart({S1})', 'SELECT ranread_chart({S2}, 4096, 320)', 'SELECT ranread_chart()' ],
	# (one call: it draws each batch it is given alike; with a second it took 15 % of the calls' time)
	ranread_chart_latency => [ 'SELECT ranread_chart_latency({B1}, {B2})' ],
	ranread_chart_intervals => [ 'SELECT ranread_chart_intervals({B1})', 'SELECT ranread_chart_intervals()' ],
	ranread_chart_fleet => [ 'SELECT ranread_chart_fleet({F})', 'SELECT ranread_chart_fleet()' ],
	ranread_compare => [ 'SELECT * FROM ranread_compare({B1}, {B2})', 'SELECT * FROM ranread_compare({B2}, {B1})' ],
	ranread_compare_sweeps => [ 'SELECT * FROM ranread_compare_sweeps({S1}, {S2})' ],
	ranread_sweep_verdict => [ 'SELECT * FROM ranread_sweep_verdict({S1})', 'SELECT * FROM ranread_sweep_verdict({S2})' ],
	ranread_verdict => [ 'SELECT * FROM ranread_verdict({S1})', 'SELECT * FROM ranread_verdict()' ],
	ranread_limit => [ 'SELECT * FROM ranread_limit({S1})', 'SELECT * FROM ranread_limit({S2})' ],
	# two sweeps compared (each sweep's page, its batches' settings and charts) and the fleet sweep's page
	# (its runs' rows); a batch's and a fleet run's pages read the same rows through the same code
	ranread_report_html => [ 'SELECT ranread_report_html({S1}, compare_to => {S2})',
		'SELECT ranread_report_html(fleet_sweep => {F})' ],
	# a write sweep's step pooled: the batch with writers, with readers and without
	ranread_write_sweep_pool => [
		'SELECT * FROM ranread_write_sweep_pool(ARRAY(SELECT DISTINCT batch FROM ranread_write_results), 1)',
		'SELECT * FROM ranread_write_sweep_pool(ARRAY[{B1}, {B2}], 0)' ],
	# every file an export makes: TSV, CSV, the charts, the fleet's files; RanRead's format of a sweep.
	# Both functions build their files in build_export_files(): the export writes RanRead's (file names
	# made from the history's values), CSV and charts, and the rows give every format (writing the TSV
	# too made the export 28 % of the calls' time, for no code of its own)
	ranread_export => [ q{SELECT * FROM ranread_export('{DIR}', 'ranread', sweep => {S2}, csv => true, svg => true)} ],
	ranread_export_files => [
		q{SELECT * FROM ranread_export_files(csv => true, svg => true)},
		q{SELECT * FROM ranread_export_files('ranread', sweep => {S2}, csv => true, svg => true)} ],
	ranread_round_ms => [ [ 'float8', 'SELECT ranread_round_ms({C}), ranread_round_ms({C}, 6) FROM {T}' ] ],
	ranread_histogram_check => [ [ '_int8', 'SELECT ranread_histogram_check({C}) FROM {T}' ] ],
	ranread_histogram_add => [ [ '_int8', 'SELECT ranread_histogram_add({C}, {C}) FROM {T}' ] ],
	ranread_histogram_merge => [ [ '_int8', 'SELECT ranread_histogram_merge({C}) FROM {T}' ] ],
	ranread_histogram_percentile => [ [ '_int8', 'SELECT ranread_histogram_percentile({C}, 0.99) FROM {T}' ] ]);

# Functions that read no history row (they run, set up, stop, watch or
# write it; ranread_sweep_decide, ranread_series_bucket and ranread_write_sweep_decide decide on the figures they are given, and
# ranread_write_sweep_check on its arguments; the fleet run's phases read the catalogs and the servers' rows
# over dblink, which fleet/fleet.pl forges; a sweep reads only
# the batches it has just run; a run reads ranread_targets only through target.c, which proves the relation by extension
# membership, tested by privileges.pl and grant_block.pl).
my %no_history = map { $_ => 1 } qw(ranread_setup ranread_setup_writes ranread_run ranread_stop ranread_reset ranread_drop
  ranread_running ranread_setup_running ranread_help ranread_sweep ranread_layers ranread_calibrate
  ranread_fleet_run ranread_fleet_sweep ranread_fleet_connect ranread_fleet_check ranread_fleet_wait
  ranread_fleet_open ranread_fleet_gather ranread_write_sweep_check
  ranread_sweep_decide ranread_series_bucket ranread_write_sweep ranread_write_sweep_decide
  ranread_history_insert ranread_history_update);   # (they write the caller's own rows)

# Calls that scan no table here (each call's tables are measured: see above)
my %scans_no_table = (ranread_progress => 'the runs in progress, none here');

# Extreme values of each column type, as SQL expressions; every column is also forged NULL.
my %extremes = (
	int4 => [ '2147483647', '-2147483648', '-1' ],
	int8 => [ '9223372036854775807', '-9223372036854775808', '-1' ],
	float8 => [ q{'NaN'}, q{'Infinity'}, q{'-Infinity'}, '-1', '1e308', '4.9e-324' ],
	text => [ q{''}, q{repeat('x', 100000)}, q{'</title><script>alert(1)</script>'} ],
	name => [ q{''}, q{'</title><script>'}, q{repeat('n', 63)} ],
	bool => [ 'true', 'false' ],
	oid => [ '0', '4294967295' ],
	date => [ q{'infinity'}, q{'-infinity'}, q{'0001-01-01'}, q{'4713-01-01 BC'} ],
	time => [ q{'00:00:00'}, q{'24:00:00'} ],
	timestamptz => [ q{'infinity'}, q{'-infinity'}, q{'0001-01-01 00:00:00+00'}, q{'4713-01-01 00:00:00+00 BC'} ],
	interval => [ q{'178000000 years'}, q{'-178000000 years'}, q{'0'} ],
	_int8 => [
		q{'{}'}, q{'{{1,2},{3,4}}'}, q{'{1,NULL,3}'}, q{'{5,-5}'}, q{'[0:2]={1,2,3}'},
		q{array_fill(1::bigint, ARRAY[100000])}, q{array_fill(1::bigint, ARRAY[5000000])},
		q{array_fill((2^62)::bigint, ARRAY[2304])} ],
	_text => [
		q{'{}'}, q{'{a,NULL,b}'}, q{'{{a,b},{c,d}}'}, q{ARRAY['</title><script>', E'x\ny']},
		q{ARRAY[repeat('w', 100000)]}, q{(SELECT array_agg(repeat('w', 100)) FROM generate_series(1, 100000))} ],
	_name => [
		q{'{}'}, q{'{a,NULL,b}'}, q{'{{a,b},{c,d}}'}, q{'{a,a,a}'}, q{ARRAY['</title><script>']},
		q{(SELECT array_agg(('s' || k)::name) FROM generate_series(1, 65536) k)} ]);

# The fleet shapes of review D2: a fleet sweep of $steps steps whose first names $servers servers.
sub fleet_shape
{
	my ($steps, $servers) = @_;
	return [
		'DELETE FROM ranread_fleet_runs WHERE fleet_sweep = {F}',
		qq{INSERT INTO ranread_fleet_runs (fleet, started_at, start_at, servers, processes, mode, target, status, iops, fleet_sweep, sweep_step)
		   SELECT 2000000 + g, now(), now(),
		          CASE WHEN g = 1 THEN (SELECT array_agg(('s' || k)::name) FROM generate_series(1, $servers) k) ELSE '{s1}'::name[] END,
		          1, 'smgr', 'ranread_target', 'completed', 100, {F}, g
		   FROM generate_series(1, $steps) g},
		q{INSERT INTO ranread_fleet_servers (fleet, server, status, iops)
		  SELECT 2000001 + mod(g, 3), 's' || (1 + g), 'completed', 10 FROM generate_series(0, 8) g} ];
}

# --- a node, the role, the real rows ----------------------------------------

my $doc = slurp_file("$FindBin::RealBin/../../../docs/reference.md");
my ($block) = $doc =~ /<!-- grant-block\b[^>]*-->\n```sql\n(.*?)```\n<!-- \/grant-block -->/s;
ok(defined $block, 'docs/reference.md has its GRANT block');
# (no fsync of the exported files; no statement text with each case's LOG line)
my $node = new_node("forged_rows_$as", fsync => 'off', log_min_error_statement => 'panic');
my $base = $node->basedir;
mkdir "$base/vol" or die;
$node->safe_psql('postgres', qq{
	CREATE TABLESPACE ranread_vol LOCATION '$base/vol';
	SELECT ranread_setup('16 MB', log_level => 0);
	SELECT ranread_setup_writes('1 MB');});
my ($ret, $out, $err) = $node->psql('postgres', $block // '', on_error_stop => 1);
is($ret, 0, 'the GRANT block creates role bench') or diag($err);
# and what the block leaves to superusers, so that bench's exports to server files read forged rows too
$node->safe_psql('postgres', 'GRANT EXECUTE ON FUNCTION ranread_export TO bench; GRANT pg_write_server_files TO bench');

$node->safe_psql('postgres', q{
	CALL ranread_sweep(start_processes => 1, max_processes => 2, duration => '1.2 s', mode => 'direct', min_scaling_pct => 0);
	CALL ranread_sweep(start_processes => 1, max_processes => 2, iterations => 300, mode => 'direct', min_scaling_pct => 0)});
# a batch with writers: real rows of ranread_write_results and ranread_db_activity
is($node->safe_psql('postgres', q{SELECT status FROM ranread_run(1, NULL, duration => '1 s', rate_iops => 100, mode => 'direct',
	writers => 2, write_rate_iops => 40)}), 'completed', 'a batch with two writers');
my ($s1, $s2) = split /\n/, $node->safe_psql('postgres', 'SELECT sweep FROM ranread_sweep_runs ORDER BY sweep');
my ($b1, $b2) = split /\n/, $node->safe_psql('postgres', "SELECT batch FROM ranread_batches WHERE sweep = $s1 ORDER BY batch");
ok(defined $b2, "sweeps $s1 and $s2, batches $b1 and $b2 of the first");
# a fleet sweep as ranread_fleet_sweep records one, its servers' rows from the real batches (the first
# batch of each step: a step within its noise runs again)
my $f = 1;
$node->safe_psql('postgres', qq{
	INSERT INTO ranread_fleet_runs (fleet, started_at, start_at, servers, processes, iterations, duration_s, mode, target,
	                                status, iops, mean_ms, p50_ms, p99_ms, p999_ms, max_ms, slowest_server, overlap_pct,
	                                histogram, fleet_sweep, sweep_step)
	SELECT sweep_step, started_at, started_at, '{s1,s2}', processes, iterations, duration_s, mode, target, 'completed',
	       2 * iops, response_time_ms, p50_ms, p99_ms, p999_ms, max_ms, 's2', 98.5,
	       ranread_histogram_add(histogram, histogram), $f, sweep_step
	FROM (SELECT DISTINCT ON (sweep_step) * FROM ranread_batches WHERE sweep = $s1 ORDER BY sweep_step, batch) b;
	INSERT INTO ranread_fleet_servers (fleet, server, batch, status, error, iops, mean_ms, p99_ms, max_ms, reads, started_at,
	                                   wall_s, start_skew_ms, clock_offset_ms, histogram)
	SELECT b.sweep_step, s.name, b.batch, 'completed', NULL, b.iops, b.response_time_ms, b.p99_ms, b.max_ms, b.reads,
	       b.started_at, b.wall_s, 0.1, 0.2, b.histogram
	FROM (SELECT DISTINCT ON (sweep_step) * FROM ranread_batches WHERE sweep = $s1 ORDER BY sweep_step, batch) b,
	     (VALUES ('s1'), ('s2')) s(name);});
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_intervals WHERE batch IN (' . "$b1, $b2)") > 0, 1,
	'the timed sweep recorded intervals');

# --- what to forge, what to call, both from the catalog --------------------

my $extension_objects = q{
	JOIN pg_depend d ON d.objid = o.oid AND d.deptype = 'e' AND d.refclassid = 'pg_extension'::regclass
	JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread'};
my @tables = split /\n/, $node->safe_psql('postgres', qq{
	SELECT o.relname FROM pg_class o $extension_objects
	WHERE d.classid = 'pg_class'::regclass AND o.relkind = 'r'
	  AND has_table_privilege('bench', o.oid, 'SELECT')
	  AND o.relname <> 'ranread_write_target'	-- what writers write, never read back
	  AND o.oid NOT IN (SELECT relation FROM ranread_targets)	-- what runs read, pages not rows
	ORDER BY 1});
note('tables bench may read: ' . join(', ', @tables));
cmp_ok(scalar(@tables), '>=', 11, 'bench may read ' . scalar(@tables) . ' tables of the extension');

my @functions = split /\n/, $node->safe_psql('postgres', qq{
	SELECT DISTINCT o.proname FROM pg_proc o $extension_objects WHERE d.classid = 'pg_proc'::regclass ORDER BY 1});
my @views = split /\n/, $node->safe_psql('postgres', qq{
	SELECT o.relname FROM pg_class o $extension_objects WHERE d.classid = 'pg_class'::regclass AND o.relkind = 'v' ORDER BY 1});
foreach my $fn (@functions)
{
	ok($recipes{$fn} || $no_history{$fn}, "$fn has a recipe or reads no history")
	  or diag("no recipe for new function $fn: add the calls that read forged rows to %recipes in forged_rows.pm");
}

$node->safe_psql('postgres', q{
	CREATE SCHEMA forge;
	CREATE TABLE forge.extremes (typ regtype, value text);
	CREATE TABLE forge.cases (id serial PRIMARY KEY, tbl name, col name, typ regtype, value text, forge text[]);
	CREATE TABLE forge.calls (id serial PRIMARY KEY, fn name, typ regtype, sql text);
	CREATE TABLE forge.outcomes (role name, case_id int, call text, sqlstate text, message text);
	-- the tables each call scanned on the real rows, as each role
	CREATE TABLE forge.reads (role name, call_id int, tables regclass[]);
	GRANT USAGE ON SCHEMA forge TO bench;
	GRANT SELECT ON ALL TABLES IN SCHEMA forge TO bench;
	GRANT INSERT ON forge.outcomes, forge.reads TO bench;
	-- this transaction's scans (element 0) and changed rows (element 1) of each table but forge's
	CREATE FUNCTION forge.counts() RETURNS jsonb LANGUAGE sql AS $$
		SELECT jsonb_object_agg(relid::text, jsonb_build_array(coalesce(seq_scan, 0) + coalesce(idx_scan, 0),
		                                                       n_tup_ins + n_tup_upd + n_tup_del))
		FROM pg_stat_xact_user_tables WHERE schemaname <> 'forge' $$;
	-- the tables (oids, as text) whose count $3 grew from $1 to $2
	CREATE FUNCTION forge.grown(jsonb, jsonb, int) RETURNS text[] LANGUAGE sql AS $$
		SELECT coalesce(array_agg(k ORDER BY k), '{}') FROM jsonb_each($2) e(k, v)
		WHERE (v ->> $3)::bigint > coalesce(($1 -> k ->> $3)::bigint, 0) $$;
	-- a forged row, written as the superuser (bench may write no history)
	CREATE FUNCTION forge.apply(stmt text) RETURNS void LANGUAGE plpgsql SECURITY DEFINER
		SET search_path = public AS $$ BEGIN EXECUTE stmt; END $$;
	GRANT EXECUTE ON FUNCTION forge.apply TO bench;});
foreach my $type (sort keys %extremes)
{
	$node->safe_psql('postgres', 'INSERT INTO forge.extremes VALUES '
		  . join(', ', map { "('$type', " . $node->safe_psql('postgres', 'SELECT quote_literal($q$' . $_ . '$q$)') . ')' } ('NULL', @{ $extremes{$type} })));
}
my $table_list = join(', ', map { "'$_'" } @tables);
my $untyped = $node->safe_psql('postgres', qq{
	SELECT string_agg(format('%I.%I (%s)', c.relname, a.attname, format_type(a.atttypid, NULL)), ', ')
	FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
	WHERE c.relname IN ($table_list) AND c.relnamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'ranread')
	  AND NOT EXISTS (SELECT FROM forge.extremes x WHERE x.typ = a.atttypid)});
is($untyped, '', 'every column type of those tables has extreme values here');

# Each case forges every row of its table (one row if that breaks a key), in one statement.
$node->safe_psql('postgres', qq{
	INSERT INTO forge.cases (tbl, col, typ, value, forge)
	SELECT c.relname, a.attname, a.atttypid, x.value,
	       ARRAY[format('WITH d AS (DELETE FROM %I %%s RETURNING *) INSERT INTO %I (%s) SELECT %s FROM d', c.relname, c.relname,
	                    (SELECT string_agg(quote_ident(b.attname), ', ' ORDER BY b.attnum) FROM pg_attribute b
	                     WHERE b.attrelid = c.oid AND b.attnum > 0 AND NOT b.attisdropped),
	                    (SELECT string_agg(CASE WHEN b.attnum = a.attnum THEN format('(%s)::%s', x.value, format_type(b.atttypid, b.atttypmod))
	                                            ELSE quote_ident(b.attname) END, ', ' ORDER BY b.attnum) FROM pg_attribute b
	                     WHERE b.attrelid = c.oid AND b.attnum > 0 AND NOT b.attisdropped))]
	FROM pg_class c
	JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
	JOIN forge.extremes x ON x.typ = a.atttypid
	WHERE c.relname IN ($table_list) AND c.relnamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'ranread')
	ORDER BY c.relname, a.attnum, x.value});
foreach my $shape ([ 65537, 65536 ], [ 40000, 60000 ])
{
	my $forge = join(', ', map { $node->safe_psql('postgres', 'SELECT quote_literal($q$' . $_ . '$q$)') } @{ fleet_shape(@$shape) });
	$node->safe_psql('postgres', qq{INSERT INTO forge.cases (tbl, col, value, forge)
		VALUES ('ranread_fleet_runs', 'fleet_sweep', '$shape->[0] steps x $shape->[1] servers', ARRAY[$forge])});
}
my $ncases = $node->safe_psql('postgres', 'SELECT count(*) FROM forge.cases');
note("$ncases cases");

my %ids = (S1 => $s1, S2 => $s2, B1 => $b1, B2 => $b2, F => $f);
foreach my $fn (sort keys %recipes)
{
	foreach my $recipe (@{ $recipes{$fn} })
	{
		my ($type, $sql) = ref $recipe ? @$recipe : (undef, $recipe);
		$sql =~ s/\{(S1|S2|B1|B2|F)\}/$ids{$1}/g;
		$node->safe_psql('postgres', sprintf('INSERT INTO forge.calls (fn, typ, sql) VALUES (%s, %s, $q$%s$q$)',
			"'$fn'", defined $type ? "'$type'" : 'NULL', $sql));
	}
}
$node->safe_psql('postgres', qq{INSERT INTO forge.calls (fn, sql) VALUES ('$_', 'SELECT * FROM $_')}) foreach @views;

# --- the calls --------------------------------------------------------------

# A DO block running cases $from to $to: first case 0, the real rows,
# unforged, every call made and the tables it scans measured (its outcomes
# and those tables kept in the block of the first chunk); then each case
# forged, the tables it changed measured, every call that applies and reads
# one of them made and its outcome kept, a row for the forging itself, then
# the case rolled back.  Calls are made through a row-to-text conversion so
# that every column is computed.
sub do_block
{
	my ($from, $to, $dir, $skip) = @_;
	return qq{DO \$do\$
DECLARE
	c record;
	k record;
	calls text[];
	states text[];
	messages text[];
	stmt text;
	sql text;
	st text;
	msg text;
	reads jsonb := '{}';	-- call id => the tables (oids) it scanned on the real rows, '*' if it failed there
	counted jsonb;
	changed text[];
	scanned text[];
BEGIN
	FOR c IN SELECT * FROM forge.cases WHERE id BETWEEN $from AND $to AND id <> ALL ('{$skip}')
			 UNION ALL SELECT 0, NULL, NULL, NULL, 'real rows', '{}' ORDER BY 1 LOOP
		RAISE LOG 'forged case %: %.% = %', c.id, c.tbl, c.col, left(c.value, 80);
		calls := '{}'; states := '{}'; messages := '{}';
		BEGIN
			counted := forge.counts();
			FOREACH stmt IN ARRAY c.forge LOOP
				stmt := replace(stmt, '{F}', '$f');
				BEGIN
					PERFORM forge.apply(format(stmt, ''));
				EXCEPTION WHEN unique_violation THEN
					PERFORM forge.apply(format(stmt, format('WHERE ctid = (SELECT min(ctid) FROM %I)', c.tbl)));
				END;
			END LOOP;
			changed := forge.grown(counted, forge.counts(), 1);
			IF c.id <> 0 THEN
				calls := calls || ('forged: ' || coalesce((SELECT string_agg(t::oid::regclass::text, ', ') FROM unnest(changed) t), 'no row'));
				states := states || '00000'::text; messages := messages || ''::text;
			END IF;
			FOR k IN SELECT * FROM forge.calls WHERE typ IS NULL OR typ = c.typ ORDER BY id LOOP
				-- (a call of a column's type reads the forged column itself)
				CONTINUE WHEN c.id <> 0 AND k.typ IS NULL AND NOT (reads -> k.id::text ?| ('*'::text || changed));
				-- (case 0 has no table or column: replace() of a NULL would make every call NULL)
				sql := replace(replace(replace(k.sql, '{T}', coalesce(quote_ident(c.tbl), '{T}')), '{C}', coalesce(quote_ident(c.col), '{C}')),
							   '{DIR}', '$dir/' || c.id);
				IF c.id = 0 THEN
					counted := forge.counts();
				END IF;
				BEGIN
					EXECUTE format('SELECT length(string_agg(r::text, %L)) FROM (%s) r', ',', sql);
					st := '00000'; msg := '';
				EXCEPTION WHEN OTHERS THEN
					GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
				END;
				IF c.id = 0 THEN
					scanned := CASE WHEN st = '00000' THEN forge.grown(counted, forge.counts(), 0) ELSE '{*}' END;
					reads := reads || jsonb_build_object(k.id::text, to_jsonb(scanned));
				END IF;
				calls := calls || sql; states := states || st; messages := messages || left(msg, 300);
			END LOOP;
			RAISE EXCEPTION USING ERRCODE = 'RRRRR';
		EXCEPTION
			WHEN SQLSTATE 'RRRRR' THEN NULL;
			WHEN OTHERS THEN
				GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
				calls := calls || ('forging: ' || array_to_string(c.forge, '; ')); states := states || st;
				messages := messages || left(msg, 300);
		END;
		INSERT INTO forge.outcomes SELECT current_user, c.id, x.call, x.state, x.message
		FROM unnest(calls, states, messages) x(call, state, message) WHERE c.id <> 0 OR $from = 0;
		IF c.id = 0 AND $from = 0 THEN
			INSERT INTO forge.reads SELECT current_user, r.key::int,
				(SELECT coalesce(array_agg(t::oid::regclass ORDER BY t::oid::regclass::text), '{}')
				 FROM jsonb_array_elements_text(r.value) t WHERE t <> '*')
			FROM jsonb_each(reads) r;
		END IF;
	END LOOP;
END
\$do\$};
}

my $start_time = $node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');
my $log_offset = -s $node->logfile;
my $export_base = "$base/export";
my $started = time;
my @crashed;	# [role, case, its LOG line]: the server is started again and the chunk run without the case
foreach my $from (map { $_ * $CHUNK } 0 .. int($ncases / $CHUNK))
{
	my $to = $from + $CHUNK - 1;
	foreach my $role ($as)
	{
		my $dir = "$export_base/$role";
		my @skip;
		while (1)
		{
			my $chunk_log = -s $node->logfile;
			make_path(map { "$dir/$_" } 0, $from .. $to);
			my ($r, $o, $e) = $node->psql('postgres', do_block($from, $to, $dir, join(',', @skip)),
				extra_params => $role eq 'bench' ? [ '-U', 'bench' ] : []);
			rmtree($dir);
			last if $r == 0;
			my @cases = slurp_file($node->logfile, $chunk_log) =~ /LOG:  (forged case (\d+): .*)/g;
			diag("cases $from to $to as $role: $e");
			last if !@cases || grep { $_ == $cases[-1] } @skip;
			push @crashed, [ $role, $cases[-1], $cases[-2] ];
			push @skip, $cases[-1];
			# restart_after_crash is off: wait for the postmaster to go, then start it
			for (my $i = 0; $i < 300 && -e $node->data_dir . '/postmaster.pid'; $i++) { select(undef, undef, undef, 0.1) }
			$node->_update_pid(0);
			$node->start;
		}
	}
}
note(sprintf('%d cases in %d s', $ncases, time - $started));

# --- what happened ------------------------------------------------------------

ok(log_is_clean($node, $log_offset), 'no backend ended by a signal, no PANIC, no internal error logged');
is(scalar(@crashed), 0, 'no case crashed the server') or diag(join("\n", map { "as $_->[0]: $_->[2]" } @crashed));
is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'), $start_time, 'the postmaster never restarted');
note($node->safe_psql('postgres', q{SELECT string_agg(format('%s %s: %s', role, sqlstate, n), ', ' ORDER BY role, sqlstate)
	FROM (SELECT role, sqlstate, count(*) n FROM forge.outcomes GROUP BY 1, 2) s}));
is($node->safe_psql('postgres', q{SELECT string_agg(DISTINCT coalesce(call, '(no call: NULL)') || ': ' || message, E'\n') FROM forge.outcomes
	WHERE case_id = 0 AND (sqlstate <> '00000' OR call IS NULL)}),
	'', "every call succeeds on the real rows, as $as_who");
is($node->safe_psql('postgres', q{SELECT count(*) FROM forge.outcomes WHERE case_id = 0 AND call IS NOT NULL}),
	$node->safe_psql('postgres', 'SELECT count(*) FROM forge.calls WHERE typ IS NULL'),
	"every call was made on the real rows, as $as_who");
foreach my $role ($as)
{
	is($node->safe_psql('postgres', "SELECT count(DISTINCT case_id) FROM forge.outcomes WHERE role = '$role'"), $ncases + 1,
		"every case ran as $role");
	# what the calls skipped on a case rest on: every call measured, each but those of %scans_no_table seen to scan
	is($node->safe_psql('postgres', qq{SELECT count(*) FROM forge.reads WHERE role = '$role'}),
		$node->safe_psql('postgres', 'SELECT count(*) FROM forge.calls WHERE typ IS NULL'), "as $role, the tables of every call were measured");
	is($node->safe_psql('postgres', qq{SELECT string_agg(DISTINCT k.fn, ',' ORDER BY k.fn) FROM forge.calls k
		JOIN forge.reads r ON r.call_id = k.id AND r.role = '$role' WHERE cardinality(r.tables) = 0}),
		join(',', sort keys %scans_no_table), "as $role, every call but " . join(', ', sort keys %scans_no_table) . ' was seen to scan a table');
	note("as $role, no call scans " . $node->safe_psql('postgres', qq{SELECT coalesce(string_agg(DISTINCT c.tbl, ', '), 'no table') FROM forge.cases c
		WHERE NOT EXISTS (SELECT FROM forge.reads r WHERE r.role = '$role' AND c.tbl::regclass = ANY (r.tables))})
		. ': only the calls of a column\'s type read those');
}
note($node->safe_psql('postgres', q{SELECT string_agg(format('%s made %s calls on the forged rows', role, n), ', ')
	FROM (SELECT role, count(*) n FROM forge.outcomes WHERE case_id <> 0 AND call NOT LIKE 'forged: %' GROUP BY role) s}));
is($node->safe_psql('postgres', qq{SELECT string_agg(t.tbl, ', ') FROM (SELECT DISTINCT tbl FROM forge.cases) t
	WHERE NOT EXISTS (SELECT FROM forge.cases c JOIN forge.outcomes o ON o.case_id = c.id
	                  WHERE c.tbl = t.tbl AND o.role = '$as' AND o.call NOT LIKE 'forging: %')}),
	'', "as $as_who, calls read forged rows of every table bench may read");
foreach my $class ([ 'XX000', q{= 'XX000'} ], [ 'other XX', q{LIKE 'XX%' AND sqlstate <> 'XX000'} ])
{
	my $bad = $node->safe_psql('postgres', qq{
		SELECT count(*) || E'\n' || coalesce(string_agg(line, E'\n'), '')
		FROM (SELECT format('%s, case %s (%s.%s = %s): %s: %s', o.role, o.case_id, c.tbl, c.col, left(c.value, 60),
		                    left(o.call, 200), o.message) AS line
		      FROM forge.outcomes o JOIN forge.cases c ON c.id = o.case_id
		      WHERE o.sqlstate $class->[1] ORDER BY o.case_id, o.role LIMIT 60) s});
	my ($count, @lines) = split /\n/, $bad;
	my $total = $node->safe_psql('postgres', "SELECT count(*) FROM forge.outcomes WHERE sqlstate $class->[1]");
	is($total, 0, "no call raised $class->[0]") or diag(join("\n", @lines));
}

# review D2's shapes, and a first step naming more servers than a chart draws, are refused
my $fleet_chart = q{SELECT string_agg(DISTINCT o.sqlstate || ' ' || o.message, E'\n') FROM forge.outcomes o JOIN forge.cases c ON c.id = o.case_id
	WHERE o.call LIKE 'SELECT ranread_chart_fleet(%' AND };
is($node->safe_psql('postgres', $fleet_chart . q{c.value LIKE '% steps x % servers'}),
	'22023 fleet sweep 1 in ranread_fleet_runs has more than 4096 steps', "D2's fleet sweeps: 22023, naming the sweep");
is($node->safe_psql('postgres', $fleet_chart . q{c.col = 'servers' AND c.value LIKE '%65536%'}),
	'22023 fleet run 1 in ranread_fleet_runs names 65536 servers', 'a fleet run naming 65,536 servers: 22023, naming the run');

$node->stop;
done_testing();
