-- calibration.sql: ranread_layers() (what each layer of the read path adds)
-- and ranread_calibrate() (the read path against the kernel's own, with a
-- known answer) (src/calibrate).

CREATE OR REPLACE FUNCTION ranread_layers(processes int DEFAULT 4,
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
COMMENT ON FUNCTION ranread_layers(integer,bigint,name,interval,integer,double precision) IS 'the same units through each read path, in rounds: what each layer adds, with its band
processes: workers of each batch
iterations: reads per worker and batch
target: the target to read
duration: run time per batch instead of iterations
max_rounds: rounds at most, 3 to 100
band_pct: stop once every share''s band is within this % of the top layer''s mean';

CREATE OR REPLACE FUNCTION ranread_calibrate(target name DEFAULT 'ranread_target',
								  iterations bigint DEFAULT 5000,	-- random reads per batch
								  max_pairs int DEFAULT 30,		-- sequential and random pairs at most (6 to 200)
								  max_depth int DEFAULT 64,		-- deepest look-ahead tried
								  cached_pct float8 DEFAULT 90,	-- random reads assumed cached
								  band_pct float8 DEFAULT 20,		-- pairs stop when the ratio's 95 % band is within this (1 to 100)
								  max_duration interval DEFAULT '5 min',	-- or when the calibration has run this long
								  io_workers boolean DEFAULT false,	-- 18, superuser: step io_workers too
								  OUT calibration bigint,
								  OUT random_ms float8,
								  OUT sequential_ms float8,
								  OUT ratio float8,
								  OUT ratio_low float8,
								  OUT ratio_high float8,
								  OUT band_pct_reached float8,
								  OUT steady boolean,
								  OUT pairs int,
								  OUT ratio_min float8,
								  OUT ratio_max float8,
								  OUT random_page_cost float8,
								  OUT random_page_cost_low float8,
								  OUT random_page_cost_high float8,
								  OUT effective_io_concurrency int,
								  OUT effective_io_concurrency_low int,
								  OUT effective_io_concurrency_high int,
								  OUT depths int[],
								  OUT depth_iops float8[],
								  OUT io_method text,
								  OUT io_workers_recommended int,
								  OUT io_workers_steps int[],
								  OUT io_workers_iops float8[],
								  OUT statement text,
								  OUT batches bigint[])
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_calibrate'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_calibrate(name,bigint,integer,integer,double precision,double precision,interval,boolean) IS 'a random page''s cost in sequential ones with its band, the look-ahead that pays, io_workers on 18: the ALTER TABLESPACE
target: the target to read
iterations: cold random reads per batch (a sequential batch reads 8 times as many pages)
max_pairs: ABBA pairs of a sequential and a random batch at most
max_depth: the look-ahead series goes up to this depth: 0, 1, 2, 4 ... max_depth
cached_pct: the share of random reads the planner may assume cached: random_page_cost = ratio x (1 - cached_pct / 100)
band_pct: stop once the ratio''s 95 % band is within this % of its median
max_duration: stop the pairs after this long
io_workers: on 18 with io_method worker (superuser): step io_workers too';
