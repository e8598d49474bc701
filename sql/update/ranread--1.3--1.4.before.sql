-- update/ranread--1.3--1.4.before.sql: what 1.4 changes that the sources
-- (sql/src) cannot say by being run again: new columns, and the five
-- objects whose result columns or arguments changed, dropped here.  The
-- Makefile runs sql/src/guard.sql before it; after it, every routine and
-- view of sql/src made again (CREATE OR REPLACE), sql/src/grants.sql, and
-- update/ranread--1.3--1.4.after.sql.

-- Only ranread writes the history.  Every row names the role that ran it
-- (run_by; NULL in rows recorded before 1.4), rows are written as the
-- extension's owner (src/record/row_builder.c), and no other role needs
-- INSERT, UPDATE or DELETE on a history table: a role could otherwise plant
-- rows at the numbers another role's run will draw, or rewrite its verdicts.
-- ranread_reset() deletes the caller's rows (a superuser's: all).
ALTER TABLE ranread_results ADD COLUMN run_by name;
ALTER TABLE ranread_batches ADD COLUMN run_by name;
ALTER TABLE ranread_intervals ADD COLUMN run_by name;
ALTER TABLE ranread_sweep_runs ADD COLUMN run_by name;
ALTER TABLE ranread_fleet_runs ADD COLUMN run_by name;
ALTER TABLE ranread_fleet_servers ADD COLUMN run_by name;
ALTER TABLE ranread_write_results ADD COLUMN run_by name;
ALTER TABLE ranread_db_activity ADD COLUMN run_by name;
ALTER TABLE ranread_write_sweeps ADD COLUMN run_by name;
ALTER TABLE ranread_write_sweep_steps ADD COLUMN run_by name;

-- What shaped a batch besides the server's settings, recorded from 1.4 on
-- (NULL in older rows: not recorded).
ALTER TABLE ranread_batches ADD COLUMN kernel text, ADD COLUMN data_checksums boolean, ADD COLUMN file_system text,
	ADD COLUMN ranread_version text, ADD COLUMN warnings text[];

-- A sweep's drain before step 1 (its batch is sweep_step 0).
ALTER TABLE ranread_sweep_runs ADD COLUMN drain_s float8;
-- Its probes after the last step (their batches are sweep_step -1 and -2).
ALTER TABLE ranread_sweep_runs ADD COLUMN probe_s float8;

-- A fleet server's burst bucket, found in its series (ranread_series_bucket()).
ALTER TABLE ranread_fleet_servers ADD COLUMN burst_iops float8, ADD COLUMN burst_band_pct float8,
	ADD COLUMN baseline_iops float8, ADD COLUMN baseline_band_pct float8, ADD COLUMN bucket_reads float8,
	ADD COLUMN bucket_band float8, ADD COLUMN shift_s float8;

-- ranread_progress (a row per batch, words for its progress),
-- ranread_run() (one line: batch, status, IOPS, mean, p99) and
-- ranread_layers() (a row a layer within 120 columns) answer in other
-- columns, and ranread_sweep() takes two more arguments (drain, probe), so they
-- are dropped and made again.  Their grants are kept here,
-- each as "kind|name|privilege|grantee", for
-- update/ranread--1.3--1.4.after.sql to grant again on what sql/src made.
SELECT pg_catalog.set_config('ranread_update.regrants',
							 coalesce(pg_catalog.array_agg(pg_catalog.format('%s|%s|%s|%s%s', o.kind, o.name, a.privilege_type,
								 CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'
									  ELSE pg_catalog.quote_ident(r.rolname) END,
								 CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END)), '{}')::text, true)
FROM (SELECT 'TABLE'::text, c.relname::text, c.relacl, c.relowner
	  FROM pg_catalog.pg_class c
	  WHERE c.oid OPERATOR(pg_catalog.=) 'ranread_progress'::pg_catalog.regclass
	  UNION ALL
	  SELECT 'FUNCTION', p.proname::text, p.proacl, p.proowner
	  FROM pg_catalog.pg_proc p
	  WHERE p.oid OPERATOR(pg_catalog.=) ANY (ARRAY['ranread_run(int, bigint, name, text, int, interval, boolean, interval, interval, interval, float8, float8, text, int, boolean, int, text, timestamptz, int, float8, name, text)',
												   'ranread_layers(int, bigint, name, interval, int, float8)']::pg_catalog.regprocedure[]::pg_catalog.oid[])
	  UNION ALL
	  SELECT 'PROCEDURE', p.proname::text, p.proacl, p.proowner
	  FROM pg_catalog.pg_proc p
	  WHERE p.oid OPERATOR(pg_catalog.=) 'ranread_sweep(int, int, int, bigint, interval, name, text, int, float8, float8, float8, float8, float8, float8, float8, float8, float8, interval, int, int, int, int, int)'::pg_catalog.regprocedure::pg_catalog.oid) AS o(kind, name, acl, owner)
	 CROSS JOIN LATERAL pg_catalog.aclexplode(o.acl) a
	 LEFT JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
WHERE a.grantee OPERATOR(pg_catalog.<>) o.owner;

DROP VIEW ranread_progress;
DROP FUNCTION ranread_run(int, bigint, name, text, int, interval, boolean, interval, interval, interval, float8, float8, text, int, boolean, int, text, timestamptz, int, float8, name, text);
DROP FUNCTION ranread_layers(int, bigint, name, interval, int, float8);
DROP PROCEDURE ranread_sweep(int, int, int, bigint, interval, name, text, int, float8, float8, float8, float8, float8, float8, float8, float8, float8, interval, int, int, int, int, int);
-- ranread_sweep_decide() takes the runs' buckets (bucket, with a default):
-- PUBLIC's EXECUTE, all it has, comes with the new one.
DROP FUNCTION ranread_sweep_decide(bigint[], int[], int[], text[], float8[], float8[], float8[], float8[], float8[],
								   float8[], float8[], float8[], boolean[], int, text, float8, float8, float8, float8, text);
