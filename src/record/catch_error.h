/*-------------------------------------------------------------------------
 *
 * catch_error.h
 *		Carry on after an error (catch_error.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_CATCH_ERROR_H
#define RANREAD_CATCH_ERROR_H

#include "utils/elog.h"
#include "utils/palloc.h"

extern ErrorData *ranread_catch_error(MemoryContext context);

#endif							/* RANREAD_CATCH_ERROR_H */
