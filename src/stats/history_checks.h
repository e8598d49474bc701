/*-------------------------------------------------------------------------
 *
 * history_checks.h
 *		The checks a reader of ranread's history tables applies to a stored
 *		value before it uses it (history_checks.c): roles that run
 *		benchmarks may INSERT those rows, so each is input.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_HISTORY_CHECKS_H
#define RANREAD_HISTORY_CHECKS_H

#include "utils/array.h"

extern int64 *ranread_histogram_buckets(ArrayType *array, int *n, const char *whose);
extern uint64 ranread_history_ns(double ms);

#endif							/* RANREAD_HISTORY_CHECKS_H */
