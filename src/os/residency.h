/*-------------------------------------------------------------------------
 *
 * residency.h
 *		Whether the OS page cache holds a unit of the target before it is
 *		read: the count behind physical_pct.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_RESIDENCY_H
#define RANREAD_RESIDENCY_H

#include "storage/block.h"
#include "compat.h"

typedef struct RanreadResidency RanreadResidency;

extern RanreadResidency *ranread_residency_open(RanreadRelFile file, BlockNumber blocks,
												int blocks_per_read, char **unavailable);
extern bool ranread_residency_cached(RanreadResidency *residency, BlockNumber first_block,
									 int nblocks);
extern void ranread_residency_close(RanreadResidency *residency);

#endif							/* RANREAD_RESIDENCY_H */
