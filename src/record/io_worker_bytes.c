/*-------------------------------------------------------------------------
 *
 * io_worker_bytes.c
 *		The bytes PostgreSQL's I/O workers fetched from storage during a
 *		batch, under io_method = worker (18 and later).
 *
 * A worker of a path through io_method (mode stream) does not read its
 * blocks itself under io_method = worker: the server's I/O workers do, each
 * through file descriptors of its own, where the kernel's readahead is the
 * device's (ranread turns it off only on the worker's own descriptors).  So
 * the worker's read_bytes (/proc/thread-self/io) count nothing, and the bytes
 * fetched per read (kb_per_read), which say how much the kernel read beyond
 * each unit, are the I/O workers'.  Just before the release the leader finds
 * the I/O workers (pg_stat_activity) and takes their read_bytes
 * (/proc/PID/io: they run as the same user); the worker that records the
 * batch, once every worker's reads have completed, takes them again.  The
 * difference counts what every I/O worker read during the batch, for anyone
 * (another session's reads too: the device's counters say when others read,
 * report.c); an I/O worker that started meanwhile (19 sizes the pool
 * itself) counts whole, and it is unknown (-1) when one exited meanwhile or
 * a counter could not be read.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "pgstat.h"
#include "utils/snapmgr.h"

#include "ranread.h"
#include "readpath/readpath.h"
#include "record/catch_error.h"
#include "record/io_worker_bytes.h"
#include "spi_columns.h"

/* Whether the batch's reads run in the I/O workers: a path through io_method, io_method = worker. */
static bool
reads_in_io_workers(const RanreadShared *shared)
{
	return (ranread_readpath_by_index(shared->params.readpath)->flags & RANREAD_PATH_AIO) &&
		ranread_io_method_is_worker();
}

/* The read_bytes of the I/O workers pids summed; -1 if one's could not be read. */
static int64
sum_read_bytes(const pid_t *pids, int count)
{
	int64		total = 0;

	for (int i = 0; i < count; i++)
	{
		uint64		bytes;

		if (!ranread_process_read_bytes(pids[i], &bytes))
			return -1;
		total += (int64) bytes;
	}
	return total;
}

/* Whether every pid of before (sorted) is among those of now (sorted). */
static bool
all_still_running(const pid_t *before, int before_count, const pid_t *now, int now_count)
{
	int			j = 0;

	for (int i = 0; i < before_count; i++)
	{
		while (j < now_count && now[j] < before[i])
			j++;
		if (j == now_count || now[j] != before[i])
			return false;
	}
	return true;
}

/*
 * The I/O workers running now, per pg_stat_activity (at most
 * RANREAD_MAX_IO_WORKERS): into pids, their number returned.  In a
 * transaction.
 */
static int
list_io_workers(pid_t *pids)
{
	int			count = 0;

	pgstat_clear_snapshot();	/* the I/O workers running now */
	SPI_connect();
	if (SPI_execute("SELECT pid FROM pg_catalog.pg_stat_activity "
					"WHERE backend_type OPERATOR(pg_catalog.=) 'io worker' ORDER BY pid", true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read pg_stat_activity");
	for (uint64 row = 0; row < SPI_processed && row < RANREAD_MAX_IO_WORKERS; row++)
		pids[count++] = (pid_t) ranread_spi_int_named(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, "pid", 0);
	SPI_finish();
	pgstat_clear_snapshot();
	return count;
}

/* Leader, just before the release: the I/O workers and their bytes so far. */
void
ranread_io_worker_bytes_begin(RanreadShared *shared)
{
	shared->io_worker_count = 0;
	shared->io_worker_bytes_before = -1;
	shared->io_worker_bytes = -1;
	if (!reads_in_io_workers(shared))
		return;
	shared->io_worker_count = list_io_workers(shared->io_worker_pids);
	if (shared->io_worker_count > 0)
		shared->io_worker_bytes_before = sum_read_bytes(shared->io_worker_pids, shared->io_worker_count);
}

/*
 * The worker recording the batch, once every worker's reads have completed:
 * what the I/O workers fetched during the batch, kept in shared memory for
 * the leader's report.  19 grows and shrinks the pool: an I/O worker that
 * started during the batch read during it all it has read, so it counts
 * whole; one that exited took its count along, and the bytes are unknown.
 * Outside a transaction; a failure here must not cost the batch its row.
 */
void
ranread_io_worker_bytes_end(RanreadShared *shared)
{
	MemoryContext context = CurrentMemoryContext;
	pid_t		now[RANREAD_MAX_IO_WORKERS];
	volatile int count = -1;
	int64		after;

	if (shared->io_worker_bytes_before < 0)
		return;
	PG_TRY();
	{
		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
		count = list_io_workers(now);
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		ErrorData  *edata = ranread_catch_error(context);

		ereport(LOG,
				(errmsg("ranread batch " INT64_FORMAT " could not read pg_stat_activity: %s",
						shared->batch, edata->message)));
	}
	PG_END_TRY();
	if (count < 0 || !all_still_running(shared->io_worker_pids, shared->io_worker_count, now, count))
		return;
	after = sum_read_bytes(now, count);
	if (after >= 0)
		shared->io_worker_bytes = Max(after - shared->io_worker_bytes_before, 0);
}
