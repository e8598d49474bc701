/*-------------------------------------------------------------------------
 *
 * results.h
 *		From worker slots to numbers and rows of ranread_results and
 *		ranread_batches (results.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_RESULTS_H
#define RANREAD_RESULTS_H

#include "nodes/pg_list.h"

#include "ranread.h"

/* The HINT of a row a run could not record (report.c, sweep.c). */
#define RANREAD_NOT_RECORDED_HINT \
	"ranread records its rows as the extension's owner: it needs INSERT on ranread's tables, and no other row may hold the batch's number."

extern const char *ranread_status_name(RanreadStatus status);
extern void ranread_summarize_batch(const RanreadShared *shared, RanreadBatchSummary *summary);
extern void ranread_record_worker(const RanreadShared *shared, int worker);
extern double ranread_writer_elapsed_s(const RanreadShared *shared, int writer);
extern void ranread_record_writer(const RanreadShared *shared, int writer);
extern void ranread_record_batch(RanreadShared *shared);
extern void ranread_record_warnings(const RanreadShared *shared, List *warnings);

#endif							/* RANREAD_RESULTS_H */
