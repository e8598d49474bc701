/*-------------------------------------------------------------------------
 *
 * interval_activity.c
 *		What the server did in each interval of a batch's series, beside its
 *		reads: WAL inserted, checkpoints begun and ended, the device's reads
 *		and writes, and with writers, WAL syncs and buffers written by the
 *		checkpointer, the background writer and every other process.
 *
 * Whoever samples the series (series.c: the leader at each boundary, the
 * last reader at the end) reads the server's counters right after the
 * readers' histograms, and the interval's figures are the differences from
 * the previous boundary; the first boundary is the start of counting (the
 * release, or the end of the ramp when the leader first sees it).  Every
 * counter here is read from shared memory or /proc, without SQL or a
 * transaction, so both samplers read the same things; the readers' loop
 * reads none of them.
 *
 * WAL is the distance the insert position moved: every process's WAL, page
 * headers included, exact at the boundary.  A checkpoint began in an
 * interval if the redo pointer moved in it, and ended in it if pg_control's
 * latest checkpoint moved; one ran in it if either moved, or if at its start
 * the redo pointer was ahead of pg_control's (one begun and not ended):
 * any checkpoint, timed or requested.  On a standby, which inserts no WAL,
 * these are unknown (NULL).  The device's reads and writes are its completed
 * requests per /proc/diskstats, everyone's, NULL when ranread found no
 * device for the target.
 *
 * With writers (only: as ranread_db_activity), WAL syncs and buffers
 * written are the cumulative statistics (compat.h), fetched afresh at each
 * boundary.  They count what each process has reported by then, not what
 * it did: the checkpointer reports its writes at the end of a checkpoint
 * (and between the writes of a spread one), other processes at most about
 * once a second, so an interval may hold work done in an earlier one.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "catalog/pg_control.h"
#include "catalog/pg_type.h"
#include "common/controldata_utils.h"
#include "storage/lwlock.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "compat.h"
#include "ranread.h"
#include "record/interval_activity.h"
#include "record/row_builder.h"

/* ranread_interval_activity_arrays()'s columns: this many int8 ones, then wal_sync_ms, then three marks */
#define COUNT_COLUMNS	7

/*
 * The redo pointer of the latest checkpoint pg_control records; invalid if
 * unreadable.  Also checkpoint_window.c's test of whether its checkpoint
 * has been recorded.
 */
XLogRecPtr
ranread_recorded_redo(void)
{
	ControlFileData *control;
	bool		crc_ok;
	XLogRecPtr	redo;

	LWLockAcquire(ControlFileLock, LW_SHARED);
	control = get_controlfile(DataDir, &crc_ok);
	LWLockRelease(ControlFileLock);
	redo = crc_ok ? control->checkPointCopy.redo : InvalidXLogRecPtr;
	pfree(control);
	return redo;
}

/* The server's counters now. */
static void
take(const RanreadShared *shared, RanreadServerCounters *now)
{
	RanreadDiskStats disk = {0};

	memset(now, 0, sizeof(RanreadServerCounters));
	now->taken = true;
	now->wal_known = !RecoveryInProgress();
	if (now->wal_known)
	{
		now->insert_lsn = GetXLogInsertRecPtr();
		now->recorded_redo = ranread_recorded_redo();
		now->redo = GetRedoRecPtr();
	}
	now->device_known = ranread_device_stats(&shared->device, &disk);
	now->device_reads = disk.reads_completed;
	now->device_writes = disk.writes_completed;
	if (shared->params.writers > 0)
	{
		pgstat_clear_snapshot();	/* fresh values, not the ones fetched a second ago */
		ranread_fetch_write_counters(&now->wal_syncs, &now->wal_sync_ms, &now->buffers_checkpoint,
									 &now->buffers_clean, &now->buffers_backend);
		pgstat_clear_snapshot();
		now->stats_known = true;
	}
}

/* At the start of counting: the counters the first interval starts from, into *counters. */
void
ranread_interval_activity_start(RanreadShared *shared, RanreadServerCounters *counters)
{
	take(shared, counters);
}

/*
 * The sampler, at a boundary, right after the readers' histograms: the
 * interval that ends now, from *counters (the last boundary's) to now, into
 * *into (NULL when the series has no room left); *counters becomes the
 * counters the next one starts from.
 */
void
ranread_interval_activity_sample(RanreadShared *shared, RanreadServerCounters *counters,
								 RanreadIntervalActivity *into)
{
	const RanreadServerCounters *a = counters;
	RanreadServerCounters b;

	take(shared, &b);
	if (into != NULL)
	{
		memset(into, 0, sizeof(RanreadIntervalActivity));
		into->wal_known = a->taken && a->wal_known && b.wal_known;
		into->wal_bytes = (int64) (b.insert_lsn - a->insert_lsn);
		into->checkpoint_known = into->wal_known && a->recorded_redo != InvalidXLogRecPtr &&
			b.recorded_redo != InvalidXLogRecPtr;
		into->checkpoint_began = b.redo != a->redo;
		into->checkpoint_ended = b.recorded_redo != a->recorded_redo;
		into->checkpoint_running = into->checkpoint_began || into->checkpoint_ended ||
			a->redo != a->recorded_redo;
		into->device_known = a->taken && a->device_known && b.device_known;
		into->device_reads = (int64) (b.device_reads - a->device_reads);
		into->device_writes = (int64) (b.device_writes - a->device_writes);
		into->stats_known = a->taken && a->stats_known && b.stats_known;
		into->wal_syncs = b.wal_syncs - a->wal_syncs;
		into->wal_sync_ms = b.wal_sync_ms - a->wal_sync_ms;
		into->buffers_checkpoint = b.buffers_checkpoint - a->buffers_checkpoint;
		into->buffers_clean = b.buffers_clean - a->buffers_clean;
		into->buffers_backend = b.buffers_backend - a->buffers_backend;
	}
	memcpy(counters, &b, sizeof(RanreadServerCounters));
}

/* One column of every kept interval, as an array; NULL elements where unknown. */
static Datum
column_array(int count, const RanreadIntervalActivity *activity, int column,
			 Oid type, bool sync_timed)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(count, 1));
	bool	   *nulls = palloc0(sizeof(bool) * Max(count, 1));

	for (int i = 0; i < count; i++)
	{
		const RanreadIntervalActivity *in = &activity[i];
		int64		counts[] = {in->wal_bytes, in->device_reads, in->device_writes, in->wal_syncs,
		in->buffers_checkpoint, in->buffers_clean, in->buffers_backend};
		bool		counts_known[] = {in->wal_known, in->device_known, in->device_known,
		in->stats_known, in->stats_known, in->stats_known, in->stats_known};
		bool		marks[] = {in->checkpoint_began, in->checkpoint_ended, in->checkpoint_running};

		StaticAssertStmt(lengthof(counts) == COUNT_COLUMNS, "one count a column");
		if (column < COUNT_COLUMNS)
		{
			elems[i] = Int64GetDatum(counts[column]);
			nulls[i] = !counts_known[column];
		}
		else if (column == COUNT_COLUMNS)
		{
			elems[i] = Float8GetDatum(in->wal_sync_ms);
			nulls[i] = !in->stats_known || !sync_timed;
		}
		else
		{
			elems[i] = BoolGetDatum(marks[column - COUNT_COLUMNS - 1]);
			nulls[i] = !in->checkpoint_known;
		}
	}
	return ranread_row_array(elems, nulls, count, type);
}

/*
 * The series' columns of ranread_intervals, from the count intervals of
 * activity: their names, array types and arrays (one element per kept
 * interval) into names, types and values, RANREAD_INTERVAL_ACTIVITY_COLUMNS
 * of each.
 */
void
ranread_interval_activity_arrays(const RanreadIntervalActivity *activity, int count, const char **names,
								 Oid *types, Datum *values)
{
	static const char *const column_names[RANREAD_INTERVAL_ACTIVITY_COLUMNS] = {
		"wal_bytes", "device_reads", "device_writes", "wal_syncs", "buffers_checkpoint", "buffers_clean",
		"buffers_backend", "wal_sync_ms", "checkpoint_began", "checkpoint_ended", "checkpoint_running"
	};
	bool		sync_timed = strcmp(GetConfigOption("track_wal_io_timing", false, false), "on") == 0;

	for (int c = 0; c < RANREAD_INTERVAL_ACTIVITY_COLUMNS; c++)
	{
		Oid			element = c < COUNT_COLUMNS ? INT8OID : c == COUNT_COLUMNS ? FLOAT8OID : BOOLOID;

		names[c] = column_names[c];
		types[c] = get_array_type(element);
		values[c] = column_array(count, activity, c, element, sync_timed);
	}
}
