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

#endif							/* RANREAD_WORKER_H */
