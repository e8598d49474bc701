/*-------------------------------------------------------------------------
 *
 * readpath_smgr.c
 *		Read path "smgr": PostgreSQL's storage manager into private memory.
 *
 * smgrread() is the database's own read of a block (md.c, fd.c, pread):
 * it bypasses shared buffers but goes through the OS page cache, which the
 * leader evicts before the run, with random access advised so that readahead
 * does not answer reads (readahead.c).  This is what pg_prewarm's 'read' mode
 * does.
 * PostgreSQL 15 reads one block per call, so a unit of several blocks is
 * that many consecutive smgrread() calls, timed together as one read.
 * With prefetch => N the worker advises each unit N reads ahead
 * (smgrprefetch: posix_fadvise WILLNEED), as PostgreSQL 15 to 17 do ahead
 * of a bitmap heap scan at effective_io_concurrency N.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/smgr.h"

#include "readpath/readahead.h"
#include "readpath/readpath.h"

typedef struct SmgrReadState
{
	SMgrRelation reln;
	int			blocks_per_read;
	char	   *buffer;
} SmgrReadState;

static void *
smgr_open(const RanreadShared *shared, volatile sig_atomic_t *stop)
{
	SmgrReadState *state = palloc(sizeof(SmgrReadState));

	state->reln = ranread_smgropen(shared->target_file);
	ranread_advise_access(state->reln, &shared->params);
	state->blocks_per_read = shared->blocks_per_read;
	state->buffer = ranread_alloc_io_buffer(shared->params.block_size);
	return state;
}

static bool
smgr_read_unit(void *state, BlockNumber first_block)
{
	SmgrReadState *s = (SmgrReadState *) state;

	for (int i = 0; i < s->blocks_per_read; i++)
		smgrread(s->reln, MAIN_FORKNUM, first_block + i, s->buffer + (Size) i * BLCKSZ);
	return true;
}

/* prefetch => N: posix_fadvise(WILLNEED) through the storage manager, as a bitmap heap scan's prefetch */
static void
smgr_prefetch(void *state, BlockNumber first_block)
{
	SmgrReadState *s = (SmgrReadState *) state;

	ranread_smgrprefetch(s->reln, first_block, s->blocks_per_read);
}

static void
smgr_close(void *state)
{
	SmgrReadState *s = (SmgrReadState *) state;

	smgrclose(s->reln);
}

const RanreadReadPath ranread_readpath_smgr = {
	.name = "smgr",
	.description = "PostgreSQL's storage manager (smgrread) through the OS page cache, evicted first unless evict is false",
	.flags = RANREAD_PATH_PRIVATE_BUFFERS | RANREAD_PATH_PREFETCHES,
	.memory_hit = "the OS page cache",
	.check = NULL,
	.open = smgr_open,
	.read_unit = smgr_read_unit,
	.prefetch = smgr_prefetch,
	.close = smgr_close,
};
