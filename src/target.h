/*-------------------------------------------------------------------------
 *
 * target.h
 *		Finding, checking and naming the files of a ranread target.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_TARGET_H
#define RANREAD_TARGET_H

#include "storage/block.h"
#include "storage/relfilenode.h"
#include "utils/rel.h"

/* A target as registered in ranread_targets, and what is on disk now. */
typedef struct RanreadTarget
{
	const char *name;
	bool		registered;		/* a ranread_targets row exists */
	bool		relation_exists;
	Oid			relid;
	int64		registered_blocks;
	BlockNumber current_blocks; /* valid when relation_exists */
} RanreadTarget;

extern const char *ranread_extension_schema(void);
extern void ranread_target_lookup(const char *name, RanreadTarget *target);
extern Relation ranread_target_open_for_run(const char *name);
extern void ranread_target_forget(const RanreadTarget *target);
extern BlockNumber ranread_segment_count(BlockNumber blocks);
extern char *ranread_segment_path(RelFileNode node, BlockNumber segno);

#endif							/* RANREAD_TARGET_H */
