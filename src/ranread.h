/*-------------------------------------------------------------------------
 *
 * ranread.h
 *		What the run leader and its background workers share.
 *
 * ranread_run() (run.c) creates one dynamic shared memory segment holding a
 * RanreadShared: the run's parameters, a start barrier and one
 * RanreadWorkerSlot per worker (worker.c).  Workers record their own result
 * rows, so what they measured survives a cancelled caller (results.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_H
#define RANREAD_H

#include <signal.h>

#include "datatype/timestamp.h"
#include "port/atomics.h"
#include "portability/instr_time.h"
#include "storage/block.h"
#include "compat.h"
#include "utils/date.h"
#include "utils/elog.h"
#include "utils/palloc.h"

#include "rules/distribution.h"
#include "rules/histogram.h"
#include "os/osstats.h"

#define RANREAD_SHARED_MAGIC		0x52414e52	/* "RANR" */
#define RANREAD_WORKER_TYPE			"ranread worker"
#define RANREAD_MAX_PROCESSES		1024
#define RANREAD_MAX_BLOCK_SIZE		(1024 * 1024)
#define RANREAD_MAX_DURATION_S		(7 * SECS_PER_DAY)
#define RANREAD_MIN_SAMPLE_INTERVAL_MS	100
#define RANREAD_MAX_RATE_IOPS		10000000.0
#define RANREAD_MAX_IODEPTH			1024	/* reads in flight per worker */
#define RANREAD_MAX_IO_WORKERS		32	/* io_workers' most, on 18 and 19 (MAX_IO_WORKERS) */
#define RANREAD_MAX_START_WAIT_S	3600	/* start_at: at most this far ahead */

/*
 * The write target's rows (ranread_setup_writes(), writer.c): one row a page
 * (fillfactor 10 leaves no room for a second one to be inserted), its filler
 * this many fresh pseudo-random bytes, so that a page has room for about
 * RANREAD_WRITE_HOT_VERSIONS more versions of its row.  A run's leader holds
 * a snapshot for the whole run, so no version a run writes can be pruned
 * before the run ends: each update must find room on its own page (a HOT
 * update: one heap page dirtied, no index page), or it leaves the page and
 * the table grows.  The next run's snapshot lets the last run's versions be
 * pruned.  (Half a page, as first written, let a row be updated once in a
 * run: an 8 MB write target grew to 47 MB in one 10 s run, 53 % HOT.)
 */
#define RANREAD_WRITE_ROW_BYTES		480
#define RANREAD_WRITE_HOT_VERSIONS	14

/*
 * The most writes a row of the write target may expect in a run: half its
 * room (RANREAD_WRITE_HOT_VERSIONS), so that the few rows drawn more often
 * than that (about 1 % of them, for a Poisson draw of mean 7) still stay on
 * their page.
 */
#define RANREAD_WRITE_MAX_MEAN_PER_ROW	7

/*
 * The most WAL one write logs, for the space check before writers start
 * (write_target.c): a full-page image of its page (the first change of the
 * page after a checkpoint; otherwise the row's new version, under half a
 * page), its record's headers and its commit record, with room to spare.
 */
#define RANREAD_WRITE_WAL_BYTES		(BLCKSZ + 512)

/*
 * ranread_stop()'s request to a worker: stop reading (or withdraw from the
 * barrier) and record.  Unlike SIGTERM it never ends a worker that records.
 */
#define RANREAD_STOP_SIGNAL			SIGUSR2

/*
 * Cluster-wide advisory locks, in database 0 (classid in pg_locks; objsubid
 * 2): the run lock, which serialises runs, and the running batch's DSM handle.
 */
#define RANREAD_LOCK_RUN			0x52524e31
#define RANREAD_LOCK_SEGMENT		0x52524e33	/* objid: the run's DSM handle */

/*
 * Per-database advisory locks, in the database of the session that holds
 * them: objsubid (the tag's 16-bit last field) says what they advertise,
 * classid and objid hold the high and low 32 bits of its number.  SQL's
 * pg_advisory_lock() only ever sets objsubid 1 or 2, so it cannot imitate them.
 */
#define RANREAD_LOCK_KIND_BATCH		20018	/* a running batch */
#define RANREAD_LOCK_KIND_SWEEP		20020	/* a running sweep */
#define RANREAD_LOCK_KIND_SETUP		20021	/* a running setup's DSM handle */
#define RANREAD_LOCK_KIND_FLEET		20022	/* a fleet run's coordinator, waiting for its servers */
#define RANREAD_LOCK_KIND_FLEET_STOP 20023	/* ranread_stop()'s request that a fleet run stop */
#define RANREAD_LOCK_KIND_LAYERS	20024	/* a running ranread_layers(), between batches too */
#define RANREAD_LOCK_KIND_CALIBRATION 20025	/* a running ranread_calibrate(), the same */

/* How a worker's part of the run ended. */
typedef enum RanreadStatus
{
	RANREAD_STATUS_RUNNING = 0,
	RANREAD_STATUS_COMPLETED,	/* read every iteration */
	RANREAD_STATUS_STOPPED,		/* ranread_stop() or a signal to the worker */
	RANREAD_STATUS_CANCELLED,	/* the calling session was cancelled or ended */
	RANREAD_STATUS_FAILED		/* an error in the worker; see error_message */
} RanreadStatus;

/* Why the leader asked its workers to stop early (RanreadShared.stop_reason). */
typedef enum RanreadStopReason
{
	RANREAD_STOP_NONE = 0,
	RANREAD_STOP_CALLER_GONE,
	RANREAD_STOP_STEADY_STATE	/* the steady-state rule was met */
} RanreadStopReason;

typedef struct RanreadWorkerSlot
{
	int			pgprocno;		/* for the leader to set our latch */
	pid_t		pid;			/* 0 until the worker has started */
	RanreadStatus status;
	bool		recorded;		/* its ranread_results row is committed */
	instr_time	end_time;		/* when its last read returned */
	bool		io_accounted;	/* read_bytes_start is valid */
	uint64		read_bytes_start;	/* the thread's read_bytes before the loop */
	uint64		bytes_physical; /* fetched from storage during the loop */
	int64		buffer_hits;	/* shared buffer hits during the loop */
	int64		buffer_misses;
	uint64		wrapped_reads;	/* reads after the run had read every unit */
	uint64		memory_reads;	/* reads whose unit was in memory beforehand */
	char		residency_unavailable[256]; /* "": memory_reads is known; else why not */
	bool		covered;		/* stopped: it had read all of its units once */
	bool		reached_deadline;	/* stopped: the duration had passed */
	bool		recording;		/* inserting its ranread_results row */
	bool		uring_opened;	/* it read through io_uring */
	int			unregistered_errno; /* then: 0, or why its buffers are not registered */
	int			uring_refused_errno;	/* else 0, or why io_uring was refused */
	pg_atomic_uint64 interval_max_ns;	/* longest read since the leader last sampled */
	char		error_message[256];
	RanreadHistogram hist;		/* one entry per counted read: its response time */
} RanreadWorkerSlot;

/* One writer of a batch (writer.c): its writes to the write target, each timed. */
typedef struct RanreadWriterSlot
{
	int			pgprocno;		/* for the leader to set our latch */
	pid_t		pid;			/* 0 until the writer has started */
	RanreadStatus status;
	bool		recorded;		/* its ranread_write_results row is committed */
	instr_time	end_time;		/* its last commit; once done, when its writing ended */
	char		error_message[256];
	RanreadHistogram hist;		/* one entry per committed write: begin to commit */
} RanreadWriterSlot;

/*
 * What the database did during a batch with writers (db_activity.c): its
 * cumulative counters at the release and when the batch is recorded.
 */
typedef struct RanreadDbActivity
{
	bool		taken;
	TimestampTz at;
	double		wal_bytes;
	int64		wal_fpi;		/* full-page images written to WAL */
	int64		wal_syncs;
	double		wal_sync_ms;	/* 0 unless track_wal_io_timing */
	int64		checkpoints_timed;
	int64		checkpoints_requested;
	int64		buffers_checkpoint;
	int64		buffers_clean;	/* by the background writer */
	int64		buffers_backend;	/* by every other process */
	int64		updates;		/* of the write target's rows */
	int64		hot_updates;	/* of those, the ones that stayed on their page */
} RanreadDbActivity;

/*
 * checkpoint => 'during' (checkpoint_window.c): a fast checkpoint asked for a
 * third into the counted reads, and the readers' histogram at both ends of
 * its window.  One process at a time changes it (busy): the leader while the
 * readers read, or the last reader as it stops.
 */
typedef enum RanreadCheckpointState
{
	RANREAD_CHECKPOINT_DUE,		/* not yet requested */
	RANREAD_CHECKPOINT_OPEN,	/* requested: the window is open */
	RANREAD_CHECKPOINT_DONE		/* the window is closed (or never opened) */
} RanreadCheckpointState;

typedef struct RanreadCheckpointWindow
{
	pg_atomic_flag busy;
	RanreadCheckpointState state;
	uint64		requested_lsn;	/* WAL insert position when it was requested */
	double		requested_s;	/* seconds after counting began; the window opens; -1: never */
	double		started_s;		/* the first look that found it begun; -1: none */
	double		ended_s;		/* the first look that found it recorded; -1: it outlasted the reads */
	int64		writes_before;	/* writes committed when it was requested */
	RanreadHistogram at_start;	/* the readers' histograms summed at the request */
	RanreadHistogram inside;	/* the reads between the request and its end */
} RanreadCheckpointWindow;

/*
 * Everything the caller chose for a run: filled from ranread_run()'s
 * arguments by one function (ranread_read_run_arguments(), run_arguments.c),
 * passed to ranread_run_batch() (run.c) and copied into shared memory.  A
 * new run parameter is a field here, an argument of the SQL function, a
 * RunArgument with its checks, and its documentation and tests
 * (docs/architecture.md).
 */
typedef struct RanreadParams
{
	int			processes;
	int64		iterations;		/* per worker; 0: until duration_ns */
	uint64		duration_ns;	/* 0: until iterations */
	int			readpath;		/* index, see readpath.c */
	int			block_size;		/* bytes per timed read */
	bool		evict;			/* evict the target from the OS page cache first */
	char		target_name[NAMEDATALEN];
	uint64		sample_interval_ns; /* length of one row of ranread_intervals */
	uint64		ramp_ns;		/* read first, not counted (part of duration_ns) */
	uint64		steady_window_ns;	/* 0: no steady-state rule */
	double		steady_band_pct;	/* IOPS and mean within this of their mean */
	double		rate_iops;		/* 0: closed loop; else reads/s, all workers */
	bool		poisson;		/* open loop: exponential gaps, not uniform */
	int64		sweep;			/* the sweep this batch is a step of; 0: none */
	int			sweep_step;		/* 0 in a sweep: its drain (sweep.c) */
	bool		drain;			/* steady state counts only after a burst
								 * bucket ran empty (a sweep's drain) */
	int			iodepth;		/* reads in flight per worker */
	bool		allow_rereads;	/* read on after every unit was read once */
	int			prefetch;		/* units advised ahead of each read (smgrprefetch); 0: none */
	int64		layers;			/* the layers run this batch is part of; 0: none */
	int64		calibration;	/* the calibration this batch is part of; 0: none */
	uint64		seed;			/* of the units' order; 0: a random one (layers.c sets it) */
	RanreadDistribution distribution;	/* which units it reads (distribution.c) */
	TimestampTz start_at;		/* release the workers at this wall-clock time; 0: once ready */
	int			writers;		/* background writers beside the readers; 0: none */
	double		write_rate_iops;	/* writes/s, all writers together (open loop) */
	char		write_target_name[NAMEDATALEN];
	bool		checkpoint_during;	/* a fast checkpoint a third into the run */
} RanreadParams;

typedef struct RanreadShared
{
	uint32		magic;
	RanreadParams params;

	/* what the leader found and decided, fixed before the first worker starts */
	int64		batch;
	Oid			database_id;
	Oid			user_id;
	int			leader_pgprocno;
	int			leader_pid;		/* the lock group the workers join */
	int			blocks_per_read;	/* params.block_size / BLCKSZ */
	Oid			target_relid;
	RanreadRelFile target_file;
	BlockNumber target_blocks;
	BlockNumber target_units;	/* aligned reads that fit in the target */
	uint64		seed;
	char		schema_name[NAMEDATALEN];
	Oid			write_target_relid; /* with writers: the write target */
	int32		write_rows;		/* its rows, ids 1 to write_rows */

	/*
	 * Start barrier: the number of workers (readers and writers) ready, plus
	 * RANREAD_BARRIER_RELEASED once the leader lets them read.  One word, so
	 * that a worker withdrawing (told to stop while it waits) and the leader
	 * releasing cannot both win: each is a compare-and-swap on it.
	 */
	pg_atomic_uint32 barrier;
	instr_time	release_time;	/* monotonic clock at release */
	instr_time	count_from;		/* release_time + ramp: reads from here are counted */
	TimestampTz started_at;		/* wall clock at release */
	DateADT		run_date;		/* started_at in the caller's time zone */
	TimeADT		run_time;

	/* end of run */
	pg_atomic_uint32 stop_reason;	/* RanreadStopReason */
	pg_atomic_uint32 reading;	/* released workers still reading */
	pg_atomic_uint32 unrecorded;	/* released workers yet to record */

	/* the target's block device, sampled at release and when reading ends */
	RanreadDevice device;
	RanreadDiskStats device_start;
	RanreadDiskStats device_end;
	instr_time	device_start_time;
	bool		device_start_taken; /* device_start is valid */
	bool		device_sampled;	/* device_start and device_end are valid */
	bool		batch_recorded; /* the ranread_batches row is committed */
	char		batch_error[256];	/* why it is not, when it is not */
	instr_time	device_end_time;

	/*
	 * pg_stat_io's bytes read by background workers (16 and later), before
	 * the release (-1: not taken), and the blocks read during the batch as
	 * the worker recording it found them (-1: unknown): stat_io.c.
	 */
	int64		stat_io_bytes_before;
	int64		stat_io_blocks;

	/*
	 * Under io_method = worker: PostgreSQL's I/O workers, which read for the
	 * workers, as the leader found them just before the release, the bytes
	 * they had fetched from storage then, and those they fetched during the
	 * batch as the worker recording it found them (-1: not counted):
	 * io_worker_bytes.c.
	 */
	int			io_worker_count;
	pid_t		io_worker_pids[RANREAD_MAX_IO_WORKERS];
	int64		io_worker_bytes_before;
	int64		io_worker_bytes;

	/* with writers: the database's counters at the release and at the end */
	RanreadDbActivity activity_start;
	RanreadDbActivity activity_end;
	bool		activity_recorded;	/* the ranread_db_activity row is committed */

	/* checkpoint => 'during': the checkpoint asked for, and its window */
	RanreadCheckpointWindow checkpoint;

	/* where the variable-length parts start: see ranread_shared_layout() */
	Size		service_offset; /* open loop: one service-time histogram per worker */
	Size		writer_offset;	/* with writers: one RanreadWriterSlot per writer */
	Size		series_offset;	/* the per-interval series (series.h) */
	int			series_capacity;

	RanreadWorkerSlot slots[FLEXIBLE_ARRAY_MEMBER];
} RanreadShared;

#define RANREAD_BARRIER_RELEASED	0x80000000

static inline bool
ranread_barrier_released(RanreadShared *shared)
{
	return (pg_atomic_read_u32(&shared->barrier) & RANREAD_BARRIER_RELEASED) != 0;
}

/*
 * Open loop: worker i's service times (from issuing each read to its end),
 * next to its slot's response times (from when the read was due).
 */
static inline RanreadHistogram *
ranread_service_hist(const RanreadShared *shared, int worker)
{
	if (shared->service_offset == 0)
		return NULL;
	return (RanreadHistogram *) ((char *) shared + shared->service_offset) + worker;
}

/* Writer i's slot (writers > 0). */
static inline RanreadWriterSlot *
ranread_writer_slot(const RanreadShared *shared, int writer)
{
	return (RanreadWriterSlot *) ((char *) shared + shared->writer_offset) + writer;
}

/* Everyone at the start barrier: the readers and the writers. */
static inline uint32
ranread_barrier_workers(const RanreadShared *shared)
{
	return (uint32) (shared->params.processes + shared->params.writers);
}

/* A batch's totals, computed from the worker slots (results.c). */
typedef struct RanreadBatchSummary
{
	int64		reads;
	double		wall_s;
	RanreadLatency latency;
	double		pct_over_2ms;
	double		pct_over_5ms;
	double		pct_over_10ms;
	double		iops;
	double		mb_per_s;
	double		physical_pct;	/* share of reads the device answered */
	RanreadLatency service;		/* open loop: from issue to end; else all -1 */
	double		kb_per_read;	/* kB the kernel fetched from storage per read */
	int64		buffer_hits;
	int64		buffer_misses;
	int64		wrapped_reads;	/* reads of units the run had read before */
	bool		device_sampled;
	double		device_reads_per_s;
	double		device_read_wait_ms;
	double		device_util_pct;
	double		device_bytes;	/* the device read, over the device window */
	double		own_bytes;		/* of which the workers' reads caused (-1: unknown) */
	double		device_shared_pct;	/* share of device_bytes not own; -1: unknown */
	RanreadStatus status;
	const char *ended_by;		/* what ended a completed batch; NULL otherwise */
	RanreadHistogram *histogram;	/* every worker's reads, merged */
} RanreadBatchSummary;

#endif							/* RANREAD_H */
