/*-------------------------------------------------------------------------
 *
 * batch_group.c
 *		Running a group of batches as the caller, from one SQL function.
 *
 * ranread_layers() and ranread_calibrate() each run several batches through
 * ranread_run_batch(), every one an ordinary batch recorded by its workers,
 * and mark them with a number drawn from the batch numbers (so it is the
 * number just before the group's first batch).  The caller needs EXECUTE on
 * ranread_run(), as if it called it once per batch; each batch's arguments
 * start from ranread_run()'s own defaults.  A batch the workers recorded is
 * read back in a fresh snapshot (SPI read_only false), since they committed
 * it after the calling statement's snapshot was taken; a transaction that
 * keeps one snapshot (repeatable read, serializable) would never see it, so
 * it is refused.  Each batch's own NOTICEs are DEBUG1 (report.c): the
 * program says one line a step of its own.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "commands/sequence.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "programs/batch_group.h"
#include "compat.h"
#include "extension.h"
#include "format.h"
#include "readpath/readpath.h"
#include "rules/distribution.h"
#include "spi_columns.h"

/*
 * Check that the caller may run batches (EXECUTE on ranread_run()) and fill
 * args with ranread_run()'s defaults; returns ranread_run()'s OID.
 */
Oid
ranread_group_start(const char *function, RanreadRunArgs *args)
{
	Oid			run_function;

	ranread_check_sql_version();
	if (IsolationUsesXactSnapshot())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("%s cannot run in a transaction of isolation level repeatable read or serializable", function),
				 errdetail("It reads back each batch its workers commit, which such a transaction's snapshot does not see."),
				 errhint("Run it in a READ COMMITTED transaction, or on its own.")));
	run_function = ranread_run_function();
	if (ranread_function_aclcheck(run_function, GetUserId()) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to run %s", function),
				 errdetail("%s runs ranread_run() as its caller, once per batch.", function),
				 errhint("Grant EXECUTE on ranread_run(), as docs/reference.md lists.")));
	ranread_run_args_defaults(run_function, args);
	return run_function;
}

/* A number for the group, drawn from the batch numbers. */
int64
ranread_group_number(void)
{
	Oid			seq = get_relname_relid("ranread_batch_seq",
										get_namespace_oid(ranread_extension_schema(), false));

	return DatumGetInt64(DirectFunctionCall1(nextval_oid, ObjectIdGetDatum(seq)));
}

/* Read back the batch its workers recorded; false if there is no such row. */
bool
ranread_group_read_batch(int64 batch, RanreadBatchFigures *figures)
{
	MemoryContext context = CurrentMemoryContext;
	Oid			types[1] = {INT8OID};
	Datum		args[1] = {Int64GetDatum(batch)};
	bool		found;

	SPI_connect();
	if (SPI_execute_with_args(psprintf("SELECT status, iops, response_time_ms, p50_ms, p99_ms, physical_pct, kb_per_read "
									   "FROM %s.ranread_batches WHERE batch OPERATOR(pg_catalog.=) $1",
									   quote_identifier(ranread_extension_schema())),
							  1, types, args, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read batch " INT64_FORMAT, batch);
	found = SPI_processed == 1;
	if (found)
	{
		HeapTuple	row = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;

		figures->batch = batch;
		figures->status = MemoryContextStrdup(context, ranread_spi_text_named(row, desc, "status", ""));
		figures->iops = ranread_spi_float_named(row, desc, "iops", -1);
		figures->mean_ms = ranread_spi_float_named(row, desc, "response_time_ms", -1);
		figures->p50_ms = ranread_spi_float_named(row, desc, "p50_ms", -1);
		figures->p99_ms = ranread_spi_float_named(row, desc, "p99_ms", -1);
		figures->physical_pct = ranread_spi_float_named(row, desc, "physical_pct", -1);
		figures->kb_per_read = ranread_spi_float_named(row, desc, "kb_per_read", -1);
	}
	SPI_finish();
	return found;
}

bool
ranread_group_batch_completed(const RanreadBatchFigures *figures)
{
	return strcmp(figures->status, "completed") == 0;
}
