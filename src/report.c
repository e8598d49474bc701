/*-------------------------------------------------------------------------
 *
 * report.c
 *		What the leader tells its caller: a warning before a run that will
 *		re-read blocks, RanRead's NOTICEs and the warnings after it, and the
 *		row ranread_run() returns.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "ranread.h"
#include "readpath.h"
#include "run.h"

/* Warn when more than this fraction of reads will re-read a block. */
#define REREAD_WARNING_FRACTION	0.05

/* Warn when less than this share of the bytes read came from storage. */
#define PHYSICAL_WARNING_PCT	95.0

/* Point out readahead when the kernel fetched this much more than asked. */
#define READAHEAD_NOTICE_PCT	110.0

/*
 * Uniform random reads revisit units: of R reads over U units, about
 * U * (1 - exp(-R / U)) touch a unit for the first time.  Every other read
 * re-reads a block this run has already brought into the OS page cache, and
 * may be answered from memory.  Warn before the run when that is more than a
 * few percent.
 */
void
ranread_warn_about_rereads(const RanreadShared *shared)
{
	double		reads = (double) shared->params.processes * (double) shared->params.iterations;
	double		units = (double) shared->target_units;
	double		rereads;

	/* a time-based run's count is unknown */
	if ((ranread_readpath_by_index(shared->params.readpath)->flags & RANREAD_PATH_BYPASSES_PAGE_CACHE) ||
		shared->params.iterations == 0)
		return;
	rereads = 1.0 - units * (1.0 - exp(-reads / units)) / reads;
	if (rereads > REREAD_WARNING_FRACTION)
		ereport(WARNING,
				(errmsg("about %.0f%% of this run's reads will re-read a block read earlier in the run",
						rereads * 100.0),
				 errdetail("%.0f random reads over a target of %.0f read units; re-reads can be answered by the OS page cache instead of the device.",
						   reads, units),
				 errhint("Use fewer iterations or a larger target (ranread_setup).")));
}

/*
 * A latency in ms as the NOTICEs show it: two decimals, or as many as keep
 * three significant digits below 1 ms (0.0599, 0.500, 1.50, 12.35), so that
 * flash does not print as 0.00.
 */
static char *
format_ms(double ms)
{
	int			decimals = 2;

	if (ms > 0 && ms < 1)
		decimals = Min(6, 2 - (int) floor(log10(ms)));
	return psprintf("%.*f", decimals, ms);
}

/* Report how the run ended; errors out if a worker failed. */
void
ranread_report_run(const RanreadShared *shared, const RanreadBatchSummary *summary)
{
	const RanreadReadPath *readpath = ranread_readpath_by_index(shared->params.readpath);
	int			i;

	for (i = 0; i < shared->params.processes; i++)
	{
		const RanreadWorkerSlot *slot = &shared->slots[i];

		if (slot->status == RANREAD_STATUS_RUNNING)
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("ranread worker %d of batch " INT64_FORMAT " exited without reporting its results",
							i + 1, shared->batch),
					 errhint("See the server log.")));
		if (slot->status == RANREAD_STATUS_FAILED)
			ereport(ERROR,
					(errcode(ERRCODE_IO_ERROR),
					 errmsg("ranread worker %d of batch " INT64_FORMAT " failed: %s",
							i + 1, shared->batch, slot->error_message),
					 errdetail("What the workers measured before the failure is recorded with status \"failed\".")));
		if (!slot->recorded)
			ereport(WARNING,
					(errmsg("results of ranread worker %d of batch " INT64_FORMAT " were not recorded",
							i + 1, shared->batch),
					 errdetail("%s", slot->error_message),
					 errhint("The role running ranread needs INSERT on ranread_results and ranread_batches.")));
	}

	if (!shared->batch_recorded)
		ereport(WARNING,
				(errmsg("the summary row of ranread batch " INT64_FORMAT " was not recorded", shared->batch),
				 errdetail("See the server log for the reason."),
				 errhint("The role running ranread needs INSERT on ranread_batches.")));
	if (summary->reads == 0)
	{
		ereport(NOTICE,
				(errmsg("batch " INT64_FORMAT " read nothing (%s)",
						shared->batch, ranread_status_name(summary->status))));
		return;
	}
	ereport(NOTICE,
			(errmsg("%d processes (" INT64_FORMAT " iterations) average response time = %sms",
					shared->params.processes,
					shared->params.iterations > 0 ? shared->params.iterations : summary->reads / shared->params.processes,
					format_ms(summary->latency.mean_ms))));
	ereport(NOTICE,
			(errmsg("Calculated IOPS = %.0f", summary->iops)));
	ereport(NOTICE,
			(errmsg("latency percentiles: p50 = %sms, p99 = %sms, max = %sms",
					format_ms(summary->latency.p50_ms), format_ms(summary->latency.p99_ms),
					format_ms(summary->latency.max_ms))));
	if (summary->device_sampled)
		ereport(NOTICE,
				(errmsg("device %s: %.0f reads/s, average read wait %sms, %.0f%% utilised",
						shared->device.name, summary->device_reads_per_s,
						format_ms(summary->device_read_wait_ms), summary->device_util_pct)));
	else
		ereport(NOTICE,
				(errmsg("no device statistics: the target's file system is not on a block device listed in /proc/diskstats")));
	if (readpath->flags & RANREAD_PATH_COUNTS_BUFFER_HITS)
		ereport(NOTICE,
				(errmsg("shared buffers: " INT64_FORMAT " hits, " INT64_FORMAT " misses",
						summary->buffer_hits, summary->buffer_misses)));
	if (summary->physical_pct < PHYSICAL_WARNING_PCT)
		ereport(WARNING,
				(errmsg("only %.0f%% of the bytes read in batch " INT64_FORMAT " were fetched from storage",
						summary->physical_pct, shared->batch),
				 errdetail("The rest was answered from memory (%s), so the latencies are not the device's.",
						   readpath->memory_hit),
				 errhint("Is the target smaller than twice the server's memory, was evict turned off, or was the target prewarmed?")));
	else if (summary->physical_pct > READAHEAD_NOTICE_PCT)
		ereport(NOTICE,
				(errmsg("the kernel fetched %.0f%% of the bytes requested: its readahead was part of each read",
						summary->physical_pct),
				 errhint("Mode %s issues each read of block_size bytes as one request, without readahead.",
						 ranread_readpath_names(RANREAD_PATH_BYPASSES_PAGE_CACHE))));
	if (summary->status != RANREAD_STATUS_COMPLETED)
		ereport(NOTICE,
				(errmsg("batch " INT64_FORMAT " was %s after " INT64_FORMAT " reads",
						shared->batch, ranread_status_name(summary->status), summary->reads)));
}

Datum
ranread_result_row(FunctionCallInfo fcinfo, const RanreadShared *shared,
		   const RanreadBatchSummary *summary)
{
	TupleDesc	tupdesc;
	Datum		values[15];
	bool		nulls[15] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int64GetDatum(shared->batch);
	values[1] = Int32GetDatum(shared->params.processes);
	values[2] = Int64GetDatum(shared->params.iterations);
	nulls[2] = shared->params.iterations == 0;
	values[3] = Float8GetDatum(summary->latency.mean_ms);
	values[4] = Float8GetDatum(summary->latency.p50_ms);
	values[5] = Float8GetDatum(summary->latency.p99_ms);
	values[6] = Float8GetDatum(summary->latency.max_ms);
	values[7] = Float8GetDatum(summary->iops);
	values[8] = Float8GetDatum(summary->mb_per_s);
	values[9] = CStringGetTextDatum(ranread_status_name(summary->status));
	values[10] = CStringGetTextDatum(ranread_readpath_by_index(shared->params.readpath)->name);
	values[11] = Int32GetDatum(shared->params.block_size);
	values[12] = Float8GetDatum(summary->physical_pct);
	values[13] = Int64GetDatum(summary->buffer_hits);
	nulls[13] = !(ranread_readpath_by_index(shared->params.readpath)->flags & RANREAD_PATH_COUNTS_BUFFER_HITS);
	values[14] = Float8GetDatum(summary->device_util_pct);
	nulls[14] = !summary->device_sampled;
	for (int i = 3; i <= 6; i++)
		nulls[i] = summary->reads == 0;
	nulls[12] = summary->reads == 0;
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls));
}
