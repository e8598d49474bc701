-- guard.sql: the first statement of the install script.  A role other than
-- a superuser that may create objects in the extension's schema could plant
-- look-alike functions and operators there; every statement of ranread's
-- scripts resolves its names to pg_catalog's or its own (the rule
-- scripts/lint-sql.py checks), but other code run with this schema on its
-- search_path may not: say so, once (docs/reference.md, "Updating").

DO $guard$
DECLARE
	creators text;
BEGIN
	IF (pg_catalog.current_setting('ranread_script.checked', true) OPERATOR(pg_catalog.=) 'yes') IS NOT TRUE THEN
		PERFORM pg_catalog.set_config('ranread_script.checked', 'yes', true);
		SELECT pg_catalog.string_agg(pg_catalog.quote_ident(r.rolname), ', ' ORDER BY r.rolname) INTO creators
		FROM pg_catalog.pg_roles r
		WHERE r.rolcanlogin AND NOT r.rolsuper
		  AND pg_catalog.has_schema_privilege(r.oid, (SELECT n.oid FROM pg_catalog.pg_namespace n
												   WHERE n.nspname OPERATOR(pg_catalog.=) pg_catalog.current_schema()), 'CREATE');
		IF creators IS NOT NULL THEN
			RAISE WARNING 'roles other than superusers may create objects in ranread''s schema %: %',
				pg_catalog.quote_ident(pg_catalog.current_schema()), creators
				USING HINT = pg_catalog.format('REVOKE CREATE ON SCHEMA %I from them, and drop the functions and operators they own there, unless you trust them as you trust a superuser.',
											   pg_catalog.current_schema());
		END IF;
	END IF;
END
$guard$;
