/*-------------------------------------------------------------------------
 *
 * setup_progress.h
 *		A running ranread_setup()'s progress, advertised for other sessions
 *		(setup_progress.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_SETUP_PROGRESS_H
#define RANREAD_SETUP_PROGRESS_H

typedef struct RanreadSetupProgress RanreadSetupProgress;

extern RanreadSetupProgress *ranread_setup_progress_begin(const char *target, uint64 bytes_total);
extern void ranread_setup_progress_written(RanreadSetupProgress *progress, uint64 bytes_written);
extern void ranread_setup_progress_flushing(RanreadSetupProgress *progress);
extern void ranread_setup_progress_end(RanreadSetupProgress *progress);

#endif							/* RANREAD_SETUP_PROGRESS_H */
