/*-------------------------------------------------------------------------
 *
 * batch_warnings.h
 *		The WARNINGs of a batch, sent as ever and kept for its row
 *		(batch_warnings.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_BATCH_WARNINGS_H
#define RANREAD_BATCH_WARNINGS_H

#include "miscadmin.h"
#include "nodes/pg_list.h"

extern void ranread_batch_warnings_begin(void);
extern List *ranread_batch_warnings_end(void);
extern void ranread_batch_warning_raise(MemoryContext context, uint32 holdoff, uint32 cancel_holdoff);

/*
 * ereport(WARNING, rest), the WARNING kept for the batch's row while a batch
 * keeps its warnings: the message is made as an ERROR's, caught at once and
 * raised again at WARNING by ranread_batch_warning_raise().
 */
#define RANREAD_BATCH_WARNING(rest) \
	do { \
		MemoryContext batch_warning_context_ = CurrentMemoryContext; \
		uint32		batch_warning_holdoff_ = InterruptHoldoffCount; \
		uint32		batch_warning_cancel_holdoff_ = QueryCancelHoldoffCount; \
		\
		PG_TRY(); \
		{ \
			ereport(ERROR, rest); \
		} \
		PG_CATCH(); \
		{ \
			ranread_batch_warning_raise(batch_warning_context_, batch_warning_holdoff_, \
										batch_warning_cancel_holdoff_); \
		} \
		PG_END_TRY(); \
	} while (0)

/* ereport(elevel, rest), kept as RANREAD_BATCH_WARNING() keeps it if elevel is WARNING. */
#define RANREAD_BATCH_REPORT(elevel, rest) \
	do { \
		if ((elevel) == WARNING) \
			RANREAD_BATCH_WARNING(rest); \
		else \
			ereport(elevel, rest); \
	} while (0)

#endif							/* RANREAD_BATCH_WARNINGS_H */
