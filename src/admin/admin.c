/*-------------------------------------------------------------------------
 *
 * admin.c
 *		ranread_stop(), ranread_reset() and ranread_drop(): stopping runs and
 *		removing history and targets.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/builtins.h"

#include "extension.h"
#include "ranread.h"
#include "record/row_builder.h"
#include "run/registry.h"
#include "run/target.h"
#include "spi_columns.h"

/* How long ranread_stop() waits for the workers to record and exit. */
#define STOP_WAIT_MS	5000
#define STOP_POLL_MS	10

PG_FUNCTION_INFO_V1(ranread_stop);
PG_FUNCTION_INFO_V1(ranread_reset);
PG_FUNCTION_INFO_V1(ranread_drop);

/*
 * Why this role may not signal process pid, as pg_terminate_backend()
 * decides (NULL: it may).
 */
static const char *
why_not_stop(int pid)
{
	PGPROC	   *proc = BackendPidGetProc(pid);

	if (proc == NULL)
		return NULL;
	if (superuser_arg(proc->roleId) && !superuser())
		return "Only superusers may stop a superuser's ranread runs.";
	if (!has_privs_of_role(GetUserId(), proc->roleId) &&
		!has_privs_of_role(GetUserId(), ROLE_PG_SIGNAL_BACKEND))
		return psprintf("Only roles with the privileges of the role running the benchmark, or of \"%s\", may stop it.",
						"pg_signal_backend");
	return NULL;
}

/*
 * Error out unless this role may signal process pid (`what`: "ranread worker"
 * or "the session of ranread sweep process", of a layers run or calibration).
 */
static void
check_may_stop(int pid, const char *what)
{
	const char *why = why_not_stop(pid);

	if (why != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to stop %s %d", what, pid),
				 errdetail_internal("%s", why)));
}

/*
 * Ask every fleet run that waits for its servers, and that this role may
 * stop, to stop; returns those asked.  A fleet run of a role this one may
 * not stop is left alone, without an error: it is not this role's to stop,
 * and it must not keep this role from stopping its own.  A fleet run that
 * another session has asked already is left to that session: this call may
 * be the fleet's own ranread_stop() on one of its servers, which is this
 * cluster when the coordinator is one of them, and the fleet waits for it.
 */
static List *
ask_fleets_to_stop(void)
{
	List	   *asked = NIL;
	ListCell   *lc;

	foreach(lc, ranread_waiting_fleets())
	{
		RanreadFleetWait *wait = lfirst(lc);

		if (why_not_stop(wait->coordinator_pid) != NULL ||
			ranread_fleet_stop_requested_in(wait->fleet, wait->database))
			continue;
		ranread_request_fleet_stop(wait->fleet, wait->database);
		asked = lappend(asked, wait);
	}
	return asked;
}

/* Does a fleet run of `fleets` still wait for its servers? */
static bool
any_fleet_waits(List *fleets)
{
	ListCell   *lc;

	foreach(lc, fleets)
	{
		RanreadFleetWait *wait = lfirst(lc);

		if (ranread_fleet_waits(wait->fleet, wait->database))
			return true;
	}
	return false;
}

/*
 * Stop every ranread worker of the cluster: signal each (RANREAD_STOP_SIGNAL:
 * it stops reading, records what it measured with status "stopped" and
 * exits; a worker already recording finishes, it is not terminated).  While the batch that
 * was running when we were called is still going, keep looking, so that its
 * workers still starting are stopped too and the function returns once that
 * batch is over and recorded (at most STOP_WAIT_MS).  A batch started later
 * is left alone.  Permissions are checked for every worker before any is
 * signalled.  When a program of batches runs (a sweep, ranread_layers(),
 * ranread_calibrate(): program.c), only its session is signalled, between
 * two of its batches too: it stops its running batch's workers itself and
 * starts no other batch; this call still waits for that batch to be
 * recorded.  The run may be another
 * database's (one run at a time per cluster; a database's views show its own
 * batches only).  Every fleet run waiting for its servers on this
 * coordinator (ranread_fleet_run()) that this role may stop is asked to
 * stop: it stops every server's run, and this call waits until it has (at
 * most STOP_WAIT_MS).  Returns the number of processes signalled or asked
 * (a fleet run's session counts as one).
 */
Datum
ranread_stop(PG_FUNCTION_ARGS)
{
	Oid			database;
	int64		batch = ranread_running_batch(true, NULL, NULL, &database);
	List	   *signalled = NIL;
	ListCell   *lc;
	int			program_pid;
	const char *program;
	bool		signalled_program = false;
	List	   *fleets;

	/*
	 * A sweep, a layers run or a calibration: signal its session only.  It
	 * leads the running batch and stops that batch's workers once they read
	 * (a worker told to stop at the start barrier would fail the batch), and
	 * starts no batch after it.
	 */
	if (ranread_running_program(&program_pid, NULL, &program) != 0)
	{
		check_may_stop(program_pid, psprintf("the session of ranread %s process", program));
		if (kill(program_pid, RANREAD_STOP_SIGNAL) == 0)
		{
			signalled = lappend_int(signalled, program_pid);
			signalled_program = true;
		}
	}

	/*
	 * Fleet runs' coordinators waiting for their servers: ask each to stop.
	 * Each calls ranread_stop() on every server and stops waiting once they
	 * have returned, which the loop below waits for.
	 */
	fleets = ask_fleets_to_stop();
	foreach(lc, fleets)
		signalled = lappend_int(signalled, ((RanreadFleetWait *) lfirst(lc))->coordinator_pid);

	for (int waited = 0; waited < STOP_WAIT_MS; waited += STOP_POLL_MS)
	{
		List	   *pids = ranread_worker_pids();
		Oid			database_now;
		bool		batch_over;
		bool		fleets_wait = any_fleet_waits(fleets);

		batch_over = batch != 0 && (ranread_running_batch(true, NULL, NULL, &database_now) != batch ||
									database_now != database);
		if (batch_over && !fleets_wait)
			break;
		foreach(lc, batch_over ? NIL : pids)
			check_may_stop(lfirst_int(lc), "ranread worker");
		foreach(lc, (signalled_program || batch_over) ? NIL : pids)
		{
			int			pid = lfirst_int(lc);

			if (!list_member_int(signalled, pid) && kill(pid, RANREAD_STOP_SIGNAL) == 0)
				signalled = lappend_int(signalled, pid);
		}
		if (batch == 0 && pids == NIL && !fleets_wait)
			break;
		CHECK_FOR_INTERRUPTS();
		pg_usleep(STOP_POLL_MS * 1000L);
	}
	PG_RETURN_INT32(list_length(signalled));
}

/*
 * Delete the caller's history (a superuser's call: everyone's, and the rows
 * recorded before 1.4, which name no role); returns the number of rows
 * deleted from ranread_results and ranread_batches (their rows of
 * ranread_intervals, the sweeps, the fleet runs, the writers' rows and the
 * write sweeps go with them).  The rows are deleted as the extension's owner
 * (ranread_history_execute()): no other role holds DELETE on them.
 */
Datum
ranread_reset(PG_FUNCTION_ARGS)
{
	static const char *const tables[] = {
		"ranread_results", "ranread_batches", "ranread_intervals", "ranread_sweep_runs",
		"ranread_fleet_runs", "ranread_fleet_servers", "ranread_write_results",
		"ranread_db_activity", "ranread_write_sweep_steps", "ranread_write_sweeps"
	};
	const char *schema = quote_identifier(ranread_extension_schema());
	bool		everyone = superuser();
	StringInfoData sql;
	Oid			types[] = {NAMEOID};
	Datum		values[1];
	int64		deleted;

	values[0] = ranread_run_by();
	initStringInfo(&sql);
	for (int i = 0; i < lengthof(tables); i++)
		appendStringInfo(&sql, "%sd%d AS (DELETE FROM %s.%s%s RETURNING 1)", i == 0 ? "WITH " : ", ",
						 i, schema, tables[i], everyone ? "" : " WHERE run_by OPERATOR(pg_catalog.=) $1");
	/* d0 and d1: ranread_results and ranread_batches */
	appendStringInfoString(&sql, " SELECT (SELECT pg_catalog.count(*) FROM d0) OPERATOR(pg_catalog.+) "
						   "(SELECT pg_catalog.count(*) FROM d1) AS deleted");
	SPI_connect();
	if (ranread_history_execute(sql.data, everyone ? 0 : 1, types, values, NULL) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not reset ranread's history");
	deleted = ranread_spi_int_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "deleted", 0);
	SPI_finish();
	PG_RETURN_INT64(deleted);
}

/* Drop a target and forget it. */
Datum
ranread_drop(PG_FUNCTION_ARGS)
{
	RanreadTarget target;
	const char *name;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("target name must not be null")));
	name = NameStr(*PG_GETARG_NAME(0));
	ranread_target_lookup(name, AccessExclusiveLock, false, &target);
	if (!target.registered && !target.relation_exists)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("ranread target \"%s\" does not exist", name)));
	ranread_target_forget(&target);
	PG_RETURN_TEXT_P(cstring_to_text(psprintf("dropped ranread target \"%s\"", name)));
}
