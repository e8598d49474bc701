/*-------------------------------------------------------------------------
 *
 * fleet.c
 *		ranread_fleet_waiting(): the one part of ranread_fleet_run() (PL/pgSQL,
 *		in the extension's script) that needs C.  While the coordinator waits
 *		for its servers' runs it advertises the fleet run, so that
 *		ranread_stop() on the coordinator finds it and asks it to stop
 *		(registry.c's fleet locks); the coordinator then calls ranread_stop()
 *		on every server, and records the fleet run as stopped.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"

#include "registry.h"

PG_FUNCTION_INFO_V1(ranread_fleet_waiting);

/*
 * ranread_fleet_waiting(fleet, waiting): with waiting true, advertise that
 * this session waits for fleet run `fleet`'s servers (until the transaction
 * ends, or a call with waiting false), and say whether ranread_stop() has
 * asked it to stop; with waiting false, stop advertising and return false.
 */
Datum
ranread_fleet_waiting(PG_FUNCTION_ARGS)
{
	int64		fleet;
	bool		waiting;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("fleet and waiting must not be null")));
	fleet = PG_GETARG_INT64(0);
	waiting = PG_GETARG_BOOL(1);
	ranread_advertise_fleet(fleet, waiting);
	PG_RETURN_BOOL(waiting && ranread_fleet_stop_requested(fleet));
}
