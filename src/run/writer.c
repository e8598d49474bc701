/*-------------------------------------------------------------------------
 *
 * writer.c
 *		The ranread background writer: random page writes through
 *		PostgreSQL, each timed as a backend sees it, beside the readers.
 *
 * A batch with writers => N starts N writers after its readers (run.c).  A
 * writer attaches to the run's shared memory, connects as the caller, and
 * prepares one UPDATE of the write target (write_target.c); then it waits at
 * the readers' barrier.  Once released, it writes open loop at its share of
 * write_rate_iops (arrivals.c, uniform gaps, the writers interleaved): each
 * write is its own transaction that rewrites the filler of one row drawn at
 * random, RANREAD_WRITE_ROW_BYTES fresh pseudo-random bytes, and commits
 * with synchronous_commit on.  PostgreSQL does the rest as for any table:
 * the heap page is changed in shared buffers (a HOT update: the page has
 * room for the run's versions of its row, ranread.h; they are pruned in the
 * next run), WAL is inserted (a full-page image on the first
 * change after a checkpoint), the commit waits for its WAL flush, and the
 * dirty page is written later by the checkpointer, the background writer or
 * a backend.  Each write is timed from the start of its transaction to the
 * return of its commit, the service time (a late write starts at once; the
 * achieved rate says how far behind the writers fell).
 *
 * A writer stops when every reader has stopped reading, or, in a run of
 * writers alone (processes => 0, RanWrite), at the end of the duration; or
 * when it is told to stop (ranread_stop(), the leader ending the run, SIGTERM
 * or SIGINT), after the write in progress commits: every write is a whole
 * transaction, so a stop or a cancel leaves the write target consistent.
 * Writers alone stand in for the readers in the run's count of those still
 * reading, so the last of them to stop closes the device's window as the
 * last reader would.  A writer then records its row of
 * ranread_write_results; the last worker or writer to record writes the
 * batch row (results.c).  A write that fails (a full disk, a cancel, a lock
 * timeout) rolls back and ends the writer: its row then has status failed,
 * the error and the writes committed before; the readers read on.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "common/pg_prng.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/wait_event.h"

#include "compat.h"
#include "ranread.h"
#include "record/catch_error.h"
#include "record/results.h"
#include "rules/arrivals.h"
#include "run/worker.h"
#include "run/writer.h"

/* The longest a writer sleeps between two looks at whether the reads have ended. */
#define WRITER_LOOK_MS		100

/*
 * When a writer stops writing of its own accord: the readers done, or with
 * writers alone, the duration over.
 */
static bool
writing_done(const RanreadShared *shared, uint64 now_ns)
{
	if (shared->params.processes == 0)
		return now_ns >= ranread_instr_time_ns(shared->release_time) + shared->params.duration_ns;
	return pg_atomic_read_u32((pg_atomic_uint32 *) &shared->reading) == 0;
}

/* A writer's prepared UPDATE and the bytes it writes next. */
typedef struct WriteLoop
{
	SPIPlanPtr	plan;
	bytea	   *filler;
	pg_prng_state prng;
} WriteLoop;

/* The UPDATE of one row of the write target, kept across transactions. */
static SPIPlanPtr
prepare_update(const RanreadShared *shared)
{
	Oid			types[2] = {INT4OID, BYTEAOID};
	SPIPlanPtr	plan;
	char	   *relname = get_rel_name(shared->write_target_relid);

	if (relname == NULL)
		elog(ERROR, "the write target was dropped");
	SPI_connect();
	plan = SPI_prepare(psprintf("UPDATE ONLY %s SET filler = $2 WHERE id OPERATOR(pg_catalog.=) $1",
								quote_qualified_identifier(shared->schema_name, relname)),
					   2, types);
	if (plan == NULL || SPI_keepplan(plan) != 0)
		elog(ERROR, "could not prepare the write target's UPDATE");
	SPI_finish();
	return plan;
}

/* Fresh pseudo-random bytes for the next write: nothing a device could compress. */
static void
fill_filler(WriteLoop *loop)
{
	char	   *data = VARDATA(loop->filler);

	for (int i = 0; i + (int) sizeof(uint64) <= RANREAD_WRITE_ROW_BYTES; i += sizeof(uint64))
	{
		uint64		word = pg_prng_uint64(&loop->prng);

		memcpy(data + i, &word, sizeof(uint64));
	}
}

/* One write, a transaction of its own: one row's filler rewritten, committed. */
static void
write_one(const RanreadShared *shared, WriteLoop *loop)
{
	Datum		values[2];

	values[0] = Int32GetDatum((int32) pg_prng_uint64_range(&loop->prng, 1, (uint64) shared->write_rows));
	values[1] = PointerGetDatum(loop->filler);
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	if (SPI_execute_plan(loop->plan, values, NULL, false, 0) != SPI_OK_UPDATE || SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("row %d of ranread write target \"%s\" is missing",
						DatumGetInt32(values[0]), shared->params.write_target_name),
				 errdetail("The write target had %d rows when the run began; a row was deleted, or its id changed, meanwhile.",
						   shared->write_rows),
				 errhint("Run ranread_setup_writes(target => '%s') again: it replaces the write target.",
						 shared->params.write_target_name)));
	PopActiveSnapshot();
	SPI_finish();
	CommitTransactionCommand();
}

/*
 * Sleep until due_ns, or until told to stop or writing is done (the
 * latch reset before the checks, so that a stop between them is not lost;
 * each sleep at most WRITER_LOOK_MS, so that the end of the reads is seen
 * soon however long the gap between two writes).
 */
static void
wait_until_due(const RanreadShared *shared, uint64 due_ns)
{
	for (;;)
	{
		instr_time	now;
		uint64		now_ns;

		ResetLatch(MyLatch);
		RANREAD_TIME_SET_CURRENT(now);
		now_ns = ranread_instr_time_ns(now);
		if (now_ns >= due_ns || ranread_worker_stop_requested() || writing_done(shared, now_ns))
			return;
		if (due_ns - now_ns < 1000000)
			ranread_sleep_until_ns(due_ns);
		else
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 (long) Min((due_ns - now_ns) / 1000000, WRITER_LOOK_MS), PG_WAIT_EXTENSION);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Write at the writer's share of the rate until writing is done or it is told to stop. */
static void
write_until_done(RanreadShared *shared, RanreadWriterSlot *slot, WriteLoop *loop, int writer)
{
	RanreadArrivals arrivals;

	ranread_arrivals_init(&arrivals, ranread_instr_time_ns(shared->release_time),
						  shared->params.write_rate_iops, shared->params.writers, writer, false,
						  shared->seed ^ (uint64) (writer + 1));
	for (;;)
	{
		instr_time	now;
		instr_time	start;
		instr_time	end;

		wait_until_due(shared, ranread_arrivals_next(&arrivals));
		RANREAD_TIME_SET_CURRENT(now);
		if (ranread_worker_stop_requested() || writing_done(shared, ranread_instr_time_ns(now)))
			break;
		fill_filler(loop);
		RANREAD_TIME_SET_CURRENT(start);
		ranread_worker_write_cancellable(true);
		write_one(shared, loop);
		ranread_worker_write_cancellable(false);
		RANREAD_TIME_SET_CURRENT(end);
		slot->end_time = end;
		INSTR_TIME_SUBTRACT(end, start);
		ranread_hist_record(&slot->hist, ranread_instr_time_ns(end));

		/*
		 * As a client backend does between transactions: its WAL syncs and
		 * writes reach the cumulative statistics about once a second, so
		 * that the series shows them in the interval they happened in
		 * (interval_activity.c), not all at the end.
		 */
		pgstat_report_stat(false);
		CHECK_FOR_INTERRUPTS();
	}
	/* its span ends with the writing, not at its last commit (review D7) */
	RANREAD_TIME_SET_CURRENT(slot->end_time);
}

/*
 * Everything between connecting and the end of the write loop.  Returns
 * false if the writer was stopped before the barrier was released.
 */
static bool
run_writer(RanreadShared *shared, int writer)
{
	RanreadWriterSlot *slot = ranread_writer_slot(shared, writer);
	PGPROC	   *leader = &ProcGlobal->allProcs[shared->leader_pgprocno];
	WriteLoop	loop;

	StartTransactionCommand();
	loop.plan = prepare_update(shared);
	CommitTransactionCommand();
	loop.filler = MemoryContextAlloc(TopMemoryContext, VARHDRSZ + RANREAD_WRITE_ROW_BYTES);
	SET_VARSIZE(loop.filler, VARHDRSZ + RANREAD_WRITE_ROW_BYTES);
	memset(VARDATA(loop.filler), 0, RANREAD_WRITE_ROW_BYTES);
	pg_prng_seed(&loop.prng, shared->seed ^ ((uint64) (writer + 1) << 32) ^ (uint64) MyProcPid);

	ranread_worker_report_activity(shared, true, writer, "waiting to start");
	ranread_worker_stop_gently(true);
	CHECK_FOR_INTERRUPTS();
	pg_atomic_add_fetch_u32(&shared->barrier, 1);
	SetLatch(&leader->procLatch);
	if (!ranread_worker_wait_for_release(shared))
	{
		ranread_worker_stop_gently(false);
		return false;
	}
	RANREAD_TIME_SET_CURRENT(slot->end_time);

	ranread_worker_report_activity(shared, true, writer, "writing");
	write_until_done(shared, slot, &loop, writer);
	ranread_worker_stop_gently(false);
	pgstat_report_stat(true);

	/*
	 * A cancelled batch first: its readers, stopped, can end the writing
	 * before this writer's own stop request arrives.
	 */
	if (pg_atomic_read_u32(&shared->stop_reason) == RANREAD_STOP_CALLER_GONE)
		slot->status = RANREAD_STATUS_CANCELLED;
	else if (!ranread_worker_stop_requested() ||
			 pg_atomic_read_u32(&shared->stop_reason) == RANREAD_STOP_STEADY_STATE)
		slot->status = RANREAD_STATUS_COMPLETED;
	else
		slot->status = RANREAD_STATUS_STOPPED;
	return true;
}

void
ranread_writer_main(Datum main_arg)
{
	dsm_segment *seg;
	RanreadShared *shared;
	RanreadWriterSlot *slot;
	int			writer;
	volatile bool released;
	MemoryContext writer_context = CurrentMemoryContext;

	shared = ranread_worker_start(main_arg, true, &seg, &writer);
	slot = ranread_writer_slot(shared, writer);
	/* a write's time includes its commit's WAL flush, whatever the server's default */
	SetConfigOption("synchronous_commit", "on", PGC_USERSET, PGC_S_SESSION);
	/* and each write is a read-write read-committed transaction, whatever the role's defaults */
	SetConfigOption("default_transaction_isolation", "read committed", PGC_USERSET, PGC_S_SESSION);
	SetConfigOption("default_transaction_read_only", "off", PGC_USERSET, PGC_S_SESSION);

	PG_TRY();
	{
		released = run_writer(shared, writer);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		ranread_worker_write_cancellable(false);
		edata = ranread_catch_error(writer_context);
		released = ranread_barrier_released(shared);
		strlcpy(slot->error_message, edata->message, sizeof(slot->error_message));

		/*
		 * A stop or the caller's cancel that landed during a write cancels
		 * the write (worker.c): the writer was stopped, it did not fail.
		 */
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED && ranread_worker_stop_requested())
			slot->status = pg_atomic_read_u32(&shared->stop_reason) == RANREAD_STOP_CALLER_GONE ?
				RANREAD_STATUS_CANCELLED : RANREAD_STATUS_STOPPED;
		else
			slot->status = RANREAD_STATUS_FAILED;
		/* with the error's SQLSTATE: 53100 for a full disk, 57014 for a cancel */
		ereport(LOG,
				(errcode(edata->sqlerrcode),
				 errmsg("ranread writer %d of batch " INT64_FORMAT " failed: %s",
						writer + 1, shared->batch, edata->message)));
		pgstat_report_stat(true);
	}
	PG_END_TRY();

	if (released)
	{
		if (shared->params.processes == 0 && pg_atomic_sub_fetch_u32(&shared->reading, 1) == 0)
			ranread_sample_at_end(shared);
		ranread_worker_report_activity(shared, true, writer, "recording");
		ranread_record_writer(shared, writer);
		if (pg_atomic_sub_fetch_u32(&shared->unrecorded, 1) == 0)
			ranread_record_batch(shared);
	}
	pgstat_report_activity(STATE_IDLE, NULL);
	dsm_detach(seg);
	proc_exit(0);
}
