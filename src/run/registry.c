/*-------------------------------------------------------------------------
 *
 * registry.c
 *		Which batch runs: the cluster-wide run lock, the batch number and
 *		shared memory segment the leader advertises while its run lasts, and
 *		the workers alive.  ranread_running() (running.c) reads a running
 *		batch's live state through it.
 *
 * All are session-level advisory locks that SQL's pg_advisory_lock() cannot
 * take, imitate or block.  The run lock and the segment's are cluster-wide:
 * in database 0 (InvalidOid), where pg_advisory_lock(), which always locks in
 * the current database, cannot reach; pg_locks shows them with database 0
 * and classid RANREAD_LOCK_RUN or RANREAD_LOCK_SEGMENT (objid: the DSM
 * handle).  Each database has its own batch and sweep numbers, so the batch
 * and sweep locks are in the leader's database, with the 64-bit number's
 * high and low halves in classid and objid and RANREAD_LOCK_KIND_BATCH or
 * _SWEEP in objsubid, which pg_advisory_lock() sets only to 1 or 2.  A
 * database's views read its own batch and sweep only; the run lock and
 * ranread_stop() still span the cluster.  PostgreSQL 15 has no registry of
 * named DSM segments, and this one needs no shared_preload_libraries.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "commands/dbcommands.h"
#include "commands/sequence.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "extension.h"
#include "ranread.h"
#include "run/registry.h"
#include "spi_columns.h"

/* How long a new run waits for the workers of an ended one to exit. */
#define LINGER_WAIT_MS	2000
#define LINGER_POLL_MS	100

/* How long a run waits for the slots of the workers of a batch just ended to be reaped. */
#define SLOT_WAIT_MS		2000
#define SLOT_POLL_MS		20

static void
set_run_lock_tag(LOCKTAG *tag)
{
	SET_LOCKTAG_ADVISORY(*tag, InvalidOid, RANREAD_LOCK_RUN, 0, 2);
}

/* Batch, sweep or fleet run (`kind`) `number` of `database`, all 64 bits of it. */
static void
set_numbered_lock_tag_in(LOCKTAG *tag, uint16 kind, int64 number, Oid database)
{
	SET_LOCKTAG_ADVISORY(*tag, database, (uint32) ((uint64) number >> 32),
						 (uint32) number, kind);
}

/* The same, of this database. */
static void
set_numbered_lock_tag(LOCKTAG *tag, uint16 kind, int64 number)
{
	set_numbered_lock_tag_in(tag, kind, number, MyDatabaseId);
}

static void
set_segment_lock_tag(LOCKTAG *tag, dsm_handle segment)
{
	SET_LOCKTAG_ADVISORY(*tag, InvalidOid, RANREAD_LOCK_SEGMENT, segment, 2);
}

/*
 * Release the session-level run locks if this backend still holds them (at
 * backend exit, PostgreSQL may already have released all session locks).
 */
void
ranread_release_run_locks(int64 batch, dsm_handle segment)
{
	LOCKTAG		tag;

	set_segment_lock_tag(&tag, segment);
	if (ranread_lock_held_by_me(&tag, ShareLock))
		LockRelease(&tag, ShareLock, true);
	set_numbered_lock_tag(&tag, RANREAD_LOCK_KIND_BATCH, batch);
	if (ranread_lock_held_by_me(&tag, ShareLock))
		LockRelease(&tag, ShareLock, true);
	ranread_release_run_lock();
}

/*
 * Release the run lock once (a sweep takes it for all its steps, and each
 * step's run takes it again).
 */
void
ranread_release_run_lock(void)
{
	LOCKTAG		tag;

	set_run_lock_tag(&tag);
	if (ranread_lock_held_by_me(&tag, ExclusiveLock))
		LockRelease(&tag, ExclusiveLock, true);
}

/*
 * PIDs of the background workers alive, of type `type` (any if NULL),
 * whoever runs them (the process array and the background worker registry,
 * not pg_stat_activity, which hides other roles' backend types).
 */
static List *
background_worker_pids(const char *type)
{
	List	   *pids = NIL;
	List	   *workers = NIL;
	ListCell   *lc;

	LWLockAcquire(ProcArrayLock, LW_SHARED);
	for (uint32 i = 0; i < ProcGlobal->allProcCount; i++)
	{
		if (ProcGlobal->allProcs[i].pid != 0)
			pids = lappend_int(pids, ProcGlobal->allProcs[i].pid);
	}
	LWLockRelease(ProcArrayLock);

	foreach(lc, pids)
	{
		const char *worker_type = GetBackgroundWorkerTypeByPid(lfirst_int(lc));

		if (worker_type != NULL && (type == NULL || strcmp(worker_type, type) == 0))
			workers = lappend_int(workers, lfirst_int(lc));
	}
	return workers;
}

/* PIDs of every ranread worker in the cluster. */
List *
ranread_worker_pids(void)
{
	return background_worker_pids(RANREAD_WORKER_TYPE);
}

/*
 * Background worker slots free now: max_worker_processes less the background
 * workers alive (parallel query, the logical replication launcher, other
 * extensions' workers and ours).  A worker that has just exited may hold its
 * slot a little longer, until the postmaster reaps it.
 */
int
ranread_free_worker_slots(void)
{
	return Max(0, max_worker_processes - list_length(background_worker_pids(NULL)));
}

/*
 * The background worker slots free, once `needed` are or after
 * SLOT_WAIT_MS: the workers of a batch that has just ended (a sweep's step
 * before, or a run that ended in an error before its first read) hold their
 * slots until they have exited and the postmaster has reaped them.
 */
int
ranread_wait_for_worker_slots(int needed)
{
	int			free_slots = ranread_free_worker_slots();

	for (int waited = 0; waited < SLOT_WAIT_MS && free_slots < needed; waited += SLOT_POLL_MS)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, SLOT_POLL_MS,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		free_slots = ranread_free_worker_slots();
	}
	return free_slots;
}

/*
 * Advertise (or stop advertising) that this session runs a program of
 * batches (`kind`: RANREAD_LOCK_KIND_SWEEP, _LAYERS or _CALIBRATION) numbered
 * `number`: a session-level lock, so that it ends with the session, whatever
 * happens.
 */
void
ranread_advertise_program(uint16 kind, int64 number, bool advertise)
{
	LOCKTAG		tag;

	set_numbered_lock_tag(&tag, kind, number);
	if (advertise)
		(void) LockAcquire(&tag, ShareLock, true, false);
	else if (ranread_lock_held_by_me(&tag, ShareLock))
		LockRelease(&tag, ShareLock, true);
}

/*
 * The batch or sweep (`kind`) running now, as its session advertises it:
 * the one numbered `number`, or any if it is 0; in this database only,
 * unless `any_database`.  Returns its number (0 if none runs) and, each if
 * asked for, its session's process ID, its database and the run's shared
 * memory segment the same session advertises (DSM_HANDLE_INVALID if none).
 */
static int64
running_lock(uint16 kind, int64 number, bool any_database, int *pid, Oid *database,
			 dsm_handle *segment)
{
	int64		running = 0;

	if (segment != NULL)
		*segment = DSM_HANDLE_INVALID;
	if (database != NULL)
		*database = InvalidOid;
	SPI_connect();
	if (SPI_execute(psprintf("SELECT (l.classid::bigint OPERATOR(pg_catalog.<<) 32) "
							 "OPERATOR(pg_catalog.|) l.objid::bigint AS number, "
							 "l.pid, l.database, s.objid::bigint AS segment FROM pg_catalog.pg_locks l "
							 "LEFT JOIN pg_catalog.pg_locks s ON s.pid OPERATOR(pg_catalog.=) l.pid "
							 "AND s.locktype OPERATOR(pg_catalog.=) 'advisory' "
							 "AND s.database OPERATOR(pg_catalog.=) 0 "
							 "AND s.classid OPERATOR(pg_catalog.=) '%u'::pg_catalog.oid "
							 "AND s.objsubid OPERATOR(pg_catalog.=) 2 AND s.granted "
							 "WHERE l.locktype OPERATOR(pg_catalog.=) 'advisory' "
							 "AND l.objsubid OPERATOR(pg_catalog.=) %d AND l.granted %s %s "
							 "ORDER BY number DESC LIMIT 1",
							 (uint32) RANREAD_LOCK_SEGMENT, (int) kind,
							 any_database ? "" :
							 psprintf("AND l.database OPERATOR(pg_catalog.=) '%u'::pg_catalog.oid",
									  MyDatabaseId),
							 number == 0 ? "" :
							 psprintf("AND l.classid OPERATOR(pg_catalog.=) '%u'::pg_catalog.oid "
									  "AND l.objid OPERATOR(pg_catalog.=) '%u'::pg_catalog.oid",
									  (uint32) ((uint64) number >> 32), (uint32) number)),
					true, 1) == SPI_OK_SELECT &&
		SPI_processed == 1)
	{
		HeapTuple	row = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		Datum		handle;

		running = ranread_spi_int_named(row, desc, "number", 0);
		if (pid != NULL)
			*pid = (int) ranread_spi_int_named(row, desc, "pid", 0);
		if (database != NULL)
			*database = DatumGetObjectId(ranread_spi_datum_named(row, desc, "database", &isnull));
		handle = ranread_spi_datum_named(row, desc, "segment", &isnull);
		if (segment != NULL && !isnull)
			*segment = (dsm_handle) DatumGetInt64(handle);
	}
	SPI_finish();
	return running;
}

/*
 * The sweep running now (the one numbered `sweep`, or any if it is 0), in
 * this database unless `any_database`, and (each if asked for) its
 * session's process ID and its database; 0 if none runs.
 */
int64
ranread_running_sweep(int64 sweep, bool any_database, int *leader_pid, Oid *database)
{
	return running_lock(RANREAD_LOCK_KIND_SWEEP, sweep, any_database, leader_pid, database, NULL);
}

/* The programs of batches a session advertises, and how errors name them. */
static const struct
{
	uint16		kind;
	const char *name;
}			programs[] = {
	{RANREAD_LOCK_KIND_SWEEP, "sweep"},
	{RANREAD_LOCK_KIND_LAYERS, "layers run"},
	{RANREAD_LOCK_KIND_CALIBRATION, "calibration"},
};

/*
 * The program of batches (a sweep, ranread_layers(), ranread_calibrate())
 * running now in any database, and (each if asked for) its session's
 * process ID, its database and its name ("sweep", "layers run",
 * "calibration"); 0 if none runs.
 */
int64
ranread_running_program(int *leader_pid, Oid *database, const char **name)
{
	for (int i = 0; i < lengthof(programs); i++)
	{
		int64		number = running_lock(programs[i].kind, 0, true, leader_pid, database, NULL);

		if (number != 0)
		{
			if (name != NULL)
				*name = programs[i].name;
			return number;
		}
	}
	return 0;
}

/*
 * Advertise (or stop advertising) that this session coordinates fleet run
 * `fleet` and waits for its servers: a transaction-level lock, which an error
 * in the fleet run's wait releases with its subtransaction.
 */
void
ranread_advertise_fleet(int64 fleet, bool advertise)
{
	LOCKTAG		tag;

	set_numbered_lock_tag(&tag, RANREAD_LOCK_KIND_FLEET, fleet);
	if (advertise && !ranread_lock_held_by_me(&tag, ShareLock))
		(void) LockAcquire(&tag, ShareLock, false, false);
	else if (!advertise && ranread_lock_held_by_me(&tag, ShareLock))
		LockRelease(&tag, ShareLock, false);
}

/*
 * Every fleet run whose coordinator waits now, in any database: a list of
 * RanreadFleetWait.
 */
List *
ranread_waiting_fleets(void)
{
	List	   *fleets = NIL;
	MemoryContext caller = CurrentMemoryContext;

	SPI_connect();
	if (SPI_execute(psprintf("SELECT (l.classid::bigint OPERATOR(pg_catalog.<<) 32) "
							 "OPERATOR(pg_catalog.|) l.objid::bigint AS fleet, l.pid, l.database "
							 "FROM pg_catalog.pg_locks l "
							 "WHERE l.locktype OPERATOR(pg_catalog.=) 'advisory' "
							 "AND l.objsubid OPERATOR(pg_catalog.=) %d AND l.granted",
							 (int) RANREAD_LOCK_KIND_FLEET),
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read pg_locks");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	row = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		MemoryContext spi = MemoryContextSwitchTo(caller);
		RanreadFleetWait *wait = palloc(sizeof(RanreadFleetWait));

		fleets = lappend(fleets, wait);
		MemoryContextSwitchTo(spi);
		wait->fleet = ranread_spi_int_named(row, desc, "fleet", 0);
		wait->coordinator_pid = (int) ranread_spi_int_named(row, desc, "pid", 0);
		wait->database = DatumGetObjectId(ranread_spi_datum_named(row, desc, "database", &isnull));
	}
	SPI_finish();
	return fleets;
}

/* Does another session hold a share of the lock? (Asked without waiting.) */
static bool
held_by_another(const LOCKTAG *tag)
{
	if (LockAcquire(tag, ExclusiveLock, false, true) == LOCKACQUIRE_NOT_AVAIL)
		return true;
	LockRelease(tag, ExclusiveLock, false);
	return false;
}

/* Does fleet run `fleet` of database `database` still wait for its servers? */
bool
ranread_fleet_waits(int64 fleet, Oid database)
{
	LOCKTAG		tag;

	set_numbered_lock_tag_in(&tag, RANREAD_LOCK_KIND_FLEET, fleet, database);
	return held_by_another(&tag);
}

/*
 * ranread_stop()'s request that fleet run `fleet` of database `database`
 * stop: a transaction-level lock its coordinator sees (below), held until
 * the caller's transaction ends.
 */
void
ranread_request_fleet_stop(int64 fleet, Oid database)
{
	LOCKTAG		tag;

	set_numbered_lock_tag_in(&tag, RANREAD_LOCK_KIND_FLEET_STOP, fleet, database);
	if (!ranread_lock_held_by_me(&tag, ShareLock))
		(void) LockAcquire(&tag, ShareLock, false, false);
}

/* Has another session's ranread_stop() asked fleet run `fleet` of database `database` to stop? */
bool
ranread_fleet_stop_requested_in(int64 fleet, Oid database)
{
	LOCKTAG		tag;

	set_numbered_lock_tag_in(&tag, RANREAD_LOCK_KIND_FLEET_STOP, fleet, database);
	return held_by_another(&tag);
}

/* Has ranread_stop() asked fleet run `fleet` of this database to stop? */
bool
ranread_fleet_stop_requested(int64 fleet)
{
	return ranread_fleet_stop_requested_in(fleet, MyDatabaseId);
}

/*
 * Workers of an ended run may still be exiting (or, terminated while they
 * record, logging what they measured): wait a little for them, then refuse
 * to start a run that would overlap them.
 */
static void
wait_for_earlier_workers(void)
{
	List	   *pids = NIL;

	for (int waited = 0; waited <= LINGER_WAIT_MS; waited += LINGER_POLL_MS)
	{
		pids = ranread_worker_pids();
		if (pids == NIL)
			return;
		(void) WaitLatch(MyLatch, WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, LINGER_POLL_MS,
						 PG_WAIT_EXTENSION);
		CHECK_FOR_INTERRUPTS();
	}
	ereport(ERROR,
			(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
			 errmsg("ranread workers of an earlier batch are still running"),
			 errdetail("%d workers, the first with process ID %d, had not exited after %d ms.",
					   list_length(pids), linitial_int(pids), LINGER_WAIT_MS),
			 errhint("Wait for them to finish recording, or stop them with ranread_stop().")));
}

/* A database's name for messages, or its OID if it has just been dropped. */
static const char *
database_name(Oid database)
{
	char	   *name = get_database_name(database);

	return name != NULL ? name : psprintf("%u", database);
}

/*
 * Take the cluster-wide run lock (session-level, held only while the run
 * runs), or fail naming the batch that holds it (or the sweep, between two
 * of its steps), and its database when it is not this one.
 */
void
ranread_lock_out_other_runs(void)
{
	LOCKTAG		tag;
	int64		running_batch;
	int64		running_program;
	const char *program;
	int			leader_pid;
	Oid			database;

	set_run_lock_tag(&tag);
	if (LockAcquire(&tag, ExclusiveLock, true, true) != LOCKACQUIRE_NOT_AVAIL)
	{
		wait_for_earlier_workers();
		return;
	}

	running_batch = ranread_running_batch(true, &leader_pid, NULL, &database);
	if (running_batch != 0 && database == MyDatabaseId)
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("ranread batch " INT64_FORMAT " is already running", running_batch),
				 errdetail("Only one run at a time can measure the storage; batch " INT64_FORMAT " was started by process %d.",
						   running_batch, leader_pid),
				 errhint("Wait for it to finish, or stop it with ranread_stop().")));
	if (running_batch != 0)
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("ranread batch " INT64_FORMAT " of database \"%s\" is already running",
						running_batch, database_name(database)),
				 errdetail("Only one run at a time can measure the storage of the cluster; batch " INT64_FORMAT " of database \"%s\" was started by process %d.",
						   running_batch, database_name(database), leader_pid),
				 errhint("Wait for it to finish, or stop it with ranread_stop().")));

	/* between two batches of a sweep, a layers run or a calibration, no batch runs */
	running_program = ranread_running_program(&leader_pid, &database, &program);
	if (running_program != 0 && database != MyDatabaseId)
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("ranread %s " INT64_FORMAT " of database \"%s\" is already running",
						program, running_program, database_name(database)),
				 errdetail("Only one run at a time can measure the storage of the cluster; %s " INT64_FORMAT " of database \"%s\" was started by process %d.",
						   program, running_program, database_name(database), leader_pid),
				 errhint("Wait for it to finish, or stop it with ranread_stop().")));
	if (running_program != 0)
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("ranread %s " INT64_FORMAT " is already running", program, running_program),
				 errdetail("Only one run at a time can measure the storage; %s " INT64_FORMAT " was started by process %d.",
						   program, running_program, leader_pid),
				 errhint("Wait for it to finish, or stop it with ranread_stop().")));
	ereport(ERROR,
			(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
			 errmsg("another ranread run is starting"),
			 errhint("Wait for it to finish, or stop it with ranread_stop().")));
}

/*
 * The batch running now, as its leader advertises it with the batch advisory
 * lock, in this database unless `any_database`, and (each if asked for) the
 * leader's process ID, the run's shared memory segment (DSM_HANDLE_INVALID
 * while the leader has not advertised it yet) and the batch's database; 0
 * if no batch runs.  No SQL-level advisory lock can pass for ranread's
 * (see the head of this file), so no role can pretend that a batch runs.
 */
int64
ranread_running_batch(bool any_database, int *leader_pid, dsm_handle *segment, Oid *database)
{
	return running_lock(RANREAD_LOCK_KIND_BATCH, 0, any_database, leader_pid, database, segment);
}

/*
 * Draw the next batch number and advertise it, and the run's shared memory
 * segment, while the run lasts.
 */
int64
ranread_start_batch(dsm_handle segment)
{
	Oid			seq = get_relname_relid("ranread_batch_seq",
										get_namespace_oid(ranread_extension_schema(), false));
	int64		batch = DatumGetInt64(DirectFunctionCall1(nextval_oid, ObjectIdGetDatum(seq)));
	LOCKTAG		tag;

	set_numbered_lock_tag(&tag, RANREAD_LOCK_KIND_BATCH, batch);
	(void) LockAcquire(&tag, ShareLock, true, false);
	set_segment_lock_tag(&tag, segment);
	(void) LockAcquire(&tag, ShareLock, true, false);
	return batch;
}
