-- update/ranread--1.3--1.4.after.sql: the last statements of the update to
-- 1.4, once sql/src has made every routine and view: the grants on the
-- history taken away, the grants on the objects made again
-- (ranread_progress, ranread_run(), ranread_layers(), ranread_sweep()), as
-- update/ranread--1.3--1.4.before.sql kept them, and the phases the fleet
-- run and the write sweep call granted to the roles that may call them.

-- The grants of 1.3's GRANT block moved over: a role that could record
-- fleets or write sweeps (INSERT on their tables) may call the two
-- functions ranread_history_insert() and
-- ranread_history_update(), and no role but the owner keeps INSERT, UPDATE or DELETE
-- on a history table (ranread_reset() needs none).  SELECT stays.
DO $$
DECLARE
	grantee record;
BEGIN
	FOR grantee IN
		SELECT CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'
					ELSE pg_catalog.quote_ident(r.rolname) END AS name,
			   pg_catalog.bool_or(c.relname OPERATOR(pg_catalog.=) ANY (ARRAY['ranread_fleet_runs', 'ranread_fleet_servers',
																			'ranread_write_sweeps', 'ranread_write_sweep_steps']::pg_catalog.name[])
								  AND a.privilege_type OPERATOR(pg_catalog.=) 'INSERT'::text) AS recorded_fleets
		FROM pg_catalog.pg_class c
		CROSS JOIN LATERAL pg_catalog.aclexplode(c.relacl) a
		LEFT JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
		WHERE c.relnamespace OPERATOR(pg_catalog.=) (SELECT n.oid FROM pg_catalog.pg_namespace n
													 WHERE n.nspname OPERATOR(pg_catalog.=) pg_catalog.current_schema())
		  AND c.relname OPERATOR(pg_catalog.=) ANY (ARRAY['ranread_results', 'ranread_batches', 'ranread_intervals',
														 'ranread_sweep_runs', 'ranread_fleet_runs', 'ranread_fleet_servers',
														 'ranread_write_results', 'ranread_db_activity', 'ranread_write_sweeps',
														 'ranread_write_sweep_steps']::pg_catalog.name[])
		  AND a.privilege_type OPERATOR(pg_catalog.=) ANY (ARRAY['INSERT', 'UPDATE', 'DELETE']::text[])
		  AND a.grantee OPERATOR(pg_catalog.<>) c.relowner
		GROUP BY 1
		ORDER BY 1
	LOOP
		IF grantee.recorded_fleets THEN
			EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION ranread_history_insert(text, jsonb), '
									  'ranread_history_update(text, jsonb, jsonb) TO %s', grantee.name);
		END IF;
		EXECUTE pg_catalog.format('REVOKE INSERT, UPDATE, DELETE ON ranread_results, ranread_batches, ranread_intervals, '
								  'ranread_sweep_runs, ranread_fleet_runs, ranread_fleet_servers, ranread_write_results, '
								  'ranread_db_activity, ranread_write_sweeps, ranread_write_sweep_steps FROM %s',
								  grantee.name);
		RAISE WARNING 'ranread 1.4: % no longer holds INSERT, UPDATE or DELETE on ranread''s history, which only ranread writes',
			grantee.name;
	END LOOP;
END
$$;

DO $$
DECLARE
	regrant text;
	kind text;
	object_name text;
	privilege text;
	target text;
BEGIN
	FOREACH regrant IN ARRAY pg_catalog.current_setting('ranread_update.regrants')::text[]
	LOOP
		kind := pg_catalog.split_part(regrant, '|', 1);
		object_name := pg_catalog.split_part(regrant, '|', 2);
		privilege := pg_catalog.split_part(regrant, '|', 3);
		target := object_name;
		IF kind OPERATOR(pg_catalog.=) ANY (ARRAY['FUNCTION', 'PROCEDURE']) THEN
			-- the routine sql/src made, found by name among the extension's
			-- members: its argument types are the current version's
			SELECT p.oid::pg_catalog.regprocedure::text INTO STRICT target
			FROM pg_catalog.pg_proc p
				 JOIN pg_catalog.pg_depend d ON d.objid OPERATOR(pg_catalog.=) p.oid
					AND d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
					AND d.deptype OPERATOR(pg_catalog.=) 'e'
				 JOIN pg_catalog.pg_extension e ON e.oid OPERATOR(pg_catalog.=) d.refobjid
			WHERE e.extname OPERATOR(pg_catalog.=) 'ranread' AND p.proname OPERATOR(pg_catalog.=) object_name;
		END IF;
		EXECUTE pg_catalog.format('GRANT %s ON %s %s TO %s', privilege, kind, target,
								  pg_catalog.substr(regrant, pg_catalog.length(kind) OPERATOR(pg_catalog.+)
													pg_catalog.length(object_name) OPERATOR(pg_catalog.+)
													pg_catalog.length(privilege) OPERATOR(pg_catalog.+) 4));
	END LOOP;
END
$$;

-- 1.4 splits ranread_fleet_run() and ranread_write_sweep() into phases,
-- functions they call as their caller: a role that may run either may call
-- its phases (and PUBLIC none).  And a role that may read a sweep's verdict
-- may read what limits its volume (ranread_limit(), new in 1.4).
DO $$
DECLARE
	grantee record;
BEGIN
	FOR grantee IN
		SELECT CASE WHEN p.proname OPERATOR(pg_catalog.=) 'ranread_fleet_run'
					THEN 'ranread_fleet_open(name[], int, bigint, text, name, interval, float8, interval), '
						 'ranread_fleet_gather(bigint, name, text, name, timestamptz, float8)'
					WHEN p.proname OPERATOR(pg_catalog.=) 'ranread_write_sweep'
					THEN 'ranread_write_sweep_check(int, float8, float8, float8, interval, int, float8, float8, float8, '
						 'float8, text, name, name), ranread_write_sweep_pool(bigint[], int)'
					ELSE 'ranread_limit(bigint)' END AS phases,
			   pg_catalog.quote_ident(r.rolname) AS name
		FROM pg_catalog.pg_proc p
		CROSS JOIN LATERAL pg_catalog.aclexplode(p.proacl) a
		JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
		WHERE p.pronamespace OPERATOR(pg_catalog.=) (SELECT n.oid FROM pg_catalog.pg_namespace n
													 WHERE n.nspname OPERATOR(pg_catalog.=) pg_catalog.current_schema())
		  AND p.proname OPERATOR(pg_catalog.=) ANY (ARRAY['ranread_fleet_run', 'ranread_write_sweep', 'ranread_sweep_verdict']::pg_catalog.name[])
		  AND a.privilege_type OPERATOR(pg_catalog.=) 'EXECUTE'
		  AND a.grantee OPERATOR(pg_catalog.<>) p.proowner
		  AND EXISTS (SELECT FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension e ON e.oid OPERATOR(pg_catalog.=) d.refobjid
					  WHERE d.objid OPERATOR(pg_catalog.=) p.oid AND d.deptype OPERATOR(pg_catalog.=) 'e'
						AND e.extname OPERATOR(pg_catalog.=) 'ranread')
		ORDER BY 2, 1
	LOOP
		EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO %s', grantee.phases, grantee.name);
	END LOOP;
END
$$;
