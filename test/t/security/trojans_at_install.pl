# Trojans planted before CREATE EXTENSION and before every ALTER EXTENSION
# UPDATE: the install and update scripts run with the extension's schema on
# the search_path, so a look-alike a role planted there (1.2's GRANT block
# let the benchmark role create in it) could run as the superuser who
# installs or updates, or be bound into a view or SQL-bodied function for
# good (review of 1.3, D1).  security/trojans.pl plants after the extension
# exists; this test plants first.  The role plants, in the extension's schema:
#   - operators over the pairs of common types that pg_catalog has no such
#     operator for (an exact match beats pg_catalog's, which needs a cast);
#   - look-alikes of the pg_catalog functions the scripts call, each with one
#     argument of another type, and concrete instances of polymorphic ones;
#   - look-alikes of ranread's own functions (of the newest version, read off
#     a database that has it, and of the version installed at each step):
#     one argument of another type each, or fewer arguments (a call relying
#     on a default).
# Each logs who ran it.  Then, in one database, a fresh CREATE EXTENSION of
# the newest version; in another, CREATE EXTENSION VERSION '1.0' and each
# update in turn, planting again before each.  Nothing may run a look-alike,
# pg_depend must bind ranread's views, functions and defaults only to
# pg_catalog's objects and ranread's own, and the superuser's reads of every
# view afterwards run none either.  Each script warns that the role may
# create in the schema.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $role = 'bench';
my $node = new_node('trojans_at_install');
my $newest = $node->safe_psql('postgres', "SELECT extversion FROM pg_extension WHERE extname = 'ranread'");
my @versions = map { /ranread--(\d+\.\d+)--(\d+\.\d+)\.sql$/ ? $2 : () }
  sort glob($node->config_data('--sharedir') . '/extension/ranread--*--*.sql');
@versions = ('1.0', sort { $a <=> $b } @versions);
is($versions[-1], $newest, "the update chain 1.0 -> ... ends at the default version $newest");

# Names the scripts call as name(: the look-alikes of pg_catalog's to plant.
my %called;
foreach my $file (glob($node->config_data('--sharedir') . '/extension/ranread--*.sql'))
{
	my $text = slurp_file($file);
	$called{ lc $1 } = 1 while $text =~ /\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/g;
}
my $called_sql = 'ARRAY[' . join(',', map { "'$_'" } sort keys %called) . ']::name[]';

# Candidates: name, kind, argument types, result, set-returning: from the
# functions of ranread (extension members) and pg_catalog's called ones, in
# the database where it runs.  One argument in turn replaced by a type a
# caller might pass without a cast; polymorphic arguments by common types;
# and the first k arguments alone where the rest have defaults.
my $candidates_sql = <<"EOSQL";
WITH subst(from_t, to_t) AS (VALUES
	('text'::regtype, 'name'::regtype), ('text', 'varchar'), ('name', 'text'), ('float8', 'numeric'),
	('float8', 'int4'), ('float8', 'int8'), ('numeric', 'int4'), ('numeric', 'int8'), ('numeric', 'float8'),
	('int8', 'int4'), ('int8', 'numeric'), ('int4', 'int8'), ('int4', 'numeric'), ('int4', 'int2'),
	('oid', 'int4'), ('oid', 'int8'), ('regclass', 'oid'), ('regclass', 'text'), ('interval', 'text'),
	('timestamptz', 'timestamp'), ('timestamptz', 'text'), ('int8[]', 'int4[]'), ('int8[]', 'numeric[]'),
	('float8[]', 'numeric[]'), ('name[]', 'text[]'), ('text[]', 'name[]')),
common(t) AS (VALUES ('text'::regtype), ('name'), ('int4'), ('int8'), ('float8'), ('numeric'), ('oid'), ('bool'),
	('timestamptz'), ('interval')),
poly(t) AS (SELECT unnest(ARRAY['anyelement', 'anynonarray', 'anycompatible', 'anycompatiblenonarray', '"any"']::regtype[])),
polyarr(t) AS (SELECT unnest(ARRAY['anyarray', 'anycompatiblearray']::regtype[])),
src AS (
	SELECT p.proname, p.prokind, p.proretset, p.prorettype::regtype AS rettype, p.pronargdefaults AS d,
		   ARRAY(SELECT a::regtype FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(a, o) ORDER BY o) AS args
	FROM pg_proc p
	WHERE p.prokind IN ('f', 'p', 'a')
	  AND (p.oid IN (SELECT objid FROM pg_depend WHERE classid = 'pg_proc'::regclass AND deptype = 'e'
					 AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'ranread'))
		   OR (p.pronamespace = 'pg_catalog'::regnamespace AND p.proname = ANY ($called_sql)))
	  -- pseudo-types other than the polymorphic ones (internal, cstring, trigger ...)
	  AND NOT EXISTS (SELECT FROM unnest(p.proargtypes::oid[]) a JOIN pg_type ty ON ty.oid = a
					  WHERE ty.typtype = 'p' AND a::regtype NOT IN (SELECT t FROM poly UNION ALL SELECT t FROM polyarr))
	  AND NOT EXISTS (SELECT FROM pg_type ty WHERE ty.oid = p.prorettype AND ty.typtype = 'p'
					  AND ty.typname NOT IN ('record', 'void', 'anyelement', 'anyarray', 'anycompatible',
											 'anycompatiblearray', 'anynonarray'))
),
plain AS (
	SELECT s.* FROM src s
	WHERE NOT EXISTS (SELECT FROM unnest(s.args) a WHERE a IN (SELECT t FROM poly UNION ALL SELECT t FROM polyarr))
),
instances AS (
	SELECT s.proname, s.prokind, s.proretset,
		   CASE WHEN s.rettype IN (SELECT t FROM poly) THEN c.t
				WHEN s.rettype IN (SELECT t FROM polyarr) THEN (SELECT typarray FROM pg_type WHERE oid = c.t)::regtype
				ELSE s.rettype END AS rettype,
		   ARRAY(SELECT CASE WHEN a IN (SELECT t FROM poly) THEN c.t
							 WHEN a IN (SELECT t FROM polyarr) THEN (SELECT typarray FROM pg_type WHERE oid = c.t)::regtype
							 ELSE a END FROM unnest(s.args) WITH ORDINALITY u(a, o) ORDER BY o) AS args
	FROM src s, common c
	WHERE EXISTS (SELECT FROM unnest(s.args) a WHERE a IN (SELECT t FROM poly UNION ALL SELECT t FROM polyarr))
),
variants AS (
	SELECT p.proname, p.prokind, p.proretset, p.rettype,
		   p.args[1:i - 1] || sb.to_t || p.args[i + 1:] AS args
	FROM plain p, generate_subscripts(p.args, 1) i, subst sb WHERE sb.from_t = p.args[i]
	UNION ALL
	SELECT p.proname, p.prokind, p.proretset, p.rettype, p.args[1:k]
	FROM plain p, generate_series(cardinality(p.args) - p.d, cardinality(p.args) - 1) k
	WHERE p.d > 0
	UNION ALL
	SELECT proname, prokind, proretset, rettype, args FROM instances
)
SELECT DISTINCT proname || '|' || prokind::text || '|' || proretset::text || '|' || format_type(rettype, NULL) || '|'
	   || array_to_string(ARRAY(SELECT format_type(a, NULL) FROM unnest(args) WITH ORDINALITY u(a, o) ORDER BY o), ';')
FROM variants
EOSQL

# Plant the candidates (lines of $candidates_sql's output) and the
# look-alike operators in public, each owned by the role; a candidate whose
# types do not exist here (yet), or that exists already, is skipped.
sub plant
{
	my ($db, @lines) = @_;
	my $values = join(",\n", map {
		my ($name, $kind, $retset, $rettype, $args) = split /\|/, $_, 5;
		sprintf("('%s', '%s', %s, '%s', '%s')", $name, $kind, $retset, $rettype, $args)
	} @lines);
	$values = "(NULL, NULL, NULL, NULL, NULL)" unless @lines;
	return $node->safe_psql($db, <<"EOSQL");
SET search_path = pg_catalog;
CREATE SCHEMA IF NOT EXISTS trojan_watch;
CREATE TABLE IF NOT EXISTS trojan_watch.log (who name NOT NULL, sig text NOT NULL, at_step text);
GRANT USAGE ON SCHEMA trojan_watch TO PUBLIC;
GRANT INSERT ON trojan_watch.log TO PUBLIC;
CREATE TEMP TABLE cand (name name, kind "char", retset boolean, rettype text, args text);
INSERT INTO cand SELECT * FROM (VALUES $values) v WHERE v.column1 IS NOT NULL;
DO \$plant\$
DECLARE
	c record;
	sig text;
	n int := 0;
	ops text[] := ARRAY['=', '<>', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', '||', '\@>', '<\@', '&&'];
	common regtype[] := ARRAY['text', 'name', 'int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'oid',
							  'regclass', 'regprocedure', 'bool', 'timestamptz', 'interval', 'int8[]', 'name[]',
							  'text[]', 'float8[]', 'aclitem[]', '"char"']::regtype[];
	op text;
	l regtype;
	r regtype;
	params text;
	body text;
BEGIN
	FOR c IN SELECT * FROM cand LOOP
		sig := format('public.%I(%s)', c.name, replace(c.args, ';', ','));
		body := format(\$b\$BEGIN INSERT INTO trojan_watch.log (who, sig) VALUES (current_user, %L); %s END\$b\$,
					   sig, CASE WHEN c.kind = 'p' THEN '' WHEN c.retset OR c.rettype = 'void' THEN 'RETURN;' ELSE 'RETURN NULL;' END);
		params := (SELECT coalesce(string_agg('p' || o || ' ' || a, ', ' ORDER BY o), '')
				   FROM unnest(string_to_array(nullif(c.args, ''), ';')) WITH ORDINALITY u(a, o));
		BEGIN
			IF c.kind = 'p' THEN
				EXECUTE format('CREATE PROCEDURE public.%I(%s) LANGUAGE plpgsql AS %L', c.name, params, body);
				EXECUTE format('ALTER PROCEDURE %s OWNER TO $role', sig);
			ELSE
				EXECUTE format('CREATE FUNCTION public.%I(%s) RETURNS %s%s LANGUAGE plpgsql AS %L', c.name, params,
							   CASE WHEN c.retset THEN 'SETOF ' ELSE '' END, c.rettype, body);
				EXECUTE format('ALTER FUNCTION %s OWNER TO $role', sig);
			END IF;
			n := n + 1;
		EXCEPTION WHEN undefined_object OR duplicate_function OR invalid_function_definition
				   OR wrong_object_type OR feature_not_supported OR invalid_parameter_value OR datatype_mismatch THEN
			NULL;
		END;
	END LOOP;
	FOREACH op IN ARRAY ops LOOP
		FOREACH l IN ARRAY common LOOP
			FOREACH r IN ARRAY common LOOP
				CONTINUE WHEN EXISTS (SELECT FROM pg_operator o WHERE o.oprname = op AND o.oprleft = l AND o.oprright = r
									  AND o.oprnamespace IN ('pg_catalog'::regnamespace, 'public'::regnamespace));
				sig := format('operator public.%s(%s,%s)', op, l, r);
				body := format(\$b\$BEGIN INSERT INTO trojan_watch.log (who, sig) VALUES (current_user, %L); RETURN NULL; END\$b\$, sig);
				EXECUTE format('CREATE FUNCTION public.trojan_op_%s(p1 %s, p2 %s) RETURNS %s LANGUAGE plpgsql AS %L',
							   md5(sig), l, r,
							   CASE WHEN op IN ('=', '<>', '<', '<=', '>', '>=', '\@>', '<\@', '&&') THEN 'boolean'
									WHEN op = '||' THEN 'text' ELSE l::text END, body);
				EXECUTE format('CREATE OPERATOR public.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = public.trojan_op_%s)',
							   op, l, r, md5(sig));
				EXECUTE format('ALTER FUNCTION public.trojan_op_%s(%s, %s) OWNER TO $role', md5(sig), l, r);
				EXECUTE format('ALTER OPERATOR public.%s(%s, %s) OWNER TO $role', op, l, r);
				n := n + 1;
			END LOOP;
		END LOOP;
	END LOOP;
	CREATE TEMP TABLE planted AS SELECT n;
END
\$plant\$;
SELECT n FROM planted;
EOSQL
}

# What the extension's objects depend on outside pg_catalog and the
# extension: look-alikes bound into a view, a SQL body or a default.
my $foreign_dependencies = q{
	SET search_path = pg_catalog;
	WITH ext AS (SELECT oid FROM pg_extension WHERE extname = 'ranread'),
	member AS (SELECT classid, objid FROM pg_depend WHERE refclassid = 'pg_extension'::regclass
			   AND refobjid = (SELECT oid FROM ext) AND deptype = 'e'),
	-- the objects that hang on members: views' rules, columns' defaults
	dependent AS (
		SELECT classid, objid FROM member
		UNION
		SELECT 'pg_rewrite'::regclass, r.oid FROM pg_rewrite r JOIN member m ON m.classid = 'pg_class'::regclass AND m.objid = r.ev_class
		UNION
		SELECT 'pg_attrdef'::regclass, d.oid FROM pg_attrdef d JOIN member m ON m.classid = 'pg_class'::regclass AND m.objid = d.adrelid)
	SELECT string_agg(DISTINCT pg_describe_object(d.classid, d.objid, 0) || ' -> ' || pg_describe_object(d.refclassid, d.refobjid, 0), '; ')
	FROM pg_depend d JOIN dependent x ON x.classid = d.classid AND x.objid = d.objid
	WHERE d.refclassid IN ('pg_proc'::regclass, 'pg_operator'::regclass)
	  AND NOT EXISTS (SELECT FROM member m WHERE m.classid = d.refclassid AND m.objid = d.refobjid)
	  AND CASE d.refclassid WHEN 'pg_proc'::regclass THEN (SELECT pronamespace FROM pg_proc WHERE oid = d.refobjid)
			ELSE (SELECT oprnamespace FROM pg_operator WHERE oid = d.refobjid) END <> 'pg_catalog'::regnamespace
};

# Every view of the extension read as the superuser, and its SQL-bodied
# functions called (the test's own statements with search_path pg_catalog,
# so that they cannot run a look-alike themselves).
my $read_views = q{
	SET search_path = pg_catalog;
	DO $$
	DECLARE v regclass;
	BEGIN
		FOR v IN SELECT c.oid FROM pg_class c JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid
				 AND d.deptype = 'e' JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread'
				 WHERE c.relkind = 'v' LOOP
			EXECUTE format('SELECT count(*) FROM %s', v);
		END LOOP;
		PERFORM public.ranread_round_ms(0.5::float8, 3), public.ranread_verdict(NULL::bigint);
	END $$;
	SELECT count(*) FROM trojan_watch.log;
};

$node->safe_psql('postgres', "CREATE ROLE $role LOGIN");
# Every signature some version of ranread declares: a look-alike with one of
# them would not be a look-alike but a clash (the script's CREATE FUNCTION
# fails: the administrator sees it), so none is planted.
$node->safe_psql('postgres', 'CREATE DATABASE versions');
my %declared;
foreach my $i (0 .. $#versions)
{
	$node->safe_psql('versions', $i == 0 ? "CREATE EXTENSION ranread VERSION '1.0'"
		: "ALTER EXTENSION ranread UPDATE TO '$versions[$i]'");
	$declared{$_} = 1 foreach split /\n/, $node->safe_psql('versions', q{
		SELECT p.proname || '|' || array_to_string(ARRAY(SELECT format_type(a, NULL)
			FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(a, o) ORDER BY o), ';')
		FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
		JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread'});
}
# candidates of this database, less the signatures of any version
sub candidates
{
	my ($db) = @_;
	# (nor one over ranread's own types: it would keep an update from
	# dropping one, an error the administrator sees, not a capture)
	return grep { my @f = split /\|/, $_, 5; !$declared{"$f[0]|$f[4]"} && "$f[3]|$f[4]" !~ /ranread/ }
	  split /\n/, $node->safe_psql($db, "SET search_path = pg_catalog;\n$candidates_sql");
}
my @newest = candidates('postgres');
cmp_ok(scalar(@newest), '>', 200, scalar(@newest) . " look-alikes of version ${newest}'s functions and pg_catalog's");

# A fresh CREATE EXTENSION of the newest version.
$node->safe_psql('postgres', "CREATE DATABASE fresh; CREATE DATABASE chain");
foreach my $db ('fresh', 'chain')
{
	$node->safe_psql($db, "GRANT CREATE ON SCHEMA public TO $role");
}
my $n = plant('fresh', @newest);
cmp_ok($n, '>', 500, "$n look-alikes planted before CREATE EXTENSION");
my ($ret, $out, $err) = $node->psql('fresh', 'CREATE EXTENSION ranread');
is($ret, 0, 'CREATE EXTENSION succeeds among the look-alikes') or diag($err);
like($err, qr/WARNING:  roles other than superusers may create objects in ranread's schema public: $role\n/,
	'and warns that the role may create in its schema');
is(() = $err =~ /WARNING/g, 1, 'once, for all the scripts it runs');
is($node->safe_psql('fresh', 'SELECT count(*) FROM trojan_watch.log'), '0', 'no look-alike ran during CREATE EXTENSION');
is($node->safe_psql('fresh', $foreign_dependencies), '', "ranread's objects are bound to pg_catalog's and its own only");
is($node->safe_psql('fresh', $read_views), '0', 'reading every view as the superuser runs no look-alike');

# CREATE EXTENSION VERSION '1.0', then each update, planting before each.
foreach my $i (0 .. $#versions)
{
	my $v = $versions[$i];
	my @here = $i == 0 ? () : candidates('chain');
	$n = plant('chain', @newest, @here);
	my $step = $i == 0 ? "CREATE EXTENSION ranread VERSION '$v'" : "ALTER EXTENSION ranread UPDATE TO '$v'";
	($ret, $out, $err) = $node->psql('chain', $step);
	is($ret, 0, "$step succeeds among $n more look-alikes") or diag($err);
	like($err, qr/roles other than superusers may create objects in ranread's schema public: $role/,
		'and warns that the role may create in its schema') if $i > 0;
	is($node->safe_psql('chain', 'SELECT count(*) FROM trojan_watch.log'), '0', "no look-alike ran during $step");
}
is($node->safe_psql('chain', $foreign_dependencies), '',
	"after the whole chain, ranread's objects are bound to pg_catalog's and its own only");
is($node->safe_psql('chain', $read_views), '0', 'reading every view as the superuser runs no look-alike');
is($node->safe_psql($_, 'SELECT string_agg(DISTINCT sig, \', \') FROM trojan_watch.log'), '', "none ran at all in database $_")
  foreach ('fresh', 'chain');
ok(log_is_clean($node), "the server log has no crash");

done_testing();
