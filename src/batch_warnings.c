/*-------------------------------------------------------------------------
 *
 * batch_warnings.c
 *		The WARNINGs a batch's leader raises, sent to the caller and the
 *		server log as any WARNING, and kept for the batch's row
 *		(ranread_batches.warnings), so that its report
 *		(ranread_report_html()) shows every one.
 *
 * RANREAD_BATCH_WARNING((errmsg(...), errdetail(...), ...)) takes what
 * ereport(WARNING, ...) takes.  It makes the message as an ERROR, catches it
 * at once, keeps its text and raises it again with ThrowErrorData() (as
 * PostgreSQL raises a parallel worker's messages in the leader), unchanged
 * but for its level: the message, detail and hint are the WARNING's own,
 * and its SQLSTATE 01000 unless it names one.  Between the throw and the
 * catch nothing runs but the message's own formatting, so nothing needs
 * cleaning up; the interrupt holdoff counts that an ERROR resets are put
 * back.  A WARNING raised while no batch keeps its warnings is only raised.
 *
 * The warnings kept live in the memory context that was current when the
 * batch began keeping them (the caller's, for the batch's run); should that
 * context go (an error ended the batch), the batch stops keeping them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "utils/memutils.h"

#include "batch_warnings.h"

/* At most this many warnings, each at most this many bytes, are kept. */
#define BATCH_MAX_WARNINGS			50
#define BATCH_MAX_WARNING_BYTES		2000

static List *kept = NIL;
static MemoryContext kept_context = NULL;
/* the reset callback of the batch keeping now (one an earlier batch left is not) */
static MemoryContextCallback *keeping = NULL;

/* A batch's context went: if that batch still keeps its warnings, stop. */
static void
forget_kept(void *arg)
{
	if (arg != keeping)
		return;
	kept = NIL;
	kept_context = NULL;
	keeping = NULL;
}

/* From now on, until ranread_batch_warnings_end(), keep the batch's warnings. */
void
ranread_batch_warnings_begin(void)
{
	MemoryContextCallback *gone = palloc(sizeof(MemoryContextCallback));

	gone->func = forget_kept;
	gone->arg = gone;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, gone);
	kept = NIL;
	kept_context = CurrentMemoryContext;
	keeping = gone;
}

/*
 * Stop keeping; the warnings kept since ranread_batch_warnings_begin(), in
 * order, as text (the message, then "DETAIL:  " and the detail on a line of
 * its own, as psql shows them), in the context current at its call.
 */
List *
ranread_batch_warnings_end(void)
{
	List	   *warnings = kept;

	kept = NIL;
	kept_context = NULL;
	keeping = NULL;
	return warnings;
}

/*
 * RANREAD_BATCH_WARNING()'s catch: the error being handled raised again at
 * WARNING, and kept if a batch keeps its warnings.  context is the memory
 * context current before the throw; holdoff and cancel_holdoff the counts
 * of interrupts held off then.
 */
void
ranread_batch_warning_raise(MemoryContext context, uint32 holdoff, uint32 cancel_holdoff)
{
	ErrorData  *edata;

	InterruptHoldoffCount = holdoff;
	QueryCancelHoldoffCount = cancel_holdoff;
	MemoryContextSwitchTo(context);
	edata = CopyErrorData();
	FlushErrorState();
	edata->elevel = WARNING;
	if (edata->sqlerrcode == ERRCODE_INTERNAL_ERROR)
		edata->sqlerrcode = ERRCODE_WARNING;
	/* errfinish() adds the context callbacks' lines again */
	edata->context = NULL;
	if (kept_context != NULL && list_length(kept) < BATCH_MAX_WARNINGS)
	{
		MemoryContext caller = MemoryContextSwitchTo(kept_context);
		char	   *text = edata->detail != NULL ?
			psprintf("%s\nDETAIL:  %s", edata->message, edata->detail) : pstrdup(edata->message);

		if (strlen(text) > BATCH_MAX_WARNING_BYTES)
			text[pg_mbcliplen(text, strlen(text), BATCH_MAX_WARNING_BYTES)] = '\0';
		kept = lappend(kept, text);
		MemoryContextSwitchTo(caller);
	}
	ThrowErrorData(edata);
	FreeErrorData(edata);
}
