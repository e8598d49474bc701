/*-------------------------------------------------------------------------
 *
 * results.c
 *		From worker slots to numbers: per-worker and per-batch statistics, and
 *		the rows of ranread_results and ranread_batches.
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
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "compat.h"
#include "ranread.h"

#define BYTES_PER_MB	(1024.0 * 1024.0)

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

/* Seconds from the barrier's release to a worker's last read. */
static double
seconds_since_release(const RanreadShared *shared, instr_time end)
{
	if (INSTR_TIME_IS_ZERO(end))
		return 0;
	INSTR_TIME_SUBTRACT(end, shared->release_time);
	return INSTR_TIME_GET_DOUBLE(end);
}

/*
 * IOPS over the batch's wall time: every read of every worker, divided by the
 * time from the barrier's release to the end of the last worker's last read.
 */
void
ranread_summarize_batch(const RanreadShared *shared, RanreadBatchSummary *summary)
{
	RanreadHistogram *all = palloc(sizeof(RanreadHistogram));
	int			i;

	ranread_hist_init(all);
	memset(summary, 0, sizeof(RanreadBatchSummary));
	summary->status = RANREAD_STATUS_COMPLETED;
	for (i = 0; i < shared->processes; i++)
	{
		const RanreadWorkerSlot *slot = &shared->slots[i];

		ranread_hist_merge(all, &slot->hist);
		summary->wall_s = Max(summary->wall_s, seconds_since_release(shared, slot->end_time));
		summary->status = Max(summary->status, slot->status);
	}
	summary->reads = (int64) all->count;
	ranread_hist_latency(all, &summary->latency);
	if (summary->wall_s > 0)
	{
		summary->iops = (double) summary->reads / summary->wall_s;
		summary->mb_per_s = summary->iops * BLCKSZ / BYTES_PER_MB;
	}
	pfree(all);
}

/* A float8 parameter, NULL when negative (nothing was measured). */
static void
set_ms_param(Datum *values, char *nulls, int index, double ms)
{
	values[index] = Float8GetDatum(ms);
	nulls[index] = ms < 0 ? 'n' : ' ';
}

static Datum
histogram_array(const RanreadHistogram *hist)
{
	int			n = ranread_hist_used_buckets(hist);
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
		elems[i] = Int64GetDatum((int64) hist->buckets[i]);
	return PointerGetDatum(construct_array(elems, n, INT8OID, sizeof(int64),
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/*
 * Run one INSERT in a transaction of its own.  On failure, log it, note it in
 * *error (if given) and carry on: the worker must still end cleanly.
 */
static bool
insert_in_own_transaction(const char *sql, int nargs, Oid *argtypes,
						  Datum *values, char *nulls, char *error, size_t error_size)
{
	MemoryContext oldcontext = CurrentMemoryContext;
	bool		ok = true;

	StartTransactionCommand();
	PG_TRY();
	{
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		if (SPI_execute_with_args(sql, nargs, argtypes, values, nulls, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "could not insert ranread results");
		PopActiveSnapshot();
		SPI_finish();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcontext);
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		ereport(LOG,
				(errmsg("could not record ranread results: %s", edata->message)));
		if (error != NULL)
			snprintf(error, error_size, "could not record results: %s", edata->message);
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

/* Parameters shared by both tables: batch identity and run parameters. */
#define COMMON_COLUMNS \
	"batch, run_date, run_time, started_at, target, processes, iterations, reads, "
#define COMMON_PARAMS	8

static void
set_common_params(const RanreadShared *shared, int64 reads, Datum *values, Oid *types)
{
	static NameData target;

	namestrcpy(&target, shared->target_name);
	types[0] = INT8OID;
	values[0] = Int64GetDatum(shared->batch);
	types[1] = DATEOID;
	values[1] = DateADTGetDatum(shared->run_date);
	types[2] = TIMEOID;
	values[2] = TimeADTGetDatum(shared->run_time);
	types[3] = TIMESTAMPTZOID;
	values[3] = TimestampTzGetDatum(shared->started_at);
	types[4] = NAMEOID;
	values[4] = NameGetDatum(&target);
	types[5] = INT4OID;
	values[5] = Int32GetDatum(shared->processes);
	types[6] = INT8OID;
	values[6] = Int64GetDatum(shared->iterations);
	types[7] = INT8OID;
	values[7] = Int64GetDatum(reads);
}

static void
set_latency_params(const RanreadLatency *latency, int first, Datum *values,
				   char *nulls, Oid *types)
{
	const double ms[] = {latency->mean_ms, latency->min_ms, latency->max_ms,
		latency->p50_ms, latency->p95_ms, latency->p99_ms, latency->p999_ms};

	for (int i = 0; i < (int) lengthof(ms); i++)
	{
		types[first + i] = FLOAT8OID;
		set_ms_param(values, nulls, first + i, ms[i]);
	}
}

#define LATENCY_COLUMNS \
	"response_time_ms, min_ms, max_ms, p50_ms, p95_ms, p99_ms, p999_ms, "
#define LATENCY_PARAMS	7

void
ranread_record_worker(const RanreadShared *shared, int worker)
{
	RanreadWorkerSlot *slot = (RanreadWorkerSlot *) &shared->slots[worker];
	const RanreadHistogram *hist = &slot->hist;
	RanreadLatency latency;
	double		elapsed = seconds_since_release(shared, slot->end_time);
	Datum		values[COMMON_PARAMS + LATENCY_PARAMS + 5];
	char		nulls[COMMON_PARAMS + LATENCY_PARAMS + 5];
	Oid			types[COMMON_PARAMS + LATENCY_PARAMS + 5];
	int			n = COMMON_PARAMS + LATENCY_PARAMS;
	StringInfoData sql;

	memset(nulls, ' ', sizeof(nulls));
	ranread_hist_latency(hist, &latency);
	set_common_params(shared, (int64) hist->count, values, types);
	set_latency_params(&latency, COMMON_PARAMS, values, nulls, types);
	types[n] = INT4OID;
	values[n++] = Int32GetDatum(worker + 1);
	types[n] = FLOAT8OID;
	values[n++] = Float8GetDatum(elapsed);
	types[n] = FLOAT8OID;
	values[n++] = Float8GetDatum(elapsed > 0 ? (double) hist->count / elapsed : 0);
	types[n] = TEXTOID;
	values[n++] = CStringGetTextDatum(ranread_status_name(slot->status));
	types[n] = INT8ARRAYOID;
	values[n++] = histogram_array(hist);

	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "INSERT INTO %s.ranread_results (" COMMON_COLUMNS LATENCY_COLUMNS
					 "worker, elapsed_s, iops, status, histogram) VALUES (",
					 quote_identifier(shared->schema_name));
	for (int i = 0; i < n; i++)
		appendStringInfo(&sql, "%s$%d", i > 0 ? ", " : "", i + 1);
	appendStringInfoChar(&sql, ')');

	slot->recorded = insert_in_own_transaction(sql.data, n, types, values, nulls,
											   slot->error_message,
											   sizeof(slot->error_message));
}

void
ranread_record_batch(const RanreadShared *shared)
{
	RanreadBatchSummary summary;
	Datum		values[COMMON_PARAMS + LATENCY_PARAMS + 4];
	char		nulls[COMMON_PARAMS + LATENCY_PARAMS + 4];
	Oid			types[COMMON_PARAMS + LATENCY_PARAMS + 4];
	int			n = COMMON_PARAMS + LATENCY_PARAMS;
	StringInfoData sql;

	ranread_summarize_batch(shared, &summary);
	memset(nulls, ' ', sizeof(nulls));
	set_common_params(shared, summary.reads, values, types);
	set_latency_params(&summary.latency, COMMON_PARAMS, values, nulls, types);
	types[n] = FLOAT8OID;
	values[n++] = Float8GetDatum(summary.wall_s);
	types[n] = FLOAT8OID;
	values[n++] = Float8GetDatum(summary.iops);
	types[n] = FLOAT8OID;
	values[n++] = Float8GetDatum(summary.mb_per_s);
	types[n] = TEXTOID;
	values[n++] = CStringGetTextDatum(ranread_status_name(summary.status));

	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "INSERT INTO %s.ranread_batches (" COMMON_COLUMNS LATENCY_COLUMNS
					 "wall_s, iops, mb_per_s, status) VALUES (",
					 quote_identifier(shared->schema_name));
	for (int i = 0; i < n; i++)
		appendStringInfo(&sql, "%s$%d", i > 0 ? ", " : "", i + 1);
	appendStringInfoChar(&sql, ')');

	(void) insert_in_own_transaction(sql.data, n, types, values, nulls, NULL, 0);
}
