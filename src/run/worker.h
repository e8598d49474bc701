/*-------------------------------------------------------------------------
 *
 * worker.h
 *		A ranread background worker (worker.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_WORKER_H
#define RANREAD_WORKER_H

#include "storage/dsm.h"

#include "ranread.h"

extern PGDLLEXPORT void ranread_worker_main(Datum main_arg);
extern bool ranread_worker_stop_requested(void);
extern RanreadShared *ranread_worker_start(Datum main_arg, bool writer, dsm_segment **seg, int *index);
extern void ranread_worker_stop_gently(bool gently);
extern void ranread_sample_at_end(RanreadShared *shared);
extern void ranread_worker_write_cancellable(bool cancellable);
extern bool ranread_worker_wait_for_release(RanreadShared *shared);
extern void ranread_worker_report_activity(const RanreadShared *shared, bool writer, int index,
										   const char *doing);

#endif							/* RANREAD_WORKER_H */
