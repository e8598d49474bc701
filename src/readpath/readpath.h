/*-------------------------------------------------------------------------
 *
 * readpath.h
 *		The interface every read path implements, like fio's ioengine_ops.
 *
 * A read path describes itself (its name, one line for the help, flags
 * saying what it bypasses and counts, and what memory means when it answers
 * a read) and implements four calls.  The leader calls check() before
 * starting any worker, so that a path the target's file system cannot serve
 * fails with a clear error.  A worker opens its read path once, before the
 * start barrier, then calls read_unit once per timed read and close once at
 * the end.  A unit is block_size bytes starting at an aligned block; each
 * path documents how it issues it.
 *
 * A path flagged RANREAD_PATH_QUEUES can also keep several reads in flight
 * (iodepth > 1), the way fio's io_uring engine does: queue prepares the
 * read of a unit into the buffer named by tag (0 to iodepth - 1) and, if
 * submits_each said so for this refill, submits it; reap submits every read
 * queued and not yet submitted, together, and waits until at least one read
 * has completed and says which, and close waits for
 * every read still in flight.  buffer_registration, if the path has it, says
 * whether the kernel accepted its buffers (recorded as registered_buffers),
 * and uring_refusal why a path that reads around a refused io_uring did.
 * A path flagged RANREAD_PATH_PRIVATE_BUFFERS reads into iodepth x
 * block_size bytes of its own per worker, which ranread.max_run_memory
 * bounds (run_memory.c).
 *
 * A path flagged RANREAD_PATH_PREFETCHES can be told, prefetch => N reads
 * ahead of each read, that a unit will be read soon (prefetch), as
 * PostgreSQL 15 to 17 advise the kernel ahead of a bitmap heap scan.
 *
 * A path with a stream call reads the way PostgreSQL's read_stream does: it
 * pulls the units to read from the worker (feed->next, which also says when
 * there are no more) as far ahead as it wants, and hands each unit back once
 * read (feed->done); the worker times a read from the one to the other.
 * check_iodepth, if the path has it, refuses an iodepth the server cannot
 * keep in flight; it runs where the arguments are read, before anything
 * starts.  A path flagged RANREAD_PATH_AIO reads through PostgreSQL 18's
 * asynchronous I/O: it is refused before 18, the leader evicts the target
 * from shared buffers too, and the reads may run in other processes (I/O
 * workers), so the worker's own byte count says nothing.
 *
 * Each read path lives in its own readpath_<name>.c and has one line in the
 * table in readpath.c; nothing else names a particular path.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_READPATH_H
#define RANREAD_READPATH_H

#include <signal.h>

#include "os/osstats.h"
#include "ranread.h"

/* RanreadReadPath.flags */
#define RANREAD_PATH_BYPASSES_PAGE_CACHE	0x01	/* reads never come from the OS page cache */
#define RANREAD_PATH_COUNTS_BUFFER_HITS		0x02	/* reads go through shared buffers */
#define RANREAD_PATH_QUEUES					0x04	/* queue and reap: iodepth > 1 */
#define RANREAD_PATH_PRIVATE_BUFFERS		0x08	/* reads into iodepth x block_size of its own */
#define RANREAD_PATH_AIO					0x10	/* reads through io_method (18) */
#define RANREAD_PATH_PREFETCHES				0x20	/* has prefetch: prefetch => N */

/*
 * What a path with a stream call pulls its units from: next() names the
 * first block of the next unit, or InvalidBlockNumber when the worker is
 * done, and fills `read` (read_size bytes the path keeps with the unit);
 * done() takes the unit's `read` back once all its blocks have been read.
 */
typedef struct RanreadStreamFeed
{
	Size		read_size;
	BlockNumber (*next) (void *arg, void *read);
	void		(*done) (void *arg, void *read);
	void	   *arg;
} RanreadStreamFeed;

typedef struct RanreadReadPath
{
	const char *name;
	const char *description;	/* one line: how it reads, for ranread_help() */
	uint32		flags;
	/* what answered when memory did, for the physical-read WARNING */
	const char *memory_hit;
	/* leader: error out if this path cannot read the target; may be NULL */
	void		(*check) (const RanreadShared *shared);
	/* argument check: error out if iodepth units cannot be kept in flight; may be NULL */
	void		(*check_iodepth) (int iodepth, int blocks_per_read);
	/*
	 * worker: prepare to read the target; returns the path's private state.
	 * `stop` is the worker's flag, raised by its signal handlers when it must
	 * stop reading: a path whose read a signal interrupts gives the read up
	 * when it is set, rather than issue it again (the path knows nothing of
	 * the run above it).
	 */
	void	   *(*open) (const RanreadShared *shared, volatile sig_atomic_t *stop);
	/*
	 * worker: read shared->blocks_per_read blocks from first_block on; false
	 * if it gave the read up because the worker was told to stop while the
	 * read was interrupted (a stalled file system that honours signals)
	 */
	bool		(*read_unit) (void *state, BlockNumber first_block);
	/* worker, prefetch > 0: advise that the unit from first_block on will be read soon */
	void		(*prefetch) (void *state, BlockNumber first_block);
	/*
	 * worker, iodepth > 1, once per refill: whether queue will submit each
	 * read itself (then each read's clock starts just before its queue
	 * call), rather than reap submitting them together
	 */
	bool		(*submits_each) (void *state);
	/* worker, iodepth > 1: queue the read of a unit from first_block on */
	void		(*queue) (void *state, int tag, BlockNumber first_block);
	/*
	 * worker, iodepth > 1: submit the reads queued and not yet submitted,
	 * together, and wait for completions; fills tags (room for every read in
	 * flight), returns how many
	 */
	int			(*reap) (void *state, int *tags);
	/*
	 * worker, after open: -1 if it registered no buffers with the kernel
	 * (it reads without io_uring), 0 if it did, else the errno that refused
	 * them; may be NULL
	 */
	int			(*buffer_registration) (void *state);
	/*
	 * worker, after open: 0, or the errno for which the kernel refused an
	 * io_uring that the path reads around (by pread(), at iodepth 1); may be
	 * NULL
	 */
	int			(*uring_refusal) (void *state);
	/* worker: read the units feed names until it has none; may be NULL */
	void		(*stream) (void *state, const RanreadStreamFeed *feed);
	void		(*close) (void *state);
} RanreadReadPath;

/* the read paths, one file each (readpath_<name>.c) */
extern const RanreadReadPath ranread_readpath_smgr;
extern const RanreadReadPath ranread_readpath_direct;
extern const RanreadReadPath ranread_readpath_buffer;
extern const RanreadReadPath ranread_readpath_stream;

extern const RanreadReadPath *ranread_readpath_by_name(const char *name);
extern const char *ranread_readpath_names(uint32 flags);
extern int	ranread_readpath_count(void);
extern const RanreadReadPath *ranread_readpath_by_index(int index);
extern int	ranread_readpath_index(const RanreadReadPath *path);
extern bool ranread_readpath_runs_here(const RanreadReadPath *path);
extern void ranread_readpath_check_server(const RanreadReadPath *path);

#endif							/* RANREAD_READPATH_H */
