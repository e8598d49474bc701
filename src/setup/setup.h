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

extern void ranread_check_may_create_in_tablespace(const char *tablespace, char persistence);

#endif							/* RANREAD_SETUP_H */
