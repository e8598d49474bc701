/*-------------------------------------------------------------------------
 *
 * worker.h
 *		A ranread background worker (worker.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_WORKER_H
#define RANREAD_WORKER_H

extern PGDLLEXPORT void ranread_worker_main(Datum main_arg);
extern bool ranread_worker_stop_requested(void);

#endif							/* RANREAD_WORKER_H */
