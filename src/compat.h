/*-------------------------------------------------------------------------
 *
 * compat.h
 *		Every call whose form depends on the PostgreSQL major version.
 *
 * ranread is built and tested against PostgreSQL 15 only.  A port to a
 * later release starts here: each macro below names what changed upstream.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_COMPAT_H
#define RANREAD_COMPAT_H

#include <time.h>

#include "portability/instr_time.h"
#include "storage/block.h"
#include "storage/fd.h"

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 160000
#error "ranread has been built and tested against PostgreSQL 15 only"
#endif

/*
 * instr_time as nanoseconds.  In 15 instr_time is a struct timespec read from
 * CLOCK_MONOTONIC; 16 turned it into an int64 and added INSTR_TIME_GET_NANOSEC.
 */
static inline uint64
ranread_instr_time_ns(instr_time t)
{
	return (uint64) t.tv_sec * UINT64CONST(1000000000) + (uint64) t.tv_nsec;
}

static inline instr_time
ranread_instr_time_from_ns(uint64 ns)
{
	instr_time	t;

	t.tv_sec = ns / UINT64CONST(1000000000);
	t.tv_nsec = ns % UINT64CONST(1000000000);
	return t;
}

/*
 * Sleep until the monotonic clock of instr_time reads ns; returns early
 * (EINTR) when a signal arrives.  16 still reads PG_INSTR_CLOCK.
 */
static inline void
ranread_sleep_until_ns(uint64 ns)
{
	struct timespec until;

	until.tv_sec = ns / UINT64CONST(1000000000);
	until.tv_nsec = ns % UINT64CONST(1000000000);
	(void) clock_nanosleep(PG_INSTR_CLOCK, TIMER_ABSTIME, &until, NULL);
}

/*
 * Path of a relation's main fork relative to the data directory.  16 renamed
 * RelFileNode to RelFileLocator (rd_locator, relpathbackend unchanged).
 */
#define RANREAD_REL_NODE(rel)		((rel)->rd_node)
#define RANREAD_RELPATH(node)		relpathbackend((node), InvalidBackendId, MAIN_FORKNUM)

/*
 * md.c's private record of one open segment file, which SMgrRelationData
 * points to (md_seg_fds) without defining.  Identical in 15, 16 and 17; a
 * port checks it against md.c's MdfdVec.
 */
typedef struct RanreadMdfdVec
{
	File		mdfd_vfd;		/* fd number in fd.c's pool */
	BlockNumber mdfd_segno;		/* segment number, from 0 */
} RanreadMdfdVec;

#define RANREAD_SMGR_OPEN_SEGMENT(reln, i) \
	(((RanreadMdfdVec *) (reln)->md_seg_fds[MAIN_FORKNUM])[(i)])

#endif							/* RANREAD_COMPAT_H */
