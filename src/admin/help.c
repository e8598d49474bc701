/*-------------------------------------------------------------------------
 *
 * help.c
 *		ranread_help(): every entry point, one line each, then the read
 *		paths, one line each from their table.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "extension.h"
#include "readpath/readpath.h"

PG_FUNCTION_INFO_V1(ranread_help);

/*
 * ranread_help(): one line per entry point, each a short usage and what it
 * is for (at most 118 characters, so that psql prints it within 120 columns:
 * test/t/docs/signatures.pl); the read paths follow, one line each from their
 * table, at the marker.  Arguments are written as docs/reference.md
 * ("Functions") says: names in order, "[" before the first with a default,
 * "..." for the rest (test/t/docs/signatures.pl).
 */
#define HELP_MODES	NULL

static const char *const help_lines[] = {
	"ranread_setup([size, tablespace, target, log_level]): write a target; size NULL: twice the server's memory",
	"ranread_run(processes, iterations [, target, mode, ...]): one batch of timed reads: batch, status, IOPS, mean, p99",
	"distribution => 'uniform' (default), 'zipf:theta', 'hotset:P%/Q%' or 'sequential': which units a run reads",
	"ranread_setup_writes([size, tablespace, target]): a logged write target for writers, one row a page",
	"writers => N, write_rate_iops => R (with duration): N writers beside the readers, R writes/s in all, each timed",
	"ranread_write_summary: view, a batch's writes (rate, time to commit) and what the database did (WAL, checkpoints)",
	"checkpoint => 'during' (with writers, pg_checkpoint): a checkpoint a third in; read p99 inside it and outside",
	"processes => 0 (with writers and duration): writers alone (RanWrite), no reads; see ranread_write_summary",
	"CALL ranread_write_sweep([writers, ...]): step write_rate_iops until writes or reads leave the SLO, a verdict",
	"CALL ranread_sweep([start_processes, ...]): step until a stop rule; a verdict with bands, burst apart, of N sweeps",
	"ranread_verdict([sweep]): a sweep's verdict (default: the latest), a sentence a line",
	"ranread_limit(sweep): IOPS cap, bandwidth cap or the device, a burst bucket, with evidence (sweep with probe => ...)",
	"ranread_report: view, one short row per batch (sweep, step, processes, iops, mean_ms, p99_ms, physical_pct)",
	"ranread_summary: view, every column of every batch, RanRead's seven first (for export or \\x)",
	"ranread_sweeps: view, one row per sweep with its verdict (wide; ranread_verdict() reads better)",
	"ranread_series: view, each batch over time, one rounded row per sample_interval (from ranread_intervals)",
	"ranread_series_activity: view, each second beside what the server did: WAL, checkpoints, buffers written, device",
	"ranread_progress: view, what runs now in this database, the batch in total and any setup, a row each",
	"ranread_running(), ranread_setup_running(): what ranread_progress reads, per worker, every figure a number",
	"ranread_chart([sweep, ...]), ranread_chart_latency(VARIADIC batches), ranread_chart_intervals([batch, ...]): as SVG",
	"ranread_compare(batch_a, batch_b), ranread_compare_sweeps(sweep_a, sweep_b): side by side, against the noise",
	"ranread_report_html([sweep, batch, fleet, fleet_sweep, write_sweep, compare_to]): one of them, one HTML page to share",
	"ranread_layers([processes, iterations, ...]): the same units through each read path, each layer's share with its band",
	"ranread_calibrate([target, ...]): random_page_cost, effective_io_concurrency with bands; io_workers on 18",
	"ranread_fleet_run(servers [, processes, iterations, ...]): one run on many servers at once (dblink), gathered here",
	"CALL ranread_fleet_sweep(servers [, start_processes, ...]): step processes on every server at once, a fleet verdict",
	"ranread_fleet_summary: view, one row per fleet run (fleet sweep, step, IOPS summed, merged p99, overlap)",
	"ranread_chart_fleet([fleet_sweep, width, height]): a fleet sweep as SVG, IOPS stacked by server, fleet p99",
	"ranread_stop(): stop the running batch, sweep, layers run, calibration or fleet run (its servers too)",
	"ranread_reset(): delete your own history (a superuser's call: all of it)",
	"ranread_export(directory [, format, sweep, csv, svg]): write TSV, CSV, RanRead's file or charts to server files",
	"ranread_export_files([format, sweep, csv, svg]): the same files as rows, for psql to save on the client",
	"ranread_drop([target]): drop a target made by ranread_setup()",
	"ranread_histogram_merge(histogram), ranread_histogram_percentile(histogram, fraction): latency from histograms",
	"ranread.max_run_memory: setting (superusers), the most a run's read buffers may take; 1/16 of RAM by default",
	"ranread_help(): this list",
	HELP_MODES,
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
	ranread_check_result_columns(rsinfo->setDesc, 1);
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

			put_help_line(rsinfo, psprintf("mode => '%s': %s", path->name, path->description));
		}
	}
	return (Datum) 0;
}
