/*-------------------------------------------------------------------------
 *
 * batch_group.h
 *		What the functions that run a group of batches as their caller share
 *		(ranread_layers(), ranread_calibrate()): the check that the caller
 *		may run batches, a number for the group, each batch's figures
 *		read back once its workers recorded it, and a batch said in one
 *		NOTICE (batch_group.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_BATCH_GROUP_H
#define RANREAD_BATCH_GROUP_H

#include "fmgr.h"

#include "run/run_arguments.h"

/* What a recorded batch measured; -1 for a figure that is NULL. */
typedef struct RanreadBatchFigures
{
	int64		batch;
	char	   *status;
	double		iops;
	double		mean_ms;
	double		p50_ms;
	double		p99_ms;
	double		physical_pct;
	double		kb_per_read;
} RanreadBatchFigures;

extern Oid	ranread_group_start(const char *function, RanreadRunArgs *args);
extern int64 ranread_group_number(void);
extern bool ranread_group_read_batch(int64 batch, RanreadBatchFigures *figures);
extern bool ranread_group_batch_completed(const RanreadBatchFigures *figures);

#endif							/* RANREAD_BATCH_GROUP_H */
