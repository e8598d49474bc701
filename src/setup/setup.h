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

extern Oid	ranread_setup_create_table(const char *schema, const char *name, const char *tablespace,
									   char persistence, const char *create, const char *alter);

#endif							/* RANREAD_SETUP_H */
