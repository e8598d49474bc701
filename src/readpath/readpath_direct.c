/*-------------------------------------------------------------------------
 *
 * readpath_direct.c
 *		Read path "direct": O_DIRECT reads of the target's segment files.
 *
 * Bypasses shared buffers and the OS page cache and measures the device the
 * way `fio --direct=1` does, at the same block offsets smgr would use, into
 * aligned buffers.  PostgreSQL 15 has no direct I/O of its own, so this
 * path opens the segment files itself.  tmpfs and ramfs are refused even
 * where the kernel accepts O_DIRECT on them: they keep files in memory.
 *
 * It reads through io_uring (uring.c), with the segment files and the
 * buffers registered: at iodepth 1 one read at a time, submitted and
 * waited for in one system call (as fio's t/io_uring -d 1 does, 2 % less
 * CPU than pread()); with iodepth > 1, that many reads in flight, like
 * `fio --ioengine=io_uring --iodepth=N`, submitted each as it is queued or
 * together by the reap, whichever the device serves faster.  A stop or a
 * cancel cancels the reads in flight, and abandons one still stalled a
 * second later (uring.c).
 *
 * Where io_uring is refused at iodepth 1 (kernel.io_uring_disabled, a
 * seccomp profile, the locked-memory limit), the worker reads by pread(),
 * as `fio --ioengine=psync` does, through PostgreSQL's virtual file
 * descriptors so that a target of many segments cannot exhaust the
 * process's descriptors, and the run warns.  A unit that crosses a 1 GiB
 * segment boundary (block sizes that do not divide 1 GiB) is then two
 * pread() calls.  A pread() interrupted by a signal (EINTR: a file system
 * that honours interrupts, such as FUSE, while a read is stalled) is issued
 * again, as PostgreSQL's FileRead() does, unless the worker has raised the
 * stop flag it handed open(): then the read is given up, uncounted.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/wait_event.h"

#include "readpath/readpath.h"
#include "os/segments.h"
#include "os/uring.h"

#define DIRECT_IO_HINT \
	"Use mode 'smgr', which reads through the OS page cache after evicting the target, or put the target on the volume under test."

typedef struct DirectReadState
{
	int			nsegments;
	File	   *files;
	char	  **paths;
	int			blocks_per_read;
	char	   *buffer;
	RanreadUring *ring;			/* NULL: pread() of files */
	int			uring_refused;	/* at iodepth 1, the errno that refused the ring */
	volatile sig_atomic_t *stop;	/* the worker's: it must stop reading */
} DirectReadState;

static File
open_direct(const char *path)
{
	File		file = PathNameOpenFile(path, O_RDONLY | PG_BINARY | O_DIRECT);

	if (file < 0 && errno == EINVAL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the file system holding \"%s\" does not support direct I/O", path),
				 errhint(DIRECT_IO_HINT)));
	if (file < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\" for direct I/O: %m", path)));
	return file;
}

/*
 * Leader: fail before any worker starts if direct I/O cannot reach a device.
 * It reads block 0 once.  Only a refusal of direct I/O itself (EINVAL, from
 * open() with O_DIRECT or from an unaligned read) blames direct I/O; any
 * other failure of that read (EIO from the device, say) is the device's, and
 * its error says so.
 */
static void
direct_check(const RanreadShared *shared)
{
	char	   *path = ranread_segment_path(shared->target_file, 0);
	struct statfs fs;
	File		file;
	char	   *buffer = ranread_alloc_io_buffer(BLCKSZ);
	int			got;

	if (statfs(path, &fs) == 0 && (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the file system holding \"%s\" does not support direct I/O", path),
				 errdetail("It is a memory file system (tmpfs or ramfs): there is no device to read."),
				 errhint(DIRECT_IO_HINT)));
	file = open_direct(path);
	got = FileRead(file, buffer, BLCKSZ, 0, PG_WAIT_EXTENSION);
	if (got < 0 && errno == EINVAL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("could not read \"%s\" with direct I/O: %m", path),
				 errhint(DIRECT_IO_HINT)));
	if (got < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read block 0 of \"%s\": %m", path),
				 errdetail("Mode 'direct' reads block 0 once before its workers start; the file system failed that read, so no block was timed.")));
	if (got != BLCKSZ)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("could not read block 0 of \"%s\": read only %d of %d bytes", path, got, BLCKSZ)));
	FileClose(file);
	if (shared->params.iodepth > 1)
		ranread_uring_check(path, shared->params.iodepth, shared->params.block_size);
}

static void *
direct_open(const RanreadShared *shared, volatile sig_atomic_t *stop)
{
	DirectReadState *state = palloc0(sizeof(DirectReadState));

	state->stop = stop;

	state->nsegments = ranread_segment_count(shared->target_blocks);
	state->files = palloc(sizeof(File) * state->nsegments);
	state->paths = palloc(sizeof(char *) * state->nsegments);
	for (int i = 0; i < state->nsegments; i++)
		state->paths[i] = ranread_segment_path(shared->target_file, i);
	state->blocks_per_read = shared->blocks_per_read;
	/* at iodepth 1 a refused ring leaves pread() */
	state->ring = ranread_uring_open(state->paths, state->nsegments,
									 shared->params.iodepth, shared->params.block_size, stop,
									 shared->params.iodepth == 1 ? &state->uring_refused : NULL);
	if (state->ring != NULL)
		return state;
	for (int i = 0; i < state->nsegments; i++)
		state->files[i] = open_direct(state->paths[i]);
	state->buffer = ranread_alloc_io_buffer(shared->params.block_size);
	return state;
}

/*
 * pread() of len bytes at offset, issued again after EINTR unless the worker
 * has been told to stop (then -1 with errno EINTR).  A descriptor that
 * PostgreSQL closed to stay under its limit on open files is reopened by
 * FileRead(), which reads instead.
 */
static ssize_t
read_or_stop(const DirectReadState *s, File file, char *dest, size_t len, off_t offset)
{
	int			fd = FileGetRawDesc(file);
	ssize_t		got;

	if (fd < 0)
		return FileRead(file, dest, len, offset, PG_WAIT_EXTENSION);
	for (;;)
	{
		pgstat_report_wait_start(PG_WAIT_EXTENSION);
		got = pg_pread(fd, dest, len, offset);
		pgstat_report_wait_end();
		if (got >= 0 || errno != EINTR || *s->stop)
			return got;
	}
}

/* Read a unit by pread(): one call per segment it spans. */
static pg_noinline bool
pread_unit(DirectReadState *s, BlockNumber first_block)
{
	BlockNumber block = first_block;
	int			remaining = s->blocks_per_read;
	char	   *dest = s->buffer;

	while (remaining > 0)
	{
		int			segno = block / RELSEG_SIZE;
		int			n = Min(remaining, (int) (RELSEG_SIZE - block % RELSEG_SIZE));
		ssize_t		len = (ssize_t) n * BLCKSZ;
		ssize_t		got = read_or_stop(s, s->files[segno], dest, len,
									   (off_t) (block % RELSEG_SIZE) * BLCKSZ);

		if (got < 0 && errno == EINTR)
			return false;
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
	return true;
}

/* iodepth 1: read a unit through the ring, or by pread() where it was refused */
static bool
direct_read_unit(void *state, BlockNumber first_block)
{
	DirectReadState *s = (DirectReadState *) state;

	if (likely(s->ring != NULL))
		return ranread_uring_read(s->ring, first_block);
	return pread_unit(s, first_block);
}

/* Whether this refill's reads are submitted as they are queued (uring.c decides). */
static bool
direct_submits_each(void *state)
{
	return ranread_uring_submits_each(((DirectReadState *) state)->ring);
}

/* Queue the read of a unit into tag's buffer (uring.c splits it by segment). */
static void
direct_queue(void *state, int tag, BlockNumber first_block)
{
	ranread_uring_queue(((DirectReadState *) state)->ring, tag, first_block);
}

/* Submit the reads queued and not yet submitted, and wait for at least one to complete. */
static int
direct_reap(void *state, int *tags)
{
	return ranread_uring_reap(((DirectReadState *) state)->ring, tags);
}

static int
direct_buffer_registration(void *state)
{
	DirectReadState *s = (DirectReadState *) state;

	return s->ring != NULL ? ranread_uring_registration(s->ring) : -1;
}

static int
direct_uring_refusal(void *state)
{
	return ((DirectReadState *) state)->uring_refused;
}

static void
direct_close(void *state)
{
	DirectReadState *s = (DirectReadState *) state;

	if (s->ring != NULL)
	{
		ranread_uring_close(s->ring);
		return;
	}
	for (int i = 0; i < s->nsegments; i++)
		FileClose(s->files[i]);
}

const RanreadReadPath ranread_readpath_direct = {
	.name = "direct",
	.description = "O_DIRECT reads of the segment files, like fio --direct=1",
	.flags = RANREAD_PATH_BYPASSES_PAGE_CACHE | RANREAD_PATH_QUEUES | RANREAD_PATH_PRIVATE_BUFFERS,
	.memory_hit = "the file system keeps the target in memory",
	.check = direct_check,
	.open = direct_open,
	.read_unit = direct_read_unit,
	.submits_each = direct_submits_each,
	.queue = direct_queue,
	.reap = direct_reap,
	.buffer_registration = direct_buffer_registration,
	.uring_refusal = direct_uring_refusal,
	.close = direct_close,
};
