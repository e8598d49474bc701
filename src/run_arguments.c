/*-------------------------------------------------------------------------
 *
 * run_arguments.c
 *		ranread_run()'s arguments, checked and turned into a RanreadParams,
 *		and the caller's fitness to run (workers connect as the caller).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_authid.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "ranread.h"
#include "readpath.h"
#include "run.h"

/*
 * Seconds in an interval, counting a month as 30 days (no overflow); -1 if
 * any part is negative, so that '-1 month 31 days' is not taken for 1 day.
 */
static double
interval_seconds(const Interval *span)
{
	if (span->time < 0 || span->day < 0 || span->month < 0)
		return -1;
	return (double) span->time / USECS_PER_SEC +
		((double) span->day + (double) span->month * DAYS_PER_MONTH) * SECS_PER_DAY;
}

/* ranread_run()'s arguments, in the order of its SQL signature. */
typedef enum RunArgument
{
	ARG_PROCESSES,
	ARG_ITERATIONS,
	ARG_TARGET,
	ARG_MODE,
	ARG_BLOCK_SIZE,
	ARG_DURATION,
	ARG_EVICT
} RunArgument;

/* Check ranread_run()'s arguments and fill in the run's parameters. */
void
ranread_read_run_arguments(FunctionCallInfo fcinfo, RanreadParams *params)
{
	if (PG_ARGISNULL(ARG_PROCESSES) || PG_ARGISNULL(ARG_TARGET) || PG_ARGISNULL(ARG_MODE) ||
		PG_ARGISNULL(ARG_BLOCK_SIZE) || PG_ARGISNULL(ARG_EVICT))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("processes, target, mode, block_size and evict must not be null")));
	if (PG_ARGISNULL(ARG_ITERATIONS) && PG_ARGISNULL(ARG_DURATION))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("iterations and duration must not both be null"),
				 errhint("Give iterations per process, a duration, or both (the run ends at whichever comes first).")));

	memset(params, 0, sizeof(RanreadParams));
	params->processes = PG_GETARG_INT32(ARG_PROCESSES);
	if (params->processes < 1 || params->processes > RANREAD_MAX_PROCESSES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("processes must be between 1 and %d", RANREAD_MAX_PROCESSES),
				 errdetail("The value given is %d.", params->processes)));
	if (!PG_ARGISNULL(ARG_ITERATIONS))
	{
		params->iterations = PG_GETARG_INT64(ARG_ITERATIONS);
		if (params->iterations < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("iterations must be at least 1"),
					 errdetail("The value given is " INT64_FORMAT ".", params->iterations)));
	}
	if (!PG_ARGISNULL(ARG_DURATION))
	{
		double		seconds = interval_seconds(PG_GETARG_INTERVAL_P(ARG_DURATION));

		if (seconds <= 0 || seconds > RANREAD_MAX_DURATION_S)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("duration must be positive and at most 7 days"),
					 errdetail("No part of the interval may be negative.")));
		params->duration_ns = (uint64) (seconds * 1e9);
	}

	params->readpath = ranread_readpath_index(ranread_readpath_by_name(text_to_cstring(PG_GETARG_TEXT_PP(ARG_MODE))));
	params->block_size = PG_GETARG_INT32(ARG_BLOCK_SIZE);
	if (params->block_size < BLCKSZ || params->block_size > RANREAD_MAX_BLOCK_SIZE ||
		params->block_size % BLCKSZ != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block_size must be a multiple of %d between %d and %d bytes",
						BLCKSZ, BLCKSZ, RANREAD_MAX_BLOCK_SIZE),
				 errdetail("The value given is %d.", params->block_size)));
	params->evict = PG_GETARG_BOOL(ARG_EVICT);
	namestrcpy((Name) params->target_name, NameStr(*PG_GETARG_NAME(ARG_TARGET)));
}

/* Workers connect as the calling role, which PostgreSQL 15 requires to have LOGIN. */
void
ranread_check_role_can_login(void)
{
	HeapTuple	tuple = SearchSysCache1(AUTHOID, ObjectIdGetDatum(GetUserId()));
	bool		can_login;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for role %u", GetUserId());
	can_login = ((Form_pg_authid) GETSTRUCT(tuple))->rolcanlogin;
	ReleaseSysCache(tuple);
	if (!can_login)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("role \"%s\" cannot log in, so ranread workers cannot connect as it",
						GetUserNameFromId(GetUserId(), false)),
				 errhint("Run ranread as a role with LOGIN (not after SET ROLE to a NOLOGIN role).")));
}
