/*-------------------------------------------------------------------------
 *
 * run_memory.h
 *		The memory of a run's reads: the bound ranread.max_run_memory puts on
 *		it before anything starts, and what a run says when the kernel
 *		refused to register its io_uring buffers.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_RUN_MEMORY_H
#define RANREAD_RUN_MEMORY_H

#include "ranread.h"
#include "readpath/readpath.h"

/* _PG_init (init.c): define the GUC ranread.max_run_memory */
extern void ranread_define_run_memory_guc(void);

/* leader: refuse processes x iodepth x block_size above ranread.max_run_memory */
extern void ranread_check_run_memory(int processes, int iodepth, int block_size,
									 const RanreadReadPath *path);

/* leader, after the run: WARN if a worker read into unregistered io_uring buffers, or by pread() */
extern int	ranread_unregistered_workers(const RanreadShared *shared, int *opened, int *err);
extern void ranread_warn_about_io_uring_refusals(const RanreadShared *shared);

#endif							/* RANREAD_RUN_MEMORY_H */
