/*-------------------------------------------------------------------------
 *
 * run_memory.c
 *		The memory of a run's reads.
 *
 * Each worker of a read path that reads into buffers of its own (smgr,
 * direct) allocates iodepth x block_size bytes for them: up to 1 GiB per
 * worker (iodepth 1024 of 1 MB), outside PostgreSQL's memory contexts and
 * limits (io_uring's buffers are malloc'd).  ranread.max_run_memory bounds
 * what a run's workers allocate together; ranread_run and ranread_sweep
 * check it with their arguments, before a batch or sweep number is drawn
 * or any worker starts.  A superuser can raise it (postgresql.conf, ALTER
 * SYSTEM, or SET in a session).
 *
 * With io_uring the buffers are also registered with the ring, which counts
 * against the locked-memory limit (ulimit -l) of the server's OS user; where
 * it refuses them the reads use them unregistered, at some CPU cost per
 * read.  At iodepth 1 a ring the kernel refuses (the same limit, or
 * io_uring disabled) leaves pread(), at some CPU cost per read too.  The
 * workers note either in their slots and the leader says so here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <unistd.h>

#include "utils/builtins.h"
#include "utils/guc.h"

#include "batch_warnings.h"
#include "readpath/run_memory.h"

/* The default bound: this share of physical memory (1/16). */
#define DEFAULT_SHARE_SHIFT		4

/* Where physical memory cannot be read: 256 MB (in kB). */
#define FALLBACK_DEFAULT_KB		(256 * 1024)

/* ranread.max_run_memory, in kB */
static int	max_run_memory_kb;

/* 1/16 of physical memory in kB, within what an int GUC in kB can hold. */
static int
default_max_run_memory_kb(void)
{
	long		pages = sysconf(_SC_PHYS_PAGES);
	long		page_size = sysconf(_SC_PAGESIZE);
	uint64		kb;

	if (pages <= 0 || page_size <= 0)
		return FALLBACK_DEFAULT_KB;
	kb = ((uint64) pages * (uint64) page_size / 1024) >> DEFAULT_SHARE_SHIFT;
	return (int) Max(Min(kb, (uint64) INT_MAX), (uint64) (BLCKSZ / 1024));
}

void
ranread_define_run_memory_guc(void)
{
	DefineCustomIntVariable("ranread.max_run_memory",
							"Most memory the read buffers of one ranread run or sweep step may take, all workers together.",
							"Each worker of mode smgr or direct reads into iodepth x block_size bytes of its own. "
							"The default is 1/16 of physical memory.",
							&max_run_memory_kb,
							default_max_run_memory_kb(),
							BLCKSZ / 1024,
							INT_MAX,
							PGC_SUSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);
}

static char *
pretty_bytes(uint64 bytes)
{
	return text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty,
															  Int64GetDatum((int64) bytes))));
}

/*
 * Refuse, before anything starts, a run of processes workers at iodepth
 * reads of block_size bytes whose buffers would exceed
 * ranread.max_run_memory.  A path that reads into shared buffers (buffer)
 * allocates none.  The leader's own check of io_uring (one ring of
 * iodepth buffers, freed before the workers start) is one worker's share.
 */
void
ranread_check_run_memory(int processes, int iodepth, int block_size,
						 const RanreadReadPath *path)
{
	uint64		per_worker;
	uint64		total;
	uint64		limit = (uint64) max_run_memory_kb * 1024;

	if (!(path->flags & RANREAD_PATH_PRIVATE_BUFFERS))
		return;
	per_worker = (uint64) iodepth * (uint64) block_size;
	total = per_worker * (uint64) processes;
	if (total <= limit)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
			 errmsg_plural("%d ranread process at iodepth %d would allocate %s of read buffers, more than ranread.max_run_memory (%s)",
						   "%d ranread processes at iodepth %d would allocate %s of read buffers, more than ranread.max_run_memory (%s)",
						   processes, processes, iodepth, pretty_bytes(total), pretty_bytes(limit)),
			 errdetail("Each process of mode '%s' reads into iodepth x block_size = %d x %d bytes (%s) of memory of its own, outside shared_buffers.",
					   path->name, iodepth, block_size, pretty_bytes(per_worker)),
			 errhint("Use a smaller iodepth, block_size or number of processes (in a sweep: max_iodepth or max_processes), or have a superuser raise ranread.max_run_memory.")));
}

/*
 * How many workers read through io_uring, and how many of them into buffers
 * the kernel refused to register; *err, the last refusal's errno.
 */
int
ranread_unregistered_workers(const RanreadShared *shared, int *opened, int *err)
{
	int			refused = 0;

	*opened = 0;
	*err = 0;
	for (int i = 0; i < shared->params.processes; i++)
	{
		if (!shared->slots[i].uring_opened)
			continue;
		(*opened)++;
		if (shared->slots[i].unregistered_errno != 0)
		{
			refused++;
			*err = shared->slots[i].unregistered_errno;
		}
	}
	return refused;
}

/*
 * After the run: say whether any worker read by pread() because the kernel
 * refused it an io_uring (iodepth 1), and why.
 */
static void
warn_about_refused_rings(const RanreadShared *shared)
{
	int			refused = 0;
	int			err = 0;

	for (int i = 0; i < shared->params.processes; i++)
	{
		if (shared->slots[i].uring_refused_errno == 0)
			continue;
		refused++;
		err = shared->slots[i].uring_refused_errno;
	}
	if (refused == 0)
		return;
	errno = err;
	RANREAD_BATCH_WARNING(
			(errmsg("%d of %d ranread workers of batch " INT64_FORMAT " read by pread(), not through io_uring",
					refused, shared->params.processes, shared->batch),
			 errdetail("The kernel refused them an io_uring: %m. pread() costs more CPU per read; registered_buffers in ranread_results and ranread_batches is NULL for them."),
			 errhint("Allow io_uring to the server (kernel.io_uring_disabled, a container's seccomp profile), or raise the locked-memory limit of its OS user (ulimit -l).")));
}

/*
 * After the run: say whether any worker read into io_uring buffers the
 * kernel refused to register (they then cost more CPU per read), or read by
 * pread() because it refused the ring, and why.
 */
void
ranread_warn_about_io_uring_refusals(const RanreadShared *shared)
{
	int			opened;
	int			err;
	int			refused = ranread_unregistered_workers(shared, &opened, &err);

	warn_about_refused_rings(shared);
	if (refused == 0)
		return;
	errno = err;
	RANREAD_BATCH_WARNING(
			(errmsg("%d of %d ranread workers of batch " INT64_FORMAT " read into unregistered io_uring buffers",
					refused, opened, shared->batch),
			 errdetail("Registering iodepth x block_size = %d x %d bytes per worker failed: %m. Unregistered buffers cost more CPU per read; registered_buffers in ranread_results and ranread_batches records it.",
					   shared->params.iodepth, shared->params.block_size),
			 errhint("Raise the locked-memory limit of the server's OS user (ulimit -l; LimitMEMLOCK in a systemd unit), or use a smaller iodepth or block_size.")));
}
