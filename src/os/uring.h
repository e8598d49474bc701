/*-------------------------------------------------------------------------
 *
 * uring.h
 *		O_DIRECT reads through io_uring: one at a time, or several in flight.
 *
 * A RanreadUring owns a ring, the files it reads (registered with the ring:
 * a relation's segment files, in order) and one aligned buffer per read in
 * flight, named by a tag from 0 to iodepth - 1.  A read of a unit may be
 * several pieces (one per segment file it spans); it completes when all its
 * pieces have.  Built without liburing, every entry point refuses
 * iodepth > 1 with a clear error, and at iodepth 1 no ring opens.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_URING_H
#define RANREAD_URING_H

#include <signal.h>
#include <sys/types.h>

#include "storage/block.h"

typedef struct RanreadUring RanreadUring;

/* leader: error out, saying why and what to do, if io_uring cannot read path */
extern void ranread_uring_check(const char *path, int iodepth, int block_size);

/* worker */
extern RanreadUring *ranread_uring_open(char *const *paths, int nfiles, int iodepth,
										int block_size, volatile sig_atomic_t *stop,
										int *unavailable);
extern bool ranread_uring_read(RanreadUring *ring, BlockNumber first_block);
extern bool ranread_uring_submits_each(RanreadUring *ring);
extern void ranread_uring_queue(RanreadUring *ring, int tag, BlockNumber first_block);
extern int	ranread_uring_reap(RanreadUring *ring, int *tags);
extern void ranread_uring_close(RanreadUring *ring);
extern int	ranread_uring_registration(const RanreadUring *ring);

#endif							/* RANREAD_URING_H */
