/*-------------------------------------------------------------------------
 *
 * setup.h
 *		What ranread_setup() (setup.c) shares with ranread_setup_writes()
 *		(setup_writes.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_SETUP_H
#define RANREAD_SETUP_H

/* What a target's name begins with when a role other than a superuser names it. */
#define RANREAD_TARGET_PREFIX "ranread_"

extern void ranread_setup_check_name(const char *name, const char *what);
extern Oid	ranread_setup_create_table(const char *schema, const char *name, const char *tablespace,
									   char persistence, const char *create, const char *alter);

#endif							/* RANREAD_SETUP_H */
