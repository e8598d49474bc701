/*-------------------------------------------------------------------------
 *
 * readpath_buffer.c
 *		Read path "buffer": through shared buffers, as a query's read would.
 *
 * Each block is read with ReadBufferExtended() using a BAS_BULKREAD ring
 * (256 kB), so the run does not flush shared buffers, then share-locked and
 * released, as a heap scan does.  A skewed distribution (distribution.c)
 * reads without a ring, as an index scan does, so that its hot units stay
 * in shared buffers as long as the pool's clock sweep keeps them: its hit
 * ratio is that of shared buffers of their size.  A miss pays what a query's cache miss
 * costs: buffer mapping, a victim buffer, the read, and checksum
 * verification.  A block already in shared buffers is a hit; hits and misses
 * are counted from pgBufferUsage and reported apart.  Random access is
 * advised on the files, as in mode smgr (readahead.c).  A unit of several
 * blocks is that many buffer reads, timed together as one read.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "executor/instrument.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "readpath/readahead.h"
#include "readpath/readpath.h"

typedef struct BufferReadState
{
	Relation	rel;
	BufferAccessStrategy strategy;
	int			blocks_per_read;
} BufferReadState;

static void *
buffer_open(const RanreadShared *shared, volatile sig_atomic_t *stop)
{
	BufferReadState *state = palloc(sizeof(BufferReadState));

	state->rel = relation_open(shared->target_relid, AccessShareLock);
	state->strategy = ranread_distribution_skewed(&shared->params.distribution) ? NULL :
		GetAccessStrategy(BAS_BULKREAD);
	ranread_advise_access(RelationGetSmgr(state->rel), &shared->params);
	state->blocks_per_read = shared->blocks_per_read;
	return state;
}

static bool
buffer_read_unit(void *state, BlockNumber first_block)
{
	BufferReadState *s = (BufferReadState *) state;

	for (int i = 0; i < s->blocks_per_read; i++)
	{
		Buffer		buffer = ReadBufferExtended(s->rel, MAIN_FORKNUM, first_block + i,
												RBM_NORMAL, s->strategy);

		LockBuffer(buffer, BUFFER_LOCK_SHARE);
		UnlockReleaseBuffer(buffer);
	}
	return true;
}

static void
buffer_close(void *state)
{
	BufferReadState *s = (BufferReadState *) state;

	FreeAccessStrategy(s->strategy);
	relation_close(s->rel, AccessShareLock);
}

const RanreadReadPath ranread_readpath_buffer = {
	.name = "buffer",
	.description = "through shared buffers with a 256 kB ring, as a query reads; hits reported apart",
	.flags = RANREAD_PATH_COUNTS_BUFFER_HITS,
	.memory_hit = "the OS page cache or shared buffers",
	.check = NULL,
	.open = buffer_open,
	.read_unit = buffer_read_unit,
	.close = buffer_close,
};
