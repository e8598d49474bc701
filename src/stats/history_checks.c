/*-------------------------------------------------------------------------
 *
 * history_checks.c
 *		The checks a reader of ranread's history tables applies to a stored
 *		value before it uses it.  The GRANT block of docs/reference.md lets
 *		the roles that run benchmarks INSERT into those tables, so a row is
 *		input: a stored latency histogram is checked as the histogram
 *		functions check their arguments, and refused with the row it came
 *		from named; a latency in ms becomes nanoseconds without leaving
 *		their range.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/int.h"

#include "rules/histogram.h"
#include "stats/history_checks.h"

#define NS_PER_MS	1000000.0

/*
 * The buckets of a stored histogram (bucket k of histogram.h is element
 * k+1), *n of them; an error with SQLSTATE 22023 (22003 for a count beyond
 * a bigint) for what cannot be one: more than one dimension, a NULL
 * element, more buckets than histogram.h has, a negative count, or counts
 * that add up to more reads than a bigint holds.  `whose`, when not NULL,
 * names the row the histogram was read from ("batch 12 in
 * ranread_batches") in the error's context.
 */
int64 *
ranread_histogram_buckets(ArrayType *array, int *n, const char *whose)
{
	Datum	   *elems;
	int64	   *buckets;
	int64		total = 0;

	if (ARR_NDIM(array) > 1 || array_contains_nulls(array))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a ranread histogram must be a one-dimensional bigint array without nulls"),
				 whose ? errcontext("histogram of %s", whose) : 0));
	if (ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array)) > RANREAD_HIST_BUCKETS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a ranread histogram has at most %d buckets", RANREAD_HIST_BUCKETS),
				 errdetail("The array given has %d elements.", ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array))),
				 whose ? errcontext("histogram of %s", whose) : 0));
	deconstruct_array(array, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elems, NULL, n);
	buckets = palloc(sizeof(int64) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
	{
		buckets[i] = DatumGetInt64(elems[i]);
		if (buckets[i] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a ranread histogram cannot count a negative number of reads"),
					 errdetail("Bucket %d holds " INT64_FORMAT ".", i, buckets[i]),
					 whose ? errcontext("histogram of %s", whose) : 0));
		/* a count that wrapped would put a percentile in the wrong bucket */
		if (pg_add_s64_overflow(total, buckets[i], &total))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("ranread histogram counts more reads than a bigint holds"),
					 errdetail("Its buckets add up to more than " INT64_FORMAT " reads.", PG_INT64_MAX),
					 whose ? errcontext("histogram of %s", whose) : 0));
	}
	return buckets;
}

/*
 * A stored latency in ms as nanoseconds: 0 for what is not a latency (NaN,
 * negative), and at most the largest uint64 for what is too long.
 */
uint64
ranread_history_ns(double ms)
{
	double		ns = ms * NS_PER_MS;

	if (!(ns > 0))
		return 0;
	if (ns >= (double) PG_UINT64_MAX)
		return PG_UINT64_MAX;
	return (uint64) ns;
}
