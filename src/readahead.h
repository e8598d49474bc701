/*-------------------------------------------------------------------------
 *
 * readahead.h
 *		Random-access advice for the target's files (readahead.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_READAHEAD_H
#define RANREAD_READAHEAD_H

#include "storage/smgr.h"

extern void ranread_advise_random_access(SMgrRelation reln);

#endif							/* RANREAD_READAHEAD_H */
