/*-------------------------------------------------------------------------
 *
 * stat_io.c
 *		A second proof of physical reads, from pg_stat_io (16 and later).
 *
 * For a read path through shared buffers, PostgreSQL counts each read into
 * a buffer in pg_stat_io under the kind of process that started it (on 18
 * also a read that an I/O worker or io_uring performs).  Just before it
 * releases the workers, the leader takes the bytes background workers have
 * read from relations; each worker flushes its counters when its read loop
 * ends (worker.c), and the worker that records the batch takes them again.
 * The difference, in blocks, is the batch's stat_io_reads.  It also counts
 * what the workers read while connecting (catalog blocks), during a ramp,
 * and what any other background worker read meanwhile (parallel query, say).
 * For a completed batch without a ramp, the run WARNs when it differs from
 * ranread's own count of buffer misses by more than 5 % of the misses plus
 * 16 blocks per process (stat_io.h), in either direction.  Reading the view
 * clears the caller's statistics snapshot, if it had one.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "executor/spi.h"
#include "pgstat.h"
#include "utils/snapmgr.h"

#include "record/catch_error.h"
#include "compat.h"
#include "readpath/readpath.h"
#include "record/stat_io.h"
#include "spi_columns.h"

/* Bytes background workers have read from relations, per pg_stat_io now; -1 before 16. */
static int64
ranread_stat_io_read_bytes(void)
{
	int64		bytes = 0;
	bool		isnull;
	Datum		value;

	if (RANREAD_STAT_IO_READ_BYTES[0] == '\0')
		return -1;
	pgstat_clear_snapshot();	/* a fresh reading, not the transaction's cached one */
	SPI_connect();
	if (SPI_execute(psprintf("SELECT (%s)::pg_catalog.int8 AS read_bytes FROM pg_catalog.pg_stat_io "
							 "WHERE backend_type OPERATOR(pg_catalog.=) 'background worker' "
							 "AND object OPERATOR(pg_catalog.=) 'relation'",
							 RANREAD_STAT_IO_READ_BYTES), true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not read pg_stat_io");
	value = ranread_spi_datum_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "read_bytes", &isnull);
	if (!isnull)
		bytes = DatumGetInt64(value);
	SPI_finish();
	/* leave no snapshot of the statistics from before the run to the caller */
	pgstat_clear_snapshot();
	return bytes;
}

/* Leader, just before the release: the reading to count from (paths through shared buffers). */
void
ranread_stat_io_begin(RanreadShared *shared)
{
	const RanreadReadPath *path = ranread_readpath_by_index(shared->params.readpath);

	shared->stat_io_blocks = -1;
	shared->stat_io_bytes_before = (path->flags & RANREAD_PATH_COUNTS_BUFFER_HITS) ?
		ranread_stat_io_read_bytes() : -1;
}

/*
 * The worker recording the batch, once every worker has flushed: the blocks
 * read during the batch per pg_stat_io, kept in shared memory for the
 * leader's report; -1 when not counted.
 */
int64
ranread_stat_io_end(RanreadShared *shared)
{
	MemoryContext context = CurrentMemoryContext;
	volatile int64 after = -1;

	if (shared->stat_io_bytes_before < 0)
		return -1;
	/* outside a transaction; a failure here must not cost the batch its row */
	PG_TRY();
	{
		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
		after = ranread_stat_io_read_bytes();
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		ErrorData  *edata = ranread_catch_error(context);

		ereport(LOG,
				(errmsg("ranread batch " INT64_FORMAT " could not read pg_stat_io: %s",
						shared->batch, edata->message)));
	}
	PG_END_TRY();
	if (after >= 0)
		shared->stat_io_blocks = Max(after - shared->stat_io_bytes_before, 0) / BLCKSZ;
	return shared->stat_io_blocks;
}

/*
 * Whether pg_stat_io and ranread's buffer misses disagree beyond the margin
 * (see above); the caller asks only of a completed batch.
 */
bool
ranread_stat_io_disagrees(const RanreadShared *shared, int64 buffer_misses)
{
	double		margin = buffer_misses * RANREAD_STAT_IO_MARGIN_PCT / 100.0 +
		RANREAD_STAT_IO_MARGIN_PER_PROCESS * shared->params.processes;

	return shared->stat_io_blocks >= 0 && shared->params.ramp_ns == 0 &&
		fabs((double) (shared->stat_io_blocks - buffer_misses)) > margin;
}
