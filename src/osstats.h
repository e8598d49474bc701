/*-------------------------------------------------------------------------
 *
 * osstats.h
 *		What ranread asks of the operating system: memory size, free space,
 *		and eviction of a target from the OS page cache.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_OSSTATS_H
#define RANREAD_OSSTATS_H

#include "storage/block.h"
#include "storage/relfilenode.h"

extern uint64 ranread_physical_memory_bytes(void);
extern uint64 ranread_free_bytes(const char *path);
extern void ranread_evict_from_page_cache(RelFileNode node, BlockNumber blocks);

#endif							/* RANREAD_OSSTATS_H */
