/*-------------------------------------------------------------------------
 *
 * io_workers.c
 *		The server's io_workers set for a measurement and restored after it.
 *
 * Under PostgreSQL 18's io_method = worker, a pool of io_workers processes
 * does the backends' asynchronous reads; io_workers is reloadable (SIGHUP),
 * and the postmaster starts or stops workers to match it.  A setting is
 * written as ALTER SYSTEM writes it (AlterSystemSetConfigFile(), called
 * directly: the statement itself cannot run inside a function's
 * transaction, and its file is not transactional anyway), the postmaster
 * is signalled as pg_reload_conf() does, and the setting counts only once
 * pg_stat_activity shows that many I/O workers.  Restoring writes back
 * postgresql.auto.conf's own entry as it was (or removes it, as ALTER
 * SYSTEM RESET does, where there was none), so that a value set in
 * postgresql.conf applies again.  Only a superuser may do this.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "programs/io_workers.h"
#include "spi_columns.h"

/* How long the postmaster may take to match a setting. */
#define IO_WORKERS_WAIT_MS		10000
/* How often to look meanwhile. */
#define IO_WORKERS_POLL_MS		5

/*
 * Check that this caller and server can run the io_workers part, before
 * anything runs: a superuser, and a server whose io_method has I/O workers
 * to step (worker) or is io_uring (a comparison without them).
 */
RanreadIoWorkersPart
ranread_io_workers_check(void)
{
	const char *method = GetConfigOption("io_method", true, false);

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to step io_workers"),
				 errdetail("The io_workers part sets the server's io_workers with ALTER SYSTEM for its measurement, and restores it after."),
				 errhint("Run it as a superuser, or without io_workers => true.")));
	if (method == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the io_workers part does not apply to this server: it has no asynchronous I/O"),
				 errdetail("I/O workers and io_method came with PostgreSQL 18; this server is %s.",
						   GetConfigOption("server_version", false, false)),
				 errhint("Run without io_workers => true.")));
	if (strcmp(method, "io_uring") == 0)
		return RANREAD_IO_WORKERS_URING;
	if (strcmp(method, "worker") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the io_workers part does not apply under io_method = %s", method),
				 errdetail("Each backend then does its own reads; I/O workers serve io_method = worker only."),
				 errhint("io_method takes a restart; run without io_workers => true.")));
	if (GetConfigOption("io_workers", true, false) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the io_workers part does not apply to this server: it has no io_workers setting"),
				 errdetail("This server sizes its pool of I/O workers itself (io_min_workers, io_max_workers)."),
				 errhint("Run without io_workers => true.")));
	return RANREAD_IO_WORKERS_STEP;
}

/* The integer column "n" of a query of one row (-1 when NULL). */
static int
query_int(const char *query)
{
	int64		value;

	SPI_connect();
	if (SPI_execute(query, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not run \"%s\"", query);
	value = ranread_spi_int_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "n", -1);
	SPI_finish();
	return (int) value;
}

/* The largest io_workers this server takes. */
int
ranread_io_workers_max(void)
{
	return query_int("SELECT max_val::pg_catalog.int4 AS n FROM pg_catalog.pg_settings WHERE name OPERATOR(pg_catalog.=) 'io_workers'");
}

/* How many I/O workers run now (a fresh look, not the transaction's snapshot). */
static int
running(void)
{
	pgstat_clear_snapshot();
	return query_int("SELECT count(*)::pg_catalog.int4 AS n FROM pg_catalog.pg_stat_activity "
					 "WHERE backend_type OPERATOR(pg_catalog.=) 'io worker'");
}

/* Write io_workers = value into postgresql.auto.conf (NULL: remove it) and signal the postmaster. */
static void
alter_io_workers(const char *value)
{
	AlterSystemStmt *stmt = makeNode(AlterSystemStmt);
	VariableSetStmt *set = makeNode(VariableSetStmt);

	set->name = "io_workers";
	set->kind = value == NULL ? VAR_RESET : VAR_SET_VALUE;
	if (value != NULL)
	{
		A_Const    *constant = makeNode(A_Const);

		constant->val.sval.type = T_String;
		constant->val.sval.sval = pstrdup(value);
		constant->location = -1;
		set->args = list_make1(constant);
	}
	stmt->setstmt = set;
	AlterSystemSetConfigFile(stmt);
	if (kill(PostmasterPid, SIGHUP) != 0)
		ereport(ERROR,
				(errmsg("could not signal the postmaster to reload its configuration: %m")));
}

/* Wait until count I/O workers run; records how long that took. */
static void
wait_for(RanreadIoWorkers *state, int count)
{
	TimestampTz start = GetCurrentTimestamp();
	int			now;
	double		waited_ms;

	while ((now = running()) != count)
	{
		if (TimestampDifferenceExceeds(start, GetCurrentTimestamp(), IO_WORKERS_WAIT_MS))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the postmaster did not run %d I/O workers within %d s of the reload: %d run",
							count, IO_WORKERS_WAIT_MS / 1000, now),
					 errhint("Look in the server log for why it could not start them.")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 IO_WORKERS_POLL_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	waited_ms = (double) (GetCurrentTimestamp() - start) / 1000.0;
	if (state->wait_max_ms < 0 || waited_ms > state->wait_max_ms)
		state->wait_max_ms = waited_ms;
	if (state->wait_min_ms < 0 || waited_ms < state->wait_min_ms)
		state->wait_min_ms = waited_ms;
}

/* Note postgresql.auto.conf's io_workers, and how many I/O workers run. */
void
ranread_io_workers_save(RanreadIoWorkers *state)
{
	MemoryContext context = CurrentMemoryContext;
	Oid			types[1] = {TEXTOID};
	Datum		args[1] = {CStringGetTextDatum(psprintf("%s/%s", DataDir, PG_AUTOCONF_FILENAME))};

	state->changed = false;
	state->previous = NULL;
	state->wait_min_ms = -1;
	state->wait_max_ms = -1;
	SPI_connect();
	if (SPI_execute_with_args("SELECT setting FROM pg_catalog.pg_file_settings "
							  "WHERE name OPERATOR(pg_catalog.=) 'io_workers' AND sourcefile OPERATOR(pg_catalog.=) $1 "
							  "ORDER BY seqno DESC LIMIT 1",
							  1, types, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read pg_file_settings");
	if (SPI_processed == 1)
	{
		char	   *value = ranread_spi_output_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "setting");

		state->previous = value == NULL ? NULL : MemoryContextStrdup(context, value);
	}
	SPI_finish();
	state->running_before = running();
}

/* Set io_workers to count and wait until the postmaster runs that many. */
void
ranread_io_workers_set(RanreadIoWorkers *state, int count)
{
	state->changed = true;
	alter_io_workers(psprintf("%d", count));
	wait_for(state, count);
}

/*
 * Put postgresql.auto.conf's io_workers back as it was and signal the
 * postmaster; with wait, also wait until as many I/O workers run as before.
 */
void
ranread_io_workers_restore(RanreadIoWorkers *state, bool wait)
{
	if (!state->changed)
		return;
	alter_io_workers(state->previous);
	state->changed = false;
	if (wait)
		wait_for(state, state->running_before);
}
