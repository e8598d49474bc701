/*-------------------------------------------------------------------------
 *
 * io_worker_bytes.h
 *		The bytes PostgreSQL's I/O workers fetched from storage during a
 *		batch (io_worker_bytes.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_IO_WORKER_BYTES_H
#define RANREAD_IO_WORKER_BYTES_H

#include "ranread.h"

extern void ranread_io_worker_bytes_begin(RanreadShared *shared);
extern void ranread_io_worker_bytes_end(RanreadShared *shared);

#endif							/* RANREAD_IO_WORKER_BYTES_H */
