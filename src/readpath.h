/*-------------------------------------------------------------------------
 *
 * readpath.h
 *		The interface every read path implements, like fio's ioengine_ops.
 *
 * The leader calls check() before starting any worker, so that a path the
 * target's file system cannot serve fails with a clear error.  A worker
 * opens its read path once, before the start barrier, then calls read_unit
 * once per timed read and close once at the end.  A unit is block_size bytes
 * starting at an aligned block; each path documents how it issues it.  Each
 * read path lives in its own readpath_<name>.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_READPATH_H
#define RANREAD_READPATH_H

#include "osstats.h"
#include "ranread.h"

typedef struct RanreadReadPath
{
	const char *name;
	/* leader: error out if this path cannot read the target; may be NULL */
	void		(*check) (const RanreadShared *shared);
	/* worker: prepare to read the target; returns the path's private state */
	void	   *(*open) (const RanreadShared *shared);
	/* worker: read shared->blocks_per_read blocks from first_block on */
	void		(*read_unit) (void *state, BlockNumber first_block);
	void		(*close) (void *state);
} RanreadReadPath;

extern const RanreadReadPath ranread_readpath_smgr;
extern const RanreadReadPath ranread_readpath_direct;
extern const RanreadReadPath ranread_readpath_buffer;

extern const RanreadReadPath *ranread_readpath_by_name(const char *name);
extern const RanreadReadPath *ranread_readpath_by_index(int index);
extern int	ranread_readpath_index(const RanreadReadPath *path);

#endif							/* RANREAD_READPATH_H */
