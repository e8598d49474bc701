/*-------------------------------------------------------------------------
 *
 * report.h
 *		What a run tells its caller: refusals and warnings before it starts,
 *		its NOTICEs and its result row (report.c), and what became of it
 *		(RanreadBatchOutcome), which run.h's ranread_run_batch() fills.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_REPORT_H
#define RANREAD_REPORT_H

#include "fmgr.h"

#include "ranread.h"

/* What became of one batch, for its caller: its number, and how it ended. */
typedef struct RanreadBatchOutcome
{
	int64		batch;
	bool		recorded;		/* its ranread_batches row is committed */
	RanreadStatus status;
} RanreadBatchOutcome;

extern void ranread_check_can_read_summary(void);
/* ranread_run()'s result: batch, status, iops, response_time_ms, p99_ms (since 1.4) */
#define RANREAD_RUN_RESULT_COLUMNS	5

extern void ranread_refuse_rereads(const RanreadParams *params, int64 units, int free_slots);
extern void ranread_warn_about_rereads(const RanreadShared *shared);
extern void ranread_report_run(const RanreadShared *shared, const RanreadBatchSummary *summary);
extern Datum ranread_result_row(FunctionCallInfo fcinfo, const RanreadBatchOutcome *outcome,
								bool *isnull);

#endif							/* RANREAD_REPORT_H */
