/*-------------------------------------------------------------------------
 *
 * run.h
 *		One batch: the entry of ranread_run() and of each sweep step (run.c).
 *		Its arguments are in run_arguments.h, its lock and registry in
 *		registry.h, what it reports in report.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_RUN_H
#define RANREAD_RUN_H

#include <signal.h>

#include "utils/relcache.h"

#include "ranread.h"

/* What became of one batch, for its caller. */
typedef struct RanreadBatchOutcome
{
	int64		batch;
	bool		recorded;		/* its ranread_batches row is committed */
	RanreadStatus status;
} RanreadBatchOutcome;

extern void ranread_check_batch_target(const RanreadParams *params, Relation target);
extern void ranread_run_batch(const RanreadParams *params, volatile sig_atomic_t *stop,
							  RanreadBatchOutcome *outcome);
extern Size ranread_shared_layout(const RanreadParams *params, Size *service_offset, Size *writer_offset,
								  Size *series_offset, int *series_capacity);

#endif							/* RANREAD_RUN_H */
