/* ranread--1.2--1.3.sql: update ranread 1.2 to 1.3 */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION ranread UPDATE TO '1.3'" to load this file. \quit

-- 1.3 has no install script of its own: CREATE EXTENSION installs 1.2 and
-- runs this script, so each object below is written once.

-- The fleet's control moves to C (src/programs/fleet.c).  ranread_fleet_waiting()
-- let any session advertise a fleet run; now only ranread_fleet_wait(),
-- which waits for real servers' runs and answers a stop, advertises one.
-- The roles that could call the old function may call the new ones.
SELECT pg_catalog.set_config('ranread_update.fleet_grantees',
							 coalesce(pg_catalog.array_agg(r.rolname)::text, '{}'), true)
FROM pg_catalog.pg_proc p,
	 LATERAL pg_catalog.aclexplode(p.proacl) a
	 JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
WHERE p.oid OPERATOR(pg_catalog.=) 'ranread_fleet_waiting(bigint, boolean)'::pg_catalog.regprocedure
  AND a.privilege_type OPERATOR(pg_catalog.=) 'EXECUTE' AND a.grantee OPERATOR(pg_catalog.<>) p.proowner;
DROP FUNCTION ranread_fleet_waiting(bigint, boolean);

-- a dblink connection to a foreign server, with a connect timeout and the
-- remote search_path pinned to pg_catalog
CREATE FUNCTION ranread_fleet_connect(connection text, server name)
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_fleet_connect'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION ranread_fleet_connect(text, name) FROM PUBLIC;

-- on each server: what its ranread_run() would refuse before it starts, and
-- the cluster's identity
CREATE FUNCTION ranread_fleet_check(processes int, iterations bigint, target name, mode text,
									duration interval)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_fleet_check'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION ranread_fleet_check(int, bigint, name, text, interval) FROM PUBLIC;

-- the coordinator's wait for its servers, which ranread_stop() finds
CREATE FUNCTION ranread_fleet_wait(fleet bigint, connections text[], servers name[], schemas name[])
RETURNS boolean
AS 'MODULE_PATHNAME', 'ranread_fleet_wait'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION ranread_fleet_wait(bigint, text[], name[], name[]) FROM PUBLIC;

DO $$
DECLARE
	grantee name;
BEGIN
	FOREACH grantee IN ARRAY pg_catalog.current_setting('ranread_update.fleet_grantees')::name[]
	LOOP
		EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION ranread_fleet_connect(text, name), '
								  'ranread_fleet_check(int, bigint, name, text, interval), '
								  'ranread_fleet_wait(bigint, text[], name[], name[]) TO %I', grantee);
	END LOOP;
END
$$;

-- One benchmark across several servers: checks, one start_at, a wait that
-- ranread_stop() and a cancel end, and each server's batch gathered and
-- checked.  Every call names its function's schema and passes arguments of
-- exactly the declared types (or by name), so no overload a role creates
-- anywhere is called instead; the servers' sessions run with search_path
-- pg_catalog.
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
	link name;							-- dblink's schema
	own name;							-- ranread's schema, looked up: its name may hold a quote
	n int := coalesce(cardinality(servers), 0);
	conns text[] := '{}';
	remote_schemas name[] := '{}';
	identities text[] := '{}';
	offsets float8[] := '{}';
	problems text[] := '{}';
	own_version text;
	fleet_no bigint;
	began timestamptz := clock_timestamp();
	common_start timestamptz;
	cancelled boolean := false;
	stopped boolean := false;
	srv name;
	conn text;
	i int;
	r record;
	t0 timestamptz;
	t1 timestamptz;
	remote_now timestamptz;
	best_rtt float8;
	existing text[];
	err text;
	err_state text;
	returned bigint;
	unusable text;
	deadline timestamptz;
	busy boolean;
	one_busy boolean;
	found_row boolean;
BEGIN
	-- the arguments, and what the coordinator needs, before any server is asked
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

	-- every server checked: reachable (within a connect timeout), the same
	-- ranread, what its run would refuse (arguments, target, a run already
	-- there, worker slots), a cluster of its own, its clock; all problems
	-- are said together
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

	-- every run started with one start_at, on each server's own clock
	fleet_no := nextval(format('%I.ranread_fleet_seq', own)::regclass);
	common_start := clock_timestamp() + start_delay;
	-- and waited for; ranread_stop() finds the wait and stops every server,
	-- a cancel cancels every server's run
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

	-- after a cancel, the servers' runs end within moments; one that does not
	-- answer by the deadline is recorded as such, not waited for
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

	-- gather each server's batch: the one its run returned, or after a cancel
	-- the one with its start_at; each row checked before it counts
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
								   'wall_s float8, start_skew_ms float8, histogram bigint[])', link) INTO r
						USING conns[i], format('SELECT batch, status, iops, response_time_ms, p99_ms, max_ms, reads, '
											   'started_at, wall_s, start_skew_ms, histogram FROM %I.ranread_batches '
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
			-- what a server sends is input: a row ranread could not sum, merge
			-- or read makes that server failed, and the others are kept
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
			IF found_row THEN
				EXECUTE format('INSERT INTO %I.ranread_fleet_servers VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)', own)
					USING fleet_no, servers[i], r.batch, r.status, err, r.iops, r.mean_ms, r.p99_ms,
						  r.max_ms, r.reads, r.started_at - offsets[i] * interval '1 ms', r.wall_s, r.start_skew_ms,
						  offsets[i], r.histogram;
			ELSE
				EXECUTE format('INSERT INTO %I.ranread_fleet_servers (fleet, server, status, error, clock_offset_ms) '
							   'VALUES ($1, $2, $3, $4, $5)', own)
					USING fleet_no, servers[i],
						  CASE WHEN err_state LIKE '08%' OR err_state = 'XX000' THEN 'disconnected' ELSE 'failed' END,
						  coalesce(err, 'the server''s run recorded no batch'), offsets[i];
			END IF;
		EXCEPTION WHEN OTHERS OR query_canceled THEN
			-- dblink raises a lost connection as class 08 or XX000 (libpq's
			-- words), an error of the server's with the server's SQLSTATE
			EXECUTE format('INSERT INTO %I.ranread_fleet_servers (fleet, server, status, error, clock_offset_ms) '
						   'VALUES ($1, $2, $3, $4, $5)', own)
				USING fleet_no, servers[i],
					  CASE WHEN SQLSTATE LIKE '08%' OR SQLSTATE = 'XX000' THEN 'disconnected' ELSE 'failed' END,
					  coalesce(err, SQLERRM), offsets[i];
		END;
	END LOOP;
	FOR i IN 1 .. cardinality(conns) LOOP
		BEGIN
			EXECUTE format('SELECT %I.dblink_disconnect($1::text)', link) USING conns[i];
		EXCEPTION WHEN OTHERS OR query_canceled THEN
			NULL;			-- never connected, or the connection is lost
		END;
	END LOOP;

	-- the fleet: IOPS summed, percentiles of the merged histograms, overlap
	EXECUTE format(
		'INSERT INTO %1$I.ranread_fleet_runs '
		'SELECT $1, $2, $3, $4, $5, $6, extract(epoch FROM $7), $8, $9, '
		'	CASE WHEN $10 THEN ''cancelled'' WHEN $12 THEN ''stopped'' '
		'		WHEN count(*) FILTER (WHERE s.status = ''completed'') = $11 THEN ''completed'' '
		'		WHEN count(*) FILTER (WHERE s.status = ''completed'') > 0 THEN ''partial'' '
		'		ELSE ''failed'' END, '
		'	sum(s.iops), sum(s.mean_ms * s.reads) / nullif(sum(s.reads) FILTER (WHERE s.mean_ms IS NOT NULL), 0), '
		'	NULL, NULL, NULL, max(s.max_ms), '
		'	(array_agg(s.server ORDER BY s.p99_ms DESC) FILTER (WHERE s.p99_ms IS NOT NULL))[1], '
		'	100 * greatest(0, extract(epoch FROM min(s.started_at + s.wall_s * interval ''1 s'') - max(s.started_at))) '
		'		/ nullif(extract(epoch FROM max(s.started_at + s.wall_s * interval ''1 s'') - min(s.started_at)), 0), '
		'	%1$I.ranread_histogram_merge(s.histogram) '
		'FROM %1$I.ranread_fleet_servers s WHERE s.fleet = $1', own)
		USING fleet_no, began, common_start, servers, processes, iterations, duration, mode, target, cancelled, n, stopped;
	EXECUTE format(
		'UPDATE %1$I.ranread_fleet_runs '
		'SET p50_ms = %1$I.ranread_histogram_percentile(histogram, 0.5::float8), '
		'	p99_ms = %1$I.ranread_histogram_percentile(histogram, 0.99::float8), '
		'	p999_ms = %1$I.ranread_histogram_percentile(histogram, 0.999::float8) '
		'WHERE fleet = $1 AND histogram IS NOT NULL', own) USING fleet_no;

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
END
$fleet$;

-- A fleet sweep: processes stepped on every server at once, one fleet run a
-- step, committed after each, with the SLO judged on the fleet and on every
-- server; min_scaling_pct 0 turns the scaling rule off, as in ranread_sweep.
-- A step the servers' free worker slots refuse is cut to the slots they
-- have, or ends the sweep with its verdict.  No SET clause (a procedure with
-- one cannot COMMIT): it sets its search_path itself, again after each
-- COMMIT.
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
												slo_p99_ms float8 DEFAULT 5)
LANGUAGE plpgsql
AS $fleet_sweep$
DECLARE
	own name;
	sweep_no bigint;
	processes int := start_processes;
	step int := 0;
	fleet_id bigint;
	f record;
	prev_iops float8;
	prev_processes int;
	servers_meet boolean;
	stop_rule text;
	v record;
	refusal text;
	slots int;
BEGIN
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	IF start_processes IS NULL OR max_processes IS NULL OR stop_latency_ms IS NULL OR min_scaling_pct IS NULL
	   OR slo_mean_ms IS NULL OR slo_p99_ms IS NULL THEN
		RAISE EXCEPTION 'start_processes, max_processes, stop_latency_ms, min_scaling_pct, slo_mean_ms and slo_p99_ms must not be null'
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
	SELECT ns.nspname INTO own FROM pg_extension e JOIN pg_namespace ns ON ns.oid = e.extnamespace
	WHERE e.extname = 'ranread';
	sweep_no := nextval(format('%I.ranread_fleet_seq', own)::regclass);
	LOOP
		step := step + 1;
		refusal := NULL;
		BEGIN
			EXECUTE format('SELECT max(r.fleet) FROM %I.ranread_fleet_run(servers => $1::name[], processes => $2::int, '
						   'iterations => $3::bigint, mode => $4::text, target => $5::name, duration => $6::interval) r', own)
				INTO fleet_id USING servers, processes, iterations, mode, target, duration;
		EXCEPTION WHEN object_not_in_prerequisite_state THEN
			GET STACKED DIAGNOSTICS refusal = PG_EXCEPTION_DETAIL;
			-- every problem a server's free worker slots: the step cut to the fewest
			IF step = 1 OR refusal !~ '^([^\n]*: \d+ free worker slots? for \d+ processes( \([^\n]*\))?(\n|$))+$' THEN
				RAISE;
			END IF;
			SELECT min(m[1]::int) INTO slots
			FROM regexp_matches(refusal, ': (\d+) free worker slots? for', 'g') m;
		END;
		IF refusal IS NOT NULL THEN
			step := step - 1;
			IF slots > prev_processes THEN
				RAISE NOTICE 'fleet sweep %: % processes per server are more than the servers'' free worker slots, % from now on',
					sweep_no, processes, slots
					USING DETAIL = refusal;
				processes := slots;
				max_processes := slots;
				CONTINUE;
			END IF;
			stop_rule := format('step %s needs %s processes per server, more than the servers'' free worker slots (%s)',
								step + 1, processes, refusal);
			EXIT;
		END IF;
		EXECUTE format('UPDATE %I.ranread_fleet_runs SET fleet_sweep = $1, sweep_step = $2 WHERE fleet = $3 RETURNING *', own)
			INTO f USING sweep_no, step, fleet_id;
		EXECUTE format('SELECT bool_and(status = ''completed'' AND mean_ms <= $1 AND p99_ms <= $2) '
					   'FROM %I.ranread_fleet_servers WHERE fleet = $3', own)
			INTO servers_meet USING slo_mean_ms, slo_p99_ms, fleet_id;
		RAISE NOTICE 'fleet sweep % step %: % process% per server, % IOPS, mean % ms, p99 % ms (fleet %)%',
			sweep_no, step, processes, CASE WHEN processes = 1 THEN '' ELSE 'es' END, round(f.iops),
			round(f.mean_ms::numeric, 3), round(f.p99_ms::numeric, 3), fleet_id,
			CASE WHEN servers_meet AND f.mean_ms <= slo_mean_ms AND f.p99_ms <= slo_p99_ms THEN ', within the SLO'
				 ELSE '' END;
		COMMIT;
		PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
		IF f.status <> 'completed' THEN
			stop_rule := format('step %s was %s', step, f.status);
		ELSIF f.mean_ms > stop_latency_ms THEN
			stop_rule := format('the fleet''s mean latency, %s ms, passed stop_latency_ms (%s ms)', round(f.mean_ms::numeric, 3), stop_latency_ms);
		ELSIF min_scaling_pct > 0 AND prev_iops > 0
			  AND 100 * (f.iops - prev_iops) / (prev_iops * (processes::float8 / prev_processes - 1)) < min_scaling_pct THEN
			stop_rule := format('from %s to %s processes per server the fleet''s IOPS gained %s%% of linear (min_scaling_pct %s%%)',
								prev_processes, processes,
								round((100 * (f.iops - prev_iops) / (prev_iops * (processes::float8 / prev_processes - 1)))::numeric),
								min_scaling_pct);
		ELSIF processes >= max_processes THEN
			stop_rule := format('it reached max_processes (%s)', max_processes);
		END IF;
		EXIT WHEN stop_rule IS NOT NULL;
		prev_iops := f.iops;
		prev_processes := processes;
		processes := least(processes * 2, max_processes);
	END LOOP;

	-- the verdict: the most IOPS, and the most within the SLO on the fleet and on every server
	EXECUTE format(
		'SELECT (SELECT round(f.iops) || '' IOPS at '' || f.processes || '' processes per server'' '
		'        FROM %1$I.ranread_fleet_runs f WHERE f.fleet_sweep = $1 AND f.status = ''completed'' '
		'        ORDER BY f.iops DESC LIMIT 1) AS highest, '
		'       (SELECT round(f.iops) || '' IOPS at '' || f.processes || '' processes per server'' '
		'        FROM %1$I.ranread_fleet_runs f WHERE f.fleet_sweep = $1 AND f.status = ''completed'' '
		'          AND f.mean_ms <= $2 AND f.p99_ms <= $3 '
		'          AND NOT EXISTS (SELECT FROM %1$I.ranread_fleet_servers s WHERE s.fleet = f.fleet '
		'                          AND NOT (s.mean_ms <= $2 AND s.p99_ms <= $3)) '
		'        ORDER BY f.iops DESC LIMIT 1) AS within', own)
		INTO v USING sweep_no, slo_mean_ms, slo_p99_ms;
	RAISE NOTICE 'fleet sweep %: % step%; it stopped because %', sweep_no, step, CASE WHEN step = 1 THEN '' ELSE 's' END, stop_rule
		USING DETAIL = format('Highest: %s. Highest within the SLO (mean <= %s ms, p99 <= %s ms, on the fleet and on every server): %s.',
							  coalesce(v.highest, 'none'), slo_mean_ms, slo_p99_ms, coalesce(v.within, 'none'));
END
$fleet_sweep$;

-- ranread_layers() reads its layers in rounds, up the layers and down again,
-- until each layer's share has a band (src/programs/layers.c): two more
-- arguments, and the result gains each share's band and every batch of a
-- layer.  A new signature, so the function is dropped and created again;
-- the roles that could call the old one may call the new one.
SELECT pg_catalog.set_config('ranread_update.layers_grantees',
							 coalesce(pg_catalog.array_agg(r.rolname)::text, '{}'), true)
FROM pg_catalog.pg_proc p,
	 LATERAL pg_catalog.aclexplode(p.proacl) a
	 JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
WHERE p.oid OPERATOR(pg_catalog.=) 'ranread_layers(int, bigint, name, interval)'::pg_catalog.regprocedure
  AND a.privilege_type OPERATOR(pg_catalog.=) 'EXECUTE' AND a.grantee OPERATOR(pg_catalog.<>) p.proowner;
DROP FUNCTION ranread_layers(int, bigint, name, interval);

-- insight: the latency each layer of the read path adds, the same units read
-- through each read path in rounds (batches marked with their layers run);
-- iterations and duration are each layer's, over all its rounds
CREATE FUNCTION ranread_layers(processes int DEFAULT 4,
							   iterations bigint DEFAULT 10000,
							   target name DEFAULT 'ranread_target',
							   duration interval DEFAULT NULL,
							   max_rounds int DEFAULT 10,		-- rounds at most, 3 to 100
							   band_pct float8 DEFAULT 5)		-- stop once every share's band is within this % of the top mean
RETURNS TABLE(layer text, mode text, batches bigint[], iops float8, mean_ms float8, p50_ms float8,
			  p99_ms float8, adds_mean_ms float8, adds_mean_band_ms float8, adds_p99_ms float8,
			  adds_p99_band_ms float8, physical_pct float8)
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
