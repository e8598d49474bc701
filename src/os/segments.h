/*-------------------------------------------------------------------------
 *
 * segments.h
 *		The files of a relation's main fork: how many 1 GiB segments it has
 *		and what each is called.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_SEGMENTS_H
#define RANREAD_SEGMENTS_H

#include "storage/block.h"
#include "compat.h"

extern BlockNumber ranread_segment_count(BlockNumber blocks);
extern char *ranread_segment_path(RanreadRelFile file, BlockNumber segno);
extern char *ranread_first_segment_absolute_path(RanreadRelFile file);

#endif							/* RANREAD_SEGMENTS_H */
