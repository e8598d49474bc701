/*-------------------------------------------------------------------------
 *
 * stat_io.h
 *		A second proof of physical reads from PostgreSQL's own counters.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_STAT_IO_H
#define RANREAD_STAT_IO_H

#include "ranread.h"

/* How far pg_stat_io's count may differ from the buffer misses: a share of them plus blocks per process. */
#define RANREAD_STAT_IO_MARGIN_PCT			5
#define RANREAD_STAT_IO_MARGIN_PER_PROCESS	16

extern void ranread_stat_io_begin(RanreadShared *shared);
extern int64 ranread_stat_io_end(RanreadShared *shared);
extern bool ranread_stat_io_disagrees(const RanreadShared *shared, int64 buffer_misses);

#endif							/* RANREAD_STAT_IO_H */
