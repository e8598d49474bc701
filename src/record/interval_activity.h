/*-------------------------------------------------------------------------
 *
 * interval_activity.h
 *		What the server did in each interval of a batch's series: WAL
 *		inserted, checkpoints begun and ended, the device's reads and writes,
 *		and with writers, WAL syncs and buffers written by whom
 *		(interval_activity.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_INTERVAL_ACTIVITY_H
#define RANREAD_INTERVAL_ACTIVITY_H

#include "access/xlogdefs.h"

/* The server's counters at one interval boundary. */
typedef struct RanreadServerCounters
{
	bool		taken;			/* false: no boundary yet */
	bool		wal_known;		/* false on a standby, which inserts no WAL */
	XLogRecPtr	insert_lsn;		/* the WAL insert position */
	XLogRecPtr	redo;			/* of the latest checkpoint begun */
	XLogRecPtr	recorded_redo;	/* of the latest one pg_control records; invalid: unreadable */
	bool		device_known;
	uint64		device_reads;	/* completed, per /proc/diskstats */
	uint64		device_writes;
	bool		stats_known;	/* the cumulative statistics: batches with writers only */
	int64		wal_syncs;
	double		wal_sync_ms;
	int64		buffers_checkpoint;
	int64		buffers_clean;
	int64		buffers_backend;
} RanreadServerCounters;

/* One interval: the differences of the counters at its two ends. */
typedef struct RanreadIntervalActivity
{
	bool		wal_known;
	bool		checkpoint_known;
	bool		device_known;
	bool		stats_known;
	bool		checkpoint_began;
	bool		checkpoint_ended;
	bool		checkpoint_running; /* at some moment of the interval */
	int64		wal_bytes;
	int64		device_reads;
	int64		device_writes;
	int64		wal_syncs;
	double		wal_sync_ms;
	int64		buffers_checkpoint;
	int64		buffers_clean;
	int64		buffers_backend;
} RanreadIntervalActivity;

/* ranread_intervals' columns filled from RanreadIntervalActivity */
#define RANREAD_INTERVAL_ACTIVITY_COLUMNS	11

struct RanreadShared;
extern XLogRecPtr ranread_recorded_redo(void);
extern void ranread_interval_activity_start(struct RanreadShared *shared, RanreadServerCounters *counters);
extern void ranread_interval_activity_sample(struct RanreadShared *shared, RanreadServerCounters *counters,
											 RanreadIntervalActivity *into);
extern void ranread_interval_activity_arrays(const RanreadIntervalActivity *activity, int count,
											 const char **names, Oid *types, Datum *values);

#endif							/* RANREAD_INTERVAL_ACTIVITY_H */
