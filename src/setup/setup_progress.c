/*-------------------------------------------------------------------------
 *
 * setup_progress.c
 *		How far a running ranread_setup() is, for any session to read:
 *		ranread_setup_running(), which the view ranread_progress shows.
 *
 * ranread_setup() writes in the caller's own backend.  While it runs it
 * keeps a small dynamic shared memory segment holding its target, the bytes
 * to write and the bytes written, and advertises the segment with a
 * transaction-level advisory lock in its database (objsubid
 * RANREAD_LOCK_KIND_SETUP, objid: the DSM handle), as ranread_run()
 * advertises its batch (registry.c).  An error or a cancel releases both
 * with the transaction.  Each database sees its own setups only: a target
 * is one database's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/dsm.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "extension.h"
#include "ranread.h"
#include "setup/setup_progress.h"
#include "spi_columns.h"

PG_FUNCTION_INFO_V1(ranread_setup_running);

#define SETUP_PROGRESS_MAGIC	0x52535550	/* "RSUP" */
#define SETUP_RUNNING_COLUMNS	8

struct RanreadSetupProgress
{
	uint32		magic;
	char		target[NAMEDATALEN];
	int			pid;
	TimestampTz started_at;
	uint64		bytes_total;
	pg_atomic_uint64 bytes_written;
	pg_atomic_uint32 flushing;	/* all written; flushing and evicting */
};

static dsm_segment *progress_segment = NULL;

static void
set_setup_lock_tag(LOCKTAG *tag, dsm_handle handle)
{
	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, 0, handle, RANREAD_LOCK_KIND_SETUP);
}

/* Start advertising a setup of `bytes_total` bytes for target `target`. */
RanreadSetupProgress *
ranread_setup_progress_begin(const char *target, uint64 bytes_total)
{
	RanreadSetupProgress *progress;
	LOCKTAG		tag;

	progress_segment = dsm_create(sizeof(RanreadSetupProgress), 0);
	progress = dsm_segment_address(progress_segment);
	memset(progress, 0, sizeof(RanreadSetupProgress));
	strlcpy(progress->target, target, NAMEDATALEN);
	progress->pid = MyProcPid;
	progress->started_at = GetCurrentTimestamp();
	progress->bytes_total = bytes_total;
	pg_atomic_init_u64(&progress->bytes_written, 0);
	pg_atomic_init_u32(&progress->flushing, 0);
	progress->magic = SETUP_PROGRESS_MAGIC;
	set_setup_lock_tag(&tag, dsm_segment_handle(progress_segment));
	(void) LockAcquire(&tag, ShareLock, false, false);
	return progress;
}

void
ranread_setup_progress_written(RanreadSetupProgress *progress, uint64 bytes_written)
{
	pg_atomic_write_u64(&progress->bytes_written, bytes_written);
}

void
ranread_setup_progress_flushing(RanreadSetupProgress *progress)
{
	pg_atomic_write_u32(&progress->flushing, 1);
}

/* Stop advertising: the setup has written, flushed and evicted its target. */
void
ranread_setup_progress_end(RanreadSetupProgress *progress)
{
	LOCKTAG		tag;

	set_setup_lock_tag(&tag, dsm_segment_handle(progress_segment));
	LockRelease(&tag, ShareLock, false);
	dsm_detach(progress_segment);
	progress_segment = NULL;
}

/* One row of ranread_setup_running() from an advertised segment, if it is one. */
static void
put_setup_row(ReturnSetInfo *rsinfo, dsm_handle handle)
{
	dsm_segment *seg = dsm_attach(handle);
	const RanreadSetupProgress *progress;
	Datum		values[SETUP_RUNNING_COLUMNS];
	bool		nulls[SETUP_RUNNING_COLUMNS] = {0};
	Name		target = palloc(NAMEDATALEN);
	uint64		written;
	double		elapsed;
	double		rate;

	if (seg == NULL)
		return;
	progress = dsm_segment_address(seg);
	if (dsm_segment_map_length(seg) < sizeof(RanreadSetupProgress) ||
		progress->magic != SETUP_PROGRESS_MAGIC)
	{
		dsm_detach(seg);
		return;
	}
	written = pg_atomic_read_u64((pg_atomic_uint64 *) &progress->bytes_written);
	elapsed = (double) (GetCurrentTimestamp() - progress->started_at) / USECS_PER_SEC;
	rate = elapsed > 0 ? written / elapsed : 0;
	namestrcpy(target, progress->target);
	values[0] = NameGetDatum(target);
	values[1] = Int32GetDatum(progress->pid);
	values[2] = CStringGetTextDatum(pg_atomic_read_u32((pg_atomic_uint32 *) &progress->flushing) ?
									"flushing" : "writing");
	values[3] = Int64GetDatum((int64) written);
	values[4] = Int64GetDatum((int64) progress->bytes_total);
	values[5] = Float8GetDatum(elapsed);
	values[6] = Float8GetDatum(rate / (1024 * 1024));
	values[7] = Float8GetDatum(rate > 0 ? (progress->bytes_total - written) / rate : 0);
	nulls[7] = rate <= 0;
	dsm_detach(seg);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * ranread_setup_running(): one row per ranread_setup() running in this
 * database: target, process, state, bytes written and to write, elapsed
 * time, rate and time left.
 */
Datum
ranread_setup_running(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	List	   *handles = NIL;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	ranread_check_result_columns(rsinfo->setDesc, SETUP_RUNNING_COLUMNS);
	SPI_connect();
	if (SPI_execute(psprintf("SELECT objid::bigint AS handle FROM pg_catalog.pg_locks "
							 "WHERE locktype OPERATOR(pg_catalog.=) 'advisory' "
							 "AND database OPERATOR(pg_catalog.=) '%u'::pg_catalog.oid "
							 "AND classid OPERATOR(pg_catalog.=) 0 "
							 "AND objsubid OPERATOR(pg_catalog.=) %d AND granted ORDER BY pid",
							 MyDatabaseId, RANREAD_LOCK_KIND_SETUP), true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read pg_locks");
	for (uint64 i = 0; i < SPI_processed; i++)
		handles = lappend_oid(handles, (Oid) ranread_spi_int_named(SPI_tuptable->vals[i], SPI_tuptable->tupdesc,
																	"handle", 0));
	SPI_finish();
	foreach(lc, handles)
		put_setup_row(rsinfo, (dsm_handle) lfirst_oid(lc));
	return (Datum) 0;
}
