/*-------------------------------------------------------------------------
 *
 * readahead.c
 *		Tell the kernel that the target's files are read at random, so that
 *		its readahead does not answer later reads from memory.
 *
 * On a buffered random read, Linux may read more than the page asked for;
 * once a run has read a good share of the target, the neighbours it brought
 * in answer later reads from memory (bench/readahead_probe.sh: 44 % of 8 kB
 * reads covering 90 % of a file, on the development VM).  fio avoids this by
 * default (fadvise_hint=1 issues POSIX_FADV_RANDOM for random workloads);
 * so does ranread, for the paths that go through the OS page cache.
 * PostgreSQL 15 itself gives no such advice, so a query's random reads can
 * see more page-cache hits than a ranread run.
 *
 * The advice belongs to an open file, so it is given on the file
 * descriptors md.c opened for the worker's SMgrRelation (the buffer path
 * reads through the same one).  fd.c may close and reopen a descriptor when
 * a process has more files open than max_files_per_process; a reopened one
 * has no advice.  A worker opens one file per 1 GiB segment of the target.
 * A sequential run (distribution 'sequential') gets no advice: it reads as
 * a sequential scan does, with the kernel's readahead.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>

#include "storage/fd.h"
#include "storage/smgr.h"

#include "compat.h"
#include "ranread.h"
#include "readpath/readahead.h"

/*
 * Open every segment of the main fork and advise random access on each,
 * unless the run reads sequentially.
 */
void
ranread_advise_access(SMgrRelation reln, const RanreadParams *params)
{
	if (params->distribution.kind == RANREAD_DISTRIBUTION_SEQUENTIAL)
		return;
	(void) smgrnblocks(reln, MAIN_FORKNUM);
	for (int i = 0; i < RANREAD_SMGR_OPEN_SEGMENTS(reln); i++)
	{
		int			fd = FileGetRawDesc(RANREAD_SMGR_OPEN_SEGMENT(reln, i).mdfd_vfd);
		int			rc;

		if (fd < 0)
			continue;
		rc = posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
		if (rc != 0)
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("could not advise random access to segment %d of the target: %s",
							i, strerror(rc))));
	}
}
