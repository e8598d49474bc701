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
	"ranread_run(processes int, iterations bigint, target name DEFAULT 'ranread_target', mode text DEFAULT 'smgr', block_size int DEFAULT 8192, duration interval DEFAULT NULL, evict boolean DEFAULT true, ramp interval DEFAULT NULL, sample_interval interval DEFAULT '1 s', steady_state interval DEFAULT NULL, steady_band_pct float8 DEFAULT 10, rate_iops float8 DEFAULT NULL, arrivals text DEFAULT NULL)",
	"    - Starts processes background workers that each time iterations (or, with duration, as many as fit) random reads of block_size bytes; records one row per worker in ranread_results, one per batch in ranread_batches and one per sample_interval in ranread_intervals, and returns the batch's row of ranread_summary.",
	HELP_MODES,
	"    - ramp: the first part of the run, read but not counted (part of duration). steady_state: end a time-based run once IOPS and mean latency stay within steady_band_pct of their means over this window.",
	"    - rate_iops: an open loop at this total rate ('uniform' or 'poisson' arrivals); latencies count from when each read was due, service_* columns from when it was issued.",
	"ranread_running()",
	"    - The batch running now, one row per worker: state, reads done, elapsed time, time left, IOPS, mean and p99 so far, read live from the run's shared memory by any session. No rows when nothing runs.",
	"ranread_stop()",
	"    - Stops every running ranread worker; the interrupted batch is recorded with status 'stopped'. Returns the number of workers stopped.",
	"ranread_reset()",
	"    - Deletes all history from ranread_results, ranread_batches and ranread_intervals. Returns the number of rows deleted from the first two.",
	"ranread_export(directory text)",
	"    - Writes ranread_summary to a new file directory/ranread_YYYYMMDD-HHMM.tsv (-2, -3 ... if taken; never overwrites; tab-separated, for spreadsheets). Returns the file's path.",
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
