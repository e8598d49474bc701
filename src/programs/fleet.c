/*-------------------------------------------------------------------------
 *
 * fleet.c
 *		The parts of ranread_fleet_run() (PL/pgSQL, sql/ranread--1.2--1.3.sql)
 *		that need C:
 *
 *		ranread_fleet_connect() opens a dblink connection to a foreign server
 *		with a bound on the connect (a server that does not answer is a
 *		problem of the checks, not a hang) and pins the remote session's
 *		search_path, so that nothing a role created on the server runs in
 *		the fleet's queries there.
 *
 *		ranread_fleet_check() runs on each server: the checks its
 *		ranread_run() would make before it starts (the arguments, the target,
 *		the run lock, the worker slots), and the cluster's identity, so that
 *		two foreign servers for one cluster are refused.
 *
 *		ranread_fleet_wait() waits for the servers' runs while it advertises
 *		the wait (registry.c's fleet locks), so that ranread_stop() on the
 *		coordinator finds it; asked to stop, it calls ranread_stop() on every
 *		server over connections of its own.  Only this wait advertises a fleet
 *		run, and it always answers a stop, so no session can pose as a fleet
 *		run that ranread_stop() would wait for in vain.
 *
 * dblink's functions are called by OID, found with their exact argument
 * types among the members of extension dblink, so no overload a role
 * creates can stand in for them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <stdlib.h>

#include "access/relation.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "parser/parse_func.h"
#include "storage/latch.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/wait_event.h"

#include "compat.h"
#include "extension.h"
#include "run/registry.h"
#include "run/report.h"
#include "run/run.h"
#include "run/run_arguments.h"
#include "run/target.h"

/* libpq's connect_timeout for the fleet's connections, in seconds */
#define FLEET_CONNECT_TIMEOUT_S "5"
/* how often the wait looks at the servers' connections */
#define FLEET_POLL_MS			50
/* how long a stop waits for the servers' ranread_stop() to return */
#define FLEET_STOP_WAIT_MS		10000
/* the most servers a fleet run takes (as ranread_fleet_run() checks) */
#define FLEET_MAX_SERVERS		64

PG_FUNCTION_INFO_V1(ranread_fleet_connect);
PG_FUNCTION_INFO_V1(ranread_fleet_check);
PG_FUNCTION_INFO_V1(ranread_fleet_wait);
PG_FUNCTION_INFO_V1(ranread_fleet_waiting);

/*
 * Function `name` of extension dblink with exactly these argument types,
 * which the current role may execute.
 */
static Oid
dblink_function(const char *name, int nargs, const Oid *argtypes)
{
	Oid			dblink = get_extension_oid("dblink", true);
	Oid			function = InvalidOid;
	AclResult	aclresult;

	if (OidIsValid(dblink))
	{
		String	   *schema = makeString(pstrdup(ranread_extension_schema_of(dblink)));
		String	   *function_name = makeString(pstrdup(name));

		function = LookupFuncName(lappend(list_make1(schema), function_name), nargs, argtypes, true);
	}
	if (!OidIsValid(dblink) || !OidIsValid(function) ||
		getExtensionOfObject(ProcedureRelationId, function) != dblink)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ranread_fleet_run needs function %s of extension dblink in this database", name),
				 errhint("Run CREATE EXTENSION dblink; each server is a foreign server of its dblink_fdw with a user mapping.")));
	aclresult = ranread_function_aclcheck(function, GetUserId());
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_FUNCTION, name);
	return function;
}

static Datum
text_datum(const char *s)
{
	return PointerGetDatum(cstring_to_text(s));
}

/*
 * dblink_connect(connection, server) with libpq's connect_timeout set (as its
 * environment variable, which a connect_timeout among the server's options
 * overrides), then the remote session's search_path pinned.
 */
static void
connect_with_timeout(const char *connection, const char *server)
{
	Oid			two_texts[2] = {TEXTOID, TEXTOID};
	Oid			connect = dblink_function("dblink_connect", 2, two_texts);
	Oid			exec = dblink_function("dblink_exec", 2, two_texts);
	const char *was = getenv("PGCONNECT_TIMEOUT");
	char	   *saved = was != NULL ? pstrdup(was) : NULL;

	setenv("PGCONNECT_TIMEOUT", FLEET_CONNECT_TIMEOUT_S, 1);
	PG_TRY();
	{
		(void) OidFunctionCall2(connect, text_datum(connection), text_datum(server));
	}
	PG_FINALLY();
	{
		if (saved != NULL)
			setenv("PGCONNECT_TIMEOUT", saved, 1);
		else
			unsetenv("PGCONNECT_TIMEOUT");
	}
	PG_END_TRY();
	(void) OidFunctionCall2(exec, text_datum(connection),
							text_datum("SET search_path = pg_catalog, pg_temp"));
}

/*
 * ranread_fleet_connect(connection, server): open dblink connection
 * `connection` to foreign server `server`, giving up after
 * FLEET_CONNECT_TIMEOUT_S seconds, with the remote search_path pinned to
 * pg_catalog.
 */
Datum
ranread_fleet_connect(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("connection and server must not be null")));
	connect_with_timeout(text_to_cstring(PG_GETARG_TEXT_PP(0)), NameStr(*PG_GETARG_NAME(1)));
	PG_RETURN_VOID();
}

/*
 * ranread_fleet_check(processes, iterations, target, mode, duration): on a
 * server of a fleet run, the refusals its ranread_run() would give before it
 * started (the same errors), then whether it could start now: no other run,
 * enough free worker slots (counted as a run counts them, whatever
 * pg_stat_activity shows the role).  Returns the cluster's system
 * identifier.
 */
Datum
ranread_fleet_check(PG_FUNCTION_ARGS)
{
	RanreadRunArgs args;
	RanreadParams params;
	Relation	target;
	int64		running;
	const char *program;
	int			free_slots;
	static const RunArgument given[] = {RUN_ARG_PROCESSES, RUN_ARG_ITERATIONS, RUN_ARG_TARGET,
	RUN_ARG_MODE, RUN_ARG_DURATION};

	ranread_check_sql_version();
	ranread_run_args_defaults(ranread_run_function(), &args);
	for (int i = 0; i < lengthof(given); i++)
	{
		args.isnull[given[i]] = PG_ARGISNULL(i);
		args.value[given[i]] = PG_ARGISNULL(i) ? (Datum) 0 : PG_GETARG_DATUM(i);
	}
	ranread_read_run_arguments(&args, &params);
	ranread_check_role_can_login();
	ranread_check_can_read_summary();
	target = ranread_target_open_for_run(params.target_name);
	ranread_check_batch_target(&params, target, -1);
	relation_close(target, NoLock);

	running = ranread_running_batch(true, NULL, NULL, NULL);
	if (running != 0)
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("ranread batch " INT64_FORMAT " is already running", running)));
	running = ranread_running_program(NULL, NULL, &program);
	if (running != 0)
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("ranread %s " INT64_FORMAT " is already running", program, running)));
	free_slots = ranread_free_worker_slots();
	if (free_slots < params.processes)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg_plural("%d free worker slot for %d processes",
							   "%d free worker slots for %d processes",
							   free_slots, free_slots, params.processes),
				 errhint("Raise max_worker_processes (a restart), or run fewer processes.")));
	PG_RETURN_TEXT_P(cstring_to_text(psprintf(UINT64_FORMAT, GetSystemIdentifier())));
}

/* The elements of a one-dimensional text or name array, as C strings. */
static char **
array_strings(ArrayType *array, Oid type, int *count)
{
	Datum	   *values;
	bool	   *nulls;
	char	  **strings;

	if (ARR_NDIM(array) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("the fleet's arrays must be one-dimensional")));
	deconstruct_array(array, type, type == NAMEOID ? NAMEDATALEN : -1, false,
					  type == NAMEOID ? TYPALIGN_CHAR : TYPALIGN_INT, &values, &nulls, count);
	if (*count > FLEET_MAX_SERVERS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a fleet run has at most %d servers", FLEET_MAX_SERVERS)));
	strings = palloc(sizeof(char *) * Max(*count, 1));
	for (int i = 0; i < *count; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the fleet's arrays must not hold a null")));
		strings[i] = type == NAMEOID ? pstrdup(NameStr(*DatumGetName(values[i]))) :
			TextDatumGetCString(values[i]);
	}
	return strings;
}

/*
 * Run `call` and keep going after an error, which is dropped: a server that
 * cannot be stopped is one the gathering records as it finds it.  A cancel
 * is not dropped.
 */
static bool
try_call(void (*call) (const char *connection, const char *argument),
		 const char *connection, const char *argument)
{
	MemoryContext context = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	bool		done = true;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(context);
	PG_TRY();
	{
		call(connection, argument);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(context);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(context);
		CurrentResourceOwner = owner;
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED)
			ReThrowError(edata);
		done = false;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(context);
	CurrentResourceOwner = owner;
	return done;
}

static void
send_query(const char *connection, const char *sql)
{
	Oid			two_texts[2] = {TEXTOID, TEXTOID};

	(void) OidFunctionCall2(dblink_function("dblink_send_query", 2, two_texts),
							text_datum(connection), text_datum(sql));
}

static void
disconnect(const char *connection, const char *unused)
{
	Oid			one_text[1] = {TEXTOID};

	(void) OidFunctionCall1(dblink_function("dblink_disconnect", 1, one_text), text_datum(connection));
}

/* dblink_is_busy(), looked up once for a wait's many polls */
static Oid
is_busy_function(void)
{
	Oid			one_text[1] = {TEXTOID};

	return dblink_function("dblink_is_busy", 1, one_text);
}

static bool
is_busy(Oid is_busy_fn, const char *connection)
{
	return DatumGetInt32(OidFunctionCall1(is_busy_fn, text_datum(connection))) == 1;
}

/* Sleep FLEET_POLL_MS, or less if the latch is set; a cancel ends it. */
static void
poll_pause(void)
{
	(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
					 FLEET_POLL_MS, PG_WAIT_EXTENSION);
	ResetLatch(MyLatch);
	CHECK_FOR_INTERRUPTS();
}

/*
 * Call ranread_stop() on every server, each over a connection of its own
 * (the fleet's are busy with the runs), all at once, and wait until they
 * have returned (at most FLEET_STOP_WAIT_MS).  A server that cannot be
 * reached costs at most the connect timeout.
 */
static void
stop_servers(int64 fleet, int count, char **servers, char **schemas)
{
	char	  **connections = palloc0(sizeof(char *) * count);
	bool	   *sent = palloc0(sizeof(bool) * count);
	Oid			is_busy_fn = is_busy_function();

	for (int i = 0; i < count; i++)
	{
		connections[i] = psprintf("ranread_fleet_" INT64_FORMAT "_stop_%d", fleet, i + 1);
		if (try_call(connect_with_timeout, connections[i], servers[i]))
			sent[i] = try_call(send_query, connections[i],
							   psprintf("SELECT %s.ranread_stop()", quote_identifier(schemas[i])));
		else
			connections[i] = NULL;
	}
	for (int waited = 0; waited < FLEET_STOP_WAIT_MS; waited += FLEET_POLL_MS)
	{
		bool		busy = false;

		for (int i = 0; i < count; i++)
			busy = busy || (sent[i] && is_busy(is_busy_fn, connections[i]));
		if (!busy)
			break;
		poll_pause();
	}
	for (int i = 0; i < count; i++)
		if (connections[i] != NULL)
			(void) try_call(disconnect, connections[i], NULL);
}

/*
 * Is `fleet` the number this session drew last from ranread_fleet_seq, as
 * ranread_fleet_run() draws its number before it waits?  Another session's
 * number (readable in pg_locks while that fleet waits) is not: advertising
 * it would let this session's ranread_stop() stop that fleet.  A session
 * that drew none has no currval(), whose error a subtransaction takes.
 */
static bool
drawn_by_this_session(int64 fleet)
{
	Oid			seq = get_relname_relid("ranread_fleet_seq",
										get_namespace_oid(ranread_extension_schema(), false));
	MemoryContext context = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	bool		drawn = false;

	if (!OidIsValid(seq))
		return false;
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(context);
	PG_TRY();
	{
		drawn = DatumGetInt64(DirectFunctionCall1(currval_oid, ObjectIdGetDatum(seq))) == fleet;
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(context);
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(context);
	CurrentResourceOwner = owner;
	return drawn;
}

/*
 * ranread_fleet_wait(fleet, connections, servers, schemas): for the fleet run
 * this session drew last (drawn_by_this_session), wait until no
 * dblink connection of `connections` is busy (each runs a server's
 * ranread_run()), advertising the wait meanwhile.  When ranread_stop() asks
 * fleet run `fleet` to stop, call ranread_stop() on every server (schemas:
 * ranread's schema on each) and stop advertising, which ranread_stop()
 * waits for.  Returns whether the fleet run was stopped.  A cancel ends the
 * wait with an error; the caller cancels the servers' runs.
 */
Datum
ranread_fleet_wait(PG_FUNCTION_ARGS)
{
	int64		fleet;
	char	  **connections;
	char	  **servers;
	char	  **schemas;
	int			count;
	int			server_count;
	int			schema_count;
	bool		stopped = false;
	Oid			is_busy_fn;

	for (int i = 0; i < 4; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("fleet, connections, servers and schemas must not be null")));
	fleet = PG_GETARG_INT64(0);
	connections = array_strings(PG_GETARG_ARRAYTYPE_P(1), TEXTOID, &count);
	servers = array_strings(PG_GETARG_ARRAYTYPE_P(2), NAMEOID, &server_count);
	schemas = array_strings(PG_GETARG_ARRAYTYPE_P(3), NAMEOID, &schema_count);
	if (server_count != count || schema_count != count)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("connections, servers and schemas must have one element per server")));

	if (!drawn_by_this_session(fleet))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to wait for fleet run " INT64_FORMAT, fleet),
				 errdetail("A session waits only for the fleet run whose number it drew last from ranread_fleet_seq, as ranread_fleet_run() does.")));
	is_busy_fn = is_busy_function();
	ranread_advertise_fleet(fleet, true);
	for (;;)
	{
		bool		busy = false;

		for (int i = 0; i < count && !busy; i++)
			busy = is_busy(is_busy_fn, connections[i]);
		if (!busy)
			break;
		if (!stopped && ranread_fleet_stop_requested(fleet))
		{
			stop_servers(fleet, count, servers, schemas);
			stopped = true;
			ranread_advertise_fleet(fleet, false);
		}
		poll_pause();
	}
	ranread_advertise_fleet(fleet, false);
	PG_RETURN_BOOL(stopped);
}

/*
 * ranread_fleet_waiting(): 1.2's SQL object, which the 1.2 script (the first
 * step of installing 1.3) creates and the update to 1.3 drops.  This library
 * serves 1.3's objects only, so it refuses.
 */
Datum
ranread_fleet_waiting(PG_FUNCTION_ARGS)
{
	ranread_check_sql_version();
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("ranread_fleet_waiting() was replaced by ranread_fleet_wait() in ranread 1.3")));
	PG_RETURN_NULL();
}
