/*-------------------------------------------------------------------------
 *
 * run.h
 *		One batch, the entry of ranread_run() and of each sweep step
 *		(run.c), and the parts of its leader, one file each: the run lock and
 *		batch registry (registry.c) and what it reports (report.c).  Its
 *		arguments are in run_arguments.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_RUN_H
#define RANREAD_RUN_H

#include <signal.h>

#include "fmgr.h"
#include "nodes/pg_list.h"
#include "storage/dsm.h"

#include "ranread.h"

/* What became of one batch, for its caller. */
typedef struct RanreadBatchOutcome
{
	int64		batch;
	bool		recorded;		/* its ranread_batches row is committed */
	RanreadStatus status;
} RanreadBatchOutcome;

/* run.c */
extern void ranread_run_batch(const RanreadParams *params, volatile sig_atomic_t *stop,
							  RanreadBatchOutcome *outcome);

/* registry.c */
extern void ranread_lock_out_other_runs(void);
extern int64 ranread_start_batch(dsm_handle segment);
extern void ranread_release_run_locks(int64 batch, dsm_handle segment);
extern void ranread_release_run_lock(void);
extern int64 ranread_running_batch(bool any_database, int *leader_pid, dsm_handle *segment,
								  Oid *database);
extern List *ranread_worker_pids(void);
extern int	ranread_free_worker_slots(void);
extern void ranread_advertise_sweep(int64 sweep, bool advertise);
extern int64 ranread_running_sweep(int64 sweep, bool any_database, int *leader_pid,
								  Oid *database);

/* report.c */
extern char *ranread_format_ms(double ms);
extern char *ranread_format_rate(double rate);
extern void ranread_check_can_read_summary(void);
extern void ranread_refuse_rereads(const RanreadParams *params, int64 units);
extern void ranread_warn_about_rereads(const RanreadShared *shared);
extern void ranread_report_run(const RanreadShared *shared, const RanreadBatchSummary *summary);
extern Datum ranread_result_row(FunctionCallInfo fcinfo, const RanreadBatchOutcome *outcome,
								bool *isnull);

#endif							/* RANREAD_RUN_H */
