/*-------------------------------------------------------------------------
 *
 * help.c
 *		ranread_help(): every entry point, a line or two each, with the read
 *		paths listed from their table.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "readpath.h"

PG_FUNCTION_INFO_V1(ranread_help);

/* ranread_help(): these lines, with one line per read path after the marker. */
#define HELP_MODES	NULL

static const char *const help_lines[] = {
	"ranread: random-read storage benchmark for PostgreSQL",
	"ranread_setup(size text DEFAULT NULL, tablespace name DEFAULT NULL, target name DEFAULT 'ranread_target', log_level int DEFAULT 1)",
	"    - Creates an unlogged target table and writes every block with incompressible data; size NULL means twice the server's memory; log_level 0 (silent) to 3 (verbose).",
	"ranread_run(processes int, iterations bigint, target name DEFAULT 'ranread_target', mode text DEFAULT 'smgr', block_size int DEFAULT 8192, duration interval DEFAULT NULL, evict boolean DEFAULT true, ramp interval DEFAULT NULL, sample_interval interval DEFAULT '1 s', steady_state interval DEFAULT NULL, steady_band_pct float8 DEFAULT 10, rate_iops float8 DEFAULT NULL, arrivals text DEFAULT NULL, iodepth int DEFAULT 1)",
	"    - Starts processes background workers that each time iterations (or, with duration, as many as fit) random reads of block_size bytes; records one row per worker in ranread_results, one per batch in ranread_batches and one per sample_interval in ranread_intervals, and returns the batch's row of ranread_summary.",
	HELP_MODES,
	"    - ramp: the first part of the run, read but not counted (part of duration). steady_state: end a time-based run once IOPS and mean latency stay within steady_band_pct of their means over this window.",
	"    - rate_iops: an open loop at this total rate ('uniform' or 'poisson' arrivals); latencies count from when each read was due, service_* columns from when it was issued.",
	"    - iodepth: reads in flight per process (mode 'direct' only, through io_uring; 1 is one pread() at a time); latencies count from submitting each read to its completion.",
	"CALL ranread_sweep(start_processes int DEFAULT 10, step_processes int DEFAULT NULL, max_processes int DEFAULT NULL, iterations bigint DEFAULT NULL, duration interval DEFAULT NULL, target name DEFAULT 'ranread_target', mode text DEFAULT 'smgr', block_size int DEFAULT 8192, stop_latency_ms float8 DEFAULT 10, min_scaling_pct float8 DEFAULT 25, slo_mean_ms float8 DEFAULT 2, slo_p99_ms float8 DEFAULT 5, slo_p999_ms float8 DEFAULT NULL, slo_max_ms float8 DEFAULT NULL, rate_iops float8 DEFAULT NULL, rate_step_iops float8 DEFAULT NULL, max_rate_iops float8 DEFAULT NULL, ramp interval DEFAULT NULL, iodepth int DEFAULT NULL, max_iodepth int DEFAULT NULL, repeat int DEFAULT 1)",
	"    - RanRead's methodology in one call: one batch per step (10, 20, 40 ... processes, or step_processes more each time; 10,000 iterations each unless iterations or duration is given), committed after each, until the mean passes stop_latency_ms, IOPS gains less than min_scaling_pct of linear scaling, or max_processes (at most the free worker slots) is reached. The latency and scaling rules stop only when their threshold lies outside the step's noise band (each figure's 95 % band, also in ranread_batches); a step within the noise of one runs again, its runs combined, at most 2 times (then 'undecided'); within the SLO and gaining IOPS beyond the noise, the sweep goes on. A NOTICE per step with each figure's band; at the end the verdict: highest IOPS, highest within the SLO (the figure to quote), the knee (the most efficient load, not the capacity) and why it stopped. repeat => N (1 to 10) runs the whole sweep N times and reports the median and spread of each verdict figure. rate_iops steps an open loop's rate instead, iodepth the reads in flight per process (mode 'direct': iodepth, doubled up to max_iodepth, at start_processes; scaling counts processes x iodepth). Not inside a transaction block.",
	"SELECT * FROM ranread_sweeps;",
	"    - One row per sweep: status (running, completed, stopped, cancelled, interrupted), steps, max_iops, slo_iops and their processes, the knee, steps memory answered, the stop rule and the verdict in words; ranread_sweep_verdict(sweep) gives one sweep's.",
	"ranread_running()",
	"    - The batch running now, one row per worker and one (worker NULL) for the batch in total: state, reads done, elapsed time, time left, IOPS, mean and p99 so far, and its sweep, step and iodepth, read live from the run's shared memory by any session. No rows when nothing runs.",
	"SELECT * FROM ranread_progress;",
	"    - What ranread does now, for another session to watch: the rows of ranread_running(), and one row per ranread_setup() running (bytes written of the total, MB/s, time left; from ranread_setup_running()).",
	"ranread_chart(sweep bigint DEFAULT NULL, width int DEFAULT 960, height int DEFAULT 540)",
	"    - A sweep as an SVG chart: IOPS as bars, mean and p99 latency as lines against processes (or the rate asked), the SLO's bounds, the knee, and the steps that do not count hatched; without a sweep the latest with a step, without one every batch.",
	"ranread_chart_latency(VARIADIC batches bigint[])",
	"    - The latency distribution of up to 8 batches as an SVG chart: one percentile curve each, from its stored histogram, on log scales out to the tail.",
	"ranread_stop()",
	"    - Stops every running ranread worker, and a running sweep after its current step; the interrupted batch is recorded with status 'stopped'. Returns the number of processes signalled.",
	"ranread_reset()",
	"    - Deletes all history from ranread_results, ranread_batches, ranread_intervals and ranread_sweep_runs. Returns the number of rows deleted from the first two.",
	"ranread_export(directory text, format text DEFAULT 'tsv', sweep bigint DEFAULT NULL, csv boolean DEFAULT false, svg boolean DEFAULT false)",
	"    - Writes ranread_summary to new files in directory, never overwriting (-2, -3 ... if taken): format 'tsv', ranread_YYYYMMDD-HHMM.tsv with every column, or 'ranread', RanRead's seven columns in PerfToolsRanRead_YYYYMMDD-HHMM.txt; csv also writes every column as .csv, svg the chart of each sweep as .svg; sweep exports that sweep alone. Returns the path of each file written.",
	"ranread_compare(batch_a bigint, batch_b bigint), ranread_compare_sweeps(sweep_a bigint, sweep_b bigint)",
	"    - Two batches (IOPS, mean, p50, p99, p99.9, physical_pct, device reads/s) or two sweeps (highest IOPS, within the SLO, knee, each process count both ran) side by side: B/A, the noise band in percent from the spread of their workers and intervals, whether B is faster, slower or the same within the noise, and a verdict in words.",
	"ranread_drop(target name DEFAULT 'ranread_target')",
	"    - Drops a target made by ranread_setup() and forgets it.",
	"ranread_help()",
	"    - Shows this text.",
	"SELECT * FROM ranread_summary ORDER BY batch;",
	"    - One row per batch: run_date, run_time, target, iterations, processes, response_time_ms, iops, then percentiles, share of reads over 2/5/10 ms, physical_pct (share of reads the device answered), kb_per_read (readahead), device statistics, status, ramp, steady state and open-loop service times.",
	"SELECT * FROM ranread_intervals WHERE batch = B ORDER BY interval_no;",
	"    - The batch over time, one row per sample_interval: reads, IOPS, mean, p50, p99 and max of that interval alone, and how many workers were still reading.",
};

static void
put_help_line(ReturnSetInfo *rsinfo, const char *line)
{
	Datum		value = CStringGetTextDatum(line);
	bool		isnull = false;

	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
}

Datum
ranread_help(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	for (int i = 0; i < lengthof(help_lines); i++)
	{
		if (help_lines[i] != HELP_MODES)
		{
			put_help_line(rsinfo, help_lines[i]);
			continue;
		}
		for (int j = 0; j < ranread_readpath_count(); j++)
		{
			const RanreadReadPath *path = ranread_readpath_by_index(j);

			put_help_line(rsinfo, psprintf("    - mode '%s': %s.", path->name, path->description));
		}
	}
	return (Datum) 0;
}
