/*-------------------------------------------------------------------------
 *
 * checkpoint_window.h
 *		checkpoint => 'during': the checkpoint a run asks for, and the reads
 *		inside its window against the reads outside.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_CHECKPOINT_WINDOW_H
#define RANREAD_CHECKPOINT_WINDOW_H

#include "ranread.h"
#include "record/row_builder.h"

/* The reads on one side of the window: how many, and their p99 with its 95 % band. */
typedef struct RanreadWindowSide
{
	int64		reads;
	double		p99_ms;			/* -1 when there were no reads */
	double		p99_low_ms;
	double		p99_high_ms;
} RanreadWindowSide;

extern void ranread_checkpoint_window_init(RanreadShared *shared);
extern long ranread_checkpoint_follow(RanreadShared *shared, instr_time now);
extern void ranread_checkpoint_window_close(RanreadShared *shared);
extern void ranread_checkpoint_sides(const RanreadShared *shared, RanreadWindowSide *inside,
									 RanreadWindowSide *outside);
extern void ranread_checkpoint_columns(const RanreadShared *shared, RanreadRow *row);
extern void ranread_checkpoint_report(const RanreadShared *shared, int level);

#endif
