/*-------------------------------------------------------------------------
 *
 * readpath_direct.c
 *		Read path "direct": O_DIRECT reads of the target's segment files.
 *
 * Bypasses shared buffers and the OS page cache and measures the device the
 * way `fio --direct=1 --ioengine=psync` does: one pread() of block_size bytes
 * into an aligned buffer per read, at the same block offsets smgr would use.
 * A unit that crosses a 1 GiB segment boundary (block sizes that do not
 * divide 1 GiB) is two pread() calls, one per segment.  PostgreSQL 15 has no
 * direct I/O of its own, so this path opens the files itself.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>

#include "miscadmin.h"
#include "storage/fd.h"

#include "readpath.h"
#include "target.h"

typedef struct DirectReadState
{
	int			nsegments;
	int		   *fds;
	char	  **paths;
	int			blocks_per_read;
	char	   *buffer;
} DirectReadState;

static int
open_direct(const char *path)
{
	int			fd = BasicOpenFile(path, O_RDONLY | PG_BINARY | O_DIRECT);

	if (fd < 0 && errno == EINVAL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the file system holding \"%s\" does not support direct I/O", path),
				 errhint("Use mode 'smgr', which reads through the OS page cache after evicting the target.")));
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\" for direct I/O: %m", path)));
	return fd;
}

/* Leader: fail before any worker starts if O_DIRECT is refused. */
static void
direct_check(const RanreadShared *shared)
{
	char	   *path = ranread_segment_path(shared->target_node, 0);
	int			fd = open_direct(path);
	char	   *buffer = ranread_alloc_io_buffer(BLCKSZ);

	if (pg_pread(fd, buffer, BLCKSZ, 0) != BLCKSZ)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("could not read \"%s\" with direct I/O: %m", path),
				 errhint("Use mode 'smgr', which reads through the OS page cache after evicting the target.")));
	close(fd);
}

static void *
direct_open(const RanreadShared *shared)
{
	DirectReadState *state = palloc(sizeof(DirectReadState));

	state->nsegments = ranread_segment_count(shared->target_blocks);
	state->fds = palloc(sizeof(int) * state->nsegments);
	state->paths = palloc(sizeof(char *) * state->nsegments);
	for (int i = 0; i < state->nsegments; i++)
	{
		state->paths[i] = ranread_segment_path(shared->target_node, i);
		state->fds[i] = open_direct(state->paths[i]);
	}
	state->blocks_per_read = shared->blocks_per_read;
	state->buffer = ranread_alloc_io_buffer(shared->block_size);
	return state;
}

static void
direct_read_unit(void *state, BlockNumber first_block)
{
	DirectReadState *s = (DirectReadState *) state;
	BlockNumber block = first_block;
	int			remaining = s->blocks_per_read;
	char	   *dest = s->buffer;

	while (remaining > 0)
	{
		int			segno = block / RELSEG_SIZE;
		int			n = Min(remaining, (int) (RELSEG_SIZE - block % RELSEG_SIZE));
		ssize_t		len = (ssize_t) n * BLCKSZ;
		ssize_t		got = pg_pread(s->fds[segno], dest, len,
								   (off_t) (block % RELSEG_SIZE) * BLCKSZ);

		if (got != len)
			ereport(ERROR,
					(errcode_for_file_access(),
					 got < 0 ?
					 errmsg("could not read block %u of \"%s\": %m", block, s->paths[segno]) :
					 errmsg("could not read block %u of \"%s\": read only %zd of %zd bytes",
							block, s->paths[segno], got, len)));
		block += n;
		remaining -= n;
		dest += len;
	}
}

static void
direct_close(void *state)
{
	DirectReadState *s = (DirectReadState *) state;

	for (int i = 0; i < s->nsegments; i++)
		close(s->fds[i]);
}

const RanreadReadPath ranread_readpath_direct = {
	.name = "direct",
	.check = direct_check,
	.open = direct_open,
	.read_unit = direct_read_unit,
	.close = direct_close,
};
