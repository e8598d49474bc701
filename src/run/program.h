/*-------------------------------------------------------------------------
 *
 * program.h
 *		A program of batches run by one session (a sweep, ranread_layers(),
 *		ranread_calibrate()): it holds the run lock from its first batch to
 *		its last, advertises itself, and catches ranread_stop() (program.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_PROGRAM_H
#define RANREAD_PROGRAM_H

#include <signal.h>

typedef struct RanreadProgram
{
	bool		locked;			/* holds the run lock */
	bool		advertised;		/* advertises itself, and catches ranread_stop() */
	uint16		kind;			/* RANREAD_LOCK_KIND_SWEEP, _LAYERS or _CALIBRATION */
	int64		number;
	struct sigaction previous_handler;
} RanreadProgram;

/*
 * Set once ranread_stop() has signalled the running program's session: hand
 * it to each batch (ranread_run_batch()) and start no batch once it is set.
 */
extern volatile sig_atomic_t ranread_program_stop_requested;

extern void ranread_program_begin(RanreadProgram *program, uint16 kind);
extern void ranread_program_advertise(RanreadProgram *program, int64 number);
extern void ranread_program_end(RanreadProgram *program);

#endif							/* RANREAD_PROGRAM_H */
