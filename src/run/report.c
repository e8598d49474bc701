/*-------------------------------------------------------------------------
 *
 * report.c
 *		What the leader tells its caller: a warning before a run that will
 *		re-read blocks, RanRead's NOTICEs and the warnings after it (each
 *		WARNING also kept for the batch's row: batch_warnings.c), and the
 *		row ranread_run() returns.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "catalog/namespace.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

#include "batch_warnings.h"
#include "extension.h"
#include "format.h"
#include "ranread.h"
#include "readpath/readpath.h"
#include "run/report.h"
#include "record/checkpoint_window.h"
#include "record/results.h"
#include "rules/run_rules.h"
#include "record/series.h"
#include "rules/bucket_rules.h"
#include "rules/series_rules.h"
#include "record/stat_io.h"

/* Warn when the device answered less than this share of the reads. */
#define PHYSICAL_WARNING_PCT	95.0

/* An open-loop run that achieved less than this share of its rate did not keep it. */
#define OPEN_LOOP_KEPT_SHARE	0.95

/* A sequential run's proof: the kernel fetched at least this share of what it read. */
#define SEQUENTIAL_FETCHED_SHARE	0.90

/* Point out readahead when the kernel fetched this much more than asked. */
#define READAHEAD_NOTICE_FACTOR	1.10

/*
 * A run reads every unit once, in a random order, before it reads any unit
 * again (permutation.c), and the OS page cache can answer its re-reads.
 * Refuse, before anything starts (no batch, nothing recorded), a run of
 * iterations on a read path through the page cache that asks for more reads
 * than the target has units, unless allow_rereads asks for that on purpose.
 * Direct reads bypass the cache, so their re-reads go to the device; a
 * time-based run ends when every unit has been read once instead
 * (worker.c).
 *
 * With free_slots >= 0 (a run about to start, not a fleet's check), refuse
 * also a run whose workers (processes and writers) need more background
 * worker slots than are free, before a batch number is drawn; a run that
 * meets both limits is told of both at once, and the HINT proposes a call
 * this server can start and the max_worker_processes the asked one needs.
 */
void
ranread_refuse_rereads(const RanreadParams *params, int64 units, int free_slots)
{
	int64		reads = (int64) params->processes * params->iterations;
	int64		rereads = ranread_rereads(params->processes, params->iterations, units);
	int64		fit = ranread_iterations_without_rereads(params->processes, params->iterations, units);
	int			workers = params->processes + params->writers;
	bool		reread_limit;
	bool		slot_limit;
	int			can_processes;
	int64		can_iterations;
	int			needed_setting;

	reread_limit = !((ranread_readpath_by_index(params->readpath)->flags & RANREAD_PATH_BYPASSES_PAGE_CACHE) ||
					 params->allow_rereads || ranread_distribution_skewed(&params->distribution) || rereads == 0);
	slot_limit = free_slots >= 0 && workers > free_slots;
	if (!reread_limit && !slot_limit)
		return;
	/* the most processes this server can start now, and their iterations without re-reads */
	can_processes = Min(params->processes, Max(free_slots - params->writers, 0));
	can_iterations = !reread_limit ? params->iterations :
		ranread_iterations_without_rereads(can_processes, params->iterations, units);
	needed_setting = max_worker_processes + workers - free_slots;
	if (!reread_limit)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start %d ranread workers", workers),
				 errdetail_plural("Only %d background worker slot is free (max_worker_processes = %d); nothing was started.",
								  "Only %d background worker slots are free (max_worker_processes = %d); nothing was started.",
								  free_slots, free_slots, max_worker_processes),
				 can_processes > 0 ?
				 errhint("Use processes => %d or fewer, or set max_worker_processes to at least %d and restart the server.",
						 can_processes, needed_setting) :
				 errhint("Set max_worker_processes to at least %d and restart the server.", needed_setting)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%.0f%% of this run's reads would re-read a unit read earlier in the run",
					100.0 * (double) rereads / (double) reads),
			 errdetail("The run asks for " INT64_FORMAT " reads (%d x " INT64_FORMAT " iterations) of target \"%s\", which has " INT64_FORMAT " read units of %d kB: the last " INT64_FORMAT " reads would re-read a unit, and the OS page cache can answer them instead of the device.%s Nothing was run.",
					   reads, params->processes, params->iterations, params->target_name,
					   units, params->block_size / 1024, rereads,
					   slot_limit ? psprintf(" Its %d workers would also need more background worker slots than the %d free (max_worker_processes = %d).",
											 workers, free_slots, max_worker_processes) : ""),
			 slot_limit && can_processes > 0 && can_iterations > 0 ?
			 errhint("This server can start processes => %d with iterations => " INT64_FORMAT " or fewer; for %d processes set max_worker_processes to at least %d and restart the server, and use iterations => " INT64_FORMAT " or fewer.",
					 can_processes, can_iterations, params->processes, needed_setting, fit) :
			 slot_limit ?
			 errhint("Set max_worker_processes to at least %d and restart the server, use a larger target (ranread_setup), or pass allow_rereads => true to measure re-reads on purpose.",
					 needed_setting) :
			 fit > 0 ?
			 errhint_plural("Use iterations => " INT64_FORMAT " or fewer with %d process, fewer processes, or a larger target (ranread_setup); or pass allow_rereads => true to measure re-reads on purpose.",
							"Use iterations => " INT64_FORMAT " or fewer with %d processes, fewer processes, or a larger target (ranread_setup); or pass allow_rereads => true to measure re-reads on purpose.",
							params->processes, fit, params->processes) :
			 errhint("Use fewer processes or a larger target (ranread_setup); or pass allow_rereads => true to measure re-reads on purpose.")));
}

/*
 * With allow_rereads, warn before a run of iterations that will re-read
 * units, since its re-reads can be answered by the OS page cache.
 */
void
ranread_warn_about_rereads(const RanreadShared *shared)
{
	int64		reads = (int64) shared->params.processes * shared->params.iterations;
	int64		units = shared->target_units;
	int64		rereads = ranread_rereads(shared->params.processes, shared->params.iterations, units);

	if ((ranread_readpath_by_index(shared->params.readpath)->flags & RANREAD_PATH_BYPASSES_PAGE_CACHE) ||
		ranread_distribution_skewed(&shared->params.distribution) || rereads == 0)
		return;
	RANREAD_BATCH_WARNING(
			(errmsg("%.0f%% of this run's reads will re-read a unit read earlier in the run",
					100.0 * (double) rereads / (double) reads),
			 errdetail("The run asks for " INT64_FORMAT " reads of a target of " INT64_FORMAT " read units: it reads every unit once before any again, and the last " INT64_FORMAT " reads can be answered by the OS page cache instead of the device.",
					   reads, units, rereads),
			 errhint("Use fewer iterations or a larger target (ranread_setup).")));
}

/*
 * The level of the batch's plain NOTICEs: in a program made of batches (a
 * sweep, a layers run, a calibration), which says one line a step of its
 * own, they are DEBUG1, which a caller sees with client_min_messages =
 * debug1 and the server log with log_min_messages = debug1; WARNINGs are
 * sent either way.
 */
static int
report_level(const RanreadShared *shared)
{
	return shared->params.sweep != 0 || shared->params.layers != 0 ||
		shared->params.calibration != 0 ? DEBUG1 : NOTICE;
}

/*
 * What the batch's series and schedule say: the steady state, a sharp fall
 * in IOPS partway or a level shift down that fits a burst bucket running
 * empty (bucket_rules.c), and for an open loop its service times and whether
 * it kept its rate.
 */
static void
report_over_time(const RanreadShared *shared, const RanreadBatchSummary *summary)
{
	const RanreadParams *params = &shared->params;
	const RanreadSeries *series = ranread_series_of(shared);
	int			notice = report_level(shared);
	RanreadDrop drop;
	RanreadBucket bucket;
	bool		bucket_found;
	char	   *bucket_text = NULL;

	/* a bucket is the device's: not where memory answered the reads (the CPU's share moves) */
	bucket_found = (summary->physical_pct < 0 || summary->physical_pct >= RANREAD_BUCKET_MIN_PHYSICAL_PCT) &&
		ranread_series_find_bucket(series->intervals, series->count, params->processes,
								   &bucket) == RANREAD_BUCKET_FOUND;
	if (bucket_found)
		bucket_text = psprintf("As a burst bucket: a burst of %s ± %.1f reads/s, a baseline of %s ± %.1f reads/s, "
							   "a bucket of %.0f ± %.0f reads when counting began, empty after %.1f s and %.0f reads.",
							   ranread_format_rate(bucket.burst_iops), bucket.burst_band,
							   ranread_format_rate(bucket.baseline_iops), bucket.baseline_band,
							   bucket.bucket_reads, bucket.bucket_band, bucket.shift_s, bucket.reads_to_shift);

	if (params->steady_window_ns > 0 && series->steady_at_s >= 0)
		ereport(notice,
				(errmsg("steady state after %.1f s: IOPS and mean latency stayed within %g%% of their means for %.1f s",
						series->steady_at_s, params->steady_band_pct, (double) params->steady_window_ns / 1e9)));
	else if (params->steady_window_ns > 0)
		ereport(notice,
				(errmsg("no steady state within the duration: IOPS or mean latency moved more than %g%% over every %.1f s window",
						params->steady_band_pct, (double) params->steady_window_ns / 1e9),
				 errhint("See ranread_series for batch " INT64_FORMAT ".", shared->batch)));
	if (ranread_series_find_drop(series->intervals, series->count, params->processes, &drop))
		RANREAD_BATCH_WARNING(
				(errmsg("IOPS fell from %s to %s after %.0f s: a burst allowance or a throttle?",
						ranread_format_rate(drop.from_iops), ranread_format_rate(drop.to_iops), drop.after_s),
				 errdetail("The last third of batch " INT64_FORMAT " averaged less than half the IOPS of its first third; its average IOPS describe neither.%s%s",
						   shared->batch, bucket_found ? " " : "", bucket_found ? bucket_text : ""),
				 errhint("See ranread_series for batch " INT64_FORMAT ", and run longer to measure the rate the storage sustains.",
						 shared->batch)));
	else if (bucket_found)
		RANREAD_BATCH_WARNING(
				(errmsg("IOPS shifted down from %s to %s reads/s after %.1f s: a burst bucket ran empty?",
						ranread_format_rate(bucket.burst_iops), ranread_format_rate(bucket.baseline_iops),
						bucket.shift_s),
				 errdetail("%s Its average IOPS describe neither level.", bucket_text),
				 errhint("See ranread_series for batch " INT64_FORMAT ", and run longer to measure the rate the storage sustains.",
						 shared->batch)));
	if (series->full)
		ereport(notice,
				(errmsg("ranread_intervals holds the first %d intervals of batch " INT64_FORMAT " only",
						series->count, shared->batch),
				 errhint("Use a longer sample_interval, or a duration.")));
	if (params->rate_iops <= 0)
		return;
	ereport(notice,
			(errmsg("service time (from issuing each read): mean = %sms, p50 = %sms, p99 = %sms",
					ranread_format_ms(summary->service.mean_ms), ranread_format_ms(summary->service.p50_ms),
					ranread_format_ms(summary->service.p99_ms)),
			 errdetail("The response times above count from when each read was due, at %s reads/s.",
					   ranread_format_rate(params->rate_iops))));
	if (summary->iops < OPEN_LOOP_KEPT_SHARE * params->rate_iops)
		RANREAD_BATCH_WARNING(
				(errmsg("batch " INT64_FORMAT " did not keep its rate: %s reads/s asked, %s achieved (%.0f%%)",
						shared->batch, ranread_format_rate(params->rate_iops), ranread_format_rate(summary->iops),
						100.0 * summary->iops / params->rate_iops),
				 errdetail("Reads fell behind their schedule; their response times include the wait."),
				 errhint("Use more processes, or a lower rate_iops: the storage or the workers are saturated.")));
	if (ranread_open_loop_queued(summary->latency.mean_ms, summary->service.mean_ms))
		RANREAD_BATCH_WARNING(
				(errmsg("batch " INT64_FORMAT " was queueing: its mean response time of %sms is %.0f times its mean service time of %sms",
						shared->batch, ranread_format_ms(summary->latency.mean_ms),
						summary->latency.mean_ms / summary->service.mean_ms,
						ranread_format_ms(summary->service.mean_ms)),
				 errdetail_plural("Reads waited for their turn: %s reads/s is more than the storage serves with %d process at this latency, so the response times measure the queue (more than %.0f times the service time counts as queueing).",
								  "Reads waited for their turn: %s reads/s is more than the storage serves with %d processes at this latency, so the response times measure the queue (more than %.0f times the service time counts as queueing).",
								  params->processes,
								  ranread_format_rate(params->rate_iops), params->processes, RANREAD_QUEUEING_FACTOR),
				 errhint("Use a lower rate_iops or more processes.")));
}

/*
 * What a run of another distribution than uniform read from memory: a
 * skewed one re-reads its hot units on purpose, so its hit ratio is the
 * result, not a fault; a sequential one reads what the kernel's readahead
 * brought in, so its proof is the bytes fetched from storage per read.
 */
static void
report_distribution(const RanreadShared *shared, const RanreadBatchSummary *summary)
{
	const RanreadReadPath *readpath = ranread_readpath_by_index(shared->params.readpath);
	char	   *distribution = ranread_distribution_text(&shared->params.distribution);
	int64		blocks = summary->buffer_hits + summary->buffer_misses;

	if (ranread_distribution_skewed(&shared->params.distribution) && summary->physical_pct >= 0)
		ereport(report_level(shared),
				(errmsg("distribution %s: %.1f%% of the reads found their unit in memory (%s)",
						distribution, 100.0 - summary->physical_pct, readpath->memory_hit),
				 (readpath->flags & RANREAD_PATH_COUNTS_BUFFER_HITS) && blocks > 0 ?
				 errdetail("Shared buffers answered %.1f%% of the blocks read. A skewed distribution re-reads its hot units on purpose: the latencies are those of a workload with this hit ratio, not the device's.",
						   100.0 * (double) summary->buffer_hits / (double) blocks) :
				 errdetail("A skewed distribution re-reads its hot units on purpose: the latencies are those of a workload with this hit ratio, not the device's.")));
	else if (summary->kb_per_read < 0)
		return;
	else if (summary->kb_per_read * 1024.0 >= SEQUENTIAL_FETCHED_SHARE * shared->params.block_size)
		ereport(report_level(shared),
				(errmsg("distribution sequential: the kernel fetched %.1f kB from storage per read of %d kB, with its readahead",
						summary->kb_per_read, shared->params.block_size / 1024)));
	else
		RANREAD_BATCH_WARNING(
				(errmsg("the kernel fetched only %.1f kB from storage per sequential read of %d kB in batch " INT64_FORMAT,
						summary->kb_per_read, shared->params.block_size / 1024, shared->batch),
				 errdetail("The rest was in memory before the batch read it, so its reads are not the device's."),
				 errhint("Is the target smaller than twice the server's memory, or was evict turned off?")));
}

/*
 * Whether readahead for PostgreSQL's I/O workers is what answered a batch's
 * reads in place of the device: its reads ran in the I/O workers
 * (io_method = worker), which read through descriptors of their own where
 * the device's readahead applies, and nothing else could have put its units
 * in memory (the target evicted first, no unit read twice, a uniform draw,
 * the device known).
 */
static bool
io_worker_readahead_answered(const RanreadShared *shared, const RanreadBatchSummary *summary)
{
	return shared->io_worker_bytes >= 0 && shared->params.evict && summary->wrapped_reads == 0 &&
		shared->params.distribution.kind == RANREAD_DISTRIBUTION_UNIFORM && shared->device.found &&
		summary->physical_pct >= 0 && summary->physical_pct < PHYSICAL_WARNING_PCT;
}

/*
 * A batch whose reads the I/O workers' readahead answered in part: the
 * cause, its size and the fix.  The device's read_ahead_kb now; when it is 0
 * now, the I/O workers still read with what it was when they opened the
 * target, until the server restarts.  (A layers run says it in its own
 * WARNING.)
 */
static void
report_io_worker_readahead(const RanreadShared *shared, const RanreadBatchSummary *summary)
{
	int			read_ahead_kb = ranread_device_read_ahead_kb(shared->device.name);
	double		device_reads = summary->device_sampled && summary->reads > 0 ?
		summary->device_reads_per_s * summary->wall_s / summary->reads : -1;
	char	   *fetched = psprintf("The I/O workers fetched %.1f kB per read%s.", summary->kb_per_read,
								   device_reads >= 0 ? psprintf(", in %.2f device reads per read", device_reads) : "");

	RANREAD_BATCH_REPORT(shared->params.layers != 0 ? DEBUG1 : WARNING,
			(errmsg("only %.0f%% of the reads in batch " INT64_FORMAT " were answered by the device: the kernel's readahead for PostgreSQL's I/O workers read the rest in before them",
					summary->physical_pct, shared->batch),
			 read_ahead_kb != 0 ?
			 errdetail("Under io_method = worker the I/O workers read through file descriptors of their own, where device %s reads %s ahead (read_ahead_kb): each read brought its neighbours into the OS page cache, where later reads of the batch found them. %s ranread turns readahead off on its workers' own descriptors only.",
					   shared->device.name,
					   read_ahead_kb > 0 ? psprintf("%d kB", read_ahead_kb) : "as its queue says", fetched) :
			 errdetail("Under io_method = worker the I/O workers read through file descriptors of their own, which keep the readahead device %s had when they opened the target (its read_ahead_kb is 0 now): each read brought its neighbours into the OS page cache, where later reads of the batch found them. %s",
					   shared->device.name, fetched),
			 read_ahead_kb != 0 ?
			 errhint("To measure the device, set its read_ahead_kb to 0 for the run (as root: echo 0 > /sys/class/block/%s/queue/read_ahead_kb%s) and restart the server, or set io_method = io_uring.",
					 shared->device.name, read_ahead_kb > 0 ? psprintf(", and %d after", read_ahead_kb) : "") :
			 errhint("Restart the server, so that its I/O workers open the target with no readahead, or set io_method = io_uring.")));
}

/*
 * A worker that could not ask the page cache what it held (a file system
 * that refuses mappings, on a kernel without cachestat()) read on without
 * the proof: say so once, with its reason.
 */
static void
report_residency_unknown(const RanreadShared *shared)
{
	for (int i = 0; i < shared->params.processes; i++)
	{
		const RanreadWorkerSlot *slot = &shared->slots[i];

		if (slot->residency_unavailable[0] == '\0' || slot->hist.count == 0)
			continue;
		ereport(NOTICE,
				(errmsg("no proof of physical reads for batch " INT64_FORMAT ": physical_pct is unknown", shared->batch),
				 errdetail("Ranread could not ask which units the OS page cache held: %s.",
						   slot->residency_unavailable),
				 errhint("Linux 6.5 and later answer through cachestat(); mode 'direct' needs no proof, since it bypasses the page cache.")));
		return;
	}
}

/*
 * What the writers could not do: a writer that failed or vanished (the reads
 * ran on beside fewer writes than asked), and rows not recorded (their
 * figures are in the server log).  Warnings, not errors: the reads were
 * measured and recorded.
 */
static void
report_writers(const RanreadShared *shared)
{
	for (int i = 0; i < shared->params.writers; i++)
	{
		const RanreadWriterSlot *slot = ranread_writer_slot(shared, i);

		if (slot->status == RANREAD_STATUS_RUNNING)
			RANREAD_BATCH_WARNING(
					(errmsg("ranread writer %d of batch " INT64_FORMAT " exited without reporting its writes",
							i + 1, shared->batch),
					 errdetail("The reads after it ran beside fewer writes than asked."),
					 errhint("See the server log.")));
		else if (slot->status == RANREAD_STATUS_FAILED)
			RANREAD_BATCH_WARNING(
					(errmsg("ranread writer %d of batch " INT64_FORMAT " failed after " UINT64_FORMAT " writes: %s",
							i + 1, shared->batch, slot->hist.count, slot->error_message),
					 errdetail("The reads after it ran beside fewer writes than asked; ranread_write_results records its writes with status \"failed\".")));
		if (!slot->recorded && slot->status != RANREAD_STATUS_RUNNING)
			RANREAD_BATCH_WARNING(
					(errmsg("results of ranread writer %d of batch " INT64_FORMAT " were not recorded",
							i + 1, shared->batch),
					 errdetail("The server log has what it measured."),
					 errhint(RANREAD_NOT_RECORDED_HINT)));
	}
	if (shared->params.writers > 0 && shared->activity_start.taken && shared->activity_end.taken &&
		shared->activity_end.hot_updates - shared->activity_start.hot_updates <
		shared->activity_end.updates - shared->activity_start.updates)
		RANREAD_BATCH_WARNING(
				(errmsg(INT64_FORMAT " of the " INT64_FORMAT " updates of ranread write target \"%s\" during batch " INT64_FORMAT " left their row's page",
						(shared->activity_end.updates - shared->activity_start.updates) -
						(shared->activity_end.hot_updates - shared->activity_start.hot_updates),
						shared->activity_end.updates - shared->activity_start.updates,
						shared->params.write_target_name, shared->batch),
				 errdetail("Such an update writes a second page and an index entry, and grows the write target: those writes cost more than the one-page writes the batch means."),
				 errhint("Use fewer writes a row (write_rate_iops and duration against the write target's rows), or a larger write target (ranread_setup_writes).")));
	if (shared->params.writers > 0 && !shared->activity_recorded)
		RANREAD_BATCH_WARNING(
				(errmsg("the ranread_db_activity row of ranread batch " INT64_FORMAT " was not recorded", shared->batch),
				 errdetail("The server log has its figures."),
				 errhint(RANREAD_NOT_RECORDED_HINT)));
}

/*
 * Whether the writers kept write_rate_iops: every write over the longest
 * writer's time from the release, as ranread_write_summary counts it (a
 * writer that failed or vanished has its own WARNING above).  Open loop as
 * the readers' rate_iops, so the same share decides; a late write starts
 * at once, so the writes' times are service times and the shortfall is
 * said only here.
 */
static void
report_write_rate(const RanreadShared *shared)
{
	uint64		writes = 0;
	double		elapsed_s = 0;
	double		achieved;

	for (int i = 0; i < shared->params.writers; i++)
	{
		const RanreadWriterSlot *slot = ranread_writer_slot(shared, i);

		if (slot->status != RANREAD_STATUS_COMPLETED)
			return;
		elapsed_s = Max(elapsed_s, ranread_writer_elapsed_s(shared, i));
		writes += slot->hist.count;
	}
	if (shared->params.writers == 0 || elapsed_s <= 0)
		return;
	achieved = (double) writes / elapsed_s;
	if (achieved < OPEN_LOOP_KEPT_SHARE * shared->params.write_rate_iops)
		RANREAD_BATCH_WARNING(
				(errmsg("the writers of batch " INT64_FORMAT " did not keep their rate: %s writes/s asked, %s achieved (%.0f%%)",
						shared->batch, ranread_format_rate(shared->params.write_rate_iops),
						ranread_format_rate(achieved), 100.0 * achieved / shared->params.write_rate_iops),
				 errdetail("Writes fell behind their schedule: the reads ran beside fewer writes than asked, and each write's time is its own, without the wait."),
				 errhint("Use more writers, or a lower write_rate_iops: the storage of pg_wal, a lock or the writers held the writes back.")));
}

/*
 * A batch of writers alone (processes => 0): their writes, as RanRead's
 * NOTICEs say reads; their rows in ranread_write_results have the same.
 */
static void
report_writers_alone(const RanreadShared *shared, const RanreadBatchSummary *summary, int notice)
{
	RanreadHistogram *all = palloc(sizeof(RanreadHistogram));
	RanreadLatency latency;

	ranread_hist_init(all);
	for (int i = 0; i < shared->params.writers; i++)
		ranread_hist_merge(all, &ranread_writer_slot(shared, i)->hist);
	ranread_hist_latency(all, &latency);
	ereport(notice,
			(errmsg_plural("batch " INT64_FORMAT ": %d writer alone committed " UINT64_FORMAT " writes in %.1f s, %.0f writes/s of %.0f asked (%s)",
						   "batch " INT64_FORMAT ": %d writers alone committed " UINT64_FORMAT " writes in %.1f s, %.0f writes/s of %.0f asked (%s)",
						   shared->params.writers,
						   shared->batch, shared->params.writers, all->count, summary->wall_s,
						   summary->wall_s > 0 ? (double) all->count / summary->wall_s : 0,
						   shared->params.write_rate_iops, ranread_status_name(summary->status))));
	if (all->count > 0)
		ereport(notice,
				(errmsg("write latency, transaction start to commit: mean = %sms, p50 = %sms, p99 = %sms, max = %sms",
						ranread_format_ms(latency.mean_ms), ranread_format_ms(latency.p50_ms),
						ranread_format_ms(latency.p99_ms), ranread_format_ms(latency.max_ms))));
	pfree(all);
}

/* Report how the run ended; errors out if a worker failed. */
void
ranread_report_run(const RanreadShared *shared, const RanreadBatchSummary *summary)
{
	const RanreadReadPath *readpath = ranread_readpath_by_index(shared->params.readpath);
	int			notice = report_level(shared);
	int			i;

	/* first, since a failed reader ends the report with an error */
	report_writers(shared);
	report_write_rate(shared);
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
			RANREAD_BATCH_WARNING(
					(errmsg("results of ranread worker %d of batch " INT64_FORMAT " were not recorded",
							i + 1, shared->batch),
					 errdetail("%s", slot->error_message),
					 errhint(RANREAD_NOT_RECORDED_HINT)));
	}

	if (!shared->batch_recorded)
		RANREAD_BATCH_WARNING(
				(errmsg("the summary row of ranread batch " INT64_FORMAT " was not recorded", shared->batch),
				 shared->batch_error[0] != '\0' ? errdetail("%s.", shared->batch_error) :
				 errdetail("See the server log for the reason."),
				 errhint(RANREAD_NOT_RECORDED_HINT)));
	if (shared->params.processes == 0)
	{
		report_writers_alone(shared, summary, notice);
		return;
	}
	if (summary->reads == 0)
	{
		ereport(notice,
				(errmsg("batch " INT64_FORMAT " read nothing (%s)",
						shared->batch, ranread_status_name(summary->status))));
		return;
	}
	ereport(notice,
			(errmsg_plural("%d process (" INT64_FORMAT " iterations) average response time = %sms",
						   "%d processes (" INT64_FORMAT " iterations) average response time = %sms",
						   shared->params.processes,
						   shared->params.processes,
						   shared->params.iterations > 0 ? shared->params.iterations : summary->reads / shared->params.processes,
						   ranread_format_ms(summary->latency.mean_ms))));
	ereport(notice,
			(errmsg("Calculated IOPS = %.0f", summary->iops)));
	ereport(notice,
			(errmsg("latency percentiles: p50 = %sms, p99 = %sms, max = %sms",
					ranread_format_ms(summary->latency.p50_ms), ranread_format_ms(summary->latency.p99_ms),
					ranread_format_ms(summary->latency.max_ms))));
	if (summary->device_sampled)
		ereport(notice,
				(errmsg("device %s: %.0f reads/s, average read wait %sms, %.0f%% utilised",
						shared->device.name, summary->device_reads_per_s,
						ranread_format_ms(summary->device_read_wait_ms), summary->device_util_pct)));
	else
		ereport(notice,
				(errmsg("no device statistics: the target's file system is not on a block device listed in /proc/diskstats")));
	if (readpath->flags & RANREAD_PATH_COUNTS_BUFFER_HITS)
		ereport(notice,
				(errmsg("shared buffers: " INT64_FORMAT " hits, " INT64_FORMAT " misses",
						summary->buffer_hits, summary->buffer_misses)));
	if (summary->status == RANREAD_STATUS_COMPLETED &&
		ranread_stat_io_disagrees(shared, summary->buffer_misses))
		RANREAD_BATCH_WARNING(
				(errmsg("pg_stat_io and ranread disagree on the reads of batch " INT64_FORMAT, shared->batch),
				 errdetail("pg_stat_io counted " INT64_FORMAT " blocks read by background workers during the batch and ranread " INT64_FORMAT " buffer misses, more apart than %d%% of the misses plus %d blocks per process.",
						   shared->stat_io_blocks, summary->buffer_misses,
						   RANREAD_STAT_IO_MARGIN_PCT, RANREAD_STAT_IO_MARGIN_PER_PROCESS),
				 errhint("Another background worker may have read meanwhile (parallel query, say); otherwise the reads were not the ones ranread counted.")));
	report_residency_unknown(shared);
	if (shared->params.distribution.kind != RANREAD_DISTRIBUTION_UNIFORM)
		report_distribution(shared, summary);
	else if (io_worker_readahead_answered(shared, summary))
		report_io_worker_readahead(shared, summary);
	else if (summary->physical_pct >= 0 && summary->physical_pct < PHYSICAL_WARNING_PCT)
		/* a layers run ends at such a batch with one WARNING of its own (layers.c) */
		RANREAD_BATCH_REPORT(shared->params.layers != 0 ? DEBUG1 : WARNING,
				(errmsg("only %.0f%% of the reads in batch " INT64_FORMAT " were answered by the device",
						summary->physical_pct, shared->batch),
				 errdetail("The rest found their unit in memory (%s) before they were issued, so the latencies are not the device's.",
						   readpath->memory_hit),
				 errhint("Is the target smaller than twice the server's memory, was evict turned off, was the target prewarmed, or did readahead bring units in (see kb_per_read)?")));
	if (summary->kb_per_read * 1024.0 > READAHEAD_NOTICE_FACTOR * shared->params.block_size &&
		shared->params.distribution.kind != RANREAD_DISTRIBUTION_SEQUENTIAL)
		ereport(notice,
				(errmsg("the kernel fetched %.1f kB from storage per read of %d kB: its readahead was part of the reads",
						summary->kb_per_read, shared->params.block_size / 1024),
				 errhint("Mode %s issues each read of block_size bytes as one request, without readahead.",
						 ranread_readpath_names(RANREAD_PATH_BYPASSES_PAGE_CACHE))));
	if (summary->wrapped_reads > 0 && shared->params.iterations == 0 &&
		!(readpath->flags & RANREAD_PATH_BYPASSES_PAGE_CACHE))
		RANREAD_BATCH_WARNING(
				(errmsg("batch " INT64_FORMAT " read every unit of its target and went on: " INT64_FORMAT " of its " INT64_FORMAT " reads re-read a unit",
						shared->batch, summary->wrapped_reads, summary->reads),
				 errdetail("Re-reads can be answered by the OS page cache instead of the device; wrapped_reads in ranread_summary counts them."),
				 errhint("Use a shorter duration or a larger target (ranread_setup).")));
	if (summary->ended_by != NULL && strcmp(summary->ended_by, "coverage") == 0 &&
		shared->params.duration_ns == 0)
		ereport(NOTICE,
				(errmsg("batch " INT64_FORMAT " ended after " INT64_FORMAT " of its " INT64_FORMAT " reads: its ramp and its reads had read every unit of its target once",
						shared->batch, summary->reads,
						shared->params.iterations * shared->params.processes),
				 errdetail("The target has " INT64_FORMAT " read units; the ramp's reads take units too, and reading on would re-read units the OS page cache can answer instead of the device.",
						   (int64) shared->target_units),
				 errhint("Use a larger target (ranread_setup), fewer iterations or a shorter ramp, or pass allow_rereads => true to read on.")));
	else if (summary->ended_by != NULL && strcmp(summary->ended_by, "coverage") == 0)
		ereport(NOTICE,
				(errmsg("batch " INT64_FORMAT " ended after %.1f s of its %.1f s duration: it had read every unit of its target once",
						shared->batch, summary->wall_s, (double) shared->params.duration_ns / 1e9),
				 errdetail("The target has " INT64_FORMAT " read units; reading on would re-read units the OS page cache can answer instead of the device.",
						   (int64) shared->target_units),
				 errhint("Use a larger target (ranread_setup) for a longer run, or pass allow_rereads => true to read on.")));
	if (summary->device_sampled &&
		ranread_device_was_shared(summary->device_bytes, summary->own_bytes))
		RANREAD_BATCH_WARNING(
				(errmsg("other I/O shared the device: %.0f%% of what %s read during batch " INT64_FORMAT " was not read for ranread",
						summary->device_shared_pct, shared->device.name, shared->batch),
				 errdetail("The device read %.1f MB (%.0f reads/s); the workers' reads made it read %.1f MB (%.1f kB per read). Its latencies and IOPS were shared with that other I/O.",
						   summary->device_bytes / BYTES_PER_MB, summary->device_reads_per_s,
						   summary->own_bytes / BYTES_PER_MB, summary->kb_per_read),
				 errhint("Run again when nothing else reads from %s (see iostat, pg_stat_activity); device_shared_pct in ranread_summary records the share.",
						 shared->device.name)));
	report_over_time(shared, summary);
	ranread_checkpoint_report(shared, notice);
	if (summary->status != RANREAD_STATUS_COMPLETED)
		ereport(notice,
				(errmsg("batch " INT64_FORMAT " was %s after " INT64_FORMAT " reads",
						shared->batch, ranread_status_name(summary->status), summary->reads)));
}

/*
 * ranread_run() returns a row of ranread_summary, so its caller must be
 * allowed to read the view: checked before the run, not after it.
 */
void
ranread_check_can_read_summary(void)
{
	const char *schema = ranread_extension_schema();
	Oid			view = get_relname_relid("ranread_summary", get_namespace_oid(schema, false));
	AclResult	aclresult;

	if (!OidIsValid(view))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("view \"%s.ranread_summary\" does not exist", schema)));
	aclresult = pg_class_aclcheck(view, GetUserId(), ACL_SELECT);
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_VIEW, "ranread_summary");
}

/*
 * ranread_run()'s row: the figures that decide (RANREAD_RUN_RESULT_COLUMNS),
 * from the batch's row as ranread_summary shows it, read with a fresh
 * snapshot (the last worker committed it after this statement
 * began, and under REPEATABLE READ too).  NULL, after the WARNING that says
 * so, when the row could not be recorded, or cannot be read back at once
 * because another session locks ranread_batches: the leader does not wait.
 */
Datum
ranread_result_row(FunctionCallInfo fcinfo, const RanreadBatchOutcome *outcome, bool *isnull)
{
	TupleDesc	tupdesc;
	MemoryContext caller_context = CurrentMemoryContext;
	SPIPlanPtr	plan;
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1] = {Int64GetDatum(outcome->batch)};
	Datum		result = (Datum) 0;
	const char *schema = ranread_extension_schema();
	Oid			batches;

	tupdesc = BlessTupleDesc(ranread_result_row_desc(fcinfo, RANREAD_RUN_RESULT_COLUMNS));
	*isnull = true;
	if (!outcome->recorded)
		return (Datum) 0;
	batches = get_relname_relid("ranread_batches", get_namespace_oid(schema, false));
	if (!OidIsValid(batches) || !ConditionalLockRelationOid(batches, AccessShareLock))
	{
		RANREAD_BATCH_WARNING(
				(errmsg("the row of ranread batch " INT64_FORMAT " was recorded but could not be read back", outcome->batch),
				 errdetail("Another session holds a lock on ranread_batches."),
				 errhint("SELECT * FROM ranread_summary WHERE batch = " INT64_FORMAT ";", outcome->batch)));
		return (Datum) 0;
	}

	SPI_connect();
	plan = SPI_prepare(psprintf("SELECT batch, status, iops, response_time_ms, p99_ms FROM %s.ranread_summary "
								"WHERE batch OPERATOR(pg_catalog.=) $1", quote_identifier(schema)),
					   1, argtypes);
	if (plan == NULL ||
		SPI_execute_snapshot(plan, args, NULL, GetLatestSnapshot(), InvalidSnapshot,
							 true, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read ranread_summary");
	*isnull = SPI_processed != 1;
	if (*isnull)
		RANREAD_BATCH_WARNING(
				(errmsg("the row of ranread batch " INT64_FORMAT " was recorded but is no longer there", outcome->batch),
				 errdetail("ranread_reset() or a DELETE removed it while the run was ending."),
				 errhint("Reset the history when no run is running.")));
	else
	{
		Datum	   *values = palloc(sizeof(Datum) * tupdesc->natts);
		bool	   *nulls = palloc(sizeof(bool) * tupdesc->natts);

		if (SPI_tuptable->tupdesc->natts != tupdesc->natts)
			elog(ERROR, "ranread_summary does not match ranread_run's result type");
		heap_deform_tuple(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, values, nulls);
		/* the row must outlive SPI_finish() */
		MemoryContextSwitchTo(caller_context);
		result = HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
	}
	SPI_finish();
	return result;
}
