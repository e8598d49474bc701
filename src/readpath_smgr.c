/*-------------------------------------------------------------------------
 *
 * readpath_smgr.c
 *		Read path "smgr": PostgreSQL's storage manager into private memory.
 *
 * smgrread() is the database's own read of a block (md.c, fd.c, pread):
 * it bypasses shared buffers but goes through the OS page cache, which the
 * leader evicts before the run.  This is what pg_prewarm's 'read' mode does.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/backendid.h"
#include "storage/smgr.h"

#include "readpath.h"

typedef struct SmgrReadState
{
	SMgrRelation reln;
	PGAlignedBlock buffer;
} SmgrReadState;

static void *
smgr_open(const RanreadShared *shared)
{
	SmgrReadState *state = palloc(sizeof(SmgrReadState));

	state->reln = smgropen(shared->target_node, InvalidBackendId);
	return state;
}

static void
smgr_read_block(void *state, BlockNumber blkno)
{
	SmgrReadState *s = (SmgrReadState *) state;

	smgrread(s->reln, MAIN_FORKNUM, blkno, s->buffer.data);
}

static void
smgr_close(void *state)
{
	SmgrReadState *s = (SmgrReadState *) state;

	smgrclose(s->reln);
	pfree(s);
}

const RanreadReadPath ranread_readpath_smgr = {
	.name = "smgr",
	.open = smgr_open,
	.read_block = smgr_read_block,
	.close = smgr_close,
};
