/*-------------------------------------------------------------------------
 *
 * report.h
 *		What a run tells its caller: refusals and warnings before it starts,
 *		its NOTICEs and its result row (report.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_REPORT_H
#define RANREAD_REPORT_H

#include "fmgr.h"

#include "ranread.h"
#include "run/run.h"

extern void ranread_check_can_read_summary(void);
extern void ranread_refuse_rereads(const RanreadParams *params, int64 units);
extern void ranread_warn_about_rereads(const RanreadShared *shared);
extern void ranread_report_run(const RanreadShared *shared, const RanreadBatchSummary *summary);
extern Datum ranread_result_row(FunctionCallInfo fcinfo, const RanreadBatchOutcome *outcome,
								bool *isnull);

#endif							/* RANREAD_REPORT_H */
