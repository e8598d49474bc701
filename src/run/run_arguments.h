/*-------------------------------------------------------------------------
 *
 * run_arguments.h
 *		ranread_run()'s SQL arguments by name, and their checks
 *		(run_arguments.c).  The SQL function fills a RanreadRunArgs from its
 *		call, a sweep step fills one by name from ranread_run()'s own
 *		defaults; both get the same checks, errors and RanreadParams.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_RUN_ARGUMENTS_H
#define RANREAD_RUN_ARGUMENTS_H

#include "datatype/timestamp.h"
#include "fmgr.h"

#include "ranread.h"

/* ranread_run()'s arguments, in the order of its SQL signature. */
typedef enum RunArgument
{
	RUN_ARG_PROCESSES,
	RUN_ARG_ITERATIONS,
	RUN_ARG_TARGET,
	RUN_ARG_MODE,
	RUN_ARG_BLOCK_SIZE,
	RUN_ARG_DURATION,
	RUN_ARG_EVICT,
	RUN_ARG_RAMP,
	RUN_ARG_SAMPLE_INTERVAL,
	RUN_ARG_STEADY_STATE,
	RUN_ARG_STEADY_BAND_PCT,
	RUN_ARG_RATE_IOPS,
	RUN_ARG_ARRIVALS,
	RUN_ARG_IODEPTH,
	RUN_ARG_ALLOW_REREADS,
	RUN_ARG_PREFETCH,
	RUN_ARG_DISTRIBUTION,
	RUN_ARG_START_AT,
	RUN_ARG_WRITERS,
	RUN_ARG_WRITE_RATE_IOPS,
	RUN_ARG_WRITE_TARGET,
	RUN_ARG_CHECKPOINT,
	RUN_ARG_COUNT				/* how many; not an argument */
} RunArgument;

/* The values of ranread_run()'s arguments, as SQL passes them. */
typedef struct RanreadRunArgs
{
	Datum		value[RUN_ARG_COUNT];
	bool		isnull[RUN_ARG_COUNT];
} RanreadRunArgs;

extern Oid	ranread_run_function(void);
extern void ranread_run_args_from_call(FunctionCallInfo fcinfo, RanreadRunArgs *args);
extern void ranread_run_args_defaults(Oid function, RanreadRunArgs *args);
extern void ranread_read_run_arguments(const RanreadRunArgs *args, RanreadParams *params);
extern void ranread_check_role_can_login(void);
extern double ranread_interval_seconds(const Interval *span);

#endif							/* RANREAD_RUN_ARGUMENTS_H */
