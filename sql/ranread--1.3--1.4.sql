/* ranread--1.3--1.4.sql: update ranread 1.3 to 1.4 */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION ranread UPDATE TO '1.4'" to load this file. \quit

-- First of all: a role other than a superuser that may create objects in
-- this schema could plant look-alike functions and operators in it.  Every
-- script of ranread resolves its names to pg_catalog's and its own, but
-- other code run with this schema on its search_path may not: say so, once
-- for the whole CREATE or UPDATE (docs/reference.md, "Updating").
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

-- The views and SQL-bodied functions, made again with every operator,
-- function and constant resolved to pg_catalog's or ranread's own, so that
-- a look-alike another role planted (before an update, as 1.2's GRANT block
-- allowed) is bound into none of them.  CREATE OR REPLACE keeps their grants.
CREATE OR REPLACE FUNCTION ranread_round_ms(ms float8, decimals int DEFAULT 3)
RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.round(ms::numeric,
						CASE WHEN ms OPERATOR(pg_catalog.>) 0::float8 AND ms OPERATOR(pg_catalog.<) 1::float8
							 THEN GREATEST(decimals, LEAST(6, 2 OPERATOR(pg_catalog.-)
														   pg_catalog.floor(pg_catalog.log(ms::numeric))::int))
							 ELSE decimals END);

CREATE OR REPLACE VIEW ranread_summary AS
SELECT run_date,
	   run_time,
	   target,
	   iterations,
	   processes,
	   ranread_round_ms(response_time_ms, 2) AS response_time_ms,
	   pg_catalog.round(iops::numeric) AS iops,
	   batch,
	   mode,
	   block_size,
	   ranread_round_ms(p50_ms, 3) AS p50_ms,
	   ranread_round_ms(p95_ms, 3) AS p95_ms,
	   ranread_round_ms(p99_ms, 3) AS p99_ms,
	   ranread_round_ms(p999_ms, 3) AS p999_ms,
	   ranread_round_ms(min_ms, 3) AS min_ms,
	   ranread_round_ms(max_ms, 3) AS max_ms,
	   pg_catalog.round(pct_over_2ms::numeric, 2) AS pct_over_2ms,
	   pg_catalog.round(pct_over_5ms::numeric, 2) AS pct_over_5ms,
	   pg_catalog.round(pct_over_10ms::numeric, 2) AS pct_over_10ms,
	   pg_catalog.round(mb_per_s::numeric, 1) AS mb_per_s,
	   pg_catalog.round(physical_pct::numeric, 1) AS physical_pct,
	   buffer_hits,
	   buffer_misses,
	   device,
	   pg_catalog.round(device_reads_per_s::numeric) AS device_reads_per_s,
	   ranread_round_ms(device_read_wait_ms, 3) AS device_read_wait_ms,
	   pg_catalog.round(device_util_pct::numeric, 1) AS device_util_pct,
	   reads,
	   pg_catalog.round(wall_s::numeric, 3) AS wall_s,
	   duration_s,
	   evicted,
	   status,
	   started_at,
	   wrapped_reads,
	   pg_catalog.round(kb_per_read::numeric, 1) AS kb_per_read,
	   ramp_s,
	   pg_catalog.round(steady_at_s::numeric, 2)::float8 AS steady_at_s,
	   rate_iops,
	   ranread_round_ms(service_mean_ms, 3) AS service_mean_ms,
	   ranread_round_ms(service_p50_ms, 3) AS service_p50_ms,
	   ranread_round_ms(service_p99_ms, 3) AS service_p99_ms,
	   ranread_round_ms(service_p999_ms, 3) AS service_p999_ms,
	   sweep,
	   sweep_step,
	   iodepth,
	   ended_by,
	   pg_catalog.round(device_shared_pct::numeric, 1) AS device_shared_pct
FROM ranread_batches;

-- ranread_progress reads in a terminal (120 columns): one row per batch
-- running, its total, and one per setup, their progress in words; the
-- workers' rows and every figure as a number stay in ranread_running() and
-- ranread_setup_running().  Other columns, so the view is dropped and made
-- again, its grants carried over.
SELECT pg_catalog.set_config('ranread_update.progress_acl',
							 coalesce(pg_catalog.array_agg(pg_catalog.format('%s:%s', a.privilege_type,
								 CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'
									  ELSE pg_catalog.quote_ident(r.rolname) END)), '{}')::text, true)
FROM pg_catalog.pg_class c
	 CROSS JOIN LATERAL pg_catalog.aclexplode(c.relacl) a
	 LEFT JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
WHERE c.oid OPERATOR(pg_catalog.=) 'ranread_progress'::pg_catalog.regclass
  AND a.grantee OPERATOR(pg_catalog.<>) c.relowner;

DROP VIEW ranread_progress;

CREATE VIEW ranread_progress AS
SELECT 'run'::text AS activity,
	   r.sweep,
	   r.sweep_step AS step,
	   r.batch,
	   r.state,
	   CASE WHEN r.target_reads IS NOT NULL
			THEN pg_catalog.format('%s of %s reads', r.reads, r.target_reads)
			ELSE pg_catalog.format('%s reads in %s s', r.reads, pg_catalog.round(r.elapsed_s::numeric, 1)) END AS progress,
	   pg_catalog.round(r.time_left_s::numeric, 1) AS time_left_s,
	   pg_catalog.round(r.iops::numeric) AS iops,
	   ranread_round_ms(r.mean_ms, 3) AS mean_ms,
	   ranread_round_ms(r.p99_ms, 3) AS p99_ms
FROM ranread_running() r
WHERE r.worker IS NULL
UNION ALL
SELECT 'setup', NULL, NULL, NULL, s.state,
	   pg_catalog.format('%s: %s of %s MB', s.target,
						 pg_catalog.round(s.bytes_written::numeric OPERATOR(pg_catalog./) 1048576.0),
						 pg_catalog.round(s.bytes_total::numeric OPERATOR(pg_catalog./) 1048576.0)),
	   pg_catalog.round(s.time_left_s::numeric, 1), NULL, NULL, NULL
FROM ranread_setup_running() s;

DO $$
DECLARE
	entry text;
BEGIN
	FOREACH entry IN ARRAY pg_catalog.current_setting('ranread_update.progress_acl')::text[]
	LOOP
		-- "SELECT:role", the role quoted as an identifier
		EXECUTE pg_catalog.format('GRANT %s ON ranread_progress TO %s', pg_catalog.split_part(entry, ':', 1),
								  pg_catalog.substr(entry, pg_catalog.strpos(entry, ':') OPERATOR(pg_catalog.+) 1));
	END LOOP;
END
$$;

CREATE OR REPLACE VIEW ranread_sweeps AS
SELECT s.sweep,
	   s.started_at,
	   v.status,
	   v.steps,
	   pg_catalog.round(v.max_iops::numeric) AS max_iops,
	   v.max_iops_processes,
	   pg_catalog.round(v.slo_iops::numeric) AS slo_iops,
	   v.slo_processes,
	   v.knee_processes,
	   v.memory_steps,
	   v.stop_rule,
	   v.verdict,
	   s.target,
	   s.mode,
	   s.block_size,
	   s.slo_mean_ms,
	   s.slo_p99_ms,
	   s.slo_p999_ms,
	   s.slo_max_ms,
	   s.ended_at
FROM ranread_sweep_runs s,
	 LATERAL ranread_sweep_verdict(s.sweep) v;

CREATE OR REPLACE VIEW ranread_report AS
SELECT batch,
	   sweep,
	   sweep_step AS step,
	   mode,
	   processes,
	   iodepth,
	   pg_catalog.round(iops::numeric) AS iops,
	   ranread_round_ms(response_time_ms, 3) AS mean_ms,
	   ranread_round_ms(p99_ms, 3) AS p99_ms,
	   pg_catalog.round(physical_pct::numeric, 1) AS physical_pct,
	   status
FROM ranread_batches;

CREATE OR REPLACE VIEW ranread_series AS
SELECT batch,
	   interval_no,
	   pg_catalog.round(start_s::numeric, 2) AS start_s,
	   pg_catalog.round(seconds::numeric, 2) AS seconds,
	   reads,
	   pg_catalog.round(iops::numeric) AS iops,
	   ranread_round_ms(mean_ms, 3) AS mean_ms,
	   ranread_round_ms(p50_ms, 3) AS p50_ms,
	   ranread_round_ms(p99_ms, 3) AS p99_ms,
	   ranread_round_ms(max_ms, 3) AS max_ms,
	   workers_reading
FROM ranread_intervals;

CREATE OR REPLACE FUNCTION ranread_verdict(sweep bigint DEFAULT NULL)
RETURNS TABLE(verdict text)
LANGUAGE sql STABLE
BEGIN ATOMIC
	WITH s AS (
		SELECT r.sweep, r.target, r.mode, v.status, v.steps, v.verdict AS words
		FROM ranread_sweep_runs r,
			 LATERAL ranread_sweep_verdict(r.sweep) v
		WHERE r.sweep OPERATOR(pg_catalog.=) coalesce(ranread_verdict.sweep,
													  (SELECT pg_catalog.max(l.sweep) FROM ranread_sweep_runs l))
	), line AS (
		SELECT 0::bigint AS n, 0::bigint AS k,
			   pg_catalog.format('sweep %s (%s, %s on %s, %s %s):', s.sweep, s.status, s.mode, s.target, s.steps,
								 CASE WHEN s.steps OPERATOR(pg_catalog.=) 1 THEN 'step' ELSE 'steps' END) AS text
		FROM s
		UNION ALL
		SELECT x.n, m.k, m.part[1]
		FROM s,
			 pg_catalog.regexp_split_to_table(s.words, '(?<=[.!?])\s+'::text) WITH ORDINALITY AS x(sentence, n),
			 pg_catalog.regexp_matches(x.sentence, '(.{1,99})(?:\s+|$)'::text, 'g'::text) WITH ORDINALITY AS m(part, k)
	)
	SELECT line.text FROM line ORDER BY line.n, line.k;
END;

CREATE OR REPLACE VIEW ranread_fleet_summary AS
SELECT f.fleet, f.fleet_sweep, f.sweep_step, f.started_at, f.servers, f.processes, f.mode, f.target, f.status,
	   pg_catalog.round(f.iops) AS iops,
	   ranread_round_ms(f.mean_ms, 3) AS mean_ms,
	   ranread_round_ms(f.p99_ms, 3) AS p99_ms,
	   ranread_round_ms(f.max_ms, 3) AS max_ms,
	   f.slowest_server,
	   pg_catalog.round(f.overlap_pct::numeric, 1) AS overlap_pct,
	   (SELECT pg_catalog.count(*) FROM ranread_fleet_servers s
		WHERE s.fleet OPERATOR(pg_catalog.=) f.fleet AND s.status OPERATOR(pg_catalog.=) 'completed'::text) AS servers_completed
FROM ranread_fleet_runs f;

CREATE OR REPLACE VIEW ranread_write_summary AS
SELECT w.batch,
	   pg_catalog.min(w.started_at) AS started_at,
	   pg_catalog.min(w.write_target) AS write_target,
	   pg_catalog.min(w.writers) AS writers,
	   pg_catalog.min(w.write_rate_iops) AS write_rate_iops,
	   pg_catalog.sum(w.writes) AS writes,
	   pg_catalog.round((pg_catalog.sum(w.writes)::float8
						 OPERATOR(pg_catalog./) NULLIF(pg_catalog.max(w.elapsed_s), 0::float8))::numeric) AS write_iops,
	   ranread_round_ms(pg_catalog.sum(w.mean_ms OPERATOR(pg_catalog.*) w.writes::float8)
									OPERATOR(pg_catalog./) NULLIF(pg_catalog.sum(w.writes)::float8, 0::float8), 3) AS mean_ms,
	   ranread_round_ms(ranread_histogram_percentile(ranread_histogram_merge(w.histogram),
																			 0.5::float8), 3) AS p50_ms,
	   ranread_round_ms(ranread_histogram_percentile(ranread_histogram_merge(w.histogram),
																			 0.99::float8), 3) AS p99_ms,
	   ranread_round_ms(pg_catalog.max(w.max_ms), 3) AS max_ms,
	   -- the worst status other than completed (text order would put stopped above failed)
	   (ARRAY['stopped', 'cancelled', 'failed'])[pg_catalog.max(pg_catalog.array_position(ARRAY['stopped', 'cancelled', 'failed'],
																						 w.status))]
		   AS not_completed,
	   a.wal_bytes, a.wal_fpi, a.wal_syncs, a.wal_sync_ms, a.checkpoints_timed, a.checkpoints_requested,
	   a.buffers_checkpoint, a.buffers_clean, a.buffers_backend, a.updates, a.hot_updates, a.seconds AS activity_s
FROM ranread_write_results w
LEFT JOIN ranread_db_activity a ON a.batch OPERATOR(pg_catalog.=) w.batch
GROUP BY w.batch, a.batch;

CREATE OR REPLACE VIEW ranread_series_activity AS
SELECT batch,
	   interval_no,
	   pg_catalog.round(start_s::numeric, 2) AS start_s,
	   pg_catalog.round(iops::numeric) AS iops,
	   ranread_round_ms(p99_ms, 3) AS p99_ms,
	   wal_bytes,
	   wal_syncs,
	   pg_catalog.round(wal_sync_ms::numeric, 2) AS wal_sync_ms,
	   buffers_checkpoint,
	   buffers_clean,
	   buffers_backend,
	   -- 'began', 'ended', 'began ended', or 'running' (through it); NULL: none, or unknown
	   NULLIF(pg_catalog.concat_ws(' ', CASE WHEN checkpoint_began THEN 'began' END,
								   CASE WHEN checkpoint_ended THEN 'ended' END,
								   CASE WHEN checkpoint_running AND NOT (checkpoint_began OR checkpoint_ended) THEN 'running' END),
			  ''::text) AS checkpoint,
	   device_reads,
	   device_writes
FROM ranread_intervals;

-- ranread_export()'s files as rows (file name, text), for the client to
-- save with psql: no server file is written, so the benchmark role needs no
-- server-file privilege (pg_write_server_files can gain a superuser's).
CREATE FUNCTION ranread_export_files(format text DEFAULT 'tsv',
									 sweep bigint DEFAULT NULL,
									 csv boolean DEFAULT false,
									 svg boolean DEFAULT false)
RETURNS TABLE(file text, content text)
AS 'MODULE_PATHNAME', 'ranread_export_files'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp
SET DateStyle = 'ISO, YMD';
REVOKE ALL ON FUNCTION ranread_export_files(text, bigint, boolean, boolean) FROM PUBLIC;

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

-- How the fleet run and the write sweep (PL/pgSQL, run as their caller)
-- record their rows: as the extension's owner, run_by the caller, and only
-- for the fleet or write sweep number this session drew last
-- (src/record/history_rows.c).
CREATE FUNCTION ranread_history_insert(history_table text, fields jsonb)
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_history_insert'
LANGUAGE C VOLATILE STRICT
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION ranread_history_insert(text, jsonb) FROM PUBLIC;

CREATE FUNCTION ranread_history_update(history_table text, fields jsonb, matching jsonb)
RETURNS bigint
AS 'MODULE_PATHNAME', 'ranread_history_update'
LANGUAGE C VOLATILE STRICT
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION ranread_history_update(text, jsonb, jsonb) FROM PUBLIC;

-- The fleet run, the fleet sweep and the write sweep record their rows
-- through those two functions; their code is otherwise 1.3's.
CREATE OR REPLACE FUNCTION ranread_fleet_run(servers name[],
											 processes int DEFAULT 4,
											 iterations bigint DEFAULT NULL,
											 mode text DEFAULT 'smgr',
											 target name DEFAULT 'ranread_target',
											 duration interval DEFAULT NULL,
											 max_clock_offset_ms float8 DEFAULT 50,	-- refuse a server whose clock is further off
											 start_delay interval DEFAULT '2 s')	-- from the checks to the common start
RETURNS TABLE(scope text, fleet bigint, server name, batch bigint, status text, iops float8,
			  mean_ms float8, p99_ms float8, max_ms float8, start_skew_ms float8,
			  clock_offset_ms float8, overlap_pct float8, error text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET datestyle = 'ISO, YMD'				-- start_at's text, as every server reads it
AS $fleet$
DECLARE
	n int := coalesce(cardinality(servers), 0);
	began timestamptz := clock_timestamp();
	-- from check_arguments
	link name;							-- dblink's schema
	own name;							-- ranread's schema, looked up: its name may hold a quote
	own_version text;
	-- from check_servers, each by the server's position in servers
	conns text[] := '{}';				-- dblink's connection names
	remote_schemas name[] := '{}';		-- ranread's schema there
	offsets float8[] := '{}';			-- its clock's offset from the coordinator's, in ms
	-- from start_and_wait
	fleet_no bigint;
	common_start timestamptz;			-- on the coordinator's clock
	cancelled boolean := false;
	stopped boolean := false;
BEGIN
	-- The arguments, and what the coordinator needs, before any server is
	-- asked.  Hands on link, own and own_version.
	<<check_arguments>>
	DECLARE
		srv name;
	BEGIN
		IF n = 0 OR array_position(servers, NULL) IS NOT NULL THEN
			RAISE EXCEPTION 'servers must name at least one foreign server, and no NULL'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF n > 64 OR (SELECT count(DISTINCT s) FROM unnest(servers) s) <> n THEN
			RAISE EXCEPTION 'servers must name at most 64 foreign servers, each once'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF processes IS NULL OR mode IS NULL OR target IS NULL OR (iterations IS NULL AND duration IS NULL)
		   OR max_clock_offset_ms IS NULL OR start_delay IS NULL THEN
			RAISE EXCEPTION 'processes, mode, target, max_clock_offset_ms and start_delay must not be null, nor both iterations and duration'
				USING ERRCODE = 'null_value_not_allowed';
		END IF;
		-- (NaN sorts above every number, Infinity too: neither is a bound)
		IF NOT (max_clock_offset_ms > 0 AND max_clock_offset_ms < 'Infinity'::float8)
		   OR start_delay < interval '0.2 s' OR start_delay > interval '1 minute' THEN
			RAISE EXCEPTION 'max_clock_offset_ms must be a positive number and start_delay between 0.2 s and 1 minute'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF processes < 1 THEN
			RAISE EXCEPTION 'processes must be at least 1'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		SELECT ns.nspname INTO link FROM pg_extension e JOIN pg_namespace ns ON ns.oid = e.extnamespace
		WHERE e.extname = 'dblink';
		IF link IS NULL THEN
			RAISE EXCEPTION 'ranread_fleet_run needs extension dblink in this database'
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  HINT = 'Run CREATE EXTENSION dblink; each server is a foreign server of its dblink_fdw with a user mapping.';
		END IF;
		SELECT e.extversion, ns.nspname INTO own_version, own
		FROM pg_extension e JOIN pg_namespace ns ON ns.oid = e.extnamespace WHERE e.extname = 'ranread';
		FOREACH srv IN ARRAY servers LOOP
			IF NOT EXISTS (SELECT FROM pg_foreign_server WHERE srvname = srv) THEN
				RAISE EXCEPTION 'foreign server "%" does not exist', srv
					USING ERRCODE = 'undefined_object',
						  HINT = 'CREATE SERVER ... FOREIGN DATA WRAPPER dblink_fdw OPTIONS (host ..., dbname ...), and a USER MAPPING for it.';
			END IF;
			IF NOT has_server_privilege(srv, 'USAGE') THEN
				RAISE EXCEPTION 'permission denied for foreign server "%"', srv
					USING ERRCODE = 'insufficient_privilege',
						  HINT = format('GRANT USAGE ON FOREIGN SERVER %I TO %I, and a user mapping for that role.', srv, current_user);
			END IF;
		END LOOP;
	END check_arguments;

	-- Every server checked: reachable (within a connect timeout), the same
	-- ranread, what its run would refuse (arguments, target, a run already
	-- there, worker slots), a cluster of its own, its clock.  All problems
	-- are said together, and then every connection is closed and nothing
	-- started.  Hands on conns (each open), remote_schemas and offsets.
	<<check_servers>>
	DECLARE
		identities text[] := '{}';		-- each cluster's system identifier
		problems text[] := '{}';
		srv name;
		conn text;
		r record;
		existing text[];
		err text;
		t0 timestamptz;
		t1 timestamptz;
		remote_now timestamptz;
		best_rtt float8;
	BEGIN
		FOR i IN 1 .. n LOOP
			srv := servers[i];
			conn := 'ranread_fleet_' || i;
			conns := conns || conn;
			remote_schemas := remote_schemas || NULL::name;
			identities := identities || NULL::text;
			offsets := offsets || NULL::float8;
			BEGIN
				EXECUTE format('SELECT %I.dblink_get_connections()', link) INTO existing;
				IF conn = ANY (coalesce(existing, '{}')) THEN
					EXECUTE format('SELECT %I.dblink_disconnect($1::text)', link) USING conn;
				END IF;
				EXECUTE format('SELECT %I.ranread_fleet_connect($1::text, $2::name)', own) USING conn, srv;
				EXECUTE format('SELECT * FROM %I.dblink($1::text, $2::text) AS t(s name, v text)', link) INTO r
					USING conn, 'SELECT n.nspname, e.extversion FROM pg_catalog.pg_extension e '
								'JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace '
								'WHERE e.extname OPERATOR(pg_catalog.=) ''ranread''';
				IF r.s IS NULL THEN
					problems := problems || format('%s: extension ranread is not installed', srv);
					CONTINUE;
				END IF;
				IF r.v IS DISTINCT FROM own_version THEN
					problems := problems || format('%s: extension ranread %s, the coordinator''s %s', srv, r.v, own_version);
					CONTINUE;
				END IF;
				remote_schemas[i] := r.s;
				BEGIN
					EXECUTE format('SELECT * FROM %I.dblink($1::text, $2::text) AS t(id text)', link) INTO r
						USING conn, format('SELECT %I.ranread_fleet_check(%s::int, %s::bigint, %L::name, %L::text, %L::interval)',
										   remote_schemas[i], processes, coalesce(iterations::text, 'NULL'), target, mode,
										   duration);
					IF r.id = ANY (identities) THEN
						problems := problems || format('%s: the same cluster as %s (system identifier %s), which runs one batch at a time',
													   srv, servers[array_position(identities, r.id)], r.id);
					END IF;
					identities[i] := r.id;
				EXCEPTION WHEN OTHERS THEN
					-- what the server's run would refuse; its clock is still checked
					GET STACKED DIAGNOSTICS err = PG_EXCEPTION_HINT;
					problems := problems || format('%s: %s%s', srv, SQLERRM,
												   CASE WHEN coalesce(err, '') = '' THEN '' ELSE ' (' || err || ')' END);
				END;
				-- the clock: the least round trip of three
				best_rtt := NULL;
				FOR k IN 1 .. 3 LOOP
					t0 := clock_timestamp();
					EXECUTE format('SELECT * FROM %I.dblink($1::text, ''SELECT pg_catalog.clock_timestamp()''::text) AS t(c timestamptz)', link)
						INTO remote_now USING conn;
					t1 := clock_timestamp();
					IF best_rtt IS NULL OR extract(epoch FROM t1 - t0) < best_rtt THEN
						best_rtt := extract(epoch FROM t1 - t0);
						offsets[i] := 1000 * extract(epoch FROM remote_now - (t0 + (t1 - t0) / 2));
					END IF;
				END LOOP;
				IF abs(offsets[i]) > max_clock_offset_ms THEN
					problems := problems || format('%s: its clock is %s ms off the coordinator''s, more than max_clock_offset_ms (%s)',
												   srv, round(offsets[i]::numeric, 3), max_clock_offset_ms);
				END IF;
			EXCEPTION WHEN OTHERS THEN
				GET STACKED DIAGNOSTICS err = PG_EXCEPTION_DETAIL;
				problems := problems || format('%s: %s%s', srv, SQLERRM,
											   CASE WHEN coalesce(err, '') = '' THEN '' ELSE ' (' || err || ')' END);
			END;
		END LOOP;
		IF cardinality(problems) > 0 THEN
			FOR i IN 1 .. cardinality(conns) LOOP
				BEGIN
					EXECUTE format('SELECT %I.dblink_disconnect($1::text)', link) USING conns[i];
				EXCEPTION WHEN OTHERS THEN
					NULL;			-- never connected, or the connection is lost
				END;
			END LOOP;
			RAISE EXCEPTION '% of % servers cannot run the fleet', cardinality(problems), n
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  DETAIL = array_to_string(problems, E'\n'),
					  HINT = 'Nothing was started.';
		END IF;
	END check_servers;

	-- Every run started with one start_at, on each server's own clock, and
	-- waited for: ranread_stop() finds the wait and stops every server, a
	-- cancel cancels every server's run.  Starting and waiting share one
	-- cancel handler, so that a cancel while the runs are being sent cancels
	-- those already sent, as one during the wait does.  Hands on fleet_no,
	-- common_start, cancelled and stopped, with no server's run still going
	-- but one that did not end within 5 s of a cancel.
	<<start_and_wait>>
	DECLARE
		deadline timestamptz;
		busy boolean;
		one_busy boolean;
	BEGIN
		fleet_no := nextval(format('%I.ranread_fleet_seq', own)::regclass);
		common_start := clock_timestamp() + start_delay;
		BEGIN
			FOR i IN 1 .. n LOOP
				EXECUTE format('SELECT %I.dblink_send_query($1::text, $2::text)', link)
					USING conns[i], format('SELECT batch FROM %I.ranread_run(processes => %s::int, iterations => %s::bigint, '
										   'target => %L::name, mode => %L::text, duration => %L::interval, '
										   'start_at => %L::timestamptz)',
										   remote_schemas[i], processes, coalesce(iterations::text, 'NULL'), target, mode,
										   duration, common_start + offsets[i] * interval '1 ms');
			END LOOP;
			EXECUTE format('SELECT %I.ranread_fleet_wait($1::bigint, $2::text[], $3::name[], $4::name[])', own)
				INTO stopped USING fleet_no, conns, servers, remote_schemas;
		EXCEPTION WHEN query_canceled THEN
			cancelled := true;
			FOR i IN 1 .. n LOOP
				BEGIN
					EXECUTE format('SELECT %I.dblink_cancel_query($1::text)', link) USING conns[i];
				EXCEPTION WHEN OTHERS THEN
					NULL;			-- a lost connection has nothing to cancel
				END;
			END LOOP;
		END;

		-- after a cancel, the servers' runs end within moments; one that does
		-- not answer by the deadline is recorded as such, not waited for
		deadline := clock_timestamp() + interval '5 s';
		LOOP
			busy := false;
			FOR i IN 1 .. n LOOP
				BEGIN
					EXECUTE format('SELECT %I.dblink_is_busy($1::text) = 1', link) INTO one_busy USING conns[i];
					busy := busy OR one_busy;
				EXCEPTION WHEN OTHERS THEN
					NULL;			-- a lost connection is not busy
				END;
			END LOOP;
			EXIT WHEN NOT busy OR clock_timestamp() > deadline;
			PERFORM pg_sleep(0.05);
		END LOOP;
	END start_and_wait;

	-- Each server's batch gathered: the one its run returned, or after a
	-- cancel the one with its start_at; each row checked before it counts,
	-- and recorded in ranread_fleet_servers, as completed (or whatever the
	-- server's row says), failed or disconnected.  Then every connection is
	-- closed.  Hands on the fleet's rows in ranread_fleet_servers.
	<<gather>>
	DECLARE
		r record;
		err text;
		err_state text;
		returned bigint;
		one_busy boolean;
		found_row boolean;
	BEGIN
		FOR i IN 1 .. n LOOP
			err := NULL;
			err_state := NULL;
			returned := NULL;
			one_busy := false;
			found_row := false;
			BEGIN
				EXECUTE format('SELECT %I.dblink_is_busy($1::text) = 1', link) INTO one_busy USING conns[i];
				IF one_busy THEN
					err := 'the server did not end its run within 5 s of the fleet''s cancel';
				ELSE
					EXECUTE format('SELECT * FROM %I.dblink_get_result($1::text) AS t(b bigint)', link)
						INTO returned USING conns[i];
				END IF;
			EXCEPTION WHEN OTHERS OR query_canceled THEN
				err := SQLERRM;
				err_state := SQLSTATE;
			END;
			IF NOT one_busy THEN
				BEGIN
					-- the empty result that ends the asynchronous query
					EXECUTE format('SELECT count(*) FROM %I.dblink_get_result($1::text, false) AS t(b bigint)', link)
						USING conns[i];
				EXCEPTION WHEN OTHERS OR query_canceled THEN
					NULL;
				END;
			END IF;
			BEGIN
				-- the batch its run returned; a run that failed made none, except a
				-- cancelled one, whose workers record it just after the leader returns
				IF NOT one_busy AND (err IS NULL OR err_state = '57014') THEN
					FOR attempt IN 1 .. 50 LOOP
						EXECUTE format('SELECT * FROM %I.dblink($1::text, $2::text) AS t(batch bigint, status text, iops float8, '
									   'mean_ms float8, p99_ms float8, max_ms float8, reads bigint, started_at timestamptz, '
									   'wall_s float8, start_skew_ms float8, histogram bigint[], iops_band_pct float8, '
									   'mean_band_pct float8, p99_band_pct float8)', link) INTO r
							USING conns[i], format('SELECT batch, status, iops, response_time_ms, p99_ms, max_ms, reads, '
												   'started_at, wall_s, start_skew_ms, histogram, iops_band_pct, '
												   'mean_band_pct, p99_band_pct FROM %I.ranread_batches '
												   'WHERE %s ORDER BY batch DESC LIMIT 1', remote_schemas[i],
												   CASE WHEN returned IS NOT NULL
														THEN format('batch OPERATOR(pg_catalog.=) %s::bigint', returned)
														ELSE format('start_at OPERATOR(pg_catalog.=) %L::timestamptz',
																	common_start + offsets[i] * interval '1 ms') END);
						found_row := r.batch IS NOT NULL;
						EXIT WHEN found_row OR err IS NULL;
						PERFORM pg_sleep(0.1);
					END LOOP;
				END IF;
				-- What a server sends is input: a row ranread could not sum,
				-- merge or read makes that server failed, and the others are
				-- kept.  Hands on found_row, and err saying why a row found
				-- does not count.
				<<check_row>>
				DECLARE
					unusable text;
				BEGIN
					IF found_row THEN
						unusable := CASE
							WHEN r.status IS NULL OR length(r.status) > 64 THEN 'status'
							WHEN NOT (r.iops >= 0 AND r.iops < 1e12) THEN 'iops'
							WHEN NOT (r.wall_s >= 0 AND r.wall_s < 1e7) THEN 'wall_s'
							WHEN NOT (r.reads >= 0) THEN 'reads'
							WHEN NOT (coalesce(r.mean_ms, 0) >= 0 AND coalesce(r.mean_ms, 0) < 1e9) THEN 'mean_ms'
							WHEN NOT (coalesce(r.p99_ms, 0) >= 0 AND coalesce(r.p99_ms, 0) < 1e9) THEN 'p99_ms'
							WHEN NOT (coalesce(r.max_ms, 0) >= 0 AND coalesce(r.max_ms, 0) < 1e9) THEN 'max_ms'
							WHEN NOT (r.started_at > '-infinity'::timestamptz AND r.started_at < 'infinity'::timestamptz) THEN 'started_at'
							WHEN NOT (coalesce(abs(r.start_skew_ms), 0) < 1e9) THEN 'start_skew_ms'
							WHEN NOT (coalesce(r.iops_band_pct, 0) >= 0 AND coalesce(r.iops_band_pct, 0) < 1e6) THEN 'iops_band_pct'
							WHEN NOT (coalesce(r.mean_band_pct, 0) >= 0 AND coalesce(r.mean_band_pct, 0) < 1e6) THEN 'mean_band_pct'
							WHEN NOT (coalesce(r.p99_band_pct, 0) >= 0 AND coalesce(r.p99_band_pct, 0) < 1e6) THEN 'p99_band_pct'
							END;
						IF unusable IS NULL AND r.histogram IS NOT NULL THEN
							BEGIN
								EXECUTE format('SELECT %I.ranread_histogram_check($1::bigint[])', own) USING r.histogram;
								IF (SELECT sum(h::numeric) FROM unnest(r.histogram) h) > 1e15 THEN
									unusable := 'histogram (more than 10^15 reads)';
								END IF;
							EXCEPTION WHEN OTHERS THEN
								unusable := 'histogram (' || SQLERRM || ')';
							END;
						END IF;
						IF unusable IS NOT NULL THEN
							err := format('the server''s row of batch %s has a %s ranread cannot use', r.batch, unusable);
							found_row := false;
						END IF;
					END IF;
				END check_row;
				IF found_row THEN
					EXECUTE format('SELECT %I.ranread_history_insert($1::text, $2::jsonb)', own)
						USING 'ranread_fleet_servers',
							  jsonb_build_object('fleet', fleet_no, 'server', servers[i], 'batch', r.batch,
												 'status', r.status, 'error', err, 'iops', r.iops, 'mean_ms', r.mean_ms,
												 'p99_ms', r.p99_ms, 'max_ms', r.max_ms, 'reads', r.reads,
												 'started_at', r.started_at - offsets[i] * interval '1 ms',
												 'wall_s', r.wall_s, 'start_skew_ms', r.start_skew_ms,
												 'clock_offset_ms', offsets[i], 'histogram', r.histogram,
												 'iops_band_pct', r.iops_band_pct, 'mean_band_pct', r.mean_band_pct,
												 'p99_band_pct', r.p99_band_pct);
				ELSE
					EXECUTE format('SELECT %I.ranread_history_insert($1::text, $2::jsonb)', own)
						USING 'ranread_fleet_servers',
							  jsonb_build_object('fleet', fleet_no, 'server', servers[i],
												 'status', CASE WHEN err_state LIKE '08%' OR err_state = 'XX000'
																THEN 'disconnected' ELSE 'failed' END,
												 'error', coalesce(err, 'the server''s run recorded no batch'),
												 'clock_offset_ms', offsets[i]);
				END IF;
			EXCEPTION WHEN OTHERS OR query_canceled THEN
				-- dblink raises a lost connection as class 08 or XX000 (libpq's
				-- words), an error of the server's with the server's SQLSTATE
				EXECUTE format('SELECT %I.ranread_history_insert($1::text, $2::jsonb)', own)
					USING 'ranread_fleet_servers',
						  jsonb_build_object('fleet', fleet_no, 'server', servers[i],
											 'status', CASE WHEN SQLSTATE LIKE '08%' OR SQLSTATE = 'XX000'
															THEN 'disconnected' ELSE 'failed' END,
											 'error', coalesce(err, SQLERRM), 'clock_offset_ms', offsets[i]);
			END;
		END LOOP;
		FOR i IN 1 .. cardinality(conns) LOOP
			BEGIN
				EXECUTE format('SELECT %I.dblink_disconnect($1::text)', link) USING conns[i];
			EXCEPTION WHEN OTHERS OR query_canceled THEN
				NULL;			-- never connected, or the connection is lost
			END;
		END LOOP;
	END gather;

	-- The fleet's row in ranread_fleet_runs: IOPS summed, percentiles of the
	-- merged histograms, overlap; its noise bands from its servers' (each
	-- unknown while one is): the IOPS and mean bands as independent errors
	-- of a sum add, in quadrature; the p99 of the merged reads the widest of
	-- the servers' p99 bands, as a percentile does not add up like a sum.
	-- Built from this fleet's rows only: they carry the number this session
	-- drew, which no other session can record rows for.  Hands on that row.
	<<record_fleet>>
	DECLARE
		fleet_fields jsonb;
		percentiles jsonb;
	BEGIN
		EXECUTE format(
			'SELECT pg_catalog.jsonb_build_object(''fleet'', $1, ''started_at'', $2, ''start_at'', $3, ''servers'', $4, '
			'	''processes'', $5, ''iterations'', $6, ''duration_s'', extract(epoch FROM $7), ''mode'', $8, '
			'	''target'', $9, ''status'', '
			'	CASE WHEN $10 THEN ''cancelled'' WHEN $12 THEN ''stopped'' '
			'		WHEN count(*) FILTER (WHERE s.status = ''completed'') = $11 THEN ''completed'' '
			'		WHEN count(*) FILTER (WHERE s.status = ''completed'') > 0 THEN ''partial'' '
			'		ELSE ''failed'' END, '
			'	''iops'', sum(s.iops), '
			'	''mean_ms'', sum(s.mean_ms * s.reads) / nullif(sum(s.reads) FILTER (WHERE s.mean_ms IS NOT NULL), 0), '
			'	''max_ms'', max(s.max_ms), '
			'	''slowest_server'', (array_agg(s.server ORDER BY s.p99_ms DESC) FILTER (WHERE s.p99_ms IS NOT NULL))[1], '
			'	''overlap_pct'', 100 * greatest(0, extract(epoch FROM min(s.started_at + s.wall_s * interval ''1 s'') '
			'		- max(s.started_at))) '
			'		/ nullif(extract(epoch FROM max(s.started_at + s.wall_s * interval ''1 s'') - min(s.started_at)), 0), '
			'	''histogram'', %1$I.ranread_histogram_merge(s.histogram), '
			'	''iops_band_pct'', CASE WHEN bool_and(s.iops_band_pct IS NOT NULL) FILTER (WHERE s.iops IS NOT NULL) THEN '
			'		100 * sqrt(sum((s.iops * s.iops_band_pct / 100) ^ 2)) / nullif(sum(s.iops), 0) END, '
			'	''mean_band_pct'', CASE WHEN bool_and(s.mean_band_pct IS NOT NULL) FILTER (WHERE s.mean_ms IS NOT NULL) THEN '
			'		100 * sqrt(sum((s.reads * s.mean_ms * s.mean_band_pct / 100) ^ 2)) / nullif(sum(s.reads * s.mean_ms), 0) END, '
			'	''p99_band_pct'', CASE WHEN bool_and(s.p99_band_pct IS NOT NULL) FILTER (WHERE s.p99_ms IS NOT NULL) '
			'		THEN max(s.p99_band_pct) END) '
			'FROM %1$I.ranread_fleet_servers s WHERE s.fleet = $1', own)
			INTO fleet_fields
			USING fleet_no, began, common_start, servers, processes, iterations, duration, mode, target, cancelled, n, stopped;
		EXECUTE format('SELECT %I.ranread_history_insert($1::text, $2::jsonb)', own) USING 'ranread_fleet_runs', fleet_fields;
		EXECUTE format(
			'SELECT pg_catalog.jsonb_build_object('
			'	''p50_ms'', %1$I.ranread_histogram_percentile(histogram, 0.5::float8), '
			'	''p99_ms'', %1$I.ranread_histogram_percentile(histogram, 0.99::float8), '
			'	''p999_ms'', %1$I.ranread_histogram_percentile(histogram, 0.999::float8)) '
			'FROM %1$I.ranread_fleet_runs WHERE fleet = $1 AND histogram IS NOT NULL', own)
			INTO percentiles USING fleet_no;
		IF percentiles IS NOT NULL THEN
			EXECUTE format('SELECT %I.ranread_history_update($1::text, $2::jsonb, $3::jsonb)', own) USING 'ranread_fleet_runs', percentiles, '{}'::jsonb;
		END IF;
	END record_fleet;

	-- What the fleet run did: a NOTICE if a server completed, a WARNING
	-- unless all did, and the rows returned, the servers' then the fleet's.
	<<report>>
	DECLARE
		r record;
	BEGIN
		EXECUTE format('SELECT f.*, (SELECT count(*) FROM %1$I.ranread_fleet_servers s '
					   '	WHERE s.fleet = $1 AND s.status = ''completed'') AS completed '
					   'FROM %1$I.ranread_fleet_runs f WHERE f.fleet = $1', own) INTO r USING fleet_no;
		IF r.completed > 0 THEN
			RAISE NOTICE 'fleet %: % server%, % IOPS together, p99 % ms of the merged reads, slowest %, their windows overlapping by % %%',
				fleet_no, n, CASE WHEN n = 1 THEN '' ELSE 's' END, round(r.iops), round(r.p99_ms::numeric, 3),
				coalesce(r.slowest_server::text, 'unknown'), round(r.overlap_pct::numeric, 1);
		END IF;
		IF r.status <> 'completed' THEN
			RAISE WARNING 'fleet % ended %: % of % servers completed', fleet_no, r.status, r.completed, n
				USING DETAIL = 'ranread_fleet_servers has each server''s status and error; what the others measured is kept.';
		END IF;
		RETURN QUERY EXECUTE format(
			'SELECT ''server'', s.fleet, s.server, s.batch, s.status, s.iops, s.mean_ms, s.p99_ms, s.max_ms, '
			'	s.start_skew_ms, s.clock_offset_ms, NULL::float8, s.error '
			'FROM %1$I.ranread_fleet_servers s WHERE s.fleet = $1 '
			'ORDER BY array_position($2, s.server)', own) USING fleet_no, servers;
		RETURN QUERY EXECUTE format(
			'SELECT ''fleet'', f.fleet, NULL::name, NULL::bigint, f.status, f.iops, f.mean_ms, f.p99_ms, f.max_ms, '
			'	NULL::float8, NULL::float8, f.overlap_pct, NULL::text '
			'FROM %1$I.ranread_fleet_runs f WHERE f.fleet = $1', own) USING fleet_no;
	END report;
END
$fleet$;

CREATE OR REPLACE PROCEDURE ranread_fleet_sweep(servers name[],
									 start_processes int DEFAULT 2,
									 max_processes int DEFAULT 64,
									 iterations bigint DEFAULT NULL,
									 duration interval DEFAULT '10 s',
									 mode text DEFAULT 'smgr',
									 target name DEFAULT 'ranread_target',
									 stop_latency_ms float8 DEFAULT 10,
									 min_scaling_pct float8 DEFAULT 25,
									 slo_mean_ms float8 DEFAULT 2,
									 slo_p99_ms float8 DEFAULT 5,
									 repeat int DEFAULT 1)
LANGUAGE plpgsql
AS $fleet_sweep$
DECLARE
	own name;
	sweeps bigint[] := '{}';
	sweep_no bigint;
	processes int;
	cap int;							-- max_processes, or the free worker slots
	cap_by text;
	ran int;							-- processes of the last step that ran
	step int;
	fleet_id bigint;
	d record;
	refusal text;
	slots int;
	ended_by text;
	ended text;
	rule_book text;
BEGIN
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	IF start_processes IS NULL OR max_processes IS NULL OR stop_latency_ms IS NULL OR min_scaling_pct IS NULL
	   OR slo_mean_ms IS NULL OR slo_p99_ms IS NULL OR repeat IS NULL THEN
		RAISE EXCEPTION 'start_processes, max_processes, stop_latency_ms, min_scaling_pct, slo_mean_ms, slo_p99_ms and repeat must not be null'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF start_processes < 1 OR max_processes < start_processes OR max_processes > 1024 THEN
		RAISE EXCEPTION 'start_processes must be at least 1, and max_processes between start_processes and 1024'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = format('start_processes is %s and max_processes %s.', start_processes, max_processes);
	END IF;
	-- (NaN sorts above every number, Infinity too: neither is a bound)
	IF NOT (stop_latency_ms > 0 AND stop_latency_ms < 'Infinity'::float8
			AND slo_mean_ms > 0 AND slo_mean_ms < 'Infinity'::float8
			AND slo_p99_ms > 0 AND slo_p99_ms < 'Infinity'::float8
			AND min_scaling_pct >= 0 AND min_scaling_pct < 100) THEN
		RAISE EXCEPTION 'stop_latency_ms and the SLO bounds must be positive numbers, min_scaling_pct at least 0 and below 100'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF repeat < 1 OR repeat > 10 THEN
		RAISE EXCEPTION 'repeat must be between 1 and 10'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = format('The value given is %s.', repeat);
	END IF;
	SELECT ns.nspname INTO own FROM pg_extension e JOIN pg_namespace ns ON ns.oid = e.extnamespace
	WHERE e.extname = 'ranread';
	-- every fleet run of the sweeps so far ($1), in order, through the
	-- sweep's rule book: a step with a server outside the SLO is outside it
	rule_book := format(
		'SELECT d.* FROM (SELECT array_agg(f.fleet_sweep ORDER BY f.fleet_sweep, f.sweep_step, f.fleet) AS sweep, '
		'	array_agg(f.sweep_step ORDER BY f.fleet_sweep, f.sweep_step, f.fleet) AS step, '
		'	array_agg(f.processes ORDER BY f.fleet_sweep, f.sweep_step, f.fleet) AS processes, '
		'	array_agg(f.status ORDER BY f.fleet_sweep, f.sweep_step, f.fleet) AS status, '
		'	array_agg(f.iops ORDER BY f.fleet_sweep, f.sweep_step, f.fleet) AS iops, '
		'	array_agg(f.mean_ms ORDER BY f.fleet_sweep, f.sweep_step, f.fleet) AS mean_ms, '
		'	array_agg(f.p99_ms ORDER BY f.fleet_sweep, f.sweep_step, f.fleet) AS p99_ms, '
		'	array_agg(f.p999_ms ORDER BY f.fleet_sweep, f.sweep_step, f.fleet) AS p999_ms, '
		'	array_agg(f.max_ms ORDER BY f.fleet_sweep, f.sweep_step, f.fleet) AS max_ms, '
		'	array_agg(f.iops_band_pct ORDER BY f.fleet_sweep, f.sweep_step, f.fleet) AS iops_band_pct, '
		'	array_agg(f.mean_band_pct ORDER BY f.fleet_sweep, f.sweep_step, f.fleet) AS mean_band_pct, '
		'	array_agg(f.p99_band_pct ORDER BY f.fleet_sweep, f.sweep_step, f.fleet) AS p99_band_pct, '
		'	array_agg(NOT coalesce((SELECT bool_and(s.status = ''completed'' AND s.mean_ms <= $2 AND s.p99_ms <= $3) '
		'							FROM %1$I.ranread_fleet_servers s WHERE s.fleet = f.fleet), false) '
		'			  ORDER BY f.fleet_sweep, f.sweep_step, f.fleet) AS outside '
		'	FROM %1$I.ranread_fleet_runs f WHERE f.fleet_sweep = ANY ($1)) a, '
		'LATERAL %1$I.ranread_sweep_decide(sweep => a.sweep, step => a.step, processes => a.processes, '
		'	status => a.status, iops => a.iops, mean_ms => a.mean_ms, p99_ms => a.p99_ms, p999_ms => a.p999_ms, '
		'	max_ms => a.max_ms, iops_band_pct => a.iops_band_pct, mean_band_pct => a.mean_band_pct, '
		'	p99_band_pct => a.p99_band_pct, part_outside_slo => a.outside, max_processes => $4::int, '
		'	max_processes_by => $5::text, stop_latency_ms => $6::float8, min_scaling_pct => $7::float8, '
		'	slo_mean_ms => $2::float8, slo_p99_ms => $3::float8, ended_by => $8::text) d', own);
	FOR sweep_index IN 1 .. repeat LOOP
		sweep_no := nextval(format('%I.ranread_fleet_seq', own)::regclass);
		sweeps := sweeps || sweep_no;
		processes := start_processes;
		cap := max_processes;
		cap_by := 'argument';
		ran := NULL;
		step := 1;
		ended_by := NULL;
		LOOP
			refusal := NULL;
			BEGIN
				EXECUTE format('SELECT max(r.fleet) FROM %I.ranread_fleet_run(servers => $1::name[], processes => $2::int, '
							   'iterations => $3::bigint, mode => $4::text, target => $5::name, duration => $6::interval) r', own)
					INTO fleet_id USING servers, processes, iterations, mode, target, duration;
			EXCEPTION WHEN object_not_in_prerequisite_state THEN
				GET STACKED DIAGNOSTICS refusal = PG_EXCEPTION_DETAIL;
				-- every problem a server's free worker slots: the step cut to the fewest
				IF ran IS NULL OR refusal !~ '^([^\n]*: \d+ free worker slots? for \d+ processes( \([^\n]*\))?(\n|$))+$' THEN
					RAISE;
				END IF;
				SELECT min(m[1]::int) INTO slots
				FROM regexp_matches(refusal, ': (\d+) free worker slots? for', 'g') m;
			END;
			IF refusal IS NOT NULL THEN
				IF slots > ran THEN
					RAISE NOTICE 'fleet sweep %: % processes per server are more than the servers'' free worker slots, % from now on',
						sweep_no, processes, slots
						USING DETAIL = refusal;
					processes := slots;
					cap := slots;
					cap_by := 'worker slots';
					CONTINUE;
				END IF;
				RAISE NOTICE 'fleet sweep %: step % needs % processes per server, more than the servers'' free worker slots',
					sweep_no, step, processes
					USING DETAIL = refusal;
				ended_by := 'worker slots';
				EXIT;
			END IF;
			-- (the fleet just run is the one this session drew last: fleet_id)
			EXECUTE format('SELECT %I.ranread_history_update($1::text, $2::jsonb, $3::jsonb)', own)
				USING 'ranread_fleet_runs', jsonb_build_object('fleet_sweep', sweep_no, 'sweep_step', step), '{}'::jsonb;
			ran := processes;
			-- the rule book, on every run of the sweeps so far
			EXECUTE rule_book INTO d USING sweeps, slo_mean_ms, slo_p99_ms, cap, cap_by, stop_latency_ms, min_scaling_pct,
				NULL::text;
			RAISE NOTICE 'fleet sweep % % (fleet run %)', sweep_no, d.step_text, fleet_id
				USING DETAIL = d.step_detail;
			COMMIT;
			PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
			EXIT WHEN d.decision = 'stop';
			IF d.decision = 'repeat' THEN
				RAISE NOTICE 'fleet sweep %: %', sweep_no, d.repeat_text
					USING DETAIL = d.repeat_detail;
				CONTINUE;
			END IF;
			step := step + 1;
			processes := d.next_processes;
		END LOOP;
		IF ended_by IS NOT NULL THEN
			-- the verdict, the sweep ended by the refused step
			step := step - 1;
			EXECUTE rule_book INTO d USING sweeps, slo_mean_ms, slo_p99_ms, cap, cap_by, stop_latency_ms, min_scaling_pct,
				ended_by;
		END IF;
		EXECUTE format('SELECT status FROM %I.ranread_fleet_runs WHERE fleet = $1', own) INTO ended USING fleet_id;
		ended := CASE WHEN ended IN ('stopped', 'cancelled') THEN ended ELSE 'completed' END;
		RAISE NOTICE 'fleet sweep % % after % step%', sweep_no, ended, step, CASE WHEN step = 1 THEN '' ELSE 's' END
			USING DETAIL = d.verdict;
		-- a step stopped or cancelled ends the repeats too, as in ranread_sweep
		EXIT WHEN d.stop_rule = 'step ended';
	END LOOP;
	IF cardinality(sweeps) > 1 THEN
		RAISE NOTICE '% fleet sweeps of % asked', cardinality(sweeps), repeat
			USING DETAIL = d.sweeps_text;
	END IF;
END
$fleet_sweep$;

CREATE OR REPLACE PROCEDURE ranread_write_sweep(writers int DEFAULT 2,
									 start_write_rate_iops float8 DEFAULT 100,
									 max_write_rate_iops float8 DEFAULT 1600,
									 write_rate_step float8 DEFAULT NULL,	-- added each step (NULL: doubled)
									 duration interval DEFAULT '10 s',	-- each step's batch
									 processes int DEFAULT 0,	-- readers beside the writers
									 rate_iops float8 DEFAULT NULL,	-- the readers' (NULL: closed loop)
									 slo_write_p99_ms float8 DEFAULT 10,
									 slo_write_mean_ms float8 DEFAULT NULL,
									 slo_p99_ms float8 DEFAULT NULL,	-- the readers' (needs processes)
									 mode text DEFAULT 'smgr',
									 target name DEFAULT 'ranread_target',
									 write_target name DEFAULT 'ranread_write_target')
LANGUAGE plpgsql
AS $write_sweep$
DECLARE
	own name;
	sweep_no bigint;
	rate float8;
	step int := 0;
	runs int;
	early boolean;
	step_fields jsonb;
	changed bigint;
	-- a step's batch that a cancel or an error ended, after a step committed:
	-- the sweep is recorded as that, then the error raised again
	ended_by text;
	err_state text;
	err_message text;
	err_detail text;
	err_hint text;
	batches bigint[];
	ran record;
	pooled record;
	d record;
	best record;
	last_rate float8;
	words text;
	slo_words text;
	messages text := pg_catalog.current_setting('client_min_messages');
BEGIN
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	IF writers IS NULL OR start_write_rate_iops IS NULL OR max_write_rate_iops IS NULL OR duration IS NULL
	   OR processes IS NULL OR mode IS NULL OR target IS NULL OR write_target IS NULL THEN
		RAISE EXCEPTION 'writers, start_write_rate_iops, max_write_rate_iops, duration, processes, mode, target and write_target must not be null'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF writers < 1 OR writers > 1024 THEN
		RAISE EXCEPTION 'writers must be between 1 and 1024'
			USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value given is %s.', writers);
	END IF;
	-- (NaN sorts above every number, Infinity too: neither is a rate or a bound)
	IF NOT (start_write_rate_iops > 0 AND max_write_rate_iops >= start_write_rate_iops
			AND max_write_rate_iops <= 10000000) THEN
		RAISE EXCEPTION 'start_write_rate_iops must be positive, and max_write_rate_iops between it and 10000000'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = format('start_write_rate_iops is %s and max_write_rate_iops %s.',
								  start_write_rate_iops, max_write_rate_iops);
	END IF;
	IF write_rate_step IS NOT NULL AND NOT (write_rate_step >= 0.1 AND write_rate_step <= 10000000) THEN
		-- (a step below 0.1 writes/s could not change the rate: the sweep would not end, review D5)
		RAISE EXCEPTION 'write_rate_step must be between 0.1 and 10000000, or NULL to double the rate each step'
			USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value given is %s.', write_rate_step);
	END IF;
	IF processes < 0 OR processes > 1024 THEN
		RAISE EXCEPTION 'processes must be between 0 and 1024'
			USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value given is %s; 0 sweeps writers alone.', processes);
	END IF;
	IF slo_write_p99_ms IS NULL AND slo_write_mean_ms IS NULL THEN
		RAISE EXCEPTION 'slo_write_p99_ms and slo_write_mean_ms must not both be null'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'The sweep stops where the writers'' commit latency leaves its SLO: give a bound on its p99, its mean, or both.';
	END IF;
	IF NOT (coalesce(slo_write_p99_ms, 1) > 0 AND coalesce(slo_write_p99_ms, 1) < 'Infinity'::float8
			AND coalesce(slo_write_mean_ms, 1) > 0 AND coalesce(slo_write_mean_ms, 1) < 'Infinity'::float8
			AND coalesce(slo_p99_ms, 1) > 0 AND coalesce(slo_p99_ms, 1) < 'Infinity'::float8) THEN
		RAISE EXCEPTION 'the SLO bounds must be positive numbers'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF processes > 0 AND slo_p99_ms IS NULL THEN
		RAISE EXCEPTION 'a write sweep with readers needs slo_p99_ms'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'The sweep stops where the readers'' p99 leaves slo_p99_ms; give it, or processes => 0 for writers alone.';
	END IF;
	IF processes = 0 AND (slo_p99_ms IS NOT NULL OR rate_iops IS NOT NULL) THEN
		RAISE EXCEPTION '% needs readers', CASE WHEN slo_p99_ms IS NOT NULL THEN 'slo_p99_ms' ELSE 'rate_iops' END
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Give processes => N for readers beside the writers, or leave it out for writers alone.';
	END IF;
	SELECT ns.nspname INTO own FROM pg_extension e JOIN pg_namespace ns ON ns.oid = e.extnamespace
	WHERE e.extname = 'ranread';
	EXECUTE format('SELECT pg_catalog.nextval(%L)', own || '.ranread_write_sweep_seq') INTO sweep_no;
	EXECUTE format('SELECT %I.ranread_history_insert($1::text, $2::jsonb)', own)
		USING 'ranread_write_sweeps',
			  jsonb_build_object('write_sweep', sweep_no, 'started_at', now(), 'writers', writers,
								 'start_write_rate_iops', start_write_rate_iops, 'max_write_rate_iops', max_write_rate_iops,
								 'write_rate_step', write_rate_step, 'duration_s', date_part('epoch', duration),
								 'processes', processes, 'rate_iops', rate_iops, 'mode', mode, 'target', target,
								 'write_target', write_target, 'slo_write_mean_ms', slo_write_mean_ms,
								 'slo_write_p99_ms', slo_write_p99_ms, 'slo_p99_ms', slo_p99_ms, 'status', 'running');
	rate := start_write_rate_iops;
	LOOP
		step := step + 1;
		runs := 0;
		batches := '{}';
		LOOP
			-- a bad argument or a missing target ends the sweep at its first batch, which
			-- rolls back with the sweep's row: nothing recorded
			-- one NOTICE a step, the sweep's: the batch's own NOTICEs are hushed (its WARNINGs are not)
			PERFORM pg_catalog.set_config('client_min_messages', 'warning', true);
			BEGIN
				EXECUTE format('SELECT r.batch, r.status FROM %I.ranread_run(processes => $1, iterations => NULL::int8, '
							   'target => $2, mode => $3, duration => $4, rate_iops => $5, writers => $6, '
							   'write_rate_iops => $7, write_target => $8) r', own)
					INTO ran
					USING processes, target, mode, duration, rate_iops, writers, rate, write_target;
			EXCEPTION WHEN OTHERS OR query_canceled THEN
				IF step = 1 AND runs = 0 THEN
					RAISE;
				END IF;
				GET STACKED DIAGNOSTICS err_state = RETURNED_SQLSTATE, err_message = MESSAGE_TEXT,
										err_detail = PG_EXCEPTION_DETAIL, err_hint = PG_EXCEPTION_HINT;
				ended_by := CASE WHEN err_state = '57014' THEN 'cancelled' ELSE 'failed' END;
			END;
			PERFORM pg_catalog.set_config('client_min_messages', messages, true);
			EXIT WHEN ended_by IS NOT NULL;
			IF ran.batch IS NULL THEN
				RAISE EXCEPTION 'step % of write sweep % was not recorded', step, sweep_no
					USING ERRCODE = 'object_not_in_prerequisite_state',
						  HINT = 'The WARNING above says why the batch''s row was not recorded.';
			END IF;
			runs := runs + 1;
			batches := batches || ran.batch;
			-- the step's batches pooled: writes over the batches' spans, latencies from the merged histograms
			EXECUTE format(
				'SELECT coalesce(pg_catalog.sum(w.writes)::float8 / NULLIF((SELECT pg_catalog.sum(s.span) FROM '
				'		(SELECT pg_catalog.max(x.elapsed_s) AS span FROM %1$I.ranread_write_results x '
				'		 WHERE x.batch = ANY ($1) GROUP BY x.batch) s), 0), 0) AS write_iops, '
				'	pg_catalog.sum(w.mean_ms * w.writes) / NULLIF(pg_catalog.sum(w.writes), 0) AS write_mean_ms, '
				'	CASE WHEN pg_catalog.sum(w.writes) > 0 THEN %1$I.ranread_histogram_percentile('
				'		%1$I.ranread_histogram_merge(w.histogram), 0.99::pg_catalog.float8) END AS write_p99_ms, '
				'	pg_catalog.bool_and(w.status = ''completed'') AS writers_completed, '
				-- the shortest batch''s writing span, which ends when the batch does
				'	(SELECT pg_catalog.min(s.span) FROM (SELECT pg_catalog.max(x.elapsed_s) AS span '
				'		FROM %1$I.ranread_write_results x WHERE x.batch = ANY ($1) GROUP BY x.batch) s) AS shortest_span_s, '
				'	(SELECT pg_catalog.bool_and(b.status = ''completed'') FROM %1$I.ranread_batches b '
				'	 WHERE b.batch = ANY ($1)) AS batches_completed, '
				'	(SELECT CASE WHEN pg_catalog.sum(b.reads) > 0 THEN %1$I.ranread_histogram_percentile('
				'		%1$I.ranread_histogram_merge(b.histogram), 0.99::pg_catalog.float8) END '
				'	 FROM %1$I.ranread_batches b WHERE b.batch = ANY ($1) AND $2 > 0) AS read_p99_ms, '
				-- the pooled p99''s band: the batches'' median band over the square root of their number
				'	(SELECT pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY b.p99_band_pct) '
				'		/ pg_catalog.sqrt(pg_catalog.count(*)) '
				'	 FROM %1$I.ranread_batches b WHERE b.batch = ANY ($1) AND $2 > 0) AS read_p99_band_pct '
				'FROM %1$I.ranread_write_results w WHERE w.batch = ANY ($1)', own)
				INTO pooled USING batches, processes;
			-- a batch that ended long before its duration (its readers done early)
			-- measured no rate: the step did not complete, and says why
			early := pooled.shortest_span_s < 0.9 * extract(epoch FROM duration);
			EXECUTE format('SELECT * FROM %I.ranread_write_sweep_decide(write_rate_iops => $1, write_iops => $2, '
						   'write_mean_ms => $3, write_p99_ms => $4, completed => $5, read_p99_ms => $6, '
						   'read_p99_band_pct => $7, runs => $8, max_write_rate_iops => $9, slo_write_mean_ms => $10, '
						   'slo_write_p99_ms => $11, slo_p99_ms => $12)', own)
				INTO d
				USING rate, pooled.write_iops, pooled.write_mean_ms, pooled.write_p99_ms,
					  coalesce(pooled.writers_completed AND pooled.batches_completed AND NOT early, false),
					  CASE WHEN processes > 0 THEN coalesce(pooled.read_p99_ms, 'Infinity'::float8) END,
					  pooled.read_p99_band_pct, runs, max_write_rate_iops, slo_write_mean_ms, slo_write_p99_ms,
					  slo_p99_ms;
			-- the step's row, again after a repeat: this one's batches pooled
			step_fields := jsonb_build_object('write_rate_iops', rate, 'batches', batches,
											  'write_iops', pooled.write_iops, 'write_mean_ms', pooled.write_mean_ms,
											  'write_p99_ms', pooled.write_p99_ms, 'read_p99_ms', pooled.read_p99_ms,
											  'read_p99_band_pct', pooled.read_p99_band_pct,
											  'completed', coalesce(pooled.writers_completed AND pooled.batches_completed AND NOT early,
																	false),
											  'within_slo', d.within_slo, 'decision', d.decision);
			EXECUTE format('SELECT %I.ranread_history_update($1::text, $2::jsonb, $3::jsonb)', own)
				INTO changed USING 'ranread_write_sweep_steps', step_fields, jsonb_build_object('step', step);
			IF changed = 0 THEN
				EXECUTE format('SELECT %I.ranread_history_insert($1::text, $2::jsonb)', own)
					USING 'ranread_write_sweep_steps', step_fields || jsonb_build_object('write_sweep', sweep_no, 'step', step);
			END IF;
			RAISE NOTICE '%', format('write sweep %s step %s: %s writes/s asked, %s achieved%s; commit mean %s ms, p99 %s ms%s%s: %s',
				sweep_no, step, round(rate::numeric, 1), round(pooled.write_iops::numeric, 1),
				CASE WHEN early THEN format(' over %s s, its batch ended before its %s s',
											round(pooled.shortest_span_s::numeric, 3), trim_scale(extract(epoch FROM duration)))
					 ELSE '' END,
				coalesce(round(pooled.write_mean_ms::numeric, 3)::text, '-'),
				coalesce(round(pooled.write_p99_ms::numeric, 3)::text, '-'),
				CASE WHEN processes > 0 THEN format('; reads p99 %s ms (band %s %%)',
					coalesce(round(pooled.read_p99_ms::numeric, 3)::text, '-'),
					coalesce(round(pooled.read_p99_band_pct::numeric, 1)::text, 'unknown')) ELSE '' END,
				CASE WHEN runs > 1 THEN format(' (%s batches pooled)', runs) ELSE '' END,
				CASE d.decision WHEN 'go on' THEN 'within the SLO, go on'
								WHEN 'repeat' THEN 'the reads'' p99 within its noise of the SLO, measured again'
								ELSE 'stop (' || d.decision || ')' END);
			COMMIT;
			PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
			EXIT WHEN d.decision <> 'repeat';
		END LOOP;
		EXIT WHEN ended_by IS NOT NULL OR d.decision <> 'go on';
		rate := least(coalesce(rate + write_rate_step, rate * 2), max_write_rate_iops);
	END LOOP;

	-- cancelled or failed during a step: what it measured is kept, no figure to quote
	IF ended_by IS NOT NULL THEN
		words := format('write sweep %s was %s during step %s (%s writes/s asked): it has no figure to quote; '
						'the steps before are kept', sweep_no, ended_by, step, round(rate::numeric, 1));
		EXECUTE format('SELECT %I.ranread_history_update($1::text, $2::jsonb, $3::jsonb)', own)
			USING 'ranread_write_sweeps',
				  jsonb_build_object('status', ended_by, 'steps', step - 1, 'stop_rule', ended_by, 'verdict', words),
				  '{}'::jsonb;
		COMMIT;
		RAISE EXCEPTION USING ERRCODE = err_state, MESSAGE = err_message,
							  DETAIL = concat_ws(E'\n', nullif(err_detail, ''), words || '.'),
							  HINT = coalesce(nullif(err_hint, ''), 'ranread_write_sweep_steps has the steps it completed.');
	END IF;

	-- the verdict: the highest rate within the SLO, and what stopped the sweep
	EXECUTE format('SELECT pg_catalog.max(s.write_rate_iops) FILTER (WHERE s.within_slo) AS rate, '
				   '(pg_catalog.array_agg(s.write_iops ORDER BY s.write_rate_iops DESC) FILTER (WHERE s.within_slo))[1] AS iops '
				   'FROM %I.ranread_write_sweep_steps s WHERE s.write_sweep = $1', own)
		INTO best USING sweep_no;
	last_rate := rate;
	slo_words := concat_ws(', ',
						   CASE WHEN slo_write_p99_ms IS NOT NULL THEN format('commit p99 <= %s ms', slo_write_p99_ms) END,
						   CASE WHEN slo_write_mean_ms IS NOT NULL THEN format('commit mean <= %s ms', slo_write_mean_ms) END,
						   CASE WHEN processes > 0 THEN format('reads p99 <= %s ms', slo_p99_ms) END);
	words := format('write sweep %s (%s %s%s, %s s steps, %s): ', sweep_no, writers,
					CASE WHEN writers = 1 THEN 'writer' ELSE 'writers' END,
					CASE WHEN processes > 0 THEN format(' beside %s %s', processes,
						CASE WHEN processes = 1 THEN 'reader' ELSE 'readers' END) ELSE ' alone' END,
					trim_scale(extract(epoch FROM duration)), slo_words)
		|| CASE
			WHEN best.rate IS NULL THEN
				format('no write rate was within the SLO; the first, %s writes/s, stopped it (%s)',
					   round(start_write_rate_iops::numeric, 1), d.decision)
			WHEN d.decision = 'max_write_rate_iops' THEN
				format('the volume absorbed %s writes/s (%s achieved) within the SLO, the highest rate asked: '
					   'raise max_write_rate_iops to find its limit',
					   round(best.rate::numeric, 1), round(best.iops::numeric, 1))
			ELSE
				format('the volume absorbed %s writes/s (%s achieved) within the SLO; %s writes/s stopped the sweep (%s)',
					   round(best.rate::numeric, 1), round(best.iops::numeric, 1), round(last_rate::numeric, 1),
					   d.decision)
		END;
	EXECUTE format('SELECT %I.ranread_history_update($1::text, $2::jsonb, $3::jsonb)', own)
		USING 'ranread_write_sweeps',
			  jsonb_build_object('status', CASE WHEN d.decision = 'step ended' THEN 'stopped' ELSE 'completed' END,
								 'steps', step, 'stop_rule', d.decision, 'best_write_rate_iops', best.rate, 'verdict', words),
			  '{}'::jsonb;
	COMMIT;
	RAISE NOTICE '%', words;
END
$write_sweep$;

-- The grants of 1.3's GRANT block moved over: a role that could record
-- fleets or write sweeps (INSERT on their tables) may call the two
-- functions above, and no role but the owner keeps INSERT, UPDATE or DELETE
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

-- ranread_run() answers in one line: the batch, its status, IOPS,
-- mean response time and p99, as ranread_summary rounds them; every other
-- figure is one query away (SELECT * FROM ranread_summary WHERE batch = …).
-- A new result type, so the function is dropped and made again, its grants
-- carried over to the roles that could run the old one.
SELECT pg_catalog.set_config('ranread_update.run_grantees',
							 coalesce(pg_catalog.array_agg(r.rolname), '{}')::text, true)
FROM pg_catalog.pg_proc p,
	 LATERAL pg_catalog.aclexplode(p.proacl) a
	 JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
WHERE p.oid OPERATOR(pg_catalog.=) 'ranread_run(int, bigint, name, text, int, interval, boolean, interval, interval, interval, float8, float8, text, int, boolean, int, text, timestamptz, int, float8, name, text)'::pg_catalog.regprocedure::pg_catalog.oid
  AND a.privilege_type OPERATOR(pg_catalog.=) 'EXECUTE' AND a.grantee OPERATOR(pg_catalog.<>) p.proowner;

DROP FUNCTION ranread_run(int, bigint, name, text, int, interval, boolean, interval, interval, interval, float8, float8, text, int, boolean, int, text, timestamptz, int, float8, name, text);

CREATE FUNCTION ranread_run(processes int,
							iterations bigint,
							target name DEFAULT 'ranread_target',
							mode text DEFAULT 'smgr',
							block_size int DEFAULT 8192,
							duration interval DEFAULT NULL,
							evict boolean DEFAULT true,
							ramp interval DEFAULT NULL,
							sample_interval interval DEFAULT '1 s',
							steady_state interval DEFAULT NULL,
							steady_band_pct float8 DEFAULT 10,
							rate_iops float8 DEFAULT NULL,
							arrivals text DEFAULT NULL,
							iodepth int DEFAULT 1,
							allow_rereads boolean DEFAULT false,
							prefetch int DEFAULT 0,	-- units advised ahead of each read (mode smgr)
							distribution text DEFAULT 'uniform',	-- or 'zipf:theta', 'hotset:P%/Q%', 'sequential'
							start_at timestamptz DEFAULT NULL,	-- release the workers then (NULL: once ready)
							writers int DEFAULT 0,	-- background writers beside the readers
							write_rate_iops float8 DEFAULT NULL,	-- writes/s of all writers (open loop)
							write_target name DEFAULT 'ranread_write_target',	-- made by ranread_setup_writes()
							checkpoint text DEFAULT NULL,	-- 'during': a fast checkpoint a third into the run
							OUT batch bigint,
							OUT status text,
							OUT iops numeric,
							OUT response_time_ms numeric,	-- the mean
							OUT p99_ms numeric)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_run'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION ranread_run(int, bigint, name, text, int, interval, boolean, interval, interval, interval, float8, float8, text, int, boolean, int, text, timestamptz, int, float8, name, text) FROM PUBLIC;

DO $$
DECLARE
	grantee name;
BEGIN
	FOREACH grantee IN ARRAY pg_catalog.current_setting('ranread_update.run_grantees')::name[]
	LOOP
		EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION ranread_run(int, bigint, name, text, int, interval, boolean, interval, '
								  'interval, interval, float8, float8, text, int, boolean, int, text, timestamptz, int, float8, name, text) TO %I',
								  grantee);
	END LOOP;
END
$$;

-- ranread_layers() answers a row a layer within a terminal's 120 columns:
-- the layer (by a short name), its mode, mean and p99, and its share of each
-- with its band, and physical_pct; its batches, with every other figure, are
-- those of ranread_batches with the run's number in layers.  A new result
-- type, so the function is dropped and made again, its grants carried over.
SELECT pg_catalog.set_config('ranread_update.layers_grantees',
							 coalesce(pg_catalog.array_agg(r.rolname), '{}')::text, true)
FROM pg_catalog.pg_proc p,
	 LATERAL pg_catalog.aclexplode(p.proacl) a
	 JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
WHERE p.oid OPERATOR(pg_catalog.=) 'ranread_layers(int, bigint, name, interval, int, float8)'::pg_catalog.regprocedure::pg_catalog.oid
  AND a.privilege_type OPERATOR(pg_catalog.=) 'EXECUTE' AND a.grantee OPERATOR(pg_catalog.<>) p.proowner;

DROP FUNCTION ranread_layers(int, bigint, name, interval, int, float8);

CREATE FUNCTION ranread_layers(processes int DEFAULT 4,
							   iterations bigint DEFAULT 10000,
							   target name DEFAULT 'ranread_target',
							   duration interval DEFAULT NULL,
							   max_rounds int DEFAULT 10,		-- rounds at most, 3 to 100
							   band_pct float8 DEFAULT 5)		-- stop once every share's band is within this % of the top mean
RETURNS TABLE(layer text, mode text, mean_ms float8, p99_ms float8, adds_mean_ms float8, mean_band_ms float8,
			  adds_p99_ms float8, p99_band_ms float8, physical_pct float8)
AS 'MODULE_PATHNAME', 'ranread_layers'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION ranread_layers(int, bigint, name, interval, int, float8) FROM PUBLIC;

DO $$
DECLARE
	grantee name;
BEGIN
	FOREACH grantee IN ARRAY pg_catalog.current_setting('ranread_update.layers_grantees')::name[]
	LOOP
		EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION ranread_layers(int, bigint, name, interval, int, float8) TO %I',
								  grantee);
	END LOOP;
END
$$;
