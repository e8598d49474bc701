/*-------------------------------------------------------------------------
 *
 * run.h
 *		The parts of ranread_run()'s leader, one file each: its arguments
 *		(run_arguments.c), the run lock and batch registry (registry.c) and
 *		what it reports (report.c); run.c puts them together.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_RUN_H
#define RANREAD_RUN_H

#include "fmgr.h"
#include "nodes/pg_list.h"
#include "storage/dsm.h"

#include "ranread.h"

/* run_arguments.c */
extern void ranread_read_run_arguments(FunctionCallInfo fcinfo, RanreadParams *params);
extern void ranread_check_role_can_login(void);

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
extern Datum ranread_result_row(FunctionCallInfo fcinfo, const RanreadShared *shared,
								bool *isnull);

#endif							/* RANREAD_RUN_H */
