/*-------------------------------------------------------------------------
 *
 * compat.h
 *		Every call whose form depends on the PostgreSQL major version.
 *
 * The one place that knows PostgreSQL's major versions: no other file tests
 * PG_VERSION_NUM (scripts/lint.sh checks).  A port to a new major starts and
 * ends here: each definition below names the release that changed it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_COMPAT_H
#define RANREAD_COMPAT_H

#include <time.h>

#include "catalog/pg_tablespace_d.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "storage/block.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/fd.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/proc.h"
#include "storage/smgr.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/rel.h"

/*
 * The majors ranread is built for.  The Makefile refuses the others before
 * compiling (with the same list); this is the compiler's own guard.
 */
#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 200000
#error "ranread supports PostgreSQL 15 to 19 (tested-majors lists those tested)"
#endif

#if PG_VERSION_NUM >= 160000
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "storage/relfilelocator.h"
#else
#include "storage/relfilenode.h"
#endif
#if PG_VERSION_NUM >= 170000
#include "storage/procnumber.h"
#else
#include "storage/backendid.h"
#endif

/*
 * ranread's clock: instr_time read from the system's monotonic clock, in
 * nanoseconds, in every process of a run.  15 reads it as a struct timespec
 * from CLOCK_MONOTONIC; 16 to 18 as int64 ticks, which on Linux are
 * nanoseconds of the same clock.  19's INSTR_TIME_SET_CURRENT() may read the
 * CPU's time-stamp counter instead (timing_clock_source), in ticks that only
 * its own conversions turn into time; ranread reads the system clock there
 * (pg_get_ticks_system(), nanoseconds on Linux), so that a worker's pacing
 * sleep (clock_nanosleep() on the same clock) and the leader's deadlines mean
 * the same instant on every major.
 */
#if PG_VERSION_NUM >= 190000
#define RANREAD_TIME_SET_CURRENT(t)	((t) = pg_get_ticks_system())
#define RANREAD_CLOCK_ID			PG_INSTR_SYSTEM_CLOCK
#else
#define RANREAD_TIME_SET_CURRENT(t)	INSTR_TIME_SET_CURRENT(t)
#define RANREAD_CLOCK_ID			PG_INSTR_CLOCK
#endif

static inline uint64
ranread_instr_time_ns(instr_time t)
{
#if PG_VERSION_NUM >= 190000
	return (uint64) t.ticks;
#elif PG_VERSION_NUM >= 160000
	return (uint64) INSTR_TIME_GET_NANOSEC(t);
#else
	return (uint64) t.tv_sec * UINT64CONST(1000000000) + (uint64) t.tv_nsec;
#endif
}

/* An instr_time of ranread's clock (or a difference of two) in seconds. */
static inline double
ranread_instr_time_s(instr_time t)
{
	return (double) ranread_instr_time_ns(t) / 1e9;
}

static inline instr_time
ranread_instr_time_from_ns(uint64 ns)
{
	instr_time	t;

#if PG_VERSION_NUM >= 160000
	t.ticks = (int64) ns;
#else
	t.tv_sec = ns / UINT64CONST(1000000000);
	t.tv_nsec = ns % UINT64CONST(1000000000);
#endif
	return t;
}

/*
 * Sleep until ranread's clock reads ns; returns early (EINTR) when a signal
 * arrives.
 */
static inline void
ranread_sleep_until_ns(uint64 ns)
{
	struct timespec until;

	until.tv_sec = ns / UINT64CONST(1000000000);
	until.tv_nsec = ns % UINT64CONST(1000000000);
	(void) clock_nanosleep(RANREAD_CLOCK_ID, TIMER_ABSTIME, &until, NULL);
}

/*
 * A signal handler's arguments, passed on to another handler (die(),
 * StatementCancelHandler()): 19 gave handlers a second one, the signal's
 * pg_signal_info.
 */
#if PG_VERSION_NUM >= 190000
#define RANREAD_SIGNAL_ARGS_PASSED	postgres_signal_arg, pg_siginfo
#else
#define RANREAD_SIGNAL_ARGS_PASSED	postgres_signal_arg
#endif

/*
 * Set a page's checksum in place (nothing when the cluster has none).  19
 * renamed PageSetChecksumInplace() to PageSetChecksum().
 */
#if PG_VERSION_NUM >= 190000
#define ranread_page_set_checksum(page, blkno)	PageSetChecksum(page, blkno)
#else
#define ranread_page_set_checksum(page, blkno)	PageSetChecksumInplace(page, blkno)
#endif

/*
 * Where a relation's files are.  16 renamed RelFileNode to RelFileLocator
 * (rd_node to rd_locator, relNode to relNumber).
 */
#if PG_VERSION_NUM >= 160000
typedef RelFileLocator RanreadRelFile;

#define RANREAD_REL_FILE(rel)			((rel)->rd_locator)
#define RANREAD_REL_FILE_NUMBER(file)	((file).relNumber)
#else
typedef RelFileNode RanreadRelFile;

#define RANREAD_REL_FILE(rel)			((rel)->rd_node)
#define RANREAD_REL_FILE_NUMBER(file)	((file).relNode)
#endif

/*
 * A shared (not temporary) relation's backend argument: InvalidBackendId
 * until 16, INVALID_PROC_NUMBER since 17 (BackendId became ProcNumber).
 */
#if PG_VERSION_NUM >= 170000
#define RANREAD_NO_BACKEND		INVALID_PROC_NUMBER
#else
#define RANREAD_NO_BACKEND		InvalidBackendId
#endif

/* The storage manager's handle of a relation's files, as a backend opens it. */
static inline SMgrRelation
ranread_smgropen(RanreadRelFile file)
{
	return smgropen(file, RANREAD_NO_BACKEND);
}

/*
 * Path of a relation's main fork relative to the data directory, palloc'd.
 * 18's relpathbackend() returns a RelPathStr by value.
 */
static inline char *
ranread_relpath(RanreadRelFile file)
{
#if PG_VERSION_NUM >= 180000
	return pstrdup(relpathbackend(file, RANREAD_NO_BACKEND, MAIN_FORKNUM).str);
#else
	return relpathbackend(file, RANREAD_NO_BACKEND, MAIN_FORKNUM);
#endif
}

/*
 * Does this backend hold the lock in exactly this mode?  17 added the
 * orstronger argument to LockHeldByMe().
 */
static inline bool
ranread_lock_held_by_me(const LOCKTAG *tag, LOCKMODE mode)
{
#if PG_VERSION_NUM >= 170000
	return LockHeldByMe(tag, mode, false);
#else
	return LockHeldByMe((LOCKTAG *) tag, mode);
#endif
}

/* This backend's index in ProcGlobal->allProcs: 17 removed PGPROC.pgprocno. */
static inline int
ranread_my_proc_number(void)
{
#if PG_VERSION_NUM >= 170000
	return MyProcNumber;
#else
	return MyProc->pgprocno;
#endif
}

/* Does the current user own the relation?  16 replaced pg_class_ownercheck(). */
static inline bool
ranread_owns_relation(Oid relid)
{
#if PG_VERSION_NUM >= 160000
	return object_ownercheck(RelationRelationId, relid, GetUserId());
#else
	return pg_class_ownercheck(relid, GetUserId());
#endif
}

/*
 * May `role` execute the function?  16 replaced pg_proc_aclcheck() by
 * object_aclcheck().
 */
static inline AclResult
ranread_function_aclcheck(Oid function, Oid role)
{
#if PG_VERSION_NUM >= 160000
	return object_aclcheck(ProcedureRelationId, function, role, ACL_EXECUTE);
#else
	return pg_proc_aclcheck(function, role, ACL_EXECUTE);
#endif
}

/*
 * May `role` create relations in the tablespace?  16 replaced
 * pg_tablespace_aclcheck() by object_aclcheck().
 */
static inline AclResult
ranread_tablespace_create_aclcheck(Oid tablespace, Oid role)
{
#if PG_VERSION_NUM >= 160000
	return object_aclcheck(TableSpaceRelationId, tablespace, role, ACL_CREATE);
#else
	return pg_tablespace_aclcheck(tablespace, role, ACL_CREATE);
#endif
}

/*
 * Since 17 a table's row type (and that type's array type) is a member of
 * the extension whose table it is, as ALTER EXTENSION ADD TABLE records it;
 * ALTER EXTENSION DROP TABLE then expects the row type's membership too.
 */
#define RANREAD_EXTENSION_OWNS_ROW_TYPES	(PG_VERSION_NUM >= 170000)

/*
 * PostgreSQL 18's asynchronous I/O: read streams whose reads go through
 * io_method (storage/read_stream.h, storage/aio.h).  17 has read streams but
 * no AIO under them; read path 'stream' refuses every major before 18.
 */
#define RANREAD_HAVE_AIO	(PG_VERSION_NUM >= 180000)

/*
 * How many I/O workers io_method = worker may have: 18's io_workers, a
 * fixed pool; 19 grows and shrinks the pool between io_min_workers and
 * io_max_workers.  ranread_batches.io_workers records this one.
 */
#if PG_VERSION_NUM >= 190000
#define RANREAD_IO_WORKERS_SETTING	"io_max_workers"
#else
#define RANREAD_IO_WORKERS_SETTING	"io_workers"
#endif
#define RANREAD_AIO_MAJOR	"18"

/*
 * Whether the server's io_method is worker (18 and later): PostgreSQL's I/O
 * workers then read for every path through io_method, through file
 * descriptors of their own.
 */
static inline bool
ranread_io_method_is_worker(void)
{
	const char *io_method = GetConfigOption("io_method", true, false);

	return io_method != NULL && strcmp(io_method, "worker") == 0;
}

/*
 * Evict the relation's blocks from shared buffers: 18 evicts its unpinned
 * buffers (EvictRelUnpinnedBuffers, as pg_buffercache_evict_relation()
 * does).  Before 18, which has no such call, it writes out the relation's
 * dirty buffers and drops all of them, as TRUNCATE does, under an
 * AccessExclusiveLock taken only if no one else holds a lock on it (so that
 * no one can pin or dirty a buffer in between) and released at once; false,
 * and nothing evicted, if another session held one.
 */
static inline bool
ranread_evict_relation_buffers(Relation rel)
{
#if PG_VERSION_NUM >= 180000
	int32		evicted;
	int32		flushed;
	int32		skipped;

	EvictRelUnpinnedBuffers(rel, &evicted, &flushed, &skipped);
	return true;
#else
	ForkNumber	fork = MAIN_FORKNUM;
	BlockNumber first = 0;

	if (!ConditionalLockRelationOid(RelationGetRelid(rel), AccessExclusiveLock))
		return false;
	FlushRelationBuffers(rel);
#if PG_VERSION_NUM >= 160000
	DropRelationBuffers(RelationGetSmgr(rel), &fork, 1, &first);
#else
	DropRelFileNodeBuffers(RelationGetSmgr(rel), &fork, 1, &first);
#endif
	UnlockRelationOid(RelationGetRelid(rel), AccessExclusiveLock);
	return true;
#endif
}

/*
 * Advise the kernel that nblocks blocks from block on will be read soon
 * (posix_fadvise WILLNEED): 17 takes a count, 15 and 16 one block a call.
 */
static inline void
ranread_smgrprefetch(SMgrRelation reln, BlockNumber block, int nblocks)
{
#if PG_VERSION_NUM >= 170000
	(void) smgrprefetch(reln, MAIN_FORKNUM, block, nblocks);
#else
	for (int i = 0; i < nblocks; i++)
		(void) smgrprefetch(reln, MAIN_FORKNUM, block + i);
#endif
}

/*
 * pg_stat_io (16): the bytes background workers have read from relations.
 * 18 counts them in read_bytes (a read may combine blocks); 16 and 17 count
 * reads of op_bytes each.  Before 16 there is no such view: "".
 */
#if PG_VERSION_NUM >= 180000
#define RANREAD_STAT_IO_READ_BYTES	"sum(read_bytes)"
#elif PG_VERSION_NUM >= 160000
#define RANREAD_STAT_IO_READ_BYTES	"sum(reads * op_bytes)"
#else
#define RANREAD_STAT_IO_READ_BYTES	""
#endif

/*
 * A checkpoint without delays, as CHECKPOINT asks for one
 * (checkpoint_window.c): 19 renamed CHECKPOINT_IMMEDIATE to CHECKPOINT_FAST.
 */
#if PG_VERSION_NUM >= 190000
#define RANREAD_CHECKPOINT_FAST		CHECKPOINT_FAST
#else
#define RANREAD_CHECKPOINT_FAST		CHECKPOINT_IMMEDIATE
#endif

/*
 * What the database did during a batch with writers (db_activity.c): one row
 * of its cumulative counters, each column named as ranread_db_activity's:
 * WAL bytes, full-page images, WAL syncs and their time (ms), checkpoints
 * timed and requested, buffers written by the checkpointer, the background
 * writer and every other process.  17 moved the checkpointer's counters to
 * pg_stat_checkpointer and left backends' writes to pg_stat_io; 18 moved WAL
 * syncs and their time from pg_stat_wal to pg_stat_io (object "wal").
 */
#define RANREAD_DB_ACTIVITY_BACKEND_WRITES \
	"(SELECT sum(writes) FROM pg_catalog.pg_stat_io WHERE object OPERATOR(pg_catalog.=) 'relation' " \
	"AND backend_type OPERATOR(pg_catalog.<>) ALL ('{checkpointer,background writer}'))::pg_catalog.int8 AS buffers_backend"
#if PG_VERSION_NUM >= 180000
#define RANREAD_DB_ACTIVITY_SQL \
	"SELECT w.wal_bytes::pg_catalog.float8 AS wal_bytes, w.wal_fpi, " \
	"(SELECT sum(fsyncs) FROM pg_catalog.pg_stat_io WHERE object OPERATOR(pg_catalog.=) 'wal')::pg_catalog.int8 AS wal_syncs, " \
	"(SELECT sum(fsync_time) FROM pg_catalog.pg_stat_io WHERE object OPERATOR(pg_catalog.=) 'wal')::pg_catalog.float8 AS wal_sync_ms, " \
	"c.num_timed AS checkpoints_timed, c.num_requested AS checkpoints_requested, " \
	"c.buffers_written AS buffers_checkpoint, b.buffers_clean, " RANREAD_DB_ACTIVITY_BACKEND_WRITES \
	" FROM pg_catalog.pg_stat_wal w, pg_catalog.pg_stat_checkpointer c, pg_catalog.pg_stat_bgwriter b"
#elif PG_VERSION_NUM >= 170000
#define RANREAD_DB_ACTIVITY_SQL \
	"SELECT w.wal_bytes::pg_catalog.float8 AS wal_bytes, w.wal_fpi, w.wal_sync AS wal_syncs, w.wal_sync_time AS wal_sync_ms, " \
	"c.num_timed AS checkpoints_timed, c.num_requested AS checkpoints_requested, " \
	"c.buffers_written AS buffers_checkpoint, b.buffers_clean, " RANREAD_DB_ACTIVITY_BACKEND_WRITES \
	" FROM pg_catalog.pg_stat_wal w, pg_catalog.pg_stat_checkpointer c, pg_catalog.pg_stat_bgwriter b"
#else
#define RANREAD_DB_ACTIVITY_SQL \
	"SELECT w.wal_bytes::pg_catalog.float8 AS wal_bytes, w.wal_fpi, w.wal_sync AS wal_syncs, w.wal_sync_time AS wal_sync_ms, " \
	"b.checkpoints_timed, b.checkpoints_req AS checkpoints_requested, b.buffers_checkpoint, b.buffers_clean, " \
	"b.buffers_backend" \
	" FROM pg_catalog.pg_stat_wal w, pg_catalog.pg_stat_bgwriter b"
#endif

/*
 * The same counters as RANREAD_DB_ACTIVITY_SQL's WAL syncs and buffers
 * written, read in C from the cumulative statistics (interval_activity.c):
 * no SQL, no transaction, so that the last reader can read them too.  The
 * caller clears the statistics snapshot first.  WAL sync time is in ms
 * (the statistics keep microseconds).
 */
static inline void
ranread_fetch_write_counters(int64 *wal_syncs, double *wal_sync_ms, int64 *buffers_checkpoint,
							 int64 *buffers_clean, int64 *buffers_backend)
{
#if PG_VERSION_NUM >= 170000
	PgStat_IO  *io = pgstat_fetch_stat_io();
#else
	PgStat_CheckpointerStats *checkpointer = pgstat_fetch_stat_checkpointer();
#endif
#if PG_VERSION_NUM < 180000
	PgStat_WalStats *wal = pgstat_fetch_stat_wal();
#endif

	*buffers_clean = pgstat_fetch_stat_bgwriter()->buf_written_clean;
#if PG_VERSION_NUM >= 170000
	*buffers_checkpoint = pgstat_fetch_stat_checkpointer()->buffers_written;
	*buffers_backend = 0;
	for (int b = 0; b < BACKEND_NUM_TYPES; b++)
	{
		if (b == B_CHECKPOINTER || b == B_BG_WRITER)
			continue;
		for (int c = 0; c < IOCONTEXT_NUM_TYPES; c++)
			*buffers_backend += io->stats[b].counts[IOOBJECT_RELATION][c][IOOP_WRITE];
	}
#else
	*buffers_checkpoint = checkpointer->buf_written_checkpoints;
	*buffers_backend = checkpointer->buf_written_backend;
#endif
#if PG_VERSION_NUM >= 180000
	*wal_syncs = 0;
	*wal_sync_ms = 0;
	for (int b = 0; b < BACKEND_NUM_TYPES; b++)
	{
		for (int c = 0; c < IOCONTEXT_NUM_TYPES; c++)
		{
			*wal_syncs += io->stats[b].counts[IOOBJECT_WAL][c][IOOP_FSYNC];
			*wal_sync_ms += (double) io->stats[b].times[IOOBJECT_WAL][c][IOOP_FSYNC] / 1000.0;
		}
	}
#else
	*wal_syncs = wal->wal_sync;
	*wal_sync_ms = (double) wal->wal_sync_time / 1000.0;
#endif
}

/*
 * md.c's private record of one open segment file, which SMgrRelationData
 * points to (md_seg_fds) without defining, and how many of the main fork's
 * segments are open (md_num_open_segs), md.c's too.  Identical from 15 to
 * 18; a port checks them against md.c's MdfdVec and SMgrRelationData.
 */
typedef struct RanreadMdfdVec
{
	File		mdfd_vfd;		/* fd number in fd.c's pool */
	BlockNumber mdfd_segno;		/* segment number, from 0 */
} RanreadMdfdVec;

#define RANREAD_SMGR_OPEN_SEGMENT(reln, i) \
	(((RanreadMdfdVec *) (reln)->md_seg_fds[MAIN_FORKNUM])[(i)])
#define RANREAD_SMGR_OPEN_SEGMENTS(reln) ((reln)->md_num_open_segs[MAIN_FORKNUM])

#endif							/* RANREAD_COMPAT_H */
