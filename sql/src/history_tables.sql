-- history_tables.sql: the tables and sequences ranread's history lives in.
-- Their rows are the user's data: pg_extension_config_dump() has pg_dump
-- keep them.  Only ranread writes the history: every row names the role that
-- ran it (run_by), rows are written as the extension's owner
-- (src/record/row_builder.c), and no other role needs INSERT, UPDATE or
-- DELETE on a history table (a role could otherwise plant rows at the
-- numbers another role's run will draw, or rewrite its verdicts).
-- ranread_reset() deletes the caller's rows (a superuser's: all).

-- Targets made by ranread_setup(): one row per target relation.  The table
-- itself is named target, lives in this schema and is a member of the
-- extension (so pg_dump leaves its data out); relation is its OID when made.
CREATE TABLE ranread_targets (
	target name PRIMARY KEY,
	relation oid NOT NULL,
	bytes bigint NOT NULL,
	blocks bigint NOT NULL,
	tablespace name NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now()
);

CREATE SEQUENCE ranread_batch_seq;

-- One row per worker and batch, written by the worker itself when it ends.
CREATE TABLE ranread_results (
	batch bigint NOT NULL,
	worker int NOT NULL,
	run_date date NOT NULL,
	run_time time(0) NOT NULL,
	started_at timestamptz NOT NULL,
	target name NOT NULL,
	mode text NOT NULL,
	block_size int NOT NULL,
	processes int NOT NULL,
	iterations bigint,
	duration_s float8,
	evicted boolean NOT NULL,
	reads bigint NOT NULL,
	elapsed_s float8 NOT NULL,
	response_time_ms float8,
	min_ms float8,
	max_ms float8,
	p50_ms float8,
	p95_ms float8,
	p99_ms float8,
	p999_ms float8,
	iops float8 NOT NULL,
	bytes_physical bigint NOT NULL,
	physical_pct float8,
	buffer_hits bigint,
	buffer_misses bigint,
	status text NOT NULL,
	histogram bigint[] NOT NULL,
	iodepth int NOT NULL DEFAULT 1,	-- reads in flight per worker
	registered_buffers boolean,	-- io_uring buffers registered (NULL: no io_uring)
	run_by name,	-- the role that ran it (NULL: recorded before 1.4)
	PRIMARY KEY (batch, worker)
);

-- One row per batch, written by the last worker of the batch to end.
CREATE TABLE ranread_batches (
	batch bigint PRIMARY KEY,
	run_date date NOT NULL,
	run_time time(0) NOT NULL,
	started_at timestamptz NOT NULL,
	target name NOT NULL,
	mode text NOT NULL,
	block_size int NOT NULL,
	processes int NOT NULL,
	iterations bigint,
	duration_s float8,
	evicted boolean NOT NULL,
	reads bigint NOT NULL,
	wall_s float8 NOT NULL,
	response_time_ms float8,
	min_ms float8,
	max_ms float8,
	p50_ms float8,
	p95_ms float8,
	p99_ms float8,
	p999_ms float8,
	iops float8 NOT NULL,
	mb_per_s float8 NOT NULL,
	pct_over_2ms float8,
	pct_over_5ms float8,
	pct_over_10ms float8,
	physical_pct float8,
	buffer_hits bigint,
	buffer_misses bigint,
	device text,
	device_reads_per_s float8,
	device_read_wait_ms float8,
	device_util_pct float8,
	status text NOT NULL,
	histogram bigint[],			-- every worker's reads, merged (NULL for 1.0's batches without rows)
	wrapped_reads bigint,		-- reads of units read before in the run (NULL for 1.0's batches)
	kb_per_read float8,			-- kB the kernel fetched from storage per read (NULL for 1.0's batches)
	ramp_s float8,				-- the first seconds, read but not counted (NULL: none)
	sample_interval_s float8,	-- length of its rows in ranread_intervals
	steady_state_s float8,		-- the steady-state window asked for (NULL: none)
	steady_band_pct float8,
	steady_at_s float8,			-- when the steady-state rule was met (NULL: not met)
	rate_iops float8,			-- open loop: the rate asked for (NULL: closed loop)
	arrivals text,				-- open loop: 'uniform' or 'poisson'
	service_mean_ms float8,		-- open loop: from issuing each read to its end
	service_p50_ms float8,
	service_p99_ms float8,
	service_p999_ms float8,
	sweep bigint,				-- the sweep it is a step of (NULL: a plain run)
	sweep_step int,				-- 0: the sweep's drain, before step 1; -1, -2: its probes after the last
	iodepth int NOT NULL DEFAULT 1,	-- reads in flight per worker
	registered_buffers boolean,	-- every worker's io_uring buffers registered (NULL: no io_uring)
	ended_by text,				-- completed: 'iterations', 'duration', 'steady state' or 'coverage' (NULL: not completed, or before 1.2)
	device_shared_pct float8,	-- share of the device's bytes read that were not ranread's (NULL: no device statistics)
	-- noise bands: the 95 % half-width, in percent, of iops, response_time_ms
	-- and p99_ms from the batch's histogram, workers and sample intervals (NULL: unknown)
	iops_band_pct float8,
	mean_band_pct float8,
	p99_band_pct float8,
	server_version_num int,		-- the server's version (NULL for batches before 1.2)
	io_method text,				-- its io_method, 18 and later (NULL: earlier, or before 1.2)
	-- its other I/O settings, 18 and later, as the batch's workers had them
	io_workers int,
	effective_io_concurrency int,	-- the server's (mode 'stream' looks ahead iodepth)
	io_combine_limit int,		-- in blocks
	io_max_concurrency int,
	stat_io_reads bigint,			-- blocks background workers read per pg_stat_io during the batch (16+; modes buffer and stream)
	layers bigint,				-- the ranread_layers() run it is part of (NULL: none)
	calibration bigint,			-- the ranread_calibrate() run it is part of (NULL: none)
	seed bigint,				-- of the order its units were read in (same seed, processes and target: same units)
	prefetch int,				-- units advised ahead of each read (NULL: before it existed)
	distribution text,			-- which units it read: uniform, zipf:theta, hotset:P%/Q%, sequential (NULL: before it existed)
	start_at timestamptz,		-- the wall-clock time its workers were to be released (NULL: once ready)
	start_skew_ms float8,	-- started_at less start_at
	run_by name,	-- the role that ran it (NULL: recorded before 1.4)
	-- what shaped it besides the server's settings (NULL: recorded before 1.4)
	kernel text,				-- the kernel's release (uname -r)
	data_checksums boolean,
	file_system text,			-- the target's, as the kernel's mount table names it
	ranread_version text,		-- of the library that ran it
	warnings text[]				-- the WARNINGs its run raised ('{}': none)
);

-- One row per batch and sample interval: the batch over time.
CREATE TABLE ranread_intervals (
	batch bigint NOT NULL,
	interval_no int NOT NULL,
	start_s float8 NOT NULL,	-- seconds after counting began (after the ramp)
	seconds float8 NOT NULL,	-- sample_interval, or less for the last
	reads bigint NOT NULL,
	iops float8 NOT NULL,
	mean_ms float8,
	p50_ms float8,
	p99_ms float8,
	max_ms float8,
	workers_reading int NOT NULL,	-- workers still reading at its end
	wal_bytes bigint,	-- the WAL insert position's move: every process's WAL (NULL on a standby)
	wal_syncs bigint,	-- with writers (NULL otherwise), as the processes have reported them
	wal_sync_ms float8,	-- NULL unless track_wal_io_timing
	buffers_checkpoint bigint,	-- written by the checkpointer
	buffers_clean bigint,	-- by the background writer
	buffers_backend bigint,	-- by every other process
	checkpoint_began boolean,	-- any checkpoint's redo pointer set in this interval
	checkpoint_ended boolean,	-- pg_control recorded a checkpoint in it
	checkpoint_running boolean,	-- one ran at some moment of it
	device_reads bigint,	-- the target's device: completed reads, everyone's
	device_writes bigint,
	run_by name,	-- the role that ran it (NULL: recorded before 1.4)
	PRIMARY KEY (batch, interval_no)
);

-- Sweeps (CALL ranread_sweep()): one row per sweep, with its arguments; its
-- steps are the batches whose sweep column names it.
CREATE SEQUENCE ranread_sweep_seq;

CREATE TABLE ranread_sweep_runs (
	sweep bigint PRIMARY KEY,
	started_at timestamptz NOT NULL,
	ended_at timestamptz,		-- NULL while it runs, or after a cancel, an error or a crash
	leader_pid int NOT NULL,
	target name NOT NULL,
	mode text NOT NULL,
	block_size int NOT NULL,
	iterations bigint,			-- per process and step
	duration_s float8,			-- per step
	ramp_s float8,
	start_processes int NOT NULL,
	step_processes int,			-- NULL: doubled each step
	max_processes int NOT NULL,	-- as asked, or as many as worker slots were free
	max_processes_by text NOT NULL,	-- 'argument' or 'worker slots'
	rate_iops float8,			-- open loop: the first step's rate (NULL: closed loop)
	rate_step_iops float8,		-- NULL: doubled each step
	max_rate_iops float8,
	stop_latency_ms float8 NOT NULL,
	min_scaling_pct float8 NOT NULL,
	slo_mean_ms float8,
	slo_p99_ms float8,
	slo_p999_ms float8,
	slo_max_ms float8,
	status text NOT NULL,		-- 'running', then 'completed' or 'stopped' when it ends by itself
	stop_rule text,				-- which rule ended it, once it has ended by itself
	iodepth int,				-- stepping reads in flight: the first step's (NULL: 1, steps processes)
	max_iodepth int,			-- stepping reads in flight: the last step's at most
	prefetch int,				-- stepping prefetch: the first step's (NULL: not stepped)
	max_prefetch int,	-- stepping prefetch: the last step's at most
	run_by name,	-- the role that ran it (NULL: recorded before 1.4)
	drain_s float8,	-- the drain's bound before step 1, its batch sweep_step 0 (NULL: no drain)
	probe_s float8	-- the probes after the last step, sweep_step -1 and -2: the idle pause before the refill probe (NULL: no probes)
);

-- fleet: one benchmark across several servers on shared storage, started
-- together through contrib dblink and the foreign servers' user mappings
-- (credentials never pass through ranread), gathered here.
CREATE SEQUENCE ranread_fleet_seq;

CREATE TABLE ranread_fleet_runs (
	fleet bigint PRIMARY KEY,
	started_at timestamptz NOT NULL,	-- when the coordinator began its checks
	start_at timestamptz NOT NULL,		-- the common release, on the coordinator's clock
	servers name[] NOT NULL,
	processes int NOT NULL,				-- per server
	iterations bigint,
	duration_s float8,
	mode text NOT NULL,
	target name NOT NULL,
	status text NOT NULL,				-- completed, partial (a server did not complete), failed, cancelled, stopped
	iops float8,						-- the servers' IOPS summed
	mean_ms float8,						-- of every server's reads
	p50_ms float8,						-- from the servers' histograms merged
	p99_ms float8,
	p999_ms float8,
	max_ms float8,
	slowest_server name,				-- the highest p99
	overlap_pct float8,					-- the servers' common window, % of the whole
	histogram bigint[],
	fleet_sweep bigint,					-- the fleet sweep it is a step of (NULL: none)
	sweep_step int,
	iops_band_pct float8,	-- 95 % half-widths, in percent, as a batch has them
	mean_band_pct float8,
	p99_band_pct float8,
	run_by name	-- the role that ran it (NULL: recorded before 1.4)
);

CREATE TABLE ranread_fleet_servers (
	fleet bigint NOT NULL,
	server name NOT NULL,
	batch bigint,						-- its batch, in the server's own ranread_batches
	status text NOT NULL,				-- the batch's status, or failed or disconnected
	error text,							-- what the server or the connection said
	iops float8,
	mean_ms float8,
	p99_ms float8,
	max_ms float8,
	reads bigint,
	started_at timestamptz,				-- its release, on the coordinator's clock
	wall_s float8,
	start_skew_ms float8,				-- on the server's clock
	clock_offset_ms float8,				-- the server's clock less the coordinator's
	histogram bigint[],
	iops_band_pct float8,	-- 95 % half-widths, in percent, as a batch has them
	mean_band_pct float8,
	p99_band_pct float8,
	run_by name,	-- the role that ran it (NULL: recorded before 1.4)
	-- a burst bucket that ran empty in its series (ranread_series_bucket();
	-- NULL: none, or recorded before 1.4)
	burst_iops float8,
	burst_band_pct float8,
	baseline_iops float8,				-- the level it sustained after it
	baseline_band_pct float8,
	bucket_reads float8,
	bucket_band float8,
	shift_s float8,
	PRIMARY KEY (fleet, server)
);

-- One row per writer of a batch, written by the writer itself.
CREATE TABLE ranread_write_results (
	batch bigint NOT NULL,
	writer int NOT NULL,
	started_at timestamptz NOT NULL,
	write_target name NOT NULL,
	writers int NOT NULL,
	write_rate_iops float8 NOT NULL,	-- asked for, all writers together
	writes bigint NOT NULL,				-- committed
	elapsed_s float8 NOT NULL,			-- from the release to the end of its writing (1.3: its last commit)
	write_iops float8 NOT NULL,
	mean_ms float8,						-- each write: its transaction's start to its commit's return
	p50_ms float8,
	p99_ms float8,
	max_ms float8,
	status text NOT NULL,
	error text,
	histogram bigint[] NOT NULL,
	run_by name,	-- the role that ran it (NULL: recorded before 1.4)
	PRIMARY KEY (batch, writer)
);

-- What the database did during a batch with writers: differences of the
-- server's cumulative counters, from the release to the batch's recording.
CREATE TABLE ranread_db_activity (
	batch bigint PRIMARY KEY,
	seconds float8,
	wal_bytes bigint,
	wal_fpi bigint,						-- full-page images
	wal_syncs bigint,
	wal_sync_ms float8,					-- NULL unless track_wal_io_timing
	checkpoints_timed bigint,
	checkpoints_requested bigint,
	buffers_checkpoint bigint,			-- written by the checkpointer
	buffers_clean bigint,				-- by the background writer
	buffers_backend bigint,				-- by every other process
	updates bigint,						-- of the write target (n_tup_upd)
	hot_updates bigint,					-- of those, HOT: no new page, no index entry (n_tup_hot_upd)
	-- checkpoint => 'during' (NULL otherwise): seconds after counting began
	checkpoint_requested_s float8,
	checkpoint_began_s float8,			-- NULL: it had not begun when the reads ended
	checkpoint_ended_s float8,			-- NULL: it outlasted the reads
	writes_before_checkpoint bigint,	-- writes committed when it was requested
	reads_inside bigint,				-- reads while it ran, and their p99 with its 95 % band
	p99_inside_ms float8,
	p99_inside_low_ms float8,
	p99_inside_high_ms float8,
	reads_outside bigint,				-- the batch's other reads
	p99_outside_ms float8,
	p99_outside_low_ms float8,
	p99_outside_high_ms float8,
	run_by name	-- the role that ran it (NULL: recorded before 1.4)
);

-- Write sweeps (CALL ranread_write_sweep()): one row per sweep, with its
-- arguments and its verdict; its steps in ranread_write_sweep_steps, each
-- step's batches in ranread_batches and ranread_write_results.  Tables of
-- their own: ranread_sweep_runs and ranread_sweep_verdict() are the read
-- sweep's, which steps processes and judges IOPS.
CREATE SEQUENCE ranread_write_sweep_seq;

CREATE TABLE ranread_write_sweeps (
	write_sweep bigint PRIMARY KEY,
	started_at timestamptz NOT NULL,
	writers int NOT NULL,
	start_write_rate_iops float8 NOT NULL,
	max_write_rate_iops float8 NOT NULL,
	write_rate_step float8,				-- added each step (NULL: the rate doubled)
	duration_s float8 NOT NULL,			-- each batch's
	processes int NOT NULL,				-- readers beside the writers (0: writers alone)
	rate_iops float8,					-- the readers' open-loop rate (NULL: closed loop)
	mode text NOT NULL,
	target name NOT NULL,
	write_target name NOT NULL,
	slo_write_mean_ms float8,
	slo_write_p99_ms float8,
	slo_p99_ms float8,
	status text NOT NULL,				-- running, completed (a rule stopped it) or stopped (a step did not complete)
	steps int,
	stop_rule text,						-- the rule that stopped it
	best_write_rate_iops float8,		-- the highest rate asked within the SLO (NULL: none)
	verdict text,
	run_by name	-- the role that ran it (NULL: recorded before 1.4)
);

-- One row per step of a write sweep: its batches (more than one when it was
-- measured again), their figures pooled, and the rule book's decision.
CREATE TABLE ranread_write_sweep_steps (
	write_sweep bigint NOT NULL REFERENCES ranread_write_sweeps ON DELETE CASCADE,
	step int NOT NULL,
	write_rate_iops float8 NOT NULL,	-- asked for, all writers together
	batches bigint[] NOT NULL,
	write_iops float8 NOT NULL,			-- achieved: the batches' writes over their spans
	write_mean_ms float8,				-- each write's transaction start to commit, pooled
	write_p99_ms float8,
	read_p99_ms float8,					-- the readers', pooled (NULL: writers alone)
	read_p99_band_pct float8,			-- its 95 % half-width, in percent (NULL: unknown)
	completed boolean NOT NULL,
	within_slo boolean NOT NULL,
	decision text NOT NULL,				-- 'go on', or the rule that stopped the sweep
	run_by name,	-- the role that ran it (NULL: recorded before 1.4)
	PRIMARY KEY (write_sweep, step)
);

SELECT pg_catalog.pg_extension_config_dump('ranread_targets', '');

SELECT pg_catalog.pg_extension_config_dump('ranread_results', '');

SELECT pg_catalog.pg_extension_config_dump('ranread_batches', '');

SELECT pg_catalog.pg_extension_config_dump('ranread_intervals', '');

SELECT pg_catalog.pg_extension_config_dump('ranread_batch_seq', '');

SELECT pg_catalog.pg_extension_config_dump('ranread_sweep_runs', '');

SELECT pg_catalog.pg_extension_config_dump('ranread_sweep_seq', '');

SELECT pg_catalog.pg_extension_config_dump('ranread_fleet_runs', '');

SELECT pg_catalog.pg_extension_config_dump('ranread_fleet_servers', '');

SELECT pg_catalog.pg_extension_config_dump('ranread_fleet_seq', '');

SELECT pg_catalog.pg_extension_config_dump('ranread_write_results', '');

SELECT pg_catalog.pg_extension_config_dump('ranread_db_activity', '');

SELECT pg_catalog.pg_extension_config_dump('ranread_write_sweeps', '');

SELECT pg_catalog.pg_extension_config_dump('ranread_write_sweep_seq', '');

SELECT pg_catalog.pg_extension_config_dump('ranread_write_sweep_steps', '');
