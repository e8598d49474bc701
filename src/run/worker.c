/*-------------------------------------------------------------------------
 *
 * worker.c
 *		The ranread background worker: wait at the barrier, time every read.
 *
 * A worker attaches to the run's shared memory, connects to the caller's
 * database as the caller's role, opens its read path and reports ready.  Once
 * the leader releases the barrier it reads block_size-aligned units of the
 * target in the order of a keyed pseudo-random permutation (permutation.c),
 * the workers taking turns along it, so that no unit is read twice before
 * every unit has been read once (or as its distribution says:
 * distribution.c); it does so for `iterations` reads or
 * `duration`, timing each read with the monotonic clock into its histogram
 * (after the ramp, if any; open loop, at the times arrivals.c schedules).
 * Unless allow_rereads, a worker on a read path through the page cache
 * stops before its next read would re-read a unit (read_would_reread()).
 * With iodepth > 1 it keeps that many reads in flight through the read
 * path's queue and reap calls, timing each from submission to completion.
 * ranread_stop()'s RANREAD_STOP_SIGNAL ends the read loop early, or
 * withdraws a worker that has not yet been released; so do SIGTERM (the
 * leader ending the run) and SIGINT at the barrier and in the read loop.
 * Whatever ended it, the worker waits until every reader has stopped (so
 * that no recording takes the CPU from a read still running), then records
 * its own result row; the last worker to stop reading samples the device's
 * counters, and the last to record writes the batch row and the
 * per-interval series (results.c).  Outside the barrier, the read loop and
 * that wait (connecting, opening the read path), SIGTERM terminates the
 * worker at once, as PostgreSQL's die() does.  While it records, a SIGTERM
 * (the leader ending the run just as the batch ends, or a shutdown) lets the
 * short write finish and the worker exit after it, unless the worker waits
 * for a lock or a synchronous standby: it then ends at once, and what it had
 * measured and not recorded goes to the server log.
 *
 * Workers join their leader's lock group, as parallel workers do: a lock the
 * leader holds (AccessShareLock on the target) never makes a worker queue
 * behind a waiting AccessExclusiveLock, and the deadlock detector sees the
 * leader and its workers as one.  Each worker runs with a fixed search_path
 * and with lock_timeout, so that no lock wait of a worker, and so no wait of
 * its leader, is endless.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/prctl.h>

#include "access/xact.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "replication/syncrep.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "storage/pmsignal.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "rules/arrivals.h"
#include "record/catch_error.h"
#include "compat.h"
#include "rules/distribution.h"
#include "rules/permutation.h"
#include "ranread.h"
#include "readpath/readpath.h"
#include "os/residency.h"
#include "record/checkpoint_window.h"
#include "record/results.h"
#include "record/series.h"
#include "run/worker.h"

/* How often the read loop checks that the postmaster is alive. */
#define POSTMASTER_CHECK_INTERVAL	1024

/*
 * The longest a worker or a writer waits for a lock (to record its rows, or
 * for a row another session holds).
 */
#define WORKER_LOCK_TIMEOUT		"10s"

/* How often a reader that has stopped looks whether the others have (wait_for_other_readers()). */
#define READERS_STOPPED_POLL_MS	5L

static volatile sig_atomic_t stop_requested = false;

/* True at the barrier, in the read loop and in the wait after it: SIGTERM then ends them. */
static volatile sig_atomic_t stop_gently = false;

/*
 * True while a writer's write runs (writer.c): SIGTERM and SIGINT then also
 * cancel it, so that a write waiting for a lock (or for a synchronous
 * standby) honours lock_timeout, a cancel and a stop instead of waiting on.
 * The write's transaction aborts, which leaves the write target as it was.
 */
static volatile sig_atomic_t cancel_write = false;

/*
 * True while a reader records its row and, the last one, the batch's: see
 * handle_sigterm().
 */
static volatile sig_atomic_t recording = false;

/*
 * RANREAD_STOP_SIGNAL always asks the worker to stop reading (a worker not
 * yet at the barrier withdraws when it gets there).  SIGTERM and SIGINT do
 * the same at the barrier and in the read loop; elsewhere they do what they
 * do in any backend: SIGTERM terminates (die()), SIGINT cancels the
 * statement, which is also how lock_timeout ends a lock wait.
 */
static void
handle_stop_signal(SIGNAL_ARGS)
{
	int			save_errno = errno;

	stop_requested = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

/*
 * A SIGTERM while recording is kept for after the write (the worker exits
 * right after it anyway), so that a run ended as its last worker writes the
 * batch row keeps that row; but a write waiting for a lock or for a
 * synchronous standby, which may last, is ended at once (a lock wait that
 * begins after the SIGTERM is bounded by lock_timeout).
 */
static bool
recording_can_finish(void)
{
	return recording && MyProc != NULL && MyProc->waitLock == NULL &&
		MyProc->syncRepState != SYNC_REP_WAITING;
}

static void
handle_sigterm(SIGNAL_ARGS)
{
	if (recording_can_finish())
		handle_stop_signal(RANREAD_SIGNAL_ARGS_PASSED);
	else if (stop_gently && cancel_write)
	{
		handle_stop_signal(RANREAD_SIGNAL_ARGS_PASSED);
		StatementCancelHandler(RANREAD_SIGNAL_ARGS_PASSED);
	}
	else if (stop_gently)
		handle_stop_signal(RANREAD_SIGNAL_ARGS_PASSED);
	else
		die(RANREAD_SIGNAL_ARGS_PASSED);
}

static void
handle_sigint(SIGNAL_ARGS)
{
	if (stop_gently && !cancel_write)
		handle_stop_signal(RANREAD_SIGNAL_ARGS_PASSED);
	else
	{
		if (stop_gently)
			stop_requested = true;
		StatementCancelHandler(RANREAD_SIGNAL_ARGS_PASSED);
	}
}

/*
 * The signals of a worker or a writer (writer.c), as above; called before
 * BackgroundWorkerUnblockSignals().
 */
static void
set_signals(void)
{
	pqsignal(SIGTERM, handle_sigterm);
	pqsignal(SIGINT, handle_sigint);
	pqsignal(RANREAD_STOP_SIGNAL, handle_stop_signal);
}

/* From here on, SIGTERM and SIGINT stop the loop (gently) rather than end the process, or no longer. */
void
ranread_worker_stop_gently(bool gently)
{
	stop_gently = gently;
}

/* A writer's write begins (true) or has committed (false): see cancel_write. */
void
ranread_worker_write_cancellable(bool cancellable)
{
	cancel_write = cancellable;
}

/* Whether this writer has been told to stop (writer.c; a worker reads stop_requested itself). */
bool
ranread_worker_stop_requested(void)
{
	return stop_requested;
}

/*
 * Leave the barrier before the leader releases it.  False if the release came
 * first: then this worker is part of the run (and will read nothing, since it
 * was told to stop).
 */
static bool
withdraw_from_barrier(RanreadShared *shared)
{
	uint32		seen = pg_atomic_read_u32(&shared->barrier);

	while ((seen & RANREAD_BARRIER_RELEASED) == 0)
	{
		if (pg_atomic_compare_exchange_u32(&shared->barrier, &seen, seen - 1))
			return true;
	}
	return false;
}

/*
 * Wait for the leader to release the barrier; false if this worker (or
 * writer, writer.c) withdrew first.
 */
bool
ranread_worker_wait_for_release(RanreadShared *shared)
{
	for (;;)
	{
		ResetLatch(MyLatch);
		if (ranread_barrier_released(shared))
			return true;
		if (stop_requested)
			return !withdraw_from_barrier(shared);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1,
						 PG_WAIT_EXTENSION);
	}
}

/* Bytes fetched from storage since the loop began (left 0 if the kernel cannot say). */
static void
record_physical_bytes(RanreadWorkerSlot *slot)
{
	uint64		now;

	if (slot->io_accounted && ranread_thread_read_bytes(&now))
		slot->bytes_physical = now - slot->read_bytes_start;
}

/* What the read loops share: where they are along the permutation and the clock. */
typedef struct ReadLoop
{
	RanreadPermutation order;
	uint64		pass;
	RanreadResidency *residency;	/* NULL: the path bypasses the page cache */
	uint64		count_from_ns;
	uint64		deadline_ns;	/* PG_UINT64_MAX: no duration */
	int64		hits_before;
	int64		misses_before;
	bool		counting;
	int64		counted;
	int64		counted_in_flight;	/* reads in flight that will be counted */
	bool		stop_at_coverage;	/* end before re-reading a unit (re-reads not allowed) */
	int64		first_reread;	/* the first read number that would re-read (first_reread()) */
	bool		io_elsewhere;	/* the reads may run in other processes (I/O workers) */
	RanreadRankSampler *skew;	/* a skewed distribution's ranks; NULL: none */
	bool		uniform;		/* neither skewed nor sequential */
} ReadLoop;

/* The proof of physical reads, by count: is the unit in memory already? */
static bool
unit_in_memory(const RanreadShared *shared, const ReadLoop *loop, BlockNumber unit)
{
	return loop->residency != NULL &&
		ranread_residency_cached(loop->residency, unit * shared->blocks_per_read,
								 shared->blocks_per_read);
}

/*
 * Counting begins (at once, or after the ramp): from here on the kernel's
 * count of bytes fetched from storage and the shared buffer counters give
 * the proof of physical reads and the buffer hits.  Reads that may run in
 * other processes leave the worker's byte count out (io_accounted false).
 */
static void
begin_counting(RanreadWorkerSlot *slot, ReadLoop *loop)
{
	loop->counting = true;
	loop->hits_before = pgBufferUsage.shared_blks_hit;
	loop->misses_before = pgBufferUsage.shared_blks_read;
	if (loop->io_elsewhere)
		return;
	if (!ranread_thread_read_bytes(&slot->read_bytes_start))
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("could not read the I/O accounting of the worker from \"/proc/thread-self/io\""),
				 errhint("ranread needs a Linux kernel with per-task I/O accounting.")));
	slot->io_accounted = true;
}

/* Open loop: wait until the read is due, or the worker is told to stop. */
static void
wait_until_due(uint64 due_ns)
{
	instr_time	now;

	for (;;)
	{
		RANREAD_TIME_SET_CURRENT(now);
		if (ranread_instr_time_ns(now) >= due_ns || stop_requested)
			return;
		ranread_sleep_until_ns(due_ns);
	}
}

/*
 * The unit of the worker's read number i.  Uniform: the workers take turns
 * along one permutation of the units, and each pass over them has an order
 * of its own.  Sequential: each worker reads its own stretch of consecutive
 * units (as many as it would take along the permutation), and on from
 * there.  Skewed: the read's rank, placed by the first pass's permutation.
 * A uniform read within the pass is unit_of_read()'s, inline; the others
 * come here.
 */
static pg_noinline BlockNumber
unit_of_read_otherwise(const RanreadShared *shared, const ReadLoop *loop, RanreadPermutation *order,
					   uint64 *pass, int64 i, int worker)
{
	uint64		units = shared->target_units;
	uint64		position = (uint64) i * shared->params.processes + worker;

	if (loop->skew != NULL)
		return (BlockNumber) ranread_permutation_map(order, ranread_rank_sample(loop->skew, worker, i));
	if (shared->params.distribution.kind == RANREAD_DISTRIBUTION_SEQUENTIAL)
	{
		uint64		per_worker = units / shared->params.processes;
		uint64		first = worker * per_worker +
			Min((uint64) worker, units % shared->params.processes);

		*pass = position / units;
		return (BlockNumber) ((first + (uint64) i) % units);
	}

	/* every unit has been read: the next pass has an order of its own */
	*pass = position / units;
	ranread_permutation_init(order, units,
							 shared->seed + *pass * UINT64CONST(0x9E3779B97F4A7C15));
	return (BlockNumber) ranread_permutation_map(order, position - *pass * units);
}

/*
 * The unit of the worker's read number i (unit_of_read_otherwise() says
 * how).  A worker's positions only grow, so a pass ends where the position
 * reaches the next multiple of units: a comparison per read, the division
 * only once per pass.
 */
static inline BlockNumber
unit_of_read(const RanreadShared *shared, const ReadLoop *loop, RanreadPermutation *order,
			 uint64 *pass, int64 i, int worker)
{
	uint64		units = shared->target_units;
	uint64		in_pass = (uint64) i * shared->params.processes + worker - *pass * units;

	if (likely(loop->uniform && in_pass < units))
		return (BlockNumber) ranread_permutation_map(order, in_pass);
	return unit_of_read_otherwise(shared, loop, order, pass, i, worker);
}

/*
 * The worker's first read number that would read a unit again: the workers
 * take turns along the permutation (unit_of_read()), so once its position
 * (i * processes + worker) reaches the target's units this worker has read
 * all of its units once.
 */
static int64
first_reread(const RanreadShared *shared, int worker)
{
	uint64		units = shared->target_units;
	uint64		processes = shared->params.processes;

	return units > (uint64) worker ? (int64) ((units - worker + processes - 1) / processes) : 0;
}

/* Whether the worker's read number i would read a unit again. */
static inline bool
read_would_reread(const ReadLoop *loop, int64 i)
{
	return i >= loop->first_reread;
}

/* Count one read: its latency into the histogram and the interval's maximum. */
static void
count_read(RanreadWorkerSlot *slot, uint64 latency_ns, bool from_memory, bool wrapped)
{
	slot->memory_reads += from_memory;
	slot->wrapped_reads += wrapped;
	ranread_hist_record(&slot->hist, latency_ns);
	if (latency_ns > pg_atomic_read_u64(&slot->interval_max_ns))
		pg_atomic_write_u64(&slot->interval_max_ns, latency_ns);
}

/*
 * prefetch => N: a second cursor along the worker's reads, N reads ahead of
 * the one being read, advising each unit to the read path before it is read
 * (as a bitmap heap scan prefetches).  Whether a unit was in memory is asked
 * before its advice, not before its read, which the advice is meant to
 * speed: resident[] keeps that answer for the N + 1 reads in the window.
 */
typedef struct Prefetcher
{
	RanreadPermutation order;
	uint64		pass;
	int64		next;			/* the worker's next read number to advise */
	int			window;			/* prefetch + 1 */
	bool	   *resident;		/* by read number modulo window */
} Prefetcher;

/* Advise every read up to read number i + prefetch not advised yet. */
static void
prefetch_ahead(RanreadShared *shared, const RanreadReadPath *path, void *state, int worker,
			   ReadLoop *loop, Prefetcher *ahead, int64 i)
{
	while (ahead->next <= i + ahead->window - 1 &&
		   !(loop->stop_at_coverage && read_would_reread(loop, ahead->next)))
	{
		BlockNumber unit = unit_of_read(shared, loop, &ahead->order, &ahead->pass, ahead->next, worker);

		ahead->resident[ahead->next % ahead->window] = unit_in_memory(shared, loop, unit);
		path->prefetch(state, unit * shared->blocks_per_read);
		ahead->next++;
	}
}

/*
 * One read in flight at a time (iodepth 1).  Each counted read goes into the
 * histogram: closed loop, the time from issuing it to its end; open loop
 * (rate_iops), the time from when it was due (its response time, which a
 * stalled device cannot hide by delaying the reads behind it), and from
 * issuing it into the service-time histogram.
 */
static void
read_one_at_a_time(RanreadShared *shared, RanreadWorkerSlot *slot, const RanreadReadPath *path,
				   void *state, int worker, ReadLoop *loop)
{
	RanreadHistogram *service = ranread_service_hist(shared, worker);
	RanreadArrivals arrivals;
	uint64		last_end_ns = ranread_instr_time_ns(shared->release_time);
	Prefetcher	ahead = {0};

	if (shared->params.prefetch > 0)
	{
		ranread_permutation_init(&ahead.order, shared->target_units, shared->seed);
		ahead.window = shared->params.prefetch + 1;
		ahead.resident = palloc0(sizeof(bool) * ahead.window);
	}

	if (service != NULL)
	{
		/* wake when a read is due, not up to 50 us later (the default timer slack) */
		(void) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
		ranread_arrivals_init(&arrivals, ranread_instr_time_ns(shared->release_time),
							  shared->params.rate_iops, shared->params.processes, worker,
							  shared->params.poisson, shared->seed);
	}
	for (int64 i = 0; (shared->params.iterations == 0 || loop->counted < shared->params.iterations) && !stop_requested; i++)
	{
		BlockNumber unit;
		bool		from_memory;
		int64		hits_before_read;
		uint64		due_ns = 0;
		instr_time	start;
		instr_time	end;
		uint64		start_ns;
		uint64		end_ns;

		if (i % POSTMASTER_CHECK_INTERVAL == 0 && !PostmasterIsAlive())
			proc_exit(1);
		if (loop->stop_at_coverage && read_would_reread(loop, i))
		{
			slot->covered = true;
			break;
		}
		unit = unit_of_read(shared, loop, &loop->order, &loop->pass, i, worker);
		if (!loop->counting && last_end_ns >= loop->count_from_ns)
			begin_counting(slot, loop);
		if (service != NULL)
		{
			due_ns = ranread_arrivals_next(&arrivals);
			if (due_ns >= loop->deadline_ns)
			{
				slot->reached_deadline = true;
				break;
			}
			wait_until_due(due_ns);
			if (stop_requested)
				break;
		}

		/* the proof of physical reads, by count: was the unit in memory already? */
		if (ahead.window > 0)
		{
			prefetch_ahead(shared, path, state, worker, loop, &ahead, i);
			from_memory = ahead.resident[i % ahead.window];
		}
		else
			from_memory = unit_in_memory(shared, loop, unit);
		hits_before_read = pgBufferUsage.shared_blks_hit;

		RANREAD_TIME_SET_CURRENT(start);
		if (!path->read_unit(state, unit * shared->blocks_per_read))
			break;				/* told to stop during an interrupted read: not counted */
		RANREAD_TIME_SET_CURRENT(end);
		start_ns = ranread_instr_time_ns(start);
		end_ns = ranread_instr_time_ns(end);
		last_end_ns = end_ns;
		if (loop->counting)
		{
			if (pgBufferUsage.shared_blks_hit - hits_before_read == shared->blocks_per_read)
				from_memory = true; /* every block was in shared buffers */
			count_read(slot, end_ns - (service != NULL ? due_ns : start_ns), from_memory,
					   loop->pass > 0);
			if (service != NULL)
				ranread_hist_record(service, end_ns - start_ns);
			loop->counted++;
		}
		if (end_ns >= loop->deadline_ns)
		{
			slot->reached_deadline = true;
			break;
		}
	}
}

/* A read in flight (iodepth > 1), by its tag. */
typedef struct InFlight
{
	uint64		start_ns;
	bool		counted;		/* issued after counting began */
	bool		from_memory;
	bool		wrapped;
} InFlight;

/*
 * How many of `want` reads from its read number i on a worker keeping reads
 * in flight (read_in_flight(), a stream) may issue now: none once told to
 * stop or past the duration; none at a unit read before (re-reads not
 * allowed); no more than make the reads counted and in flight the
 * iterations.  Asked once for a refill of read_in_flight()'s, whose reads
 * all issue at now_ns.
 */
static int
reads_allowed(const RanreadShared *shared, const ReadLoop *loop, int64 i, uint64 now_ns,
			  int want)
{
	int64		allowed = want;

	if (stop_requested || now_ns >= loop->deadline_ns)
		return 0;
	if (loop->stop_at_coverage)
		allowed = Min(allowed, loop->first_reread - i);
	if (shared->params.iterations > 0 && loop->counting)
		allowed = Min(allowed, shared->params.iterations - loop->counted - loop->counted_in_flight);
	return (int) Max(allowed, 0);
}

/* Once it issues no more: whether the duration or the coverage ended it. */
static void
note_why_issuing_ended(RanreadWorkerSlot *slot, const ReadLoop *loop, int64 i, uint64 now_ns)
{
	slot->reached_deadline |= now_ns >= loop->deadline_ns;
	slot->covered |= loop->stop_at_coverage && read_would_reread(loop, i);
}

/*
 * Issue read number i: its unit and its record f, not yet stamped with its
 * start (the caller stamps it); returns the unit.  Inline: it runs for
 * every read kept in flight.
 */
static pg_attribute_always_inline BlockNumber
issue_read(const RanreadShared *shared, ReadLoop *loop, InFlight *f, int64 i, int worker)
{
	BlockNumber unit;

	if (unlikely(i % POSTMASTER_CHECK_INTERVAL == 0) && !PostmasterIsAlive())
		proc_exit(1);
	unit = unit_of_read(shared, loop, &loop->order, &loop->pass, i, worker);
	f->from_memory = unit_in_memory(shared, loop, unit);
	f->wrapped = loop->pass > 0;
	f->counted = loop->counting;
	loop->counted_in_flight += f->counted;
	return unit;
}

/* A read issued by issue_read() has completed at now_ns: count it, unless told to stop. */
static void
complete_read(RanreadWorkerSlot *slot, ReadLoop *loop, const InFlight *f, uint64 now_ns)
{
	if (!f->counted)
		return;
	loop->counted_in_flight--;
	if (stop_requested)
		return;
	count_read(slot, now_ns - f->start_ns, f->from_memory, f->wrapped);
	loop->counted++;
}

/*
 * iodepth reads in flight (closed loop only): whenever reads complete, as
 * many new ones are queued, all of them at once.  The path says, once per
 * refill, whether its queue call submits each read (then each read's
 * latency starts at a clock read just before its queue call) or its reap
 * submits them together, in the system call that waits for the next
 * completion (then one clock read just before the reap starts them all).
 * A read's latency ends at the clock read after the reap that saw it
 * complete.  Reads issued during the ramp are not counted; after the
 * duration no read is issued and those in flight are counted as they
 * complete, as the read that crosses the end is at iodepth 1.  Once told to
 * stop, the worker issues nothing more and waits for the reads in flight
 * without counting them.  free_tags holds the free tags first (nfree of
 * them), then those in flight: the reap puts the tags of the reads it
 * completed right after the free ones.  Never inlined, so that its code
 * does not change how read_one_at_a_time()'s is compiled (the instructions
 * bench/instructions_guard.sh counts at iodepth 1).
 */
static pg_noinline void
read_in_flight(RanreadShared *shared, RanreadWorkerSlot *slot, const RanreadReadPath *path,
			   void *state, int worker, ReadLoop *loop)
{
	int			depth = shared->params.iodepth;
	InFlight   *flight = palloc0(sizeof(InFlight) * depth);
	int		   *free_tags = palloc(sizeof(int) * depth);
	int			nfree = depth;
	uint64		now_ns = ranread_instr_time_ns(shared->release_time);
	int64		i = 0;

	for (int t = 0; t < depth; t++)
		free_tags[t] = depth - 1 - t;
	for (;;)
	{
		instr_time	now;
		int			ndone;
		int			was_free = nfree;
		int			allowed;

		if (!loop->counting && now_ns >= loop->count_from_ns)
			begin_counting(slot, loop);
		allowed = reads_allowed(shared, loop, i, now_ns, nfree);
		if (allowed > 0 && path->submits_each(state))
		{
			/* queue submits each read: each starts at a clock read of its own */
			for (; allowed > 0 && !stop_requested; allowed--)
			{
				int			tag = free_tags[--nfree];
				BlockNumber unit = issue_read(shared, loop, &flight[tag], i++, worker);

				RANREAD_TIME_SET_CURRENT(now);
				flight[tag].start_ns = ranread_instr_time_ns(now);
				path->queue(state, tag, unit * shared->blocks_per_read);
			}
		}
		else if (allowed > 0)
		{
			uint64		start_ns;

			for (; allowed > 0 && !stop_requested; allowed--)
			{
				int			tag = free_tags[--nfree];
				BlockNumber unit = issue_read(shared, loop, &flight[tag], i++, worker);

				path->queue(state, tag, unit * shared->blocks_per_read);
			}
			/* reap submits them together: the reads just queued start now */
			RANREAD_TIME_SET_CURRENT(now);
			start_ns = ranread_instr_time_ns(now);
			for (int q = nfree; q < was_free; q++)
				flight[free_tags[q]].start_ns = start_ns;
		}
		note_why_issuing_ended(slot, loop, i, now_ns);
		if (nfree == depth)
			break;
		ndone = path->reap(state, free_tags + nfree);
		RANREAD_TIME_SET_CURRENT(now);
		now_ns = ranread_instr_time_ns(now);
		for (int d = nfree; d < nfree + ndone; d++)
			complete_read(slot, loop, &flight[free_tags[d]], now_ns);
		nfree += ndone;
	}
}

/* What a read path with a stream call pulls its units through. */
typedef struct StreamFeedState
{
	RanreadShared *shared;
	RanreadWorkerSlot *slot;
	ReadLoop   *loop;
	int			worker;
	int64		i;				/* the worker's next read number */
} StreamFeedState;

/*
 * The stream asks for its next unit: none once told to stop, past the
 * duration or the iterations, or (re-reads not allowed) at a unit read
 * before; else the next along the permutation, its read stamped now.
 */
static BlockNumber
feed_next(void *arg, void *read)
{
	StreamFeedState *feed = (StreamFeedState *) arg;
	instr_time	now;
	uint64		now_ns;
	BlockNumber unit;

	RANREAD_TIME_SET_CURRENT(now);
	now_ns = ranread_instr_time_ns(now);
	if (!feed->loop->counting && now_ns >= feed->loop->count_from_ns)
		begin_counting(feed->slot, feed->loop);
	if (reads_allowed(feed->shared, feed->loop, feed->i, now_ns, 1) == 0)
	{
		note_why_issuing_ended(feed->slot, feed->loop, feed->i, now_ns);
		return InvalidBlockNumber;
	}
	unit = issue_read(feed->shared, feed->loop, (InFlight *) read, feed->i++, feed->worker);
	RANREAD_TIME_SET_CURRENT(now);
	((InFlight *) read)->start_ns = ranread_instr_time_ns(now);
	return unit * feed->shared->blocks_per_read;
}

/* The stream hands a unit back: count it, unless the worker was told to stop. */
static void
feed_done(void *arg, void *read)
{
	StreamFeedState *feed = (StreamFeedState *) arg;
	instr_time	now;

	RANREAD_TIME_SET_CURRENT(now);
	complete_read(feed->slot, feed->loop, (const InFlight *) read, ranread_instr_time_ns(now));
}

/*
 * A read path that pulls its units (a read stream): it asks for the next
 * unit whenever its look-ahead allows, and each read is timed from that
 * request to the unit being handed back.  As with reads in flight, nothing
 * more is asked for after the duration and those in the stream are counted
 * as they come back; once told to stop, the worker asks for nothing more and
 * the stream is drained without counting.  The stream counts its own buffer
 * hits, so a hit is not known per read: after the loop, the hit units are
 * added to those the page cache answered (at most every read), which can only
 * understate physical_pct.
 */
static void
read_streamed(RanreadShared *shared, RanreadWorkerSlot *slot, const RanreadReadPath *path,
			  void *state, int worker, ReadLoop *loop)
{
	StreamFeedState feed_state = {
		.shared = shared,
		.slot = slot,
		.loop = loop,
		.worker = worker,
	};
	RanreadStreamFeed feed = {
		.read_size = sizeof(InFlight),
		.next = feed_next,
		.done = feed_done,
		.arg = &feed_state,
	};

	path->stream(state, &feed);
}

/*
 * The timed loop, until the iterations are counted, the duration has passed
 * (checked against the clock read that ends each read, so it costs
 * nothing), or the worker is told to stop.  Reads that begin before
 * count_from (the ramp) are read but not counted.  Never inlined:
 * bench/instructions.sh counts the instructions under this function.
 */
static pg_noinline void
read_random_units(RanreadShared *shared, RanreadWorkerSlot *slot,
				  const RanreadReadPath *path, void *state, int worker)
{
	ReadLoop	loop = {0};
	uint64		release_ns = ranread_instr_time_ns(shared->release_time);
	const char *io_method;

	ranread_permutation_init(&loop.order, shared->target_units, shared->seed);
	if (!(path->flags & RANREAD_PATH_BYPASSES_PAGE_CACHE))
	{
		char	   *unavailable;

		loop.residency = ranread_residency_open(shared->target_file, shared->target_blocks,
												shared->blocks_per_read, &unavailable);
		if (unavailable != NULL)
			strlcpy(slot->residency_unavailable, unavailable, sizeof(slot->residency_unavailable));
	}
	if (ranread_distribution_skewed(&shared->params.distribution))
	{
		loop.skew = palloc(sizeof(RanreadRankSampler));
		ranread_rank_sampler_init(loop.skew, &shared->params.distribution,
								  shared->target_units, shared->seed);
	}
	loop.uniform = loop.skew == NULL &&
		shared->params.distribution.kind != RANREAD_DISTRIBUTION_SEQUENTIAL;
	loop.stop_at_coverage = !shared->params.allow_rereads && loop.skew == NULL &&
		!(path->flags & RANREAD_PATH_BYPASSES_PAGE_CACHE);
	loop.first_reread = first_reread(shared, worker);
	io_method = GetConfigOption("io_method", true, false);
	loop.io_elsewhere = (path->flags & RANREAD_PATH_AIO) && io_method != NULL &&
		strcmp(io_method, "sync") != 0;
	loop.count_from_ns = ranread_instr_time_ns(shared->count_from);
	loop.deadline_ns = shared->params.duration_ns > 0 ?
		release_ns + shared->params.duration_ns : PG_UINT64_MAX;
	if (path->stream != NULL)
		read_streamed(shared, slot, path, state, worker, &loop);
	else if (shared->params.iodepth > 1)
		read_in_flight(shared, slot, path, state, worker, &loop);
	else
		read_one_at_a_time(shared, slot, path, state, worker, &loop);
	RANREAD_TIME_SET_CURRENT(slot->end_time);
	record_physical_bytes(slot);
	if (loop.residency != NULL)
		ranread_residency_close(loop.residency);
	if (loop.counting)
	{
		slot->buffer_hits = pgBufferUsage.shared_blks_hit - loop.hits_before;
		slot->buffer_misses = pgBufferUsage.shared_blks_read - loop.misses_before;
		if (path->stream != NULL)
			slot->memory_reads = Min(slot->hist.count,
									 slot->memory_reads + slot->buffer_hits / shared->blocks_per_read);
	}
}

/*
 * What pg_stat_activity shows for reader or writer `index` (the tests wait
 * for "reading" and "writing").
 */
void
ranread_worker_report_activity(const RanreadShared *shared, bool writer, int index, const char *doing)
{
	pgstat_report_activity(STATE_RUNNING,
						   psprintf("ranread batch " INT64_FORMAT ": %s %d of %d %s",
									shared->batch, writer ? "writer" : "worker", index + 1,
									writer ? shared->params.writers : shared->params.processes, doing));
}

/*
 * The last worker to stop reading (with writers alone, the last writer to
 * stop writing) closes the device statistics window and the series.
 */
void
ranread_sample_at_end(RanreadShared *shared)
{
	RANREAD_TIME_SET_CURRENT(shared->device_end_time);
	shared->device_sampled = shared->device_start_taken &&
		ranread_device_stats(&shared->device, &shared->device_end);
	ranread_series_close(shared, shared->device_end_time);
	ranread_checkpoint_window_close(shared);
}

/* Whether this worker has left the readers' count (shared->reading). */
static bool left_reading = false;

/* This worker's reads have ended: the last to stop samples the end. */
static void
leave_reading(RanreadShared *shared)
{
	left_reading = true;
	if (pg_atomic_sub_fetch_u32(&shared->reading, 1) == 0)
		ranread_sample_at_end(shared);
}

/*
 * A reader whose reads have ended waits for the others before it does
 * anything else (closing its read path, committing, reporting its
 * statistics, recording its row): on a machine with fewer cores than
 * readers that work would take the CPU from the readers still in their last
 * read and lengthen exactly those reads.  Measured before this wait (8
 * readers, 2 cores, PostgreSQL 18): the reads that ended after the
 * deadline had a mean of 4.8 to 10.5 ms and a max of 11 to 17 ms against
 * 0.15 to 0.18 ms and 5.4 ms in the second before, so the batch's max_ms
 * was the shutdown's.  Still in the loop's signal state: a stop or SIGTERM
 * ends the wait, so that one read that never ends keeps no other reader
 * from recording.
 */
static void
wait_for_other_readers(const RanreadShared *shared, int worker)
{
	if (pg_atomic_read_u32((pg_atomic_uint32 *) &shared->reading) == 0)
		return;
	ranread_worker_report_activity(shared, false, worker, "waiting for the other readers to stop");
	while (pg_atomic_read_u32((pg_atomic_uint32 *) &shared->reading) > 0 && !stop_requested)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 READERS_STOPPED_POLL_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Everything between connecting and the end of the read loop.  Returns false
 * if the worker was stopped before the barrier was released.
 */
static bool
run_worker(RanreadShared *shared, int worker)
{
	RanreadWorkerSlot *slot = &shared->slots[worker];
	const RanreadReadPath *path = ranread_readpath_by_index(shared->params.readpath);
	void	   *state;
	int			registration;
	PGPROC	   *leader = &ProcGlobal->allProcs[shared->leader_pgprocno];

	StartTransactionCommand();
	state = path->open(shared, &stop_requested);
	registration = path->buffer_registration != NULL ? path->buffer_registration(state) : -1;
	slot->uring_opened = registration >= 0;
	slot->unregistered_errno = Max(registration, 0);
	slot->uring_refused_errno = path->uring_refusal != NULL ? path->uring_refusal(state) : 0;

	ranread_worker_report_activity(shared, false, worker, "waiting to start");
	/* a SIGTERM from here on withdraws the worker; one before it ends it now */
	stop_gently = true;
	CHECK_FOR_INTERRUPTS();
	pg_atomic_add_fetch_u32(&shared->barrier, 1);
	SetLatch(&leader->procLatch);
	if (!ranread_worker_wait_for_release(shared))
	{
		stop_gently = false;
		path->close(state);
		CommitTransactionCommand();
		return false;
	}

	ranread_worker_report_activity(shared, false, worker, "reading");
	read_random_units(shared, slot, path, state, worker);
	/* how the loop ended, before the wait below can be stopped */
	if (!stop_requested ||
		pg_atomic_read_u32(&shared->stop_reason) == RANREAD_STOP_STEADY_STATE)
		slot->status = RANREAD_STATUS_COMPLETED;
	else if (pg_atomic_read_u32(&shared->stop_reason) == RANREAD_STOP_CALLER_GONE)
		slot->status = RANREAD_STATUS_CANCELLED;
	else
		slot->status = RANREAD_STATUS_STOPPED;
	leave_reading(shared);
	wait_for_other_readers(shared, worker);
	stop_gently = false;
	path->close(state);
	CommitTransactionCommand();
	/* the loop's reads into pg_stat_io before any worker records the batch (stat_io.c) */
	pgstat_report_stat(true);
	return true;
}

/*
 * Say in the server log what a worker measured but could not record, so that
 * nothing measured is lost silently.
 */
static void
log_unrecorded_results(const RanreadShared *shared, int worker, const char *why)
{
	const RanreadWorkerSlot *slot = &shared->slots[worker];
	RanreadLatency latency;

	ranread_hist_latency(&slot->hist, &latency);
	ereport(LOG,
			(errmsg("results of ranread worker %d of batch " INT64_FORMAT " were not recorded: %s",
					worker + 1, shared->batch, why),
			 errdetail("It measured " UINT64_FORMAT " reads (%s): mean %.3f ms, p50 %.3f ms, p99 %.3f ms, max %.3f ms.",
					   slot->hist.count, ranread_status_name(slot->status),
					   latency.mean_ms, latency.p50_ms, latency.p99_ms, latency.max_ms)));
}

/* At exit, terminated while recording: log what is about to be lost. */
static void
log_results_at_exit(int code, Datum arg)
{
	const RanreadShared *shared = (const RanreadShared *) DatumGetPointer(arg);
	int			worker;

	memcpy(&worker, MyBgworkerEntry->bgw_extra, sizeof(int));
	if (shared->slots[worker].recording)
		log_unrecorded_results(shared, worker,
							   "the worker was told to exit (SIGTERM) while recording; the batch will have no summary row");
}

/*
 * The start of a worker, or of a writer (writer.c): signals, the run's shared
 * memory attached and checked, the leader's lock group joined and a
 * connection as the caller.  Sets *seg and *index (from 0 among the readers,
 * or among the writers) and returns the shared memory; exits quietly when
 * the leader is already gone.  The slot's pid and pgprocno are set for the
 * leader to signal it.
 */
RanreadShared *
ranread_worker_start(Datum main_arg, bool writer, dsm_segment **seg, int *index)
{
	RanreadShared *shared;
	int			count;

	set_signals();
	BackgroundWorkerUnblockSignals();

	*seg = dsm_attach(DatumGetUInt32(main_arg));
	if (*seg == NULL)
		proc_exit(0);
	shared = dsm_segment_address(*seg);
	memcpy(index, MyBgworkerEntry->bgw_extra, sizeof(int));
	count = writer ? shared->params.writers : shared->params.processes;
	if (shared->magic != RANREAD_SHARED_MAGIC || *index < 0 || *index >= count)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ranread %s started with bad shared memory", writer ? "writer" : "worker")));
	if (writer)
		ranread_writer_slot(shared, *index)->pid = MyProcPid;
	else
		shared->slots[*index].pid = MyProcPid;

	/* before any heavyweight lock, as a parallel worker does */
	if (!BecomeLockGroupMember(&ProcGlobal->allProcs[shared->leader_pgprocno], shared->leader_pid))
		proc_exit(0);			/* the leader is gone */
	BackgroundWorkerInitializeConnectionByOid(shared->database_id, shared->user_id, 0);
	SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION);
	SetConfigOption("lock_timeout", WORKER_LOCK_TIMEOUT, PGC_USERSET, PGC_S_SESSION);
	if (writer)
		ranread_writer_slot(shared, *index)->pgprocno = ranread_my_proc_number();
	else
		shared->slots[*index].pgprocno = ranread_my_proc_number();
	return shared;
}

void
ranread_worker_main(Datum main_arg)
{
	dsm_segment *seg;
	RanreadShared *shared;
	RanreadWorkerSlot *slot;
	int			worker;
	volatile bool released;
	MemoryContext worker_context = CurrentMemoryContext;

	shared = ranread_worker_start(main_arg, false, &seg, &worker);
	slot = &shared->slots[worker];
	ranread_hist_init(&slot->hist);

	PG_TRY();
	{
		released = run_worker(shared, worker);
	}
	PG_CATCH();
	{
		ErrorData  *edata = ranread_catch_error(worker_context);

		RANREAD_TIME_SET_CURRENT(slot->end_time);
		released = ranread_barrier_released(shared);
		if (released)
			record_physical_bytes(slot);
		strlcpy(slot->error_message, edata->message, sizeof(slot->error_message));
		slot->status = RANREAD_STATUS_FAILED;
		ereport(LOG,
				(errmsg("ranread worker %d of batch " INT64_FORMAT " failed: %s",
						worker + 1, shared->batch, edata->message)));
		/* what it read, into pg_stat_io, as run_worker() does (stat_io.c) */
		pgstat_report_stat(true);
	}
	PG_END_TRY();

	if (released)
	{
		if (!left_reading)
			leave_reading(shared);
		ranread_worker_report_activity(shared, false, worker, "recording");
		before_shmem_exit(log_results_at_exit, PointerGetDatum(shared));
		slot->recording = true;
		recording = true;
		ranread_record_worker(shared, worker);
		slot->recording = false;
		cancel_before_shmem_exit(log_results_at_exit, PointerGetDatum(shared));
		if (!slot->recorded)
			log_unrecorded_results(shared, worker, slot->error_message);
		if (pg_atomic_sub_fetch_u32(&shared->unrecorded, 1) == 0)
			ranread_record_batch(shared);
		recording = false;
	}
	pgstat_report_activity(STATE_IDLE, NULL);
	dsm_detach(seg);
	proc_exit(0);
}
