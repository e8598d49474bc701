/*-------------------------------------------------------------------------
 *
 * readahead.h
 *		Access advice for the target's files (readahead.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_READAHEAD_H
#define RANREAD_READAHEAD_H

#include "storage/smgr.h"

#include "ranread.h"

extern void ranread_advise_access(SMgrRelation reln, const RanreadParams *params);

#endif							/* RANREAD_READAHEAD_H */
