/*-------------------------------------------------------------------------
 *
 * results.c
 *		From worker slots to numbers: per-worker and per-batch statistics, and
 *		the rows of ranread_results and ranread_batches (and, for a batch
 *		with writers, of ranread_write_results and ranread_db_activity).
 *
 * Workers record their own rows, each in its own transaction, so a run that
 * is stopped, or whose caller is cancelled, still leaves what it measured and
 * how it ended.  The leader uses the same summary for its NOTICEs and its
 * return value, so the table and the caller always agree.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "record/catch_error.h"
#include "stats/compare_noise.h"
#include "compat.h"
#include "ranread.h"
#include "readpath/readpath.h"
#include "record/results.h"
#include "record/row_builder.h"
#include "readpath/run_memory.h"
#include "rules/run_rules.h"
#include "record/series.h"
#include "rules/series_rules.h"
#include "record/checkpoint_window.h"
#include "record/db_activity.h"
#include "record/interval_activity.h"
#include "record/io_worker_bytes.h"
#include "record/stat_io.h"

/* The columns of ranread_intervals after batch, as arrays, one element per interval. */
#define SERIES_COLUMNS	9

const char *
ranread_status_name(RanreadStatus status)
{
	switch (status)
	{
		case RANREAD_STATUS_RUNNING:
			return "running";
		case RANREAD_STATUS_COMPLETED:
			return "completed";
		case RANREAD_STATUS_STOPPED:
			return "stopped";
		case RANREAD_STATUS_CANCELLED:
			return "cancelled";
		case RANREAD_STATUS_FAILED:
			return "failed";
	}
	return "unknown";
}

/* Seconds from the start of counting (the release, or the end of the ramp) to a worker's last read. */
static double
seconds_counted(const RanreadShared *shared, instr_time end)
{
	if (INSTR_TIME_IS_ZERO(end))
		return 0;
	INSTR_TIME_SUBTRACT(end, shared->count_from);
	return Max(0.0, ranread_instr_time_s(end));
}

/* The share of reads the device answered, in percent; -1 if none read, or if unknown. */
static double
physical_pct(uint64 memory_reads, uint64 reads, bool unknown)
{
	if (reads == 0 || unknown)
		return -1;
	return 100.0 * (double) (reads - Min(memory_reads, reads)) / (double) reads;
}

/*
 * kB the kernel fetched from storage per read (readahead shows here); -1 if
 * none read, or if the target has no device with counters (tmpfs, FUSE: no
 * /proc/diskstats line), where the kernel's count says nothing of a device.
 */
static double
kb_per_read(uint64 bytes_physical, uint64 reads, bool no_device)
{
	if (reads == 0 || no_device)
		return -1;
	return (double) bytes_physical / 1024.0 / (double) reads;
}

/* Device counters over the run: reads/s, average wait and utilisation. */
static void
summarize_device(const RanreadShared *shared, RanreadBatchSummary *summary)
{
	instr_time	span = shared->device_end_time;
	double		seconds;
	uint64		reads;

	summary->device_sampled = shared->device_sampled;
	if (!shared->device_sampled)
		return;
	INSTR_TIME_SUBTRACT(span, shared->device_start_time);
	seconds = Max(ranread_instr_time_s(span), 1e-9);
	reads = shared->device_end.reads_completed - shared->device_start.reads_completed;
	summary->device_reads_per_s = (double) reads / seconds;
	summary->device_read_wait_ms = reads > 0 ?
		(double) (shared->device_end.read_ms - shared->device_start.read_ms) / (double) reads : 0;
	summary->device_util_pct = Min(100.0,
								   (double) (shared->device_end.io_ticks_ms - shared->device_start.io_ticks_ms) /
								   (seconds * 10.0));
	/* bytes, not requests: see run_rules.c */
	summary->device_bytes = 512.0 * (double) (shared->device_end.sectors_read - shared->device_start.sectors_read);
	/* writers alone read nothing that the device's reads could be shared with */
	if (shared->params.processes > 0)
		summary->device_shared_pct = ranread_device_shared_pct(summary->device_bytes, summary->own_bytes);
}

/*
 * What ended a completed batch: the steady-state rule, every worker having
 * read all of its units once (coverage), the duration, or the iterations
 * (writers alone end at the duration); NULL when the batch did not complete
 * (its status says why).
 */
static const char *
ended_by(const RanreadShared *shared, RanreadStatus status)
{
	bool		covered = false;
	bool		deadline = false;

	if (status != RANREAD_STATUS_COMPLETED)
		return NULL;
	if (shared->params.processes == 0)
		return "duration";
	if (pg_atomic_read_u32((pg_atomic_uint32 *) &shared->stop_reason) == RANREAD_STOP_STEADY_STATE)
		return "steady state";
	for (int i = 0; i < shared->params.processes; i++)
	{
		covered |= shared->slots[i].covered;
		deadline |= shared->slots[i].reached_deadline;
	}
	if (covered)
		return "coverage";
	return deadline ? "duration" : "iterations";
}

/*
 * IOPS over the batch's wall time: every counted read of every worker,
 * divided by the time from the start of counting (the barrier's release, or
 * the end of the ramp) to the end of the last worker's last read.
 */
void
ranread_summarize_batch(const RanreadShared *shared, RanreadBatchSummary *summary)
{
	RanreadHistogram *all = palloc(sizeof(RanreadHistogram));
	/* under io_method = worker, the I/O workers fetched what the workers read */
	uint64		bytes_physical = Max(shared->io_worker_bytes, 0);
	bool		bytes_unknown = false;	/* a worker's reads ran in other processes, uncounted */
	uint64		memory_reads = 0;
	bool		residency_unknown = false;	/* a worker had no proof of where its reads went */
	int			i;

	ranread_hist_init(all);
	memset(summary, 0, sizeof(RanreadBatchSummary));
	summary->status = RANREAD_STATUS_COMPLETED;
	for (i = 0; i < shared->params.processes; i++)
	{
		const RanreadWorkerSlot *slot = &shared->slots[i];

		ranread_hist_merge(all, &slot->hist);
		summary->wall_s = Max(summary->wall_s, seconds_counted(shared, slot->end_time));
		summary->status = Max(summary->status, slot->status);
		bytes_physical += slot->bytes_physical;
		bytes_unknown |= slot->hist.count > 0 && !slot->io_accounted && shared->io_worker_bytes < 0;
		memory_reads += slot->memory_reads;
		residency_unknown |= slot->hist.count > 0 && slot->residency_unavailable[0] != '\0';
		summary->buffer_hits += slot->buffer_hits;
		summary->buffer_misses += slot->buffer_misses;
		summary->wrapped_reads += (int64) slot->wrapped_reads;
	}
	for (i = 0; i < shared->params.writers; i++)
	{
		summary->status = Max(summary->status, ranread_writer_slot(shared, i)->status);
		/* writers alone: the batch lasted as long as they wrote */
		if (shared->params.processes == 0)
			summary->wall_s = Max(summary->wall_s,
								  seconds_counted(shared, ranread_writer_slot(shared, i)->end_time));
	}
	summary->reads = (int64) all->count;
	{
		/* open loop: the service times apart; closed loop: none (all -1) */
		RanreadHistogram *service = palloc(sizeof(RanreadHistogram));

		ranread_hist_init(service);
		for (i = 0; i < shared->params.processes && shared->service_offset != 0; i++)
			ranread_hist_merge(service, ranread_service_hist(shared, i));
		ranread_hist_latency(service, &summary->service);
		pfree(service);
	}
	ranread_hist_latency(all, &summary->latency);
	summary->pct_over_2ms = ranread_hist_pct_over_ms(all, 2.0);
	summary->pct_over_5ms = ranread_hist_pct_over_ms(all, 5.0);
	summary->pct_over_10ms = ranread_hist_pct_over_ms(all, 10.0);
	summary->own_bytes = bytes_unknown ? -1 : (double) bytes_physical;
	summary->device_shared_pct = -1;
	summary->physical_pct = physical_pct(memory_reads, all->count, residency_unknown);
	summary->kb_per_read = bytes_unknown ? -1 :
		kb_per_read(bytes_physical, all->count, !shared->device.found);
	if (summary->wall_s > 0)
	{
		summary->iops = (double) summary->reads / summary->wall_s;
		summary->mb_per_s = summary->iops * shared->params.block_size / BYTES_PER_MB;
	}
	summarize_device(shared, summary);
	summary->ended_by = ended_by(shared, summary->status);
	summary->histogram = all;
}

/* A float8 column that is NULL when negative (nothing was measured). */
static void
add_measure(RanreadRow *row, const char *name, double value)
{
	ranread_row_add(row, name, FLOAT8OID, Float8GetDatum(value), value < 0);
}

/* Columns both tables share: the batch, its parameters and its latencies. */
static void
add_run_columns(RanreadRow *row, const RanreadShared *shared, int64 reads,
				const RanreadLatency *latency)
{
	Name		target = palloc(NAMEDATALEN);

	namestrcpy(target, shared->params.target_name);
	ranread_row_add(row, "batch", INT8OID, Int64GetDatum(shared->batch), false);
	ranread_row_add(row, "run_date", DATEOID, DateADTGetDatum(shared->run_date), false);
	ranread_row_add(row, "run_time", TIMEOID, TimeADTGetDatum(shared->run_time), false);
	ranread_row_add(row, "started_at", TIMESTAMPTZOID, TimestampTzGetDatum(shared->started_at), false);
	ranread_row_add(row, "target", NAMEOID, NameGetDatum(target), false);
	ranread_row_add(row, "mode", TEXTOID,
			   CStringGetTextDatum(ranread_readpath_by_index(shared->params.readpath)->name), false);
	ranread_row_add(row, "block_size", INT4OID, Int32GetDatum(shared->params.block_size), false);
	ranread_row_add(row, "processes", INT4OID, Int32GetDatum(shared->params.processes), false);
	ranread_row_add(row, "iodepth", INT4OID, Int32GetDatum(shared->params.iodepth), false);
	ranread_row_add(row, "iterations", INT8OID, Int64GetDatum(shared->params.iterations), shared->params.iterations == 0);
	ranread_row_add(row, "duration_s", FLOAT8OID, Float8GetDatum((double) shared->params.duration_ns / 1e9),
			   shared->params.duration_ns == 0);
	ranread_row_add(row, "evicted", BOOLOID, BoolGetDatum(shared->params.evict), false);
	ranread_row_add(row, "reads", INT8OID, Int64GetDatum(reads), false);
	add_measure(row, "response_time_ms", latency->mean_ms);
	add_measure(row, "min_ms", latency->min_ms);
	add_measure(row, "max_ms", latency->max_ms);
	add_measure(row, "p50_ms", latency->p50_ms);
	add_measure(row, "p95_ms", latency->p95_ms);
	add_measure(row, "p99_ms", latency->p99_ms);
	add_measure(row, "p999_ms", latency->p999_ms);
}

/* Buffer hits and misses mean something only on the shared-buffer path. */
static void
add_buffer_columns(RanreadRow *row, const RanreadShared *shared, int64 hits, int64 misses)
{
	bool		applies = (ranread_readpath_by_index(shared->params.readpath)->flags &
						   RANREAD_PATH_COUNTS_BUFFER_HITS) != 0;

	ranread_row_add(row, "buffer_hits", INT8OID, Int64GetDatum(hits), !applies);
	ranread_row_add(row, "buffer_misses", INT8OID, Int64GetDatum(misses), !applies);
}

/* An array of one field of every interval; NULL elements where a latency is -1. */
static Datum
series_array(const RanreadSeries *series, int column, Oid type)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(series->count, 1));
	bool	   *nulls = palloc0(sizeof(bool) * Max(series->count, 1));

	for (int i = 0; i < series->count; i++)
	{
		const RanreadInterval *in = &series->intervals[i];
		double		ms[4] = {in->mean_ms, in->p50_ms, in->p99_ms, in->max_ms};

		switch (column)
		{
			case 0:
				elems[i] = Float8GetDatum(in->start_s);
				break;
			case 1:
				elems[i] = Float8GetDatum(in->seconds);
				break;
			case 2:
				elems[i] = Int64GetDatum(in->reads);
				break;
			case 3:
				elems[i] = Float8GetDatum(ranread_interval_iops(in));
				break;
			case 4:
			case 5:
			case 6:
			case 7:
				elems[i] = Float8GetDatum(ms[column - 4]);
				nulls[i] = ms[column - 4] < 0;
				break;
			default:
				elems[i] = Int32GetDatum(in->reading);
				break;
		}
	}
	return ranread_row_array(elems, nulls, series->count, type);
}

/*
 * INSERT the batch's series into ranread_intervals, with what the server did
 * in each interval (interval_activity.c): one statement, one row per
 * interval.
 */
static void
insert_series(const RanreadShared *shared)
{
	enum
	{
		ALL_COLUMNS = SERIES_COLUMNS + RANREAD_INTERVAL_ACTIVITY_COLUMNS
	};
	const RanreadSeries *series = ranread_series_of(shared);
	Oid			types[ALL_COLUMNS + 2] = {INT8OID, FLOAT8ARRAYOID, FLOAT8ARRAYOID, INT8ARRAYOID,
	FLOAT8ARRAYOID, FLOAT8ARRAYOID, FLOAT8ARRAYOID, FLOAT8ARRAYOID, FLOAT8ARRAYOID, INT4ARRAYOID};
	Datum		values[ALL_COLUMNS + 2];
	const char *names[RANREAD_INTERVAL_ACTIVITY_COLUMNS];
	StringInfoData columns;
	StringInfoData arrays;
	char	   *sql;

	if (series->count == 0)
		return;
	values[0] = Int64GetDatum(shared->batch);
	for (int c = 0; c < SERIES_COLUMNS; c++)
		values[c + 1] = series_array(series, c, get_element_type(types[c + 1]));
	ranread_interval_activity_arrays(ranread_series_activity(shared), series->count, names,
									 &types[SERIES_COLUMNS + 1], &values[SERIES_COLUMNS + 1]);
	initStringInfo(&columns);
	initStringInfo(&arrays);
	appendStringInfoString(&columns, "start_s, seconds, reads, iops, mean_ms, p50_ms, p99_ms, max_ms, workers_reading");
	for (int c = 0; c < RANREAD_INTERVAL_ACTIVITY_COLUMNS; c++)
		appendStringInfo(&columns, ", %s", names[c]);
	for (int c = 0; c < ALL_COLUMNS; c++)
		appendStringInfo(&arrays, "%spg_catalog.unnest($%d)", c > 0 ? ", " : "", c + 2);
	types[ALL_COLUMNS + 1] = NAMEOID;
	values[ALL_COLUMNS + 1] = ranread_run_by();
	sql = psprintf("INSERT INTO %s.ranread_intervals (batch, run_by, %s, interval_no) "
				   "SELECT $1, $%d, u.* FROM ROWS FROM (%s) WITH ORDINALITY AS u",
				   quote_identifier(shared->schema_name), columns.data, ALL_COLUMNS + 2, arrays.data);
	if (ranread_history_execute(sql, ALL_COLUMNS + 2, types, values, NULL) != SPI_OK_INSERT)
		elog(ERROR, "could not insert into ranread_intervals");
}

/*
 * INSERT the row into the extension's table in a transaction of its own
 * (with the batch's series, if with_series).  On failure, log it, note it in
 * *error (if given) and carry on: the worker must still end cleanly.
 */
static bool
insert_row(const RanreadShared *shared, const char *table, RanreadRow *row,
		   bool with_series, char *error, size_t error_size)
{
	MemoryContext oldcontext = CurrentMemoryContext;
	bool		ok = true;


	StartTransactionCommand();
	PG_TRY();
	{
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		if (ranread_row_insert(row, shared->schema_name, table) != SPI_OK_INSERT)
			elog(ERROR, "could not insert into %s", table);
		if (with_series)
			insert_series(shared);
		PopActiveSnapshot();
		SPI_finish();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		ErrorData  *edata = ranread_catch_error(oldcontext);

		ereport(LOG,
				(errmsg("could not record ranread results: %s", edata->message)));
		if (error != NULL)
			snprintf(error, error_size, "could not record results: %s", edata->message);
		ok = false;
	}
	PG_END_TRY();
	return ok;
}


static Datum
histogram_array(const RanreadHistogram *hist)
{
	int			n = ranread_hist_used_buckets(hist);
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		elems[i] = Int64GetDatum((int64) hist->buckets[i]);
	return PointerGetDatum(construct_array(elems, n, INT8OID, sizeof(int64),
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

void
ranread_record_worker(const RanreadShared *shared, int worker)
{
	RanreadWorkerSlot *slot = (RanreadWorkerSlot *) &shared->slots[worker];
	const RanreadHistogram *hist = &slot->hist;
	RanreadLatency latency;
	double		elapsed = seconds_counted(shared, slot->end_time);
	RanreadRow	row = {0};

	ranread_hist_latency(hist, &latency);
	add_run_columns(&row, shared, (int64) hist->count, &latency);
	ranread_row_add(&row, "worker", INT4OID, Int32GetDatum(worker + 1), false);
	ranread_row_add(&row, "elapsed_s", FLOAT8OID, Float8GetDatum(elapsed), false);
	ranread_row_add(&row, "iops", FLOAT8OID,
			   Float8GetDatum(elapsed > 0 ? (double) hist->count / elapsed : 0), false);
	ranread_row_add(&row, "bytes_physical", INT8OID, Int64GetDatum((int64) slot->bytes_physical), false);
	add_measure(&row, "physical_pct",
				physical_pct(slot->memory_reads, hist->count, slot->residency_unavailable[0] != '\0'));
	add_buffer_columns(&row, shared, slot->buffer_hits, slot->buffer_misses);
	ranread_row_add(&row, "status", TEXTOID, CStringGetTextDatum(ranread_status_name(slot->status)), false);
	ranread_row_add(&row, "histogram", INT8ARRAYOID, histogram_array(hist), false);
	ranread_row_add(&row, "registered_buffers", BOOLOID, BoolGetDatum(slot->unregistered_errno == 0),
			   !slot->uring_opened);

	slot->recorded = insert_row(shared, "ranread_results", &row, false,
								slot->error_message, sizeof(slot->error_message));
}

/* Writer `writer`'s time from the release to the end of its writing, in seconds. */
double
ranread_writer_elapsed_s(const RanreadShared *shared, int writer)
{
	instr_time	span = ranread_writer_slot(shared, writer)->end_time;

	INSTR_TIME_SUBTRACT(span, shared->release_time);
	return Max(ranread_instr_time_s(span), 0);
}

/*
 * Writer `writer`'s row of ranread_write_results: its writes and their
 * times, from the release to the end of its writing.  What it cannot record goes
 * to the server log with its numbers.
 */
void
ranread_record_writer(const RanreadShared *shared, int writer)
{
	RanreadWriterSlot *slot = ranread_writer_slot(shared, writer);
	RanreadLatency latency;
	double		elapsed = ranread_writer_elapsed_s(shared, writer);
	RanreadRow	row = {0};
	Name		write_target = palloc(NAMEDATALEN);

	ranread_hist_latency(&slot->hist, &latency);
	namestrcpy(write_target, shared->params.write_target_name);
	ranread_row_add(&row, "batch", INT8OID, Int64GetDatum(shared->batch), false);
	ranread_row_add(&row, "writer", INT4OID, Int32GetDatum(writer + 1), false);
	ranread_row_add(&row, "started_at", TIMESTAMPTZOID, TimestampTzGetDatum(shared->started_at), false);
	ranread_row_add(&row, "write_target", NAMEOID, NameGetDatum(write_target), false);
	ranread_row_add(&row, "writers", INT4OID, Int32GetDatum(shared->params.writers), false);
	ranread_row_add(&row, "write_rate_iops", FLOAT8OID, Float8GetDatum(shared->params.write_rate_iops), false);
	ranread_row_add(&row, "writes", INT8OID, Int64GetDatum((int64) slot->hist.count), false);
	ranread_row_add(&row, "elapsed_s", FLOAT8OID, Float8GetDatum(elapsed), false);
	ranread_row_add(&row, "write_iops", FLOAT8OID,
					Float8GetDatum(elapsed > 0 ? (double) slot->hist.count / elapsed : 0), false);
	add_measure(&row, "mean_ms", latency.mean_ms);
	add_measure(&row, "p50_ms", latency.p50_ms);
	add_measure(&row, "p99_ms", latency.p99_ms);
	add_measure(&row, "max_ms", latency.max_ms);
	ranread_row_add(&row, "status", TEXTOID, CStringGetTextDatum(ranread_status_name(slot->status)), false);
	ranread_row_add(&row, "error", TEXTOID, CStringGetTextDatum(slot->error_message),
					slot->error_message[0] == '\0');
	ranread_row_add(&row, "histogram", INT8ARRAYOID, histogram_array(&slot->hist), false);

	slot->recorded = insert_row(shared, "ranread_write_results", &row, false, NULL, 0);
	if (!slot->recorded)
		ereport(LOG,
				(errmsg("results of ranread writer %d of batch " INT64_FORMAT " were not recorded",
						writer + 1, shared->batch),
				 errdetail("It committed " UINT64_FORMAT " writes (%s): mean %.3f ms, p50 %.3f ms, p99 %.3f ms, max %.3f ms.",
						   slot->hist.count, ranread_status_name(slot->status),
						   latency.mean_ms, latency.p50_ms, latency.p99_ms, latency.max_ms)));
}

/* A duration parameter in seconds, NULL when not given (0). */
static void
add_seconds(RanreadRow *row, const char *name, uint64 ns)
{
	ranread_row_add(row, name, FLOAT8OID, Float8GetDatum((double) ns / 1e9), ns == 0);
}

/* The batch's ramp, series, steady-state, open-loop and sweep parameters and results. */
static void
add_time_columns(RanreadRow *row, const RanreadShared *shared, const RanreadBatchSummary *summary)
{
	const RanreadParams *params = &shared->params;
	bool		open_loop = params->rate_iops > 0;

	add_seconds(row, "ramp_s", params->ramp_ns);
	add_seconds(row, "sample_interval_s", params->sample_interval_ns);
	add_seconds(row, "steady_state_s", params->steady_window_ns);
	ranread_row_add(row, "steady_band_pct", FLOAT8OID, Float8GetDatum(params->steady_band_pct),
			   params->steady_window_ns == 0);
	add_measure(row, "steady_at_s", ranread_series_of(shared)->steady_at_s);
	ranread_row_add(row, "rate_iops", FLOAT8OID, Float8GetDatum(params->rate_iops), !open_loop);
	ranread_row_add(row, "arrivals", TEXTOID, CStringGetTextDatum(params->poisson ? "poisson" : "uniform"),
			   !open_loop);
	add_measure(row, "service_mean_ms", summary->service.mean_ms);
	add_measure(row, "service_p50_ms", summary->service.p50_ms);
	add_measure(row, "service_p99_ms", summary->service.p99_ms);
	add_measure(row, "service_p999_ms", summary->service.p999_ms);
	ranread_row_add(row, "sweep", INT8OID, Int64GetDatum(params->sweep), params->sweep == 0);
	ranread_row_add(row, "layers", INT8OID, Int64GetDatum(params->layers), params->layers == 0);
	ranread_row_add(row, "calibration", INT8OID, Int64GetDatum(params->calibration), params->calibration == 0);
	ranread_row_add(row, "seed", INT8OID, Int64GetDatum((int64) shared->seed), false);
	ranread_row_add(row, "prefetch", INT4OID, Int32GetDatum(params->prefetch), false);
	ranread_row_add(row, "start_at", TIMESTAMPTZOID, TimestampTzGetDatum(params->start_at), params->start_at == 0);
	ranread_row_add(row, "start_skew_ms", FLOAT8OID,
					Float8GetDatum((double) (shared->started_at - params->start_at) / 1000.0), params->start_at == 0);
	ranread_row_add(row, "distribution", TEXTOID,
					CStringGetTextDatum(ranread_distribution_text(&params->distribution)), false);
	ranread_row_add(row, "sweep_step", INT4OID, Int32GetDatum(params->sweep_step), params->sweep == 0);
}

/*
 * Integer setting `name` as the server has it (not as a worker may have set
 * it), in column `column`.
 */
static void
add_int_setting(RanreadRow *row, const char *column, const char *name)
{
	const char *value = GetConfigOptionResetString(name);

	ranread_row_add(row, column, INT4OID, value != NULL ? Int32GetDatum(pg_strtoint32(value)) : (Datum) 0,
					value == NULL);
}

/*
 * The server the batch ran on: its version, data checksums, the kernel's
 * release and ranread's own version, and, since 18, its I/O settings
 * (the read paths that do not use AIO read the same whatever they say, but
 * a report must show them), as the server has them: a read stream's
 * look-ahead is iodepth, whatever effective_io_concurrency says;
 * io_combine_limit is in blocks.
 */
static void
add_server_columns(RanreadRow *row)
{
	const char *version = GetConfigOption("server_version_num", false, false);
	const char *io_method = GetConfigOption("io_method", true, false);
	const char *checksums = GetConfigOption("data_checksums", false, false);
	char		kernel[RANREAD_KERNEL_RELEASE_SIZE];

	ranread_row_add(row, "server_version_num", INT4OID, Int32GetDatum(pg_strtoint32(version)), false);
	ranread_row_add(row, "data_checksums", BOOLOID, BoolGetDatum(strcmp(checksums, "on") == 0), false);
	ranread_kernel_release(kernel, sizeof(kernel));
	ranread_row_add(row, "kernel", TEXTOID, CStringGetTextDatum(kernel), kernel[0] == '\0');
	ranread_row_add(row, "ranread_version", TEXTOID, CStringGetTextDatum(RANREAD_VERSION), false);
	ranread_row_add(row, "io_method", TEXTOID,
			   io_method != NULL ? CStringGetTextDatum(io_method) : (Datum) 0, io_method == NULL);
	if (io_method == NULL)
		return;					/* before 18: the columns below stay NULL */
	add_int_setting(row, "io_workers", RANREAD_IO_WORKERS_SETTING);
	add_int_setting(row, "effective_io_concurrency", "effective_io_concurrency");
	add_int_setting(row, "io_combine_limit", "io_combine_limit");
	add_int_setting(row, "io_max_concurrency", "io_max_concurrency");
}

/* io_uring: whether every worker's buffers were registered; NULL where none read through it. */
static void
add_registration_column(RanreadRow *row, const RanreadShared *shared)
{
	int			opened;
	int			err;
	bool		registered = ranread_unregistered_workers(shared, &opened, &err) == 0;

	ranread_row_add(row, "registered_buffers", BOOLOID, BoolGetDatum(registered), opened == 0);
}

/*
 * The batch's noise bands, through compare_noise.c: the 95 % half-width, in
 * percent, of its IOPS, mean and p99, from its histogram, the spread of its
 * workers and the spread of its full sample intervals (the largest counts);
 * NULL while unknown (one worker, fewer than 3 full intervals, no reads).
 */
static void
add_band_columns(RanreadRow *row, const RanreadShared *shared, const RanreadBatchSummary *summary)
{
	const RanreadSeries *series = ranread_series_of(shared);
	const int	measures[] = {RANREAD_MEASURE_IOPS, RANREAD_MEASURE_MEAN, RANREAD_MEASURE_P99};
	const char *const names[] = {"iops_band_pct", "mean_band_pct", "p99_band_pct"};
	double	   *values[lengthof(measures)];
	double		rse[RANREAD_N_MEASURES];
	bool		known[RANREAD_N_MEASURES] = {0};
	double		value[RANREAD_N_MEASURES] = {0};
	double		longest = 0;
	int			n;

	for (int m = 0; m < RANREAD_N_MEASURES; m++)
		rse[m] = -1;
	for (int k = 0; k < lengthof(measures); k++)
		values[k] = palloc(sizeof(double) * Max(1, Max(shared->params.processes, series->count)));
	known[RANREAD_MEASURE_PHYSICAL] = summary->physical_pct >= 0;
	value[RANREAD_MEASURE_PHYSICAL] = summary->physical_pct;
	if (summary->reads > 0)
		ranread_noise_from_histogram(DatumGetArrayTypeP(histogram_array(summary->histogram)),
									 summary->latency.min_ms, summary->latency.max_ms, known, value, rse);
	/* open loop: IOPS is the rate asked for, not processes over the mean latency */
	if (shared->params.rate_iops > 0)
		rse[RANREAD_MEASURE_IOPS] = -1;

	n = 0;
	for (int i = 0; i < shared->params.processes; i++)
	{
		const RanreadWorkerSlot *slot = &shared->slots[i];
		double		elapsed = seconds_counted(shared, slot->end_time);
		RanreadLatency latency;

		if (slot->hist.count == 0 || elapsed <= 0)
			continue;
		ranread_hist_latency(&slot->hist, &latency);
		values[0][n] = (double) slot->hist.count / elapsed;
		values[1][n] = latency.mean_ms;
		values[2][n] = latency.p99_ms;
		n++;
	}
	for (int k = 0; k < lengthof(measures); k++)
		ranread_noise_from_spread(measures[k], values[k], n, false, rse);

	for (int i = 0; i < series->count; i++)
		longest = Max(longest, series->intervals[i].seconds);
	n = 0;
	for (int i = 0; i < series->count; i++)
	{
		const RanreadInterval *interval = &series->intervals[i];

		if (interval->reads <= 0 || interval->mean_ms < 0 ||
			interval->seconds < RANREAD_NOISE_FULL_INTERVAL * longest)
			continue;
		values[0][n] = ranread_interval_iops(interval);
		values[1][n] = interval->mean_ms;
		values[2][n] = interval->p99_ms;
		n++;
	}
	for (int k = 0; k < lengthof(measures); k++)
		ranread_noise_from_spread(measures[k], values[k], n, true, rse);

	for (int k = 0; k < lengthof(measures); k++)
	{
		int			m = measures[k];

		add_measure(row, names[k], rse[m] < 0 ? -1 :
					ranread_noise_band_pct(rse[m], 0, m == RANREAD_MEASURE_P99));
	}
}

void
ranread_record_batch(RanreadShared *shared)
{
	RanreadBatchSummary summary;
	RanreadRow	row = {0};
	bool		no_device;
	int64		stat_io_blocks;

	ranread_io_worker_bytes_end(shared);
	ranread_summarize_batch(shared, &summary);
	no_device = !summary.device_sampled;
	add_run_columns(&row, shared, summary.reads, &summary.latency);
	ranread_row_add(&row, "wall_s", FLOAT8OID, Float8GetDatum(summary.wall_s), false);
	ranread_row_add(&row, "iops", FLOAT8OID, Float8GetDatum(summary.iops), false);
	ranread_row_add(&row, "mb_per_s", FLOAT8OID, Float8GetDatum(summary.mb_per_s), false);
	add_measure(&row, "pct_over_2ms", summary.pct_over_2ms);
	add_measure(&row, "pct_over_5ms", summary.pct_over_5ms);
	add_measure(&row, "pct_over_10ms", summary.pct_over_10ms);
	add_measure(&row, "physical_pct", summary.physical_pct);
	add_measure(&row, "kb_per_read", summary.kb_per_read);
	add_buffer_columns(&row, shared, summary.buffer_hits, summary.buffer_misses);
	ranread_row_add(&row, "device", TEXTOID, CStringGetTextDatum(shared->device.name), no_device);
	ranread_row_add(&row, "file_system", TEXTOID, CStringGetTextDatum(shared->device.file_system),
					shared->device.file_system[0] == '\0');
	ranread_row_add(&row, "device_reads_per_s", FLOAT8OID, Float8GetDatum(summary.device_reads_per_s), no_device);
	ranread_row_add(&row, "device_read_wait_ms", FLOAT8OID, Float8GetDatum(summary.device_read_wait_ms), no_device);
	ranread_row_add(&row, "device_util_pct", FLOAT8OID, Float8GetDatum(summary.device_util_pct), no_device);
	ranread_row_add(&row, "status", TEXTOID, CStringGetTextDatum(ranread_status_name(summary.status)), false);
	ranread_row_add(&row, "histogram", INT8ARRAYOID, histogram_array(summary.histogram), false);
	ranread_row_add(&row, "wrapped_reads", INT8OID, Int64GetDatum(summary.wrapped_reads), false);
	add_time_columns(&row, shared, &summary);
	add_registration_column(&row, shared);
	ranread_row_add(&row, "ended_by", TEXTOID,
			   summary.ended_by != NULL ? CStringGetTextDatum(summary.ended_by) : (Datum) 0,
			   summary.ended_by == NULL);
	add_measure(&row, "device_shared_pct", summary.device_shared_pct);
	add_band_columns(&row, shared, &summary);
	add_server_columns(&row);
	stat_io_blocks = ranread_stat_io_end(shared);
	ranread_row_add(&row, "stat_io_reads", INT8OID, Int64GetDatum(stat_io_blocks), stat_io_blocks < 0);

	shared->batch_recorded = insert_row(shared, "ranread_batches", &row, true, shared->batch_error,
										sizeof(shared->batch_error));
	if (shared->params.writers > 0)
	{
		RanreadRow	activity = {0};

		ranread_db_activity_end(shared);
		ranread_db_activity_columns(shared, &activity);
		ranread_checkpoint_columns(shared, &activity);
		shared->activity_recorded = insert_row(shared, "ranread_db_activity", &activity, false, NULL, 0);
		if (!shared->activity_recorded)
			ranread_db_activity_log(shared);
	}
}

/*
 * Keep the WARNINGs the leader raised for the batch (batch_warnings.c) in
 * its row, ranread_batches.warnings (an empty array: none), in the caller's
 * transaction: the workers recorded and committed the row before.  Nothing
 * where no history is written: the row not recorded, a standby, a read-only
 * transaction.
 */
void
ranread_record_warnings(const RanreadShared *shared, List *warnings)
{
	int			n = list_length(warnings);
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));
	Oid			types[2] = {INT8OID, TEXTARRAYOID};
	Datum		values[2];
	int			i = 0;
	ListCell   *lc;

	if (!shared->batch_recorded || RecoveryInProgress() || XactReadOnly)
		return;
	foreach(lc, warnings)
		elems[i++] = CStringGetTextDatum((char *) lfirst(lc));
	values[0] = Int64GetDatum(shared->batch);
	values[1] = n > 0 ? PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT)) :
		PointerGetDatum(construct_empty_array(TEXTOID));
	SPI_connect();
	if (ranread_history_execute(psprintf("UPDATE %s.ranread_batches SET warnings = $2 WHERE batch OPERATOR(pg_catalog.=) $1",
										 quote_identifier(shared->schema_name)),
								2, types, values, NULL) != SPI_OK_UPDATE)
		elog(ERROR, "could not record the warnings of batch " INT64_FORMAT, shared->batch);
	SPI_finish();
}
