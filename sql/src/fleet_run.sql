-- fleet_run.sql: ranread_fleet_run(), one benchmark across several servers
-- on shared storage, released together through dblink and gathered here
-- (docs/fleet.md), and two of its phases: ranread_fleet_open(), its checks,
-- and ranread_fleet_gather(), a server's row.  The phases compute and return
-- what the fleet run records; only the fleet run writes.

-- Its rows are recorded through ranread_history_insert() and
-- ranread_history_update() (run.sql), as the extension's owner.  A record
-- read by dynamic SQL has its type given to plpgsql_check by a PRAGMA
-- (test/t/extension/plpgsql_check.pl); at run time that PERFORM does nothing.

-- The fleet run's checks, all made before any server starts: its arguments,
-- then every server connected (ranread_fleet_connect) and checked; each
-- connection is left open for the run, or all are closed on a problem.
-- Writes nothing: what it does, the caller could do through dblink.
CREATE OR REPLACE FUNCTION ranread_fleet_open(servers name[], processes int, iterations bigint, mode text,
								  target name, duration interval, max_clock_offset_ms float8,
								  start_delay interval, OUT connections text[], OUT schemas name[],
								  OUT clock_offsets_ms float8[])
RETURNS record
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET datestyle = 'ISO, YMD'				-- the servers' clocks, as ranread_fleet_run reads them
AS $open$
DECLARE
	n int := coalesce(cardinality(servers), 0);
	-- from check_arguments
	link name;							-- dblink's schema
	own name;							-- ranread's schema, looked up: its name may hold a quote
	own_version text;
	-- from check_servers, each by the server's position in servers
	conns text[] := '{}'::text[];				-- dblink's connection names
	remote_schemas name[] := '{}'::name[];		-- ranread's schema there
	offsets float8[] := '{}'::float8[];			-- its clock's offset from the coordinator's, in ms
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
		identities text[] := '{}'::text[];		-- each cluster's system identifier
		problems text[] := '{}'::text[];
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
				PERFORM 'PRAGMA:TYPE:r (s name, v text)';	-- for plpgsql_check (test/t/extension/plpgsql_check.pl)
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
					PERFORM 'PRAGMA:TYPE:r (id text)';
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

	connections := conns;
	schemas := remote_schemas;
	clock_offsets_ms := offsets;
END
$open$;
COMMENT ON FUNCTION ranread_fleet_open(name[],integer,bigint,text,name,interval,double precision,interval) IS 'the fleet run''s checks, before any server starts
servers: foreign servers (dblink), each with ranread and a user mapping
processes: processes on each server
iterations: as ranread_run''s, on each server
mode: as ranread_run''s, on each server
target: as ranread_run''s, on each server
duration: as ranread_run''s, on each server
max_clock_offset_ms: refuse a server whose clock is further off than this
start_delay: the common start, this long after the checks';

-- A server's row of the fleet, gathered after its run: the batch its run
-- returned, or after a cancel the one with its start_at, read over its
-- connection and checked before it counts (what a server sends is input);
-- returned as the row of ranread_fleet_servers to record, completed (or
-- whatever the server's row says), failed or disconnected, with the error
-- that made it so; with a burst bucket that ran empty in the batch's series,
-- as ranread_series_bucket() finds it in the server's ranread_intervals.
-- Writes nothing.
CREATE OR REPLACE FUNCTION ranread_fleet_gather(fleet bigint, server name, connection text, remote_schema name,
									start_at timestamptz, clock_offset_ms float8,
									OUT server_row jsonb, OUT error text)
RETURNS record
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET datestyle = 'ISO, YMD'				-- start_at's text, as the server reads it
AS $gather$
DECLARE
	link name;							-- dblink's schema
	own name;							-- ranread's schema
	r record;
	series record;						-- the batch's ranread_intervals, as arrays
	series_read boolean := false;
	bucket jsonb := '{}'::jsonb;		-- what ranread_series_bucket() found in them
	err text;
	err_state text;
	returned bigint;
	one_busy boolean := false;
	found_row boolean := false;
BEGIN
	SELECT ns.nspname INTO link FROM pg_extension e JOIN pg_namespace ns ON ns.oid = e.extnamespace
	WHERE e.extname = 'dblink';
	SELECT ns.nspname INTO own FROM pg_extension e JOIN pg_namespace ns ON ns.oid = e.extnamespace
	WHERE e.extname = 'ranread';
	BEGIN
		EXECUTE format('SELECT %I.dblink_is_busy($1::text) = 1', link) INTO one_busy USING connection;
		IF one_busy THEN
			err := 'the server did not end its run within 5 s of the fleet''s cancel';
		ELSE
			EXECUTE format('SELECT * FROM %I.dblink_get_result($1::text) AS t(b bigint)', link)
				INTO returned USING connection;
		END IF;
	EXCEPTION WHEN OTHERS OR query_canceled THEN
		err := SQLERRM;
		err_state := SQLSTATE;
	END;
	IF NOT one_busy THEN
		BEGIN
			-- the empty result that ends the asynchronous query
			EXECUTE format('SELECT count(*) FROM %I.dblink_get_result($1::text, false) AS t(b bigint)', link)
				USING connection;
		EXCEPTION WHEN OTHERS OR query_canceled THEN
			NULL;
		END;
	END IF;
	BEGIN
		-- the batch its run returned; a run that failed made none, except a
		-- cancelled one, whose workers record it just after the leader returns
		IF NOT one_busy AND (err IS NULL OR err_state = '57014') THEN
			FOR attempt IN 1 .. 50 LOOP
				PERFORM 'PRAGMA:TYPE:r (batch bigint, status text, iops float8, mean_ms float8, p99_ms float8, max_ms float8, reads bigint, started_at timestamptz, wall_s float8, start_skew_ms float8, histogram bigint[], iops_band_pct float8, mean_band_pct float8, p99_band_pct float8, processes int, physical_pct float8)';
				EXECUTE format('SELECT * FROM %I.dblink($1::text, $2::text) AS t(batch bigint, status text, iops float8, '
							   'mean_ms float8, p99_ms float8, max_ms float8, reads bigint, started_at timestamptz, '
							   'wall_s float8, start_skew_ms float8, histogram bigint[], iops_band_pct float8, '
							   'mean_band_pct float8, p99_band_pct float8, processes int, physical_pct float8)', link) INTO r
					USING connection, format('SELECT batch, status, iops, response_time_ms, p99_ms, max_ms, reads, '
										   'started_at, wall_s, start_skew_ms, histogram, iops_band_pct, '
										   'mean_band_pct, p99_band_pct, processes, physical_pct FROM %I.ranread_batches '
										   'WHERE %s ORDER BY batch DESC LIMIT 1', remote_schema,
										   CASE WHEN returned IS NOT NULL
												THEN format('batch OPERATOR(pg_catalog.=) %s::bigint', returned)
												ELSE format('start_at OPERATOR(pg_catalog.=) %L::timestamptz',
															start_at) END);
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
				-- a completed batch's series, through the bucket rule, as
				-- ranread_sweep() reads its steps'; one that cannot be read
				-- (no SELECT on ranread_intervals there) is said, the row kept
				IF unusable IS NULL AND r.status = 'completed' THEN
					BEGIN
						PERFORM 'PRAGMA:TYPE:series (start_s float8[], seconds float8[], reads bigint[], reading int[])';
						EXECUTE format('SELECT * FROM %I.dblink($1::text, $2::text) AS t(start_s float8[], seconds float8[], '
									   'reads bigint[], reading int[])', link) INTO series
							USING connection, format('SELECT pg_catalog.array_agg(start_s ORDER BY interval_no), '
												   'pg_catalog.array_agg(seconds ORDER BY interval_no), '
												   'pg_catalog.array_agg(reads ORDER BY interval_no), '
												   'pg_catalog.array_agg(workers_reading ORDER BY interval_no) '
												   'FROM %I.ranread_intervals WHERE batch OPERATOR(pg_catalog.=) %s::bigint',
												   remote_schema, r.batch);
						series_read := true;
					EXCEPTION WHEN OTHERS THEN
						err := format('its series could not be read, so a burst bucket in it is not seen: %s', SQLERRM);
					END;
					IF series_read THEN
						BEGIN
							EXECUTE format('SELECT pg_catalog.jsonb_strip_nulls(pg_catalog.to_jsonb(b)) '
										   'FROM %I.ranread_series_bucket($1::int, $2::float8, $3::float8[], $4::float8[], '
										   '$5::bigint[], $6::int[]) b', own) INTO bucket
								USING coalesce(r.processes, 0), r.physical_pct, coalesce(series.start_s, '{}'),
									  coalesce(series.seconds, '{}'), coalesce(series.reads, '{}'), coalesce(series.reading, '{}');
						EXCEPTION WHEN OTHERS THEN
							unusable := format('series (%s)', SQLERRM);
						END;
					END IF;
				END IF;
				IF unusable IS NOT NULL THEN
					err := format('the server''s row of batch %s has a %s ranread cannot use', r.batch, unusable);
					found_row := false;
				END IF;
			END IF;
		END check_row;
		IF found_row THEN
			server_row := jsonb_build_object('fleet', fleet, 'server', server, 'batch', r.batch,
											 'status', r.status, 'error', err, 'iops', r.iops, 'mean_ms', r.mean_ms,
											 'p99_ms', r.p99_ms, 'max_ms', r.max_ms, 'reads', r.reads,
											 'started_at', r.started_at - clock_offset_ms * interval '1 ms',
											 'wall_s', r.wall_s, 'start_skew_ms', r.start_skew_ms,
											 'clock_offset_ms', clock_offset_ms, 'histogram', r.histogram,
											 'iops_band_pct', r.iops_band_pct, 'mean_band_pct', r.mean_band_pct,
											 'p99_band_pct', r.p99_band_pct) OPERATOR(pg_catalog.||) bucket;
		ELSE
			server_row := jsonb_build_object('fleet', fleet, 'server', server,
											 'status', CASE WHEN err_state LIKE '08%' OR err_state = 'XX000'
															THEN 'disconnected' ELSE 'failed' END,
											 'error', coalesce(err, 'the server''s run recorded no batch'),
											 'clock_offset_ms', clock_offset_ms);
		END IF;
		error := err;
	EXCEPTION WHEN OTHERS OR query_canceled THEN
		-- dblink raises a lost connection as class 08 or XX000 (libpq's
		-- words), an error of the server's with the server's SQLSTATE
		error := coalesce(err, SQLERRM);
		server_row := jsonb_build_object('fleet', fleet, 'server', server,
										 'status', CASE WHEN SQLSTATE LIKE '08%' OR SQLSTATE = 'XX000'
														THEN 'disconnected' ELSE 'failed' END,
										 'error', coalesce(err, SQLERRM), 'clock_offset_ms', clock_offset_ms);
	END;
END
$gather$;
COMMENT ON FUNCTION ranread_fleet_gather(bigint,name,text,name,timestamp with time zone,double precision) IS 'the fleet run''s row of a server, read and checked
fleet: the fleet run
server: the server
connection: its dblink connection
remote_schema: ranread''s schema on the server
start_at: the run''s start_at, on the server''s clock
clock_offset_ms: the server''s clock offset, in ms';

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
	link name;							-- dblink's schema
	own name;							-- ranread's schema, looked up: its name may hold a quote
	-- from ranread_fleet_open, each by the server's position in servers
	conns text[];						-- dblink's connection names, each open
	remote_schemas name[];				-- ranread's schema there
	offsets float8[];					-- its clock's offset from the coordinator's, in ms
	-- from start_and_wait
	fleet_no bigint;
	common_start timestamptz;			-- on the coordinator's clock
	cancelled boolean := false;
	stopped boolean := false;
	-- from each server's ranread_fleet_gather
	server_row jsonb;					-- its row of ranread_fleet_servers
	err text;							-- why that row is not the server's batch
BEGIN
	-- The arguments and every server checked (ranread_fleet_open): all
	-- problems said together, and then nothing started.  Hands on conns
	-- (each open), remote_schemas and offsets.
	SELECT ns.nspname INTO own FROM pg_extension e JOIN pg_namespace ns ON ns.oid = e.extnamespace
	WHERE e.extname = 'ranread';
	EXECUTE format('SELECT * FROM %I.ranread_fleet_open($1::name[], $2::int, $3::bigint, $4::text, $5::name, '
				   '$6::interval, $7::float8, $8::interval)', own) INTO conns, remote_schemas, offsets
		USING servers, processes, iterations, mode, target, duration, max_clock_offset_ms, start_delay;
	SELECT ns.nspname INTO link FROM pg_extension e JOIN pg_namespace ns ON ns.oid = e.extnamespace
	WHERE e.extname = 'dblink';

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

	-- Each server's row gathered (ranread_fleet_gather) and recorded in
	-- ranread_fleet_servers; one that cannot be is recorded failed or
	-- disconnected.  Then every connection is closed.  Hands on the fleet's
	-- rows in ranread_fleet_servers.
	<<gather>>
	BEGIN
		FOR i IN 1 .. n LOOP
			server_row := NULL;
			err := NULL;
			BEGIN
				EXECUTE format('SELECT * FROM %I.ranread_fleet_gather($1::bigint, $2::name, $3::text, $4::name, '
							   '$5::timestamptz, $6::float8)', own) INTO server_row, err
					USING fleet_no, servers[i], conns[i], remote_schemas[i], common_start + offsets[i] * interval '1 ms', offsets[i];
				EXECUTE format('SELECT %I.ranread_history_insert($1::text, $2::jsonb)', own)
					USING 'ranread_fleet_servers', server_row;
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
	BEGIN
		EXECUTE format(
			'SELECT f.fields || pg_catalog.jsonb_build_object('
			'	''p50_ms'', %1$I.ranread_histogram_percentile(f.merged, 0.5::float8), '
			'	''p99_ms'', %1$I.ranread_histogram_percentile(f.merged, 0.99::float8), '
			'	''p999_ms'', %1$I.ranread_histogram_percentile(f.merged, 0.999::float8)) '
			'FROM (SELECT pg_catalog.jsonb_build_object(''fleet'', $1, ''started_at'', $2, ''start_at'', $3, ''servers'', $4, '
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
			'		THEN max(s.p99_band_pct) END) AS fields, %1$I.ranread_histogram_merge(s.histogram) AS merged '
			'FROM %1$I.ranread_fleet_servers s WHERE s.fleet = $1) f', own)
			INTO fleet_fields
			USING fleet_no, began, common_start, servers, processes, iterations, duration, mode, target, cancelled, n, stopped;
		EXECUTE format('SELECT %I.ranread_history_insert($1::text, $2::jsonb)', own) USING 'ranread_fleet_runs', fleet_fields;
	END record_fleet;

	-- What the fleet run did: a NOTICE if a server completed, a WARNING
	-- unless all did, and the rows returned, the servers' then the fleet's.
	<<report>>
	DECLARE
		r record;
	BEGIN
		PERFORM 'PRAGMA:TYPE:r (status text, iops float8, p99_ms float8, slowest_server name, overlap_pct float8, completed bigint)';
		EXECUTE format('SELECT f.status, f.iops, f.p99_ms, f.slowest_server, f.overlap_pct, (SELECT count(*) FROM %1$I.ranread_fleet_servers s '
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
COMMENT ON FUNCTION ranread_fleet_run(name[],integer,bigint,text,name,interval,double precision,interval) IS 'one batch on many servers at once through dblink
servers: foreign servers (dblink), each with ranread and a user mapping
processes: processes on each server
iterations: as ranread_run''s, on each server
mode: as ranread_run''s, on each server
target: as ranread_run''s, on each server
duration: as ranread_run''s, on each server
max_clock_offset_ms: refuse a server whose clock is further off than this
start_delay: the common start, this long after the checks';
