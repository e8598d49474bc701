/*-------------------------------------------------------------------------
 *
 * catch_error.c
 *		Carry on after an error: what a worker does when a step fails.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"

#include "record/catch_error.h"

/*
 * In a PG_CATCH block: take the error, in context, and abort the current
 * transaction, so that a worker can carry on (results.c after a row it
 * could not record, worker.c after a failed read loop, stat_io.c after
 * pg_stat_io could not be read).
 */
ErrorData *
ranread_catch_error(MemoryContext context)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(context);
	edata = CopyErrorData();
	FlushErrorState();
	AbortCurrentTransaction();
	return edata;
}
