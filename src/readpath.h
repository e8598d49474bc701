/*-------------------------------------------------------------------------
 *
 * readpath.h
 *		The interface every read path implements, like fio's ioengine_ops.
 *
 * A worker opens its read path once, before the start barrier, then calls
 * read_block once per timed read and close once at the end.  Each read path
 * lives in its own readpath_<name>.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_READPATH_H
#define RANREAD_READPATH_H

#include "ranread.h"

typedef struct RanreadReadPath
{
	const char *name;
	/* prepare to read the target; returns the path's private state */
	void	   *(*open) (const RanreadShared *shared);
	/* read one block into private memory; errors are ereport()ed */
	void		(*read_block) (void *state, BlockNumber blkno);
	void		(*close) (void *state);
} RanreadReadPath;

extern const RanreadReadPath ranread_readpath_smgr;

#endif							/* RANREAD_READPATH_H */
