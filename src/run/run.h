/*-------------------------------------------------------------------------
 *
 * run.h
 *		One batch: the entry of ranread_run() and of each sweep step (run.c).
 *		Its arguments are in run_arguments.h, its lock and registry in
 *		registry.h, what it reports (and RanreadBatchOutcome) in report.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_RUN_H
#define RANREAD_RUN_H

#include <signal.h>

#include "utils/relcache.h"

#include "ranread.h"
#include "run/report.h"

extern void ranread_check_batch_target(const RanreadParams *params, Relation target, int free_slots);
extern void ranread_run_batch(const RanreadParams *params, volatile sig_atomic_t *stop,
							  RanreadBatchOutcome *outcome);

#endif							/* RANREAD_RUN_H */
