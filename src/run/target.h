/*-------------------------------------------------------------------------
 *
 * target.h
 *		Finding a ranread target, proving ranread made it, and removing it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_TARGET_H
#define RANREAD_TARGET_H

#include "storage/block.h"
#include "storage/lockdefs.h"
#include "compat.h"
#include "utils/rel.h"

/* A target as registered in ranread_targets, and what is on disk now. */
typedef struct RanreadTarget
{
	const char *name;
	bool		registered;		/* a ranread_targets row exists */
	bool		relation_exists;	/* a table made by ranread_setup() */
	Oid			relid;			/* valid when relation_exists */
	int64		registered_blocks;	/* valid when registered */
	BlockNumber current_blocks; /* valid when relation_exists */
} RanreadTarget;

extern void ranread_target_lookup(const char *name, LOCKMODE lockmode, bool for_setup,
								  RanreadTarget *target);
extern bool ranread_target_intact(const RanreadTarget *target);
extern Relation ranread_target_open_for_run(const char *name);
extern void ranread_target_forget(const RanreadTarget *target);
extern void ranread_target_adopt(Oid relid);
extern void ranread_target_release(Oid relid);
extern void ranread_target_warn_if_small(const char *name, BlockNumber blocks);

#endif							/* RANREAD_TARGET_H */
