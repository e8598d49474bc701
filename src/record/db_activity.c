/*-------------------------------------------------------------------------
 *
 * db_activity.c
 *		What the database did during a batch with writers: WAL written and
 *		synced, checkpoints, buffers written by whom.
 *
 * Just before it releases the workers, the leader reads the server's
 * cumulative counters (compat.h's RANREAD_DB_ACTIVITY_SQL: pg_stat_wal,
 * pg_stat_bgwriter, and on 17 and later pg_stat_checkpointer and pg_stat_io);
 * the worker or writer that records the batch reads them again, after every
 * writer has flushed its own statistics, and the differences are the batch's
 * row of ranread_db_activity.  They are the whole server's: anything else
 * that wrote meanwhile is in them, and so is what the checkpointer and the
 * background writer had not yet reported (they report at most every few
 * seconds), which is why the row says over how many seconds it counted.
 * WAL sync time is NULL unless track_wal_io_timing is on.  The write
 * target's updates and HOT updates (pg_stat_all_tables' n_tup_upd and
 * n_tup_hot_upd) say whether every write stayed on its row's page, as the
 * write target's layout means it to (ranread.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "pgstat.h"
#include "utils/guc.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "compat.h"
#include "spi_columns.h"
#include "record/catch_error.h"
#include "record/db_activity.h"

/* The server's counters now, and the write target's; the caller is in a transaction. */
void
ranread_db_activity_take(RanreadDbActivity *activity, Oid write_target)
{
	HeapTuple	row;
	TupleDesc	desc;
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(write_target)};

	pgstat_clear_snapshot();	/* a fresh reading, not the transaction's cached one */
	SPI_connect();
	if (SPI_execute(RANREAD_DB_ACTIVITY_SQL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the server's WAL and checkpoint statistics");
	row = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	activity->wal_bytes = ranread_spi_float_named(row, desc, "wal_bytes", 0);
	activity->wal_fpi = ranread_spi_int_named(row, desc, "wal_fpi", 0);
	activity->wal_syncs = ranread_spi_int_named(row, desc, "wal_syncs", 0);
	activity->wal_sync_ms = ranread_spi_float_named(row, desc, "wal_sync_ms", 0);
	activity->checkpoints_timed = ranread_spi_int_named(row, desc, "checkpoints_timed", 0);
	activity->checkpoints_requested = ranread_spi_int_named(row, desc, "checkpoints_requested", 0);
	activity->buffers_checkpoint = ranread_spi_int_named(row, desc, "buffers_checkpoint", 0);
	activity->buffers_clean = ranread_spi_int_named(row, desc, "buffers_clean", 0);
	activity->buffers_backend = ranread_spi_int_named(row, desc, "buffers_backend", 0);
	if (SPI_execute_with_args("SELECT pg_catalog.pg_stat_get_tuples_updated($1) AS updates, "
							  "pg_catalog.pg_stat_get_tuples_hot_updated($1) AS hot_updates",
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the write target's statistics");
	activity->updates = ranread_spi_int_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "updates", 0);
	activity->hot_updates = ranread_spi_int_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "hot_updates", 0);
	SPI_finish();
	pgstat_clear_snapshot();
	activity->at = GetCurrentTimestamp();
	activity->taken = true;
}

/*
 * The batch's recorder, outside a transaction: the counters at the end.  A
 * failure is logged and leaves the row's counters NULL; it must not cost the
 * batch its rows.
 */
void
ranread_db_activity_end(RanreadShared *shared)
{
	MemoryContext context = CurrentMemoryContext;

	PG_TRY();
	{
		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
		ranread_db_activity_take(&shared->activity_end, shared->write_target_relid);
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		ErrorData  *edata = ranread_catch_error(context);

		shared->activity_end.taken = false;
		ereport(LOG,
				(errmsg("ranread batch " INT64_FORMAT " could not read the server's WAL and checkpoint statistics: %s",
						shared->batch, edata->message)));
	}
	PG_END_TRY();
}

/* An int8 column: the difference of a counter, NULL when unknown. */
static void
add_delta(RanreadRow *row, const char *name, int64 start, int64 end, bool unknown)
{
	ranread_row_add(row, name, INT8OID, Int64GetDatum(end - start), unknown);
}

/* The batch's row of ranread_db_activity: the differences of the counters. */
void
ranread_db_activity_columns(const RanreadShared *shared, RanreadRow *row)
{
	const RanreadDbActivity *a = &shared->activity_start;
	const RanreadDbActivity *b = &shared->activity_end;
	bool		unknown = !a->taken || !b->taken;
	const char *timing = GetConfigOption("track_wal_io_timing", false, false);

	ranread_row_add(row, "batch", INT8OID, Int64GetDatum(shared->batch), false);
	ranread_row_add(row, "seconds", FLOAT8OID,
					Float8GetDatum((double) (b->at - a->at) / USECS_PER_SEC), unknown);
	ranread_row_add(row, "wal_bytes", INT8OID, Int64GetDatum((int64) (b->wal_bytes - a->wal_bytes)), unknown);
	add_delta(row, "wal_fpi", a->wal_fpi, b->wal_fpi, unknown);
	add_delta(row, "wal_syncs", a->wal_syncs, b->wal_syncs, unknown);
	ranread_row_add(row, "wal_sync_ms", FLOAT8OID, Float8GetDatum(b->wal_sync_ms - a->wal_sync_ms),
					unknown || strcmp(timing, "on") != 0);
	add_delta(row, "checkpoints_timed", a->checkpoints_timed, b->checkpoints_timed, unknown);
	add_delta(row, "checkpoints_requested", a->checkpoints_requested, b->checkpoints_requested, unknown);
	add_delta(row, "buffers_checkpoint", a->buffers_checkpoint, b->buffers_checkpoint, unknown);
	add_delta(row, "buffers_clean", a->buffers_clean, b->buffers_clean, unknown);
	add_delta(row, "buffers_backend", a->buffers_backend, b->buffers_backend, unknown);
	add_delta(row, "updates", a->updates, b->updates, unknown);
	add_delta(row, "hot_updates", a->hot_updates, b->hot_updates, unknown);
}

/*
 * The batch's row of ranread_db_activity could not be recorded: say its
 * figures in the server log, so that nothing measured is lost silently.
 */
void
ranread_db_activity_log(const RanreadShared *shared)
{
	const RanreadDbActivity *a = &shared->activity_start;
	const RanreadDbActivity *b = &shared->activity_end;

	if (!a->taken || !b->taken)
	{
		ereport(LOG,
				(errmsg("the ranread_db_activity row of ranread batch " INT64_FORMAT " was not recorded",
						shared->batch),
				 errdetail("The server's counters were not read at both ends of the batch.")));
		return;
	}
	ereport(LOG,
			(errmsg("the ranread_db_activity row of ranread batch " INT64_FORMAT " was not recorded",
					shared->batch),
			 errdetail("Over %.1f s: %.0f bytes of WAL, " INT64_FORMAT " full-page images, " INT64_FORMAT " WAL syncs, "
					   INT64_FORMAT " timed and " INT64_FORMAT " requested checkpoints, buffers written by the checkpointer "
					   INT64_FORMAT ", the background writer " INT64_FORMAT " and backends " INT64_FORMAT
					   "; " INT64_FORMAT " updates of the write target, " INT64_FORMAT " of them HOT.",
					   (double) (b->at - a->at) / USECS_PER_SEC, b->wal_bytes - a->wal_bytes,
					   b->wal_fpi - a->wal_fpi, b->wal_syncs - a->wal_syncs,
					   b->checkpoints_timed - a->checkpoints_timed,
					   b->checkpoints_requested - a->checkpoints_requested,
					   b->buffers_checkpoint - a->buffers_checkpoint, b->buffers_clean - a->buffers_clean,
					   b->buffers_backend - a->buffers_backend, b->updates - a->updates,
					   b->hot_updates - a->hot_updates)));
}
