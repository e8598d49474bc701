-- fleet_sweep.sql: CALL ranread_fleet_sweep(), a sweep whose every step is
-- a ranread_fleet_run(), decided by the read sweep's rule book
-- (ranread_sweep_decide()).

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
	sweeps bigint[] := '{}'::bigint[];
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
	-- sweep's rule book: a step with a server outside the SLO is outside it,
	-- one in which a server's burst bucket ran empty counts at its baseline
	-- (ranread_fleet_gather() found it in the server's series: b, the fleet's
	-- IOPS with that server's baseline, the sustained level, and with its
	-- burst, their bands in quadrature as the fleet run's)
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
		'			  ORDER BY f.fleet_sweep, f.sweep_step, f.fleet) AS outside, '
		'	array_agg(ARRAY[b.burst_iops, b.burst_band_pct, b.baseline_iops, b.baseline_band_pct, b.bucket_reads, '
		'		b.bucket_band, b.shift_s] ORDER BY f.fleet_sweep, f.sweep_step, f.fleet) AS bucket '
		'	FROM %1$I.ranread_fleet_runs f LEFT JOIN LATERAL ('
		'SELECT pg_catalog.sum(s.l) AS baseline_iops, pg_catalog.sum(s.h) AS burst_iops, '
		'	CASE WHEN pg_catalog.bool_and(s.lb IS NOT NULL) THEN pg_catalog.sqrt(pg_catalog.sum((s.l OPERATOR(pg_catalog.*) s.lb) '
		'		OPERATOR(pg_catalog.^) 2)) OPERATOR(pg_catalog./) pg_catalog.sum(s.l) END AS baseline_band_pct, '
		'	CASE WHEN pg_catalog.bool_and(s.hb IS NOT NULL) THEN pg_catalog.sqrt(pg_catalog.sum((s.h OPERATOR(pg_catalog.*) s.hb) '
		'		OPERATOR(pg_catalog.^) 2)) OPERATOR(pg_catalog./) pg_catalog.sum(s.h) END AS burst_band_pct, '
		'	pg_catalog.sum(s.bucket_reads) AS bucket_reads, '
		'	pg_catalog.sqrt(pg_catalog.sum(s.bucket_band OPERATOR(pg_catalog.^) 2)) AS bucket_band, '
		'	pg_catalog.max(s.shift_s) AS shift_s '
		'FROM (SELECT coalesce(s.baseline_iops, s.iops) AS l, coalesce(s.burst_iops, s.iops) AS h, '
		'		CASE WHEN s.baseline_iops IS NULL THEN s.iops_band_pct ELSE s.baseline_band_pct END AS lb, '
		'		CASE WHEN s.burst_iops IS NULL THEN s.iops_band_pct ELSE s.burst_band_pct END AS hb, '
		'		s.baseline_iops, s.bucket_reads, s.bucket_band, s.shift_s '
		'	FROM %1$I.ranread_fleet_servers s '
		'	WHERE s.fleet OPERATOR(pg_catalog.=) f.fleet AND s.iops IS NOT NULL) s '
		'HAVING pg_catalog.bool_or(s.baseline_iops IS NOT NULL) AND pg_catalog.sum(s.l) OPERATOR(pg_catalog.>) 0 '
		'	AND pg_catalog.sum(s.h) OPERATOR(pg_catalog.>) 0'
		') b ON true WHERE f.fleet_sweep = ANY ($1)) a, '
		'LATERAL %1$I.ranread_sweep_decide(sweep => a.sweep, step => a.step, processes => a.processes, '
		'	status => a.status, iops => a.iops, mean_ms => a.mean_ms, p99_ms => a.p99_ms, p999_ms => a.p999_ms, '
		'	max_ms => a.max_ms, iops_band_pct => a.iops_band_pct, mean_band_pct => a.mean_band_pct, '
		'	p99_band_pct => a.p99_band_pct, part_outside_slo => a.outside, max_processes => $4::int, '
		'	max_processes_by => $5::text, stop_latency_ms => $6::float8, min_scaling_pct => $7::float8, '
		'	slo_mean_ms => $2::float8, slo_p99_ms => $3::float8, ended_by => $8::text, bucket => a.bucket) d', own);
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
			PERFORM 'PRAGMA:TYPE:d (decision text, stop_rule text, next_processes int, step_text text, step_detail text, repeat_text text, repeat_detail text, verdict text, sweeps_text text)';	-- for plpgsql_check (test/t/extension/plpgsql_check.pl)
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
			PERFORM 'PRAGMA:TYPE:d (decision text, stop_rule text, next_processes int, step_text text, step_detail text, repeat_text text, repeat_detail text, verdict text, sweeps_text text)';
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
COMMENT ON PROCEDURE ranread_fleet_sweep(name[],integer,integer,bigint,interval,text,name,double precision,double precision,double precision,double precision,integer) IS 'a sweep on many servers at once through dblink
servers: foreign servers (dblink), each with ranread and a user mapping
start_processes: the first step and the most, per server
max_processes: the first step and the most, per server
iterations: as ranread_run''s, on each server
duration: as ranread_run''s, on each server
mode: as ranread_run''s, on each server
target: as ranread_run''s, on each server
stop_latency_ms: as ranread_sweep''s, judged on the fleet
min_scaling_pct: as ranread_sweep''s, judged on the fleet
slo_mean_ms: as ranread_sweep''s, judged on the fleet
slo_p99_ms: as ranread_sweep''s, judged on the fleet
repeat: the whole sweep this many times (1 to 10), as ranread_sweep''s';
