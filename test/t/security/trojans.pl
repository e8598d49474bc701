# Trojan overloads: no call that ranread makes can be captured by a function
# or an operator that another role created.  A role that may create objects
# in a schema (the benchmark role of docs/reference.md's GRANT block) plants
# look-alikes of every function ranread's code could call: every function of
# the extensions ranread and dblink, and every pg_catalog function whose name
# ranread's SQL uses, each with one argument of a type a caller might pass
# without a cast (an exact match beats the real function, which needs an
# implicit cast), with fewer arguments (a call relying on defaults becomes
# ambiguous), and, for polymorphic pg_catalog functions, concrete
# instances (an exact match beats a polymorphic one even when pg_catalog is
# searched first); and operators over pairs of common types that pg_catalog
# has no operator for.  They are planted in every schema the role may create
# in and, as an administrator who granted CREATE there would let it, in the
# schemas of ranread and dblink.  Each logs who ran it (a row, and a LOG line
# that a rollback does not remove) and returns nothing.  Then every entry
# point of the extension runs as the superuser, and once as the role: none
# may run a Trojan and each must succeed.  The entry points are enumerated
# from the catalog: one without a recipe here fails the test, so code added
# later is covered once it has a recipe.  On failure the test drops the
# Trojans that ran and runs the affected entry points again (a few rounds), so
# that Trojans hidden behind the first one are reported too.  Limits: the
# Trojans' parameters are named p1 .. pk, so that the test's own calls (named
# notation, every argument cast to its declared type) cannot reach one; a call
# of ranread's that mixes positional arguments needing a cast with named ones
# (or with defaults) is captured only by a Trojan with the real names and
# defaults, which this test does not plant: such a Trojan would make every
# call relying on defaults, the test's own too, ambiguous.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use IPC::Run;
use Time::HiRes qw(time usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $started = time;
my $role = 'bench';
my $password = 'trojan-horse';

my $node = new_node('trojans');
# A second cluster, a server of the fleet whose run the coordinator's stop
# path must stop: on the coordinator's own cluster ranread_stop() stops the
# server's run itself, and the coordinator's stop path would run only when it
# notices the request first, by chance.
my $far = new_node('far');
my $export_dir = PostgreSQL::Test::Utils::tempdir();
my $os_user = $node->safe_psql('postgres', 'SELECT current_user');

# The test's own statements: with search_path pg_catalog only, so that they
# cannot run a Trojan themselves.
sub q_
{
	my ($sql, $n) = @_;
	return ($n // $node)->safe_psql('postgres', "SET search_path = pg_catalog;\n$sql");
}

# The GRANT block of docs/reference.md, verbatim (as security/grant_block.pl runs it)
my $doc = slurp_file("$FindBin::RealBin/../../../docs/reference.md");
my ($block) = $doc =~ /<!-- grant-block\b[^>]*-->\n```sql\n(.*?)```\n<!-- \/grant-block -->/s;
ok(defined $block, 'docs/reference.md has a SQL block between <!-- grant-block --> markers');

# On each cluster: the tablespace the block names, a target, the block, and a
# password for the role (its dblink connections must use one).
foreach my $n ($node, $far)
{
	my $hba = slurp_file($n->data_dir . '/pg_hba.conf');
	open(my $fh, '>', $n->data_dir . '/pg_hba.conf') or die;
	print $fh "local all $role scram-sha-256\n$hba";
	close $fh;
	$n->reload;
	mkdir $n->basedir . '/vol' or die;
	q_(sprintf(q{CREATE TABLESPACE ranread_vol LOCATION '%s'; SELECT public.ranread_setup(size => '32 MB', log_level => 0); SELECT public.ranread_setup_writes(size => '1 MB');},
		$n->basedir . '/vol'), $n);
	my ($ret, $out, $err) = $n->psql('postgres', $block // '', on_error_stop => 1);
	is($ret, 0, 'a superuser runs the GRANT block, which creates the role') or diag($err);
	q_("ALTER ROLE $role PASSWORD '$password'", $n);
}

# As docs/fleet.md: dblink in the default schema; a foreign server for this
# very database, so that the fleet's remote sessions run here too, and one
# for the other cluster; user mappings for the superuser and the role.
q_('CREATE EXTENSION dblink SCHEMA public');
foreach my $server ([ 'self', $node ], [ 'far', $far ])
{
	my ($name, $n) = @$server;
	q_(sprintf(q{
		CREATE SERVER %s FOREIGN DATA WRAPPER dblink_fdw OPTIONS (host '%s', port '%s', dbname 'postgres');
		CREATE USER MAPPING FOR CURRENT_USER SERVER %1$s OPTIONS (user '%4$s');
		GRANT USAGE ON FOREIGN SERVER %1$s TO %5$s;
		CREATE USER MAPPING FOR %5$s SERVER %1$s OPTIONS (user '%5$s', password '%6$s');},
		$name, $n->host, $n->port, $os_user, $role, $password));
}

# ---------------------------------------------------------------------------
# The Trojans
# ---------------------------------------------------------------------------

# Names called as name( in ranread's SQL: the extension's scripts (and the SQL
# in the string literals of its C code).
my @sql_files = glob("$FindBin::RealBin/../../../sql/*.sql $FindBin::RealBin/../../../sql/src/*.sql");
@sql_files = glob($node->config_data('--sharedir') . '/extension/ranread--*.sql') unless @sql_files;
my %called;
foreach my $file (@sql_files)
{
	my $text = slurp_file($file);
	$called{ lc $1 } = 1 while $text =~ /\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/g;
}
foreach my $file (glob("$FindBin::RealBin/../../../src/*.c $FindBin::RealBin/../../../src/*/*.c"))
{
	my $text = slurp_file($file);
	while ($text =~ /"((?:[^"\\\n]|\\.)*)"/g)
	{
		my $literal = $1;
		$called{ lc $1 } = 1 while $literal =~ /\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/g;
	}
}
ok(@sql_files && $called{dblink_connect} && $called{ranread_histogram_percentile},
	scalar(keys %called) . ' names called in ' . scalar(@sql_files) . ' SQL scripts and the C sources');
my $called_sql = 'ARRAY[' . join(',', map { "'$_'" } sort keys %called) . ']::text[]';

# Operators the scripts use, beyond the usual ones
my @operators = qw(= <> < <= > >= + - * / % || ~~);
{
	my $all = join("\n", map { slurp_file($_) } @sql_files);
	foreach my $op ('~', '!~', '~*', '@>', '<@', '&&')
	{
		push @operators, $op if $all =~ /\s\Q$op\E\s/;
	}
}
my $operators_sql = 'ARRAY[' . join(',', map { "'$_'" } @operators) . ']::text[]';

my $plant_started = time;
my $planted = q_(<<"EOSQL");
CREATE SCHEMA trojan_watch;
CREATE TABLE trojan_watch.log (id bigserial PRIMARY KEY, who name NOT NULL, fn text NOT NULL);
GRANT USAGE ON SCHEMA trojan_watch TO PUBLIC;
GRANT INSERT ON trojan_watch.log TO PUBLIC;
GRANT USAGE ON SEQUENCE trojan_watch.log_id_seq TO PUBLIC;
-- what was planted: its signature (as it logs it) and how to drop it
CREATE TABLE trojan_watch.planted (sig text PRIMARY KEY, kind text NOT NULL, origin text NOT NULL, drop_sql text NOT NULL);
-- a type a caller may pass where the function declares another
CREATE TABLE trojan_watch.subst (from_t regtype, to_t regtype);
INSERT INTO trojan_watch.subst VALUES
	('text', 'name'), ('text', 'varchar'), ('name', 'text'), ('name', 'varchar'),
	('float8', 'numeric'), ('float8', 'int4'), ('float8', 'int8'), ('float8', 'float4'),
	('float4', 'numeric'), ('float4', 'int4'), ('float4', 'int8'),
	('numeric', 'int4'), ('numeric', 'int8'), ('numeric', 'int2'),
	('int8', 'int4'), ('int8', 'int2'), ('int8', 'numeric'),
	('int4', 'int2'), ('int4', 'int8'), ('int4', 'numeric'),
	('interval', 'text'), ('timestamptz', 'timestamp'), ('timestamptz', 'date'), ('timestamptz', 'text'),
	('timestamp', 'date'), ('oid', 'int4'), ('oid', 'int8'), ('regclass', 'oid'), ('regclass', 'text'),
	('int8[]', 'int4[]'), ('int8[]', 'int2[]'), ('int8[]', 'numeric[]'),
	('int4[]', 'int2[]'), ('float8[]', 'numeric[]'), ('float8[]', 'int4[]'),
	('name[]', 'text[]'), ('name[]', 'varchar[]'), ('text[]', 'name[]'), ('text[]', 'varchar[]');
-- the common types: operands of the look-alike operators, instances of polymorphic arguments
CREATE TABLE trojan_watch.common (t regtype);
INSERT INTO trojan_watch.common VALUES ('text'), ('name'), ('int2'), ('int4'), ('int8'), ('float8'), ('numeric'),
	('timestamptz'), ('interval'), ('bool'), ('int8[]'), ('name[]'), ('text[]'), ('oid');

CREATE FUNCTION trojan_watch.body(sig text, kind "char", retset boolean, rettype regtype) RETURNS text
LANGUAGE sql IMMUTABLE
RETURN format(\$b\$BEGIN
	INSERT INTO trojan_watch.log (who, fn) VALUES (current_user, %L);
	RAISE LOG 'ranread trojan fired: %s by %%', current_user;
	%s
END\$b\$, sig, replace(replace(sig, '''', ''''''), '%', '%%'),
	CASE WHEN kind = 'p' THEN '' WHEN retset OR rettype = 'void'::regtype THEN 'RETURN;' ELSE 'RETURN NULL;' END);

DO \$plant\$
DECLARE
	schemas name[];
	s name;
	f record;
	c record;
	v_args oid[];
	k int;
	i int;
	v_sig text;
	params text;
	v_rettype oid;
	n_fn int := 0;
	n_op int := 0;
	n_failed int := 0;
	poly oid[] := ARRAY['anyelement', 'anynonarray', 'anycompatible', 'anycompatiblenonarray', '"any"']::regtype[]::oid[];
	polyarr oid[] := ARRAY['anyarray', 'anycompatiblearray']::regtype[]::oid[];
	v_t regtype;
	op text;
	l regtype;
	r regtype;
	fname text;
BEGIN
	-- every schema the role may create in, and those of ranread and dblink
	SELECT array_agg(DISTINCT nspname ORDER BY nspname) INTO schemas
	FROM pg_namespace n
	WHERE nspname NOT LIKE 'pg\\_%' AND nspname NOT IN ('information_schema', 'trojan_watch')
	  AND (has_schema_privilege('$role', n.oid, 'CREATE')
		   OR n.oid IN (SELECT extnamespace FROM pg_extension WHERE extname IN ('ranread', 'dblink')));
	CREATE TEMP TABLE cand (name name, kind "char", args oid[], is_variadic boolean, rettype oid, retset boolean, origin text);

	FOR f IN
		SELECT p.oid, p.proname, p.prokind, p.pronargs AS n, p.pronargdefaults AS d,
			   p.provariadic <> 0 AS is_variadic, p.prorettype, p.proretset,
			   ARRAY(SELECT a FROM unnest(p.proargtypes) WITH ORDINALITY u(a, o) ORDER BY o) AS args,
			   coalesce((SELECT 'extension ' || e.extname FROM pg_depend dep JOIN pg_extension e ON e.oid = dep.refobjid
						 WHERE dep.classid = 'pg_proc'::regclass AND dep.objid = p.oid AND dep.deptype = 'e'
						   AND dep.refclassid = 'pg_extension'::regclass), 'pg_catalog') AS origin
		FROM pg_proc p
		WHERE p.prokind IN ('f', 'a', 'p')
		  AND (p.oid IN (SELECT dep.objid FROM pg_depend dep JOIN pg_extension e ON e.oid = dep.refobjid
						 WHERE dep.classid = 'pg_proc'::regclass AND dep.deptype = 'e' AND e.extname IN ('ranread', 'dblink'))
			   OR (p.pronamespace = 'pg_catalog'::regnamespace AND p.proname = ANY ($called_sql)))
	LOOP
		-- pseudo-types other than the polymorphic ones: internal, cstring, record, trigger ... (noise)
		CONTINUE WHEN EXISTS (SELECT FROM unnest(f.args || f.prorettype) a JOIN pg_type ty ON ty.oid = a
							  WHERE ty.typtype = 'p' AND NOT a = ANY (poly || polyarr)
								AND NOT (a = f.prorettype AND ty.typname IN ('record', 'void')));
		IF EXISTS (SELECT FROM unnest(f.args) a WHERE a = ANY (poly || polyarr)) THEN
			-- a polymorphic function: its instances over the common (scalar) types
			FOR v_t IN SELECT ct.t FROM trojan_watch.common ct JOIN pg_type ty ON ty.oid = ct.t
					   WHERE NOT (ty.typelem <> 0 AND ty.typlen = -1) LOOP
				v_args := ARRAY(SELECT CASE WHEN a = ANY (poly) THEN v_t::oid
											WHEN a = ANY (polyarr) THEN (SELECT typarray FROM pg_type WHERE oid = v_t)
											ELSE a END FROM unnest(f.args) WITH ORDINALITY u(a, o) ORDER BY o);
				v_rettype := CASE WHEN f.prorettype = ANY (poly) THEN v_t::oid
								  WHEN f.prorettype = ANY (polyarr) THEN (SELECT typarray FROM pg_type WHERE oid = v_t)
								  ELSE f.prorettype END;
				CONTINUE WHEN v_rettype IN (SELECT oid FROM pg_type WHERE typtype = 'p' AND typname NOT IN ('record', 'void'));
				FOR k IN f.n - f.d .. f.n LOOP
					INSERT INTO cand VALUES (f.proname, f.prokind, v_args[1:k], f.is_variadic AND k = f.n, v_rettype, f.proretset,
											 f.origin || ' ' || f.oid::regprocedure || ', an instance');
				END LOOP;
			END LOOP;
			CONTINUE;
		END IF;
		FOR k IN f.n - f.d .. f.n LOOP
			IF k < f.n THEN
				INSERT INTO cand VALUES (f.proname, f.prokind, f.args[1:k], false, f.prorettype, f.proretset,
										 f.origin || ' ' || f.oid::regprocedure || ', its first ' || k || ' arguments');
			END IF;
			FOR i IN 1 .. k LOOP
				INSERT INTO cand
				SELECT f.proname, f.prokind, f.args[1:i - 1] || sb.to_t::oid || f.args[i + 1:k],
					   f.is_variadic AND k = f.n, f.prorettype, f.proretset,
					   f.origin || ' ' || f.oid::regprocedure || ', argument ' || i || ' ' || sb.to_t
				FROM trojan_watch.subst sb WHERE sb.from_t = f.args[i];
			END LOOP;
		END LOOP;
	END LOOP;

	FOREACH s IN ARRAY schemas LOOP
		FOR c IN SELECT DISTINCT ON (name, args) * FROM cand ORDER BY name, args, origin LOOP
			-- nothing of that name and those types there or in pg_catalog already
			CONTINUE WHEN EXISTS (SELECT FROM pg_proc p WHERE p.proname = c.name
								  AND p.pronamespace IN (s::regnamespace, 'pg_catalog'::regnamespace)
								  AND p.proargtypes = array_to_string(c.args, ' ')::oidvector);
			params := (SELECT coalesce(string_agg(CASE WHEN c.is_variadic AND o = cardinality(c.args)
														AND (SELECT typelem <> 0 AND typlen = -1 FROM pg_type WHERE oid = a)
													   THEN 'VARIADIC ' ELSE '' END
												  || 'p' || o || ' ' || format_type(a, NULL), ', ' ORDER BY o), '')
					   FROM unnest(c.args) WITH ORDINALITY u(a, o));
			v_sig := format('%I.%I(%s)', s, c.name,
						  (SELECT coalesce(string_agg(format_type(a, NULL), ',' ORDER BY o), '') FROM unnest(c.args) WITH ORDINALITY u(a, o)));
			CONTINUE WHEN EXISTS (SELECT FROM trojan_watch.planted p WHERE p.sig = v_sig);
			BEGIN
				IF c.kind = 'p' THEN
					EXECUTE format('CREATE PROCEDURE %I.%I(%s) LANGUAGE plpgsql SECURITY INVOKER AS %L',
								   s, c.name, params, trojan_watch.body(v_sig, c.kind, false, NULL));
					EXECUTE format('ALTER PROCEDURE %s OWNER TO $role', v_sig);
				ELSE
					EXECUTE format('CREATE FUNCTION %I.%I(%s) RETURNS %s%s LANGUAGE plpgsql SECURITY INVOKER AS %L',
								   s, c.name, params, CASE WHEN c.retset THEN 'SETOF ' ELSE '' END, format_type(c.rettype, NULL),
								   trojan_watch.body(v_sig, c.kind, c.retset, c.rettype));
					EXECUTE format('ALTER FUNCTION %s OWNER TO $role', v_sig);
				END IF;
				INSERT INTO trojan_watch.planted VALUES (v_sig, 'function', c.origin,
					format('DROP %s %s', CASE WHEN c.kind = 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END, v_sig));
				n_fn := n_fn + 1;
			EXCEPTION WHEN OTHERS THEN
				n_failed := n_failed + 1;
				RAISE NOTICE 'could not plant %: %', v_sig, SQLERRM;
			END;
		END LOOP;

		-- look-alike operators over the pairs pg_catalog has no such operator for
		FOREACH op IN ARRAY $operators_sql LOOP
			FOR l, r IN SELECT a.t, b.t FROM trojan_watch.common a, trojan_watch.common b LOOP
				CONTINUE WHEN EXISTS (SELECT FROM pg_operator o WHERE o.oprname = op AND o.oprleft = l AND o.oprright = r
									  AND o.oprnamespace IN (s::regnamespace, 'pg_catalog'::regnamespace));
				v_sig := format('operator %I.%s(%s,%s)', s, op, l, r);
				fname := format('%I.trojan_op_%s', s, n_op + 1);
				BEGIN
					EXECUTE format('CREATE FUNCTION %s(p1 %s, p2 %s) RETURNS %s LANGUAGE plpgsql SECURITY INVOKER AS %L',
								   fname, l, r,
								   CASE WHEN op IN ('=', '<>', '<', '<=', '>', '>=', '~~', '~', '!~', '~*', '\@>', '<\@', '&&') THEN 'boolean'
										WHEN op = '||' THEN 'text' ELSE l::text END,
								   trojan_watch.body(v_sig, 'f', false, 'bool'));
					EXECUTE format('CREATE OPERATOR %I.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = %s)', s, op, l, r, fname);
					EXECUTE format('ALTER FUNCTION %s(%s, %s) OWNER TO $role', fname, l, r);
					EXECUTE format('ALTER OPERATOR %I.%s(%s, %s) OWNER TO $role', s, op, l, r);
					INSERT INTO trojan_watch.planted VALUES (v_sig, 'operator', 'look-alike operator',
						format('DROP OPERATOR %I.%s(%s, %s); DROP FUNCTION %s(%s, %s)', s, op, l, r, fname, l, r));
					n_op := n_op + 1;
				EXCEPTION WHEN OTHERS THEN
					n_failed := n_failed + 1;
					RAISE NOTICE 'could not plant %: %', v_sig, SQLERRM;
				END;
			END LOOP;
		END LOOP;
	END LOOP;
	RAISE NOTICE 'planted % functions and procedures and % operators in %; % could not be planted',
		n_fn, n_op, schemas, n_failed;
	CREATE TEMP TABLE plant_result AS SELECT n_fn, n_op, n_failed, array_to_string(schemas, ', ') AS schemas;
END
\$plant\$;
SELECT n_fn || '|' || n_op || '|' || n_failed || '|' || schemas FROM plant_result;
EOSQL
my ($n_fn, $n_op, $n_failed, $schemas) = split /\|/, $planted;
diag(sprintf('planted %d Trojan functions and procedures and %d look-alike operators in schemas %s (%d could not be planted), in %.1f s',
	$n_fn, $n_op, $schemas, $n_failed, time - $plant_started));
cmp_ok($n_fn, '>', 100, 'Trojan functions planted');
cmp_ok($n_op, '>', 100, 'look-alike operators planted');
is(q_(q{SELECT count(*) FROM trojan_watch.planted t WHERE t.sig LIKE 'public.dblink_connect(text,name)' OR t.sig LIKE 'public.ranread_histogram_percentile(bigint[],numeric)' OR t.sig LIKE 'public.dblink(name,text)'}),
	'3', 'among them the three Trojans of review D1');
is(q_(qq{SELECT count(*) FROM pg_proc p JOIN trojan_watch.planted t ON t.sig = p.oid::regprocedure::text
	WHERE p.proowner <> '$role'::regrole OR p.prosecdef}), '0', "each owned by $role, SECURITY INVOKER");

# ---------------------------------------------------------------------------
# Watching them
# ---------------------------------------------------------------------------

my $log_offset = -s $node->logfile;

# The Trojans that ran since log offset $from: "signature by role", each once.
sub fired_since
{
	my ($from) = @_;
	my %seen;
	my $text = slurp_file($node->logfile, $from);
	return grep { !$seen{$_}++ } $text =~ /ranread trojan fired: (.*? by \S+)$/mg;
}

# Positive control: a Trojan runs, logs and returns NULL
{
	my $from = -s $node->logfile;
	is(q_(q{SELECT public.dblink_connect('x'::text, 'y'::name) IS NULL}), 't', 'a Trojan called directly returns NULL');
	is(q_(q{SELECT who || ' ' || fn FROM trojan_watch.log}), "$os_user public.dblink_connect(text,name)",
		'and logs its caller and its signature');
	is(join(',', fired_since($from)), "public.dblink_connect(text,name) by $os_user", 'also in the server log');
	q_('TRUNCATE trojan_watch.log');
	$log_offset = -s $node->logfile;
}

# ---------------------------------------------------------------------------
# The entry points
# ---------------------------------------------------------------------------

# Numbers the recipes need, read when they run
sub latest
{
	my ($sql) = @_;
	my $v = q_($sql);
	return $v eq '' ? 'NULL' : $v;
}
# the two latest batches of plain runs
sub last_batches
{
	my @b = split /\n/, q_(q{SELECT batch FROM public.ranread_batches WHERE status = 'completed' AND sweep IS NULL
		AND layers IS NULL AND calibration IS NULL AND start_at IS NULL ORDER BY batch DESC LIMIT 2});
	push @b, 'NULL' while @b < 2;
	return @b;
}
sub last_sweep { return latest('SELECT max(sweep) FROM public.ranread_sweep_runs'); }

# A fleet run with a duration in the background (on this cluster and on the
# other, mode direct: such a run does not end early by having read every
# unit), stopped by ranread_stop() from another session: the coordinator
# then asks every server to stop (the stop path of ranread_fleet_run()).
# Returns an error text, or '' when both succeeded, the fleet was recorded
# stopped and the other cluster's run too.
sub fleet_stop
{
	my ($as, $path) = @_;
	my ($bout, $berr) = ('', '');
	local $ENV{PGPASSWORD} = $password;
	local $ENV{PGAPPNAME} = 'trojan_fleet_stop';
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-v', 'VERBOSITY=verbose', '-U', $as, '-d', $node->connstr('postgres'), '-c',
		  "$path SELECT scope, server, status FROM public.ranread_fleet_run(servers => ARRAY['self', 'far']::name[], "
		  . "processes => 1, mode => 'direct'::text, duration => '8 s'::interval, start_delay => '0.5 s'::interval)" ],
		'>', \$bout, '2>', \$berr);
	my $t0 = time;
	while (time - $t0 < 30)
	{
		last if q_(q{SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%reading'}, $far) eq 't';
		last if time - $t0 > 3 && q_(q{SELECT count(*) FROM pg_stat_activity WHERE application_name = 'trojan_fleet_stop' AND pid <> pg_backend_pid()}) eq '0';
		usleep(50_000);
	}
	my ($r, $o, $e) = $node->psql('postgres', "$path\nSELECT public.ranread_stop();",
		extra_params => [ '-U', $as, '-v', 'VERBOSITY=verbose', '-v', 'ON_ERROR_STOP=1' ]);
	$h->finish;
	my $error = '';
	$error .= "ranread_stop(): $e" if $r != 0 || $e =~ /ERROR/;
	$error .= "the fleet run: $berr" if $berr =~ /ERROR/ || $bout !~ /fleet/;
	my $status = q_(q{SELECT f.status || ', far ' || coalesce(s.status, 'none') FROM public.ranread_fleet_runs f
		LEFT JOIN public.ranread_fleet_servers s ON s.fleet = f.fleet AND s.server = 'far' ORDER BY f.fleet DESC LIMIT 1});
	$error .= "the fleet and the other cluster's run were recorded $status, not stopped, stopped" if $error eq '' && $status ne 'stopped, far stopped';
	return $error;
}

my $fleet = q{ARRAY['self']::name[]};
# [ entry point, what the call does, SQL (or a sub returning it, or a sub doing it) ]
my @recipes = (
	[ 'ranread_setup_running', 'ranread_setup_running()', 'SELECT * FROM public.ranread_setup_running()' ],
	[ 'ranread_run', 'a run', q{SELECT * FROM public.ranread_run(processes => 1, iterations => 200::bigint)} ],
	[ 'ranread_run', 'a second run', q{SELECT * FROM public.ranread_run(processes => 1, iterations => 200::bigint, sample_interval => '0.1 s'::interval)} ],
	[ 'ranread_run', "a run with a writer on the superuser's write target",
	  q{SELECT * FROM public.ranread_run(processes => 1, iterations => NULL::bigint, duration => '1 s'::interval, rate_iops => 200::float8, writers => 1, write_rate_iops => 50::float8)} ],
	[ 'ranread_setup_writes', 'a write target in the tablespace',
	  q{SELECT public.ranread_setup_writes(size => '1 MB'::text, tablespace => 'ranread_vol'::name, target => 'ranread_trojan_writes'::name)} ],
	[ 'ranread_run', 'a run with two writers on it',
	  q{SELECT * FROM public.ranread_run(processes => 1, iterations => NULL::bigint, duration => '1 s'::interval, rate_iops => 200::float8, writers => 2, write_rate_iops => 50::float8, write_target => 'ranread_trojan_writes'::name)} ],
	[ 'ranread_sweep', 'a two-step sweep',
	  q{CALL public.ranread_sweep(start_processes => 1, max_processes => 2, iterations => 200::bigint, mode => 'direct'::text, min_scaling_pct => 0::float8, probe => '0 s'::interval)} ],
	[ 'ranread_sweep_verdict', 'its verdict', sub { 'SELECT * FROM public.ranread_sweep_verdict(sweep => ' . last_sweep() . '::bigint)' } ],
	[ 'ranread_verdict', 'in lines', sub { 'SELECT * FROM public.ranread_verdict(sweep => ' . last_sweep() . '::bigint)' } ],
	[ 'ranread_limit', 'what limits it', sub { 'SELECT * FROM public.ranread_limit(sweep => ' . last_sweep() . '::bigint)' } ],
	[ 'ranread_layers', 'the layers', q{SELECT * FROM public.ranread_layers(processes => 1, iterations => 100::bigint)} ],
	[ 'ranread_calibrate', 'a tiny calibration', q{SELECT * FROM public.ranread_calibrate(iterations => 100::bigint, max_depth => 2, max_duration => '1 s'::interval)} ],
	[ 'ranread_fleet_run', 'a fleet run on self',
	  qq{SELECT * FROM public.ranread_fleet_run(servers => $fleet, processes => 1, iterations => 200::bigint, start_delay => '0.5 s'::interval)} ],
	[ 'ranread_fleet_sweep', 'a two-step fleet sweep',
	  qq{CALL public.ranread_fleet_sweep(servers => $fleet, start_processes => 1, max_processes => 2, iterations => 200::bigint, duration => NULL::interval, min_scaling_pct => 0::float8)} ],
	[ 'ranread_sweep_decide', "the rule book on two fleet steps, and on them ended by worker slots",
	  q{SELECT d.*, e.* FROM public.ranread_sweep_decide(sweep => '{1,1}'::bigint[], step => '{1,2}'::int[], processes => '{1,2}'::int[],
		status => '{completed,completed}'::text[], iops => '{1000,1100}'::float8[], mean_ms => '{0.5,0.9}'::float8[],
		p99_ms => '{1,2}'::float8[], p999_ms => '{2,3}'::float8[], max_ms => '{3,4}'::float8[], iops_band_pct => '{2,2}'::float8[],
		mean_band_pct => '{2,2}'::float8[], p99_band_pct => '{3,3}'::float8[], part_outside_slo => '{false,true}'::boolean[],
		max_processes => 8, max_processes_by => 'argument'::text, stop_latency_ms => 10::float8, min_scaling_pct => 25::float8,
		slo_mean_ms => 2::float8, slo_p99_ms => 5::float8) d,
		public.ranread_sweep_decide(sweep => '{1,2}'::bigint[], step => '{1,1}'::int[], processes => '{1,1}'::int[],
		status => '{completed,completed}'::text[], iops => '{1000,1100}'::float8[], mean_ms => '{0.5,0.9}'::float8[],
		p99_ms => '{1,2}'::float8[], p999_ms => '{2,3}'::float8[], max_ms => '{3,4}'::float8[], iops_band_pct => '{2,2}'::float8[],
		mean_band_pct => '{2,2}'::float8[], p99_band_pct => '{3,3}'::float8[], part_outside_slo => '{false,false}'::boolean[],
		max_processes => 8, max_processes_by => 'argument'::text, stop_latency_ms => 10::float8, min_scaling_pct => 25::float8,
		slo_mean_ms => 2::float8, slo_p99_ms => 5::float8, ended_by => 'worker slots'::text) e} ],
	[ 'ranread_series_bucket', "the bucket rule on the latest batch's series",
	  q{SELECT b.* FROM (SELECT i.batch, pg_catalog.array_agg(i.start_s ORDER BY i.interval_no) AS s,
		pg_catalog.array_agg(i.seconds ORDER BY i.interval_no) AS d, pg_catalog.array_agg(i.reads ORDER BY i.interval_no) AS r,
		pg_catalog.array_agg(i.workers_reading ORDER BY i.interval_no) AS w FROM public.ranread_intervals i GROUP BY i.batch
		ORDER BY i.batch DESC LIMIT 1) x, public.ranread_series_bucket(processes => 1, physical_pct => NULL::float8,
		start_s => x.s, seconds => x.d, reads => x.r, workers_reading => x.w) b} ],
	[ 'ranread_stop', "a fleet run's stop", \&fleet_stop ],
	[ 'ranread_chart', 'the latest sweep', q{SELECT public.ranread_chart(sweep => NULL::bigint)} ],
	[ 'ranread_chart', 'a sweep by number', sub { 'SELECT public.ranread_chart(sweep => ' . last_sweep() . '::bigint, width => 800, height => 400)' } ],
	[ 'ranread_chart_latency', 'two batches', sub { 'SELECT public.ranread_chart_latency(VARIADIC batches => ARRAY[' . join(',', last_batches()) . ']::bigint[])' } ],
	[ 'ranread_chart_intervals', 'a batch over time', sub { 'SELECT public.ranread_chart_intervals(batch => ' . (last_batches())[0] . '::bigint)' } ],
	[ 'ranread_chart_fleet', 'the fleet sweep', sub { 'SELECT public.ranread_chart_fleet(fleet_sweep => ' . latest('SELECT max(fleet_sweep) FROM public.ranread_fleet_runs') . '::bigint)' } ],
	[ 'ranread_compare', 'two batches', sub { my @b = last_batches(); "SELECT * FROM public.ranread_compare(batch_a => $b[1]::bigint, batch_b => $b[0]::bigint)" } ],
	[ 'ranread_report_html', 'a sweep as a page', sub { 'SELECT public.ranread_report_html(sweep => ' . last_sweep() . '::bigint)' } ],
	[ 'ranread_report_html', 'a batch as a page', sub { 'SELECT public.ranread_report_html(batch => ' . (last_batches())[0] . '::bigint)' } ],
	[ 'ranread_report_html', 'the fleet sweep as a page', sub { 'SELECT public.ranread_report_html(fleet_sweep => ' . latest('SELECT max(fleet_sweep) FROM public.ranread_fleet_runs') . '::bigint)' } ],
	[ 'ranread_compare_sweeps', 'two sweeps', sub { my $s = last_sweep(); "SELECT * FROM public.ranread_compare_sweeps(sweep_a => ${s}::bigint, sweep_b => ${s}::bigint)" } ],
	[ 'ranread_export', 'TSV, CSV and the charts', qq{SELECT * FROM public.ranread_export(directory => '$export_dir'::text, csv => true, svg => true)} ],
	[ 'ranread_export', "a sweep in RanRead's format", sub { "SELECT * FROM public.ranread_export(directory => '$export_dir'::text, format => 'ranread'::text, sweep => " . last_sweep() . '::bigint, svg => true)' } ],
	[ 'ranread_export_files', 'TSV, CSV and the charts, to the client', q{SELECT file FROM public.ranread_export_files(format => 'tsv'::text, csv => true, svg => true)} ],
	[ 'ranread_export_files', "a sweep in RanRead's format, to the client", sub { "SELECT file FROM public.ranread_export_files(format => 'ranread'::text, sweep => " . last_sweep() . '::bigint, svg => true)' } ],
	[ 'ranread_help', 'help', 'SELECT * FROM public.ranread_help()' ],
	[ 'ranread_running', 'nothing running', 'SELECT * FROM public.ranread_running()' ],
	[ 'ranread_stop', 'nothing to stop', 'SELECT public.ranread_stop()' ],
	[ 'ranread_round_ms', 'a latency', 'SELECT public.ranread_round_ms(ms => 0.01234::float8, decimals => 3)' ],
	[ 'ranread_histogram_add', 'two histograms', q{SELECT public.ranread_histogram_add('{1,2,3}'::bigint[], '{0,1}'::bigint[])} ],
	[ 'ranread_histogram_check', 'a histogram', q{SELECT public.ranread_histogram_check('{1,2,3}'::bigint[])} ],
	[ 'ranread_histogram_merge', 'the aggregate', q{SELECT public.ranread_histogram_merge(h) FROM (VALUES ('{1,2,3}'::bigint[]), ('{0,1}'::bigint[])) v(h)} ],
	[ 'ranread_histogram_percentile', "the latest batch's p99",
	  'SELECT public.ranread_histogram_percentile(histogram => b.histogram, fraction => 0.99::float8) FROM public.ranread_batches b ORDER BY b.batch DESC LIMIT 1' ],
	# writers alone and a write sweep: after the recipes that read the latest batches' reads
	[ 'ranread_run', 'writers alone',
	  q{SELECT * FROM public.ranread_run(processes => 0, iterations => NULL::bigint, duration => '1 s'::interval, writers => 1, write_rate_iops => 50::float8)} ],
	[ 'ranread_write_sweep', 'a one-step write sweep of a writer alone',
	  q{CALL public.ranread_write_sweep(writers => 1, start_write_rate_iops => 50::float8, max_write_rate_iops => 50::float8, duration => '1 s'::interval)} ],
	[ 'ranread_write_sweep_decide', 'the write rule book on a step',
	  q{SELECT * FROM public.ranread_write_sweep_decide(write_rate_iops => 100::float8, write_iops => 99::float8, write_mean_ms => 1::float8,
		write_p99_ms => 4::float8, completed => true, read_p99_ms => 2::float8, read_p99_band_pct => 10::float8, runs => 1,
		max_write_rate_iops => 400::float8, slo_write_mean_ms => NULL::float8, slo_write_p99_ms => 10::float8, slo_p99_ms => 5::float8)} ],
	[ 'ranread_setup', 'a second target in the tablespace', q{SELECT public.ranread_setup(size => '16 MB'::text, tablespace => 'ranread_vol'::name, target => 'ranread_trojan_second'::name, log_level => 0)} ],
	[ 'ranread_drop', 'the second target', q{SELECT public.ranread_drop(target => 'ranread_trojan_second'::name)} ],
	[ 'ranread_reset', 'the history, last', 'SELECT public.ranread_reset()' ],
);
# Functions of the extension that are not entry points: the fleet run's and
# the write sweep's own parts, each called by the recipes above.
my %internal = map { $_ => 1 } qw(ranread_fleet_connect ranread_fleet_check ranread_fleet_wait
  ranread_fleet_open ranread_fleet_gather ranread_write_sweep_check ranread_write_sweep_pool
  ranread_history_insert ranread_history_update);

# Every function and procedure of the extension has a recipe
my @entry_points = split /\n/, q_(q{
	SELECT DISTINCT p.proname FROM pg_proc p
	JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
	JOIN pg_extension e ON e.oid = d.refobjid AND d.refclassid = 'pg_extension'::regclass
	WHERE e.extname = 'ranread' ORDER BY 1});
my %has_recipe = map { $_->[0] => 1 } @recipes;
my %is_entry_point = map { $_ => 1 } @entry_points;
diag('recipes for functions the extension no longer has (skipped): ' . join(', ', grep { !$is_entry_point{$_} } sort keys %has_recipe))
  if grep { !$is_entry_point{$_} } keys %has_recipe;
foreach my $fn (@entry_points)
{
	ok($has_recipe{$fn} || exists $internal{$fn}, "$fn has a recipe") or diag("no recipe for $fn");
}
# Entry points whose search_path is the caller's (no SET clause): run again with the default one
my %callers_path = map { $_ => 1 } split /\n/, q_(q{
	SELECT DISTINCT p.proname FROM pg_proc p
	JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
	JOIN pg_extension e ON e.oid = d.refobjid AND d.refclassid = 'pg_extension'::regclass
	WHERE e.extname = 'ranread' AND NOT coalesce(p.proconfig::text LIKE '%search_path=%', false)});
diag('entry points without a search_path of their own: ' . join(', ', sort keys %callers_path));

# Run recipe $r as role $as, with search_path $path ('pinned': pg_catalog;
# 'default': the server's default).  Returns (error text or '', Trojans fired).
sub run_recipe
{
	my ($r, $as, $path) = @_;
	my ($fn, $what, $sql) = @$r;
	my $set = $path eq 'pinned' ? 'SET search_path = pg_catalog;' : 'SET search_path = DEFAULT;';
	my $from = -s $node->logfile;
	my $error;
	local $ENV{PGPASSWORD} = $password;
	if (ref $sql eq 'CODE' && $sql == \&fleet_stop)
	{
		$error = $sql->($as, $set);
	}
	else
	{
		$sql = $sql->() if ref $sql eq 'CODE';
		my ($r, $o, $e) = $node->psql('postgres', "$set\n$sql;", on_error_stop => 1,
			extra_params => [ '-U', $as, '-v', 'VERBOSITY=verbose' ]);
		$error = ($r != 0 || $e =~ /ERROR/) ? ($e =~ /(ERROR:.*)/s)[0] // "psql exited with $r" : '';
	}
	return ($error, fired_since($from));
}

# Run every recipe as $as; with $peel, drop the Trojans that ran and run
# the recipes that ran one or failed again (up to 4 rounds).  Returns the
# failures, one line each.
sub run_all
{
	my ($as, $peel) = @_;
	my @failures;
	my @todo = map { [ $_, 'pinned' ] } @recipes;
	push @todo, map { [ $_, 'default' ] } grep { $callers_path{ $_->[0] } } @recipes;
	foreach my $round (1 .. ($peel ? 4 : 1))
	{
		my (@again, %fired);
		foreach my $t (@todo)
		{
			my ($r, $path) = @$t;
			next unless $is_entry_point{ $r->[0] };    # a recipe for a function since removed
			next if $as ne $os_user && !can_execute($as, $r->[0]);
			my $t0 = time;
			my ($error, @trojans) = run_recipe($r, $as, $path);
			my $label = "$r->[0] ($r->[1]) as $as, search_path $path";
			$label .= ", round $round" if $round > 1;
			note(sprintf('%s: %.1f s', $label, time - $t0));
			push @failures, "$label: ran Trojan $_" foreach @trojans;
			$fired{$_} = 1 foreach @trojans;
			if ($error ne '')
			{
				push @failures, "$label: failed: $error";
				# an ambiguous call (a Trojan of fewer arguments): drop the Trojans of that signature
				if ($peel && $error =~ /(?:function|procedure) (\S+)\(([^)]*)\) is not unique/)
				{
					my ($name, $types) = ($1, $2);
					$name =~ s/^.*\.//;
					$types =~ s/, /,/g;
					$fired{"$_ by (ambiguity)"} = 1 foreach split /\n/, q_(qq{SELECT sig FROM trojan_watch.planted WHERE sig LIKE '%.$name($types)'});
				}
			}
			push @again, $t if $error ne '' || @trojans;
		}
		last unless $peel && %fired && @again;
		my %sigs;
		foreach my $f (keys %fired)
		{
			$sigs{ $f =~ s/ by \S+$//r } = 1;
		}
		my $list = 'ARRAY[' . join(',', map { my $q = $_ =~ s/'/''/gr; "'$q'" } sort keys %sigs) . ']';
		my $drops = q_("SELECT string_agg(drop_sql, '; ') FROM trojan_watch.planted WHERE sig = ANY ($list)");
		q_("$drops; DELETE FROM trojan_watch.planted WHERE sig = ANY ($list)") if $drops ne '';
		diag("round $round: dropped the Trojans that ran, " . join(', ', sort keys %sigs) . '; running again ' .
			join(', ', map { "$_->[0][0] ($_->[0][1], $_->[1])" } @again));
		@todo = @again;
	}
	return @failures;
}

# Whether $as may execute every overload of $fn
sub can_execute
{
	my ($as, $fn) = @_;
	return q_(qq{SELECT bool_and(has_function_privilege('$as', p.oid, 'EXECUTE')) FROM pg_proc p
		WHERE p.proname = '$fn' AND p.pronamespace = 'public'::regnamespace
		  AND NOT EXISTS (SELECT FROM trojan_watch.planted t WHERE t.sig = p.oid::regprocedure::text)}) eq 't';
}

# As the role first (its own Trojans run as itself, harmless, but they would
# be the same calls), then as the superuser, peeling the Trojans that ran.
my @bench_failures = run_all($role, 0);
is(scalar(@bench_failures), 0, "as $role, every entry point succeeded without running a Trojan")
  or diag(join("\n", @bench_failures));

my @failures = run_all($os_user, 1);
is(scalar(@failures), 0, 'as the superuser, every entry point succeeded without running a Trojan')
  or diag(join("\n", @failures));

my $rows = q_(q{SELECT string_agg(who || ' ran ' || fn, E'\n' ORDER BY id) FROM trojan_watch.log});
is($rows, '', 'the Trojan log is empty') or diag("the Trojan log:\n$rows");
my @all_fired = fired_since($log_offset);
is(scalar(@all_fired), 0, 'the server log names no Trojan') or diag(join("\n", @all_fired));
ok(log_is_clean($node), 'the server log has no internal error');

diag(sprintf('security/trojans.pl ran in %.0f s', time - $started));
$node->stop;
done_testing();
