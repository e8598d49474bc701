/*-------------------------------------------------------------------------
 *
 * readpath_stream.c
 *		Read path "stream": PostgreSQL 18's read_stream, through io_method.
 *
 * Each worker reads the target through a read stream (read_stream.c), the
 * way a scan reads on 18: the stream asks the worker for block numbers (its
 * permutation, through the feed), starts their reads ahead of use through
 * the server's asynchronous I/O (io_method sync, worker or io_uring), and
 * hands back pinned buffers in order; each is share-locked and released at
 * once, as in mode buffer.  iodepth is the look-ahead: the worker's
 * effective_io_concurrency is set to it; with READ_STREAM_FULL the stream's
 * distance starts at io_combine_limit blocks and doubles as its reads
 * miss, within a few reads, and it submits in batches as a heap scan does.
 * No buffer access strategy: a ring would cap the pins below the look-ahead.
 *
 * A read's latency runs from the stream asking for its first block to the
 * buffer of its last block being handed back: it includes the time the
 * block waits in the stream for an I/O slot and for the blocks before it,
 * as a query sees it.  A unit of several blocks is asked for block by
 * block, and the stream may combine them into one I/O.
 *
 * check_iodepth() refuses a look-ahead the server cannot keep in flight:
 * more than effective_io_concurrency may be, than io_max_concurrency (AIO
 * handles per process), or than the buffer pins a process may hold (iodepth
 * units of block_size each).  check() refuses a target whose tablespace sets
 * its own effective_io_concurrency, which would override iodepth.  Before
 * 18 the mode is refused where the arguments are read (readpath.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "compat.h"
#include "readpath/readpath.h"

#if RANREAD_HAVE_AIO

#include "access/relation.h"
#include "commands/tablespace.h"
#include "storage/aio.h"
#include "storage/bufmgr.h"
#include "storage/read_stream.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/spccache.h"

#include "readpath/readahead.h"

typedef struct StreamReadState
{
	Relation	rel;
	int			blocks_per_read;
	const RanreadStreamFeed *feed;
	BlockNumber unit_first;		/* the unit being asked for, block by block */
	int			unit_left;		/* its blocks not yet asked for */
	char	   *unit_read;		/* the worker's record of that unit */
} StreamReadState;

/* What the stream keeps with each block: the worker's record with the last. */
typedef struct StreamBlock
{
	bool		last;			/* the unit's last block */
} StreamBlock;

#define STREAM_BLOCK_HEADER	MAXALIGN(sizeof(StreamBlock))

static void
stream_check_iodepth(int iodepth, int blocks_per_read)
{
	uint32		pin_limit = GetPinLimit();

	if (iodepth > MAX_IO_CONCURRENCY)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("iodepth %d is more than a read stream can look ahead (%d)", iodepth, MAX_IO_CONCURRENCY),
				 errdetail("Mode 'stream' sets effective_io_concurrency to iodepth, and it is at most %d.",
						   MAX_IO_CONCURRENCY),
				 errhint("Use a smaller iodepth (in a sweep: max_iodepth).")));
	if (iodepth > io_max_concurrency)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("iodepth %d is more than io_max_concurrency (%d)", iodepth, io_max_concurrency),
				 errdetail("A process of mode 'stream' can have at most io_max_concurrency asynchronous reads in flight."),
				 errhint("Use a smaller iodepth (in a sweep: max_iodepth), or raise io_max_concurrency, which requires a server restart.")));
	if ((uint64) iodepth * blocks_per_read > pin_limit)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("iodepth %d of %d-block reads needs more than the %u buffer pins a process may hold",
						iodepth, blocks_per_read, pin_limit),
				 errdetail("A read stream pins a buffer for each block in flight; a process may pin shared_buffers divided by the number of server processes."),
				 errhint("Use a smaller iodepth (in a sweep: max_iodepth) or block_size, or raise shared_buffers or lower max_connections or max_worker_processes, which requires a server restart.")));
}

/*
 * Whether the tablespace sets its own effective_io_concurrency: set the
 * session's to two values in turn and see whether the tablespace's look-ahead
 * follows.  One value would not do: a tablespace whose own setting equals it
 * would pass (a calibration's series then ran its first depth, 1, and was
 * refused at the second).
 */
static bool
tablespace_sets_look_ahead(Oid spc)
{
	int			nest = NewGUCNestLevel();
	int			with_one;
	int			with_two;

	(void) set_config_option("effective_io_concurrency", "1",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	with_one = get_tablespace_io_concurrency(spc);
	(void) set_config_option("effective_io_concurrency", "2",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	with_two = get_tablespace_io_concurrency(spc);
	AtEOXact_GUC(false, nest);
	return with_one == with_two;
}

static void
stream_check(const RanreadShared *shared)
{
	Relation	rel = relation_open(shared->target_relid, AccessShareLock);
	Oid			spc = OidIsValid(rel->rd_rel->reltablespace) ? rel->rd_rel->reltablespace : MyDatabaseTableSpace;

	relation_close(rel, AccessShareLock);
	if (tablespace_sets_look_ahead(spc))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("tablespace \"%s\" sets its own effective_io_concurrency (%d)",
						get_tablespace_name(spc), get_tablespace_io_concurrency(spc)),
				 errdetail("A read stream looks ahead as far as its tablespace's effective_io_concurrency, which would override iodepth %d.",
						   shared->params.iodepth),
				 errhint("Run ALTER TABLESPACE %s RESET (effective_io_concurrency) to let iodepth set the look-ahead.",
						 quote_identifier(get_tablespace_name(spc)))));
}

static void *
stream_open(const RanreadShared *shared, volatile sig_atomic_t *stop)
{
	StreamReadState *state = palloc0(sizeof(StreamReadState));

	SetConfigOption("effective_io_concurrency", psprintf("%d", shared->params.iodepth),
					PGC_USERSET, PGC_S_SESSION);
	state->rel = relation_open(shared->target_relid, AccessShareLock);
	ranread_advise_access(RelationGetSmgr(state->rel), &shared->params);
	state->blocks_per_read = shared->blocks_per_read;
	return state;
}

/* The stream's callback: the next block, asking the worker for a unit when one is done. */
static BlockNumber
next_block(ReadStream *stream, void *private, void *per_buffer_data)
{
	StreamReadState *s = (StreamReadState *) private;
	StreamBlock *block = (StreamBlock *) per_buffer_data;

	if (s->unit_left == 0)
	{
		BlockNumber first = s->feed->next(s->feed->arg, s->unit_read);

		if (first == InvalidBlockNumber)
			return InvalidBlockNumber;
		s->unit_first = first;
		s->unit_left = s->blocks_per_read;
	}
	s->unit_left--;
	block->last = s->unit_left == 0;
	if (block->last)
		memcpy((char *) block + STREAM_BLOCK_HEADER, s->unit_read, s->feed->read_size);
	return s->unit_first + (s->blocks_per_read - 1 - s->unit_left);
}

static void
stream_read_units(void *state, const RanreadStreamFeed *feed)
{
	StreamReadState *s = (StreamReadState *) state;
	ReadStream *stream;
	Buffer		buffer;
	void	   *data;

	s->feed = feed;
	s->unit_read = palloc(feed->read_size);
	stream = read_stream_begin_relation(READ_STREAM_FULL | READ_STREAM_USE_BATCHING, NULL,
										s->rel, MAIN_FORKNUM, next_block, s,
										MAXALIGN(STREAM_BLOCK_HEADER + feed->read_size));
	while ((buffer = read_stream_next_buffer(stream, &data)) != InvalidBuffer)
	{
		StreamBlock *block = (StreamBlock *) data;

		LockBuffer(buffer, BUFFER_LOCK_SHARE);
		UnlockReleaseBuffer(buffer);
		if (block->last)
			feed->done(feed->arg, (char *) block + STREAM_BLOCK_HEADER);
	}
	read_stream_end(stream);
	pfree(s->unit_read);
}

static void
stream_close(void *state)
{
	StreamReadState *s = (StreamReadState *) state;

	relation_close(s->rel, AccessShareLock);
}

#endif							/* RANREAD_HAVE_AIO */

/* Listed on every major, so that help and errors name it; before 18 it has no calls. */
const RanreadReadPath ranread_readpath_stream = {
	.name = "stream",
	.description = "PostgreSQL 18's read_stream through io_method, iodepth its look-ahead; 18 and later",
	.flags = RANREAD_PATH_COUNTS_BUFFER_HITS | RANREAD_PATH_QUEUES | RANREAD_PATH_AIO,
	.memory_hit = "the OS page cache or shared buffers",
#if RANREAD_HAVE_AIO
	.check = stream_check,
	.check_iodepth = stream_check_iodepth,
	.open = stream_open,
	.stream = stream_read_units,
	.close = stream_close,
#endif
};
