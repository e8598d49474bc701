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

#include "portability/instr_time.h"

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

/*
 * Path of a relation's main fork relative to the data directory.  16 renamed
 * RelFileNode to RelFileLocator (rd_locator, relpathbackend unchanged).
 */
#define RANREAD_REL_NODE(rel)		((rel)->rd_node)
#define RANREAD_RELPATH(node)		relpathbackend((node), InvalidBackendId, MAIN_FORKNUM)

#endif							/* RANREAD_COMPAT_H */
