-- sweep.sql: RanRead's step-up methodology: CALL ranread_sweep() and the
-- rule book that decides each step and writes the verdict (src/sweep).

-- A sweep's outcome, from its row and its steps as recorded: why it ended
-- (or that it runs), the highest IOPS, the highest within the SLO, the knee.
CREATE OR REPLACE FUNCTION ranread_sweep_verdict(sweep bigint, OUT status text, OUT steps int,
									  OUT max_iops float8, OUT max_iops_processes int,
									  OUT slo_iops float8, OUT slo_processes int,
									  OUT knee_processes int, OUT memory_steps int,
									  OUT stop_rule text, OUT verdict text)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_sweep_verdict'
LANGUAGE C STABLE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_sweep_verdict(bigint) IS 'a sweep''s status, highest IOPS, within the SLO, knee, stop rule and verdict
sweep: the sweep';

-- The sweep's rule book (src/rules/sweep_rules.c) for a fleet sweep's runs,
-- given as arrays: go on, repeat the step or stop, why, and the words
-- ranread_sweep() would say (src/sweep/sweep_decide.c); a run whose bucket
-- is given counts at its sustained level.  A pure computation
-- on its arguments, like the histogram functions, so left executable by
-- PUBLIC.
CREATE OR REPLACE FUNCTION ranread_sweep_decide(sweep bigint[], step int[], processes int[], status text[],
									 iops float8[], mean_ms float8[], p99_ms float8[], p999_ms float8[],
									 max_ms float8[], iops_band_pct float8[], mean_band_pct float8[],
									 p99_band_pct float8[], part_outside_slo boolean[], max_processes int,
									 max_processes_by text, stop_latency_ms float8, min_scaling_pct float8,
									 slo_mean_ms float8, slo_p99_ms float8, ended_by text DEFAULT NULL,
									 bucket float8[] DEFAULT NULL, OUT decision text, OUT stop_rule text, OUT next_processes int,
									 OUT step_text text, OUT step_detail text, OUT repeat_text text,
									 OUT repeat_detail text, OUT verdict text, OUT sweeps_text text)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_sweep_decide'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION ranread_sweep_decide(bigint[],integer[],integer[],text[],double precision[],double precision[],double precision[],double precision[],double precision[],double precision[],double precision[],double precision[],boolean[],integer,text,double precision,double precision,double precision,double precision,text,double precision[]) IS 'the fleet sweep''s next step by ranread_sweep''s rules (any role)
sweep: each run''s sweep
step: each run''s step
processes: each run''s processes
status: each run''s status
iops: each run''s IOPS
mean_ms: each run''s mean
p99_ms: each run''s p99
p999_ms: each run''s p99.9
max_ms: each run''s slowest read
iops_band_pct: each run''s IOPS band, in %
mean_band_pct: each run''s mean band, in %
p99_band_pct: each run''s p99 band, in %
part_outside_slo: whether a server of the run was outside the SLO
max_processes: the most processes a step may have
max_processes_by: argument or worker slots: what set max_processes
stop_latency_ms: as ranread_sweep''s
min_scaling_pct: as ranread_sweep''s
slo_mean_ms: as ranread_sweep''s
slo_p99_ms: as ranread_sweep''s
ended_by: why the last run ended, when it did not complete (NULL: it did)
bucket: a row a run: burst, its band %, baseline, its band %, bucket reads, their band, s until empty (NULLs: none ran empty)';

-- The methodology in one call: one batch per step, committed after each.
-- No SET clause: a procedure with one cannot commit.
CREATE OR REPLACE PROCEDURE ranread_sweep(start_processes int DEFAULT 10,
							   step_processes int DEFAULT NULL,
							   max_processes int DEFAULT NULL,
							   iterations bigint DEFAULT NULL,
							   duration interval DEFAULT NULL,
							   target name DEFAULT 'ranread_target',
							   mode text DEFAULT 'smgr',
							   block_size int DEFAULT 8192,
							   stop_latency_ms float8 DEFAULT 10,
							   min_scaling_pct float8 DEFAULT 25,
							   slo_mean_ms float8 DEFAULT 2,
							   slo_p99_ms float8 DEFAULT 5,
							   slo_p999_ms float8 DEFAULT NULL,
							   slo_max_ms float8 DEFAULT NULL,
							   rate_iops float8 DEFAULT NULL,
							   rate_step_iops float8 DEFAULT NULL,
							   max_rate_iops float8 DEFAULT NULL,
							   ramp interval DEFAULT NULL,
							   iodepth int DEFAULT NULL,
							   max_iodepth int DEFAULT NULL,
							   repeat int DEFAULT 1,	-- whole sweeps to run, 1 to 10
							   prefetch int DEFAULT NULL,	-- stepping prefetch (mode smgr): the first step's
							   max_prefetch int DEFAULT NULL,
							   drain interval DEFAULT NULL,	-- read until a burst bucket ran empty, first
							   probe interval DEFAULT NULL)	-- after the last step: what limits the volume
AS 'MODULE_PATHNAME', 'ranread_sweep'
LANGUAGE C;
COMMENT ON PROCEDURE ranread_sweep(integer,integer,integer,bigint,interval,name,text,integer,double precision,double precision,double precision,double precision,double precision,double precision,double precision,double precision,double precision,interval,integer,integer,integer,integer,integer,interval,interval) IS 'RanRead''s methodology: a committed batch per step until a stop rule; the verdict
start_processes: processes of the first step
step_processes: add this many a step; NULL: double
max_processes: the most processes; NULL: the free worker slots
iterations: reads per process a step (10,000 without duration)
duration: run time of a step
target: a target made by ranread_setup
mode: the read path, as ranread_run''s
block_size: bytes per read, as ranread_run''s
stop_latency_ms: stop when a step''s mean latency is over this
min_scaling_pct: stop when a step gains less of linear scaling; 0: off
slo_mean_ms: the SLO''s bound on the mean
slo_p99_ms: the SLO''s bound on p99
slo_p999_ms: the SLO''s bound on p99.9; NULL: none
slo_max_ms: the SLO''s bound on the slowest read; NULL: none
rate_iops: an open-loop sweep: the first step''s rate
rate_step_iops: add this rate a step, at least 0.1; NULL: double
max_rate_iops: the highest rate, at most 10,000,000
ramp: passed to each step''s ranread_run
iodepth: a queue-depth sweep: one process, this depth first
max_iodepth: the deepest queue (1024 by default)
repeat: run the whole sweep this many times, 1 to 10
prefetch: a prefetch sweep (smgr): this distance first
max_prefetch: the longest distance (1024 by default)
drain: before step 1, read at its load until a burst bucket ran empty and held steady, at most this long
probe: after the last step, probe what limits the volume: this long idle, then a run that measures a bucket''s refill (when one ran empty; 0: none); a run at twice block_size (when the steps ended flat); NULL: no probes';

-- What limits the volume a sweep read (src/sweep/sweep_limit.c, its rule
-- src/rules/limit_rules.c): a cap on IOPS or bandwidth, the device, or
-- undecided, with its figures, a burst bucket's, and the evidence.
CREATE OR REPLACE FUNCTION ranread_limit(sweep bigint, OUT kind text, OUT rate_iops float8, OUT rate_mb_per_s float8,
							  OUT band_pct float8, OUT bucket boolean, OUT burst_iops float8,
							  OUT bucket_reads float8, OUT bucket_s float8, OUT refill_per_s float8,
							  OUT size_probe_ratio float8, OUT evidence text)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_limit'
LANGUAGE C STABLE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_limit(bigint) IS 'what limits the volume a sweep read: IOPS cap, bandwidth cap, device or undecided, a burst bucket, the evidence
sweep: the sweep (its probes decide a plateau: CALL ranread_sweep(probe => ...))';
