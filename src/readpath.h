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
 * (iodepth > 1), the way fio's io_uring engine does: submit starts the read
 * of a unit into the buffer named by tag (0 to iodepth - 1), reap waits
 * until at least one read has completed and says which, and close waits for
 * every read still in flight.  buffer_registration, if the path has it, says
 * whether the kernel accepted its buffers (recorded as registered_buffers).
 * A path flagged RANREAD_PATH_PRIVATE_BUFFERS reads into iodepth x
 * block_size bytes of its own per worker, which ranread.max_run_memory
 * bounds (run_memory.c).
 *
 * Each read path lives in its own readpath_<name>.c and has one line in the
 * table in readpath.c; nothing else names a particular path.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_READPATH_H
#define RANREAD_READPATH_H

#include "osstats.h"
#include "ranread.h"

/* RanreadReadPath.flags */
#define RANREAD_PATH_BYPASSES_PAGE_CACHE	0x01	/* reads never come from the OS page cache */
#define RANREAD_PATH_COUNTS_BUFFER_HITS		0x02	/* reads go through shared buffers */
#define RANREAD_PATH_QUEUES					0x04	/* submit and reap: iodepth > 1 */
#define RANREAD_PATH_PRIVATE_BUFFERS		0x08	/* reads into iodepth x block_size of its own */

typedef struct RanreadReadPath
{
	const char *name;
	const char *description;	/* one line: how it reads, for ranread_help() */
	uint32		flags;
	/* what answered when memory did, for the physical-read WARNING */
	const char *memory_hit;
	/* leader: error out if this path cannot read the target; may be NULL */
	void		(*check) (const RanreadShared *shared);
	/* worker: prepare to read the target; returns the path's private state */
	void	   *(*open) (const RanreadShared *shared);
	/* worker: read shared->blocks_per_read blocks from first_block on */
	void		(*read_unit) (void *state, BlockNumber first_block);
	/* worker, iodepth > 1: start reading a unit from first_block on */
	void		(*submit) (void *state, int tag, BlockNumber first_block);
	/* worker, iodepth > 1: wait for completions; fills tags, returns how many */
	int			(*reap) (void *state, int *tags, int max_tags);
	/*
	 * worker, after open: -1 if it registered no buffers with the kernel
	 * (iodepth 1), 0 if it did, else the errno that refused them; may be NULL
	 */
	int			(*buffer_registration) (void *state);
	void		(*close) (void *state);
} RanreadReadPath;

extern const RanreadReadPath *ranread_readpath_by_name(const char *name);
extern const char *ranread_readpath_names(uint32 flags);
extern int	ranread_readpath_count(void);
extern const RanreadReadPath *ranread_readpath_by_index(int index);
extern int	ranread_readpath_index(const RanreadReadPath *path);

#endif							/* RANREAD_READPATH_H */
