/*-------------------------------------------------------------------------
 *
 * io_workers.h
 *		The server's I/O workers (PostgreSQL 18's io_method = worker) set for
 *		a measurement and restored after it, for ranread_calibrate()'s
 *		io_workers part (io_workers.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_IO_WORKERS_H
#define RANREAD_IO_WORKERS_H

/* What the io_workers part can do on this server. */
typedef enum RanreadIoWorkersPart
{
	RANREAD_IO_WORKERS_STEP,	/* io_method = worker: step them */
	RANREAD_IO_WORKERS_URING	/* io_method = io_uring: no workers; a comparison */
} RanreadIoWorkersPart;

/* The setting before the part, restored after it. */
typedef struct RanreadIoWorkers
{
	bool		changed;		/* postgresql.auto.conf was changed: restore it */
	char	   *previous;		/* its io_workers value before; NULL: none */
	int			running_before; /* I/O workers running before */
	double		wait_min_ms;	/* how long the postmaster took to match a setting */
	double		wait_max_ms;
} RanreadIoWorkers;

extern RanreadIoWorkersPart ranread_io_workers_check(void);
extern int	ranread_io_workers_max(void);
extern void ranread_io_workers_save(RanreadIoWorkers *state);
extern void ranread_io_workers_set(RanreadIoWorkers *state, int count);
extern void ranread_io_workers_restore(RanreadIoWorkers *state, bool wait);

#endif							/* RANREAD_IO_WORKERS_H */
