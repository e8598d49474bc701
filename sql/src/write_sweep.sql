-- write_sweep.sql: CALL ranread_write_sweep(), the write rate stepped up
-- beside readers until the SLO or the storage stops it, its rule book
-- (ranread_write_sweep_decide()), and two of its phases that compute and
-- return: its arguments checked and a step's batches pooled.

-- The write sweep's rule book (src/rules/write_sweep_rules.c) for one step,
-- so that ranread_write_sweep() decides in C (src/sweep/write_sweep_decide.c).
-- A pure computation on its arguments, like ranread_sweep_decide(), so left
-- executable by PUBLIC.
CREATE OR REPLACE FUNCTION ranread_write_sweep_decide(write_rate_iops float8, write_iops float8, write_mean_ms float8,
										   write_p99_ms float8, completed boolean, read_p99_ms float8,
										   read_p99_band_pct float8, runs int, max_write_rate_iops float8,
										   slo_write_mean_ms float8, slo_write_p99_ms float8, slo_p99_ms float8,
										   OUT decision text, OUT within_slo boolean)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_write_sweep_decide'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION ranread_write_sweep_decide(double precision,double precision,double precision,double precision,boolean,double precision,double precision,integer,double precision,double precision,double precision,double precision) IS 'a write sweep''s step judged by its rule book (any role)
write_rate_iops: the step''s rate asked, all writers together
write_iops: the rate achieved
write_mean_ms: the writes'' mean
write_p99_ms: the writes'' p99
completed: whether the step''s batches completed
read_p99_ms: the readers'' p99 (NULL: writers alone)
read_p99_band_pct: its band, in %
runs: the step''s runs so far
max_write_rate_iops: as ranread_write_sweep''s
slo_write_mean_ms: as ranread_write_sweep''s
slo_write_p99_ms: as ranread_write_sweep''s
slo_p99_ms: as ranread_write_sweep''s';

-- A write sweep's arguments checked: the errors ranread_write_sweep()
-- raises before it starts.  A pure computation on its arguments.
CREATE OR REPLACE FUNCTION ranread_write_sweep_check(writers int, start_write_rate_iops float8,
										  max_write_rate_iops float8, write_rate_step float8,
										  duration interval, processes int, rate_iops float8,
										  slo_write_p99_ms float8, slo_write_mean_ms float8,
										  slo_p99_ms float8, mode text, target name, write_target name)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $check$
BEGIN
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
END
$check$;
COMMENT ON FUNCTION ranread_write_sweep_check(integer,double precision,double precision,double precision,interval,integer,double precision,double precision,double precision,double precision,text,name,name) IS 'a write sweep''s arguments checked, before it starts
writers: writers in every step, 1 to 1024
start_write_rate_iops: the first step''s writes/s, all writers together
max_write_rate_iops: the last rate, at least the first, at most 10,000,000
write_rate_step: writes/s added each step, at least 0.1; NULL doubles the rate (the last step is cut to the max)
duration: each step''s batch
processes: readers beside the writers; 0: writers alone
rate_iops: the readers'' open-loop rate; NULL: closed loop (needs processes)
slo_write_p99_ms: the writers'' p99 commit latency bound; NULL: none
slo_write_mean_ms: the writers'' mean commit latency bound; NULL: none
slo_p99_ms: the readers'' p99 bound; required with processes, refused without
mode: the readers'' read path
target: the read target (named in the batch rows with writers alone too)
write_target: made by ranread_setup_writes';

-- A write sweep's step: its batches pooled, writes over the batches' spans,
-- latencies from the merged histograms.  Reads the batches' rows; writes
-- nothing.
CREATE OR REPLACE FUNCTION ranread_write_sweep_pool(batches bigint[], processes int,
										 OUT write_iops float8, OUT write_mean_ms float8,
										 OUT write_p99_ms float8, OUT writers_completed boolean,
										 OUT shortest_span_s float8, OUT batches_completed boolean,
										 OUT read_p99_ms float8, OUT read_p99_band_pct float8)
RETURNS record
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $pool$
DECLARE
	own name;
BEGIN
	SELECT ns.nspname INTO own FROM pg_extension e JOIN pg_namespace ns ON ns.oid = e.extnamespace
	WHERE e.extname = 'ranread';
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
		INTO write_iops, write_mean_ms, write_p99_ms, writers_completed, shortest_span_s, batches_completed,
			 read_p99_ms, read_p99_band_pct
		USING batches, processes;
END
$pool$;
COMMENT ON FUNCTION ranread_write_sweep_pool(bigint[],integer) IS 'a write sweep''s step: its batches pooled
batches: the step''s batches
processes: the readers beside the writers; 0: no read figures';

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
	SELECT ns.nspname INTO own FROM pg_extension e JOIN pg_namespace ns ON ns.oid = e.extnamespace
	WHERE e.extname = 'ranread';
	EXECUTE format('SELECT %I.ranread_write_sweep_check($1::int, $2::float8, $3::float8, $4::float8, $5::interval, '
				   '$6::int, $7::float8, $8::float8, $9::float8, $10::float8, $11::text, $12::name, $13::name)', own)
		USING writers, start_write_rate_iops, max_write_rate_iops, write_rate_step, duration, processes, rate_iops,
			  slo_write_p99_ms, slo_write_mean_ms, slo_p99_ms, mode, target, write_target;
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
				PERFORM 'PRAGMA:TYPE:ran (batch bigint, status text)';	-- for plpgsql_check (test/t/extension/plpgsql_check.pl)
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
			-- the step's batches pooled (ranread_write_sweep_pool)
			PERFORM 'PRAGMA:TYPE:pooled (write_iops float8, write_mean_ms float8, write_p99_ms float8, writers_completed boolean, shortest_span_s float8, batches_completed boolean, read_p99_ms float8, read_p99_band_pct float8)';
			EXECUTE format('SELECT * FROM %I.ranread_write_sweep_pool($1::bigint[], $2::int)', own)
				INTO pooled USING batches, processes;
			-- a batch that ended long before its duration (its readers done early)
			-- measured no rate: the step did not complete, and says why
			early := pooled.shortest_span_s < 0.9 * extract(epoch FROM duration);
			PERFORM 'PRAGMA:TYPE:d (decision text, within_slo boolean)';
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
	PERFORM 'PRAGMA:TYPE:best (rate float8, iops float8)';
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
COMMENT ON PROCEDURE ranread_write_sweep(integer,double precision,double precision,double precision,interval,integer,double precision,double precision,double precision,double precision,text,name,name) IS 'writers'' rate stepped open loop until their commit latency or the readers'' p99 leaves the SLO; the verdict
writers: writers in every step, 1 to 1024
start_write_rate_iops: the first step''s writes/s, all writers together
max_write_rate_iops: the last rate, at least the first, at most 10,000,000
write_rate_step: writes/s added each step, at least 0.1; NULL doubles the rate (the last step is cut to the max)
duration: each step''s batch
processes: readers beside the writers; 0: writers alone
rate_iops: the readers'' open-loop rate; NULL: closed loop (needs processes)
slo_write_p99_ms: the writers'' p99 commit latency bound; NULL: none
slo_write_mean_ms: the writers'' mean commit latency bound; NULL: none
slo_p99_ms: the readers'' p99 bound; required with processes, refused without
mode: the readers'' read path
target: the read target (named in the batch rows with writers alone too)
write_target: made by ranread_setup_writes';
