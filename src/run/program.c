/*-------------------------------------------------------------------------
 *
 * program.c
 *		A program of batches run by one session: a sweep (sweep.c),
 *		ranread_layers() (layers.c) or ranread_calibrate() (calibrate.c).
 *
 * From its first batch to its last the session holds the run lock, so that
 * no other run starts between two of its batches, and advertises the
 * program (registry.c), so that another session's run is refused naming it
 * and ranread_stop() finds it.  ranread_stop() signals the program's session
 * only (RANREAD_STOP_SIGNAL): the handler installed here sets
 * ranread_program_stop_requested, which the session hands to each batch it
 * runs (ranread_run_batch() then stops that batch's workers once they read)
 * and checks before it starts the next; so a stop is never lost between two
 * batches.  ranread_program_begin() takes the lock before the program draws
 * its number (so a refused program uses none), ranread_program_advertise()
 * does the rest once it has one, and ranread_program_end() undoes what was
 * done; call it on every way out (PG_FINALLY) of a program zeroed before
 * ranread_program_begin(); a second call does nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/latch.h"

#include "ranread.h"
#include "run/program.h"
#include "run/registry.h"

volatile sig_atomic_t ranread_program_stop_requested = false;

/* Installed with sigaction() (below), so a plain handler on every major. */
static void
program_stop_handler(int signo)
{
	int			save_errno = errno;

	ranread_program_stop_requested = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

/*
 * Take the run lock, or fail naming what runs, before the program draws its
 * number: a refused program uses none.
 */
void
ranread_program_begin(RanreadProgram *program, uint16 kind)
{
	ranread_lock_out_other_runs();
	program->locked = true;
	program->kind = kind;
}

/* Advertise the program as number `number` and catch ranread_stop() until ranread_program_end(). */
void
ranread_program_advertise(RanreadProgram *program, int64 number)
{
	struct sigaction handler;

	program->number = number;
	ranread_advertise_program(program->kind, number, true);

	/*
	 * sigaction() rather than pqsignal(): since 18 pqsignal() returns nothing
	 * and installs a wrapper, so only sigaction() gives back what was there.
	 */
	ranread_program_stop_requested = false;
	memset(&handler, 0, sizeof(handler));
	handler.sa_handler = program_stop_handler;
	sigemptyset(&handler.sa_mask);
	handler.sa_flags = SA_RESTART;
	sigaction(RANREAD_STOP_SIGNAL, &handler, &program->previous_handler);
	program->advertised = true;
}

/* Put back the signal handler, stop advertising, release the run lock. */
void
ranread_program_end(RanreadProgram *program)
{
	if (program->advertised)
	{
		sigaction(RANREAD_STOP_SIGNAL, &program->previous_handler, NULL);
		ranread_advertise_program(program->kind, program->number, false);
	}
	program->advertised = false;
	if (program->locked)
		ranread_release_run_lock();
	program->locked = false;
}
