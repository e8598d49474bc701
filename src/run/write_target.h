/*-------------------------------------------------------------------------
 *
 * write_target.h
 *		Finding a write target, proving ranread made it, opening it for a
 *		batch's writers and removing it (write_target.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_WRITE_TARGET_H
#define RANREAD_WRITE_TARGET_H

#include "storage/lockdefs.h"
#include "utils/rel.h"

#include "ranread.h"

extern Oid	ranread_write_target_lookup(const char *name, LOCKMODE lockmode,
										void (*allowed) (Oid relid, const char *name));
extern void ranread_write_target_check_owner(Oid relid, const char *name);
extern Relation ranread_write_target_open_for_run(const RanreadParams *params, int32 *rows);
extern void ranread_write_target_drop(Oid relid, const char *name);

#endif							/* RANREAD_WRITE_TARGET_H */
