/*-------------------------------------------------------------------------
 *
 * histogram_sql.c
 *		SQL access to the latency histograms stored in ranread_results and
 *		ranread_batches (bigint[]: bucket k of histogram.h is element k+1):
 *		merging them (ranread_histogram_add and the aggregate
 *		ranread_histogram_merge, whose final function
 *		ranread_histogram_check checks a single row too) and reading a
 *		percentile from one (ranread_histogram_percentile), as the batch
 *		row's own columns are computed.  Each refuses what cannot be a
 *		histogram, and a total count beyond 64 bits, rather than answer
 *		wrongly (history_checks.c's checks, which readers of the tables
 *		apply too).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/int.h"
#include "fmgr.h"
#include "utils/array.h"

#include "rules/histogram.h"
#include "stats/history_checks.h"

PG_FUNCTION_INFO_V1(ranread_histogram_add);
PG_FUNCTION_INFO_V1(ranread_histogram_check);
PG_FUNCTION_INFO_V1(ranread_histogram_percentile);

/* ranread_histogram_add(a, b): the histogram of both, bucket by bucket. */
Datum
ranread_histogram_add(PG_FUNCTION_ARGS)
{
	int			na;
	int			nb;
	int64	   *a = ranread_histogram_buckets(PG_GETARG_ARRAYTYPE_P(0), &na, NULL);
	int64	   *b = ranread_histogram_buckets(PG_GETARG_ARRAYTYPE_P(1), &nb, NULL);
	int			n = Max(na, nb);
	Datum	   *sum = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
	{
		int64		total;

		if (pg_add_s64_overflow(i < na ? a[i] : 0, i < nb ? b[i] : 0, &total))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("ranread histogram bucket %d overflows", i)));
		sum[i] = Int64GetDatum(total);
	}
	PG_RETURN_ARRAYTYPE_P(construct_array(sum, n, INT8OID, sizeof(int64), FLOAT8PASSBYVAL,
										  TYPALIGN_DOUBLE));
}

/* ranread_histogram_check(h): h, if it is a histogram; else an error saying why not. */
Datum
ranread_histogram_check(PG_FUNCTION_ARGS)
{
	int			n;

	(void) ranread_histogram_buckets(PG_GETARG_ARRAYTYPE_P(0), &n, NULL);
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/*
 * ranread_histogram_percentile(histogram, fraction): the latency in ms
 * below which that fraction (0 < fraction <= 1) of the reads fall, as the
 * midpoint of its bucket; NULL for an empty histogram.  The batch columns
 * also clamp this to the batch's min and max, which the array does not hold.
 */
Datum
ranread_histogram_percentile(PG_FUNCTION_ARGS)
{
	int			n;
	int64	   *buckets = ranread_histogram_buckets(PG_GETARG_ARRAYTYPE_P(0), &n, NULL);
	double		fraction = PG_GETARG_FLOAT8(1);
	RanreadHistogram *hist = palloc0(sizeof(RanreadHistogram));

	if (!(fraction > 0 && fraction <= 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fraction must be greater than 0 and at most 1"),
				 errhint("For p99, use 0.99.")));
	/* ranread_histogram_buckets() refused a total beyond a bigint */
	for (int i = 0; i < n; i++)
	{
		hist->buckets[i] = (uint64) buckets[i];
		hist->count += (uint64) buckets[i];
	}
	if (hist->count == 0)
		PG_RETURN_NULL();
	hist->max_ns = PG_UINT64_MAX;	/* no clamping: the array has no min or max */
	PG_RETURN_FLOAT8(ranread_hist_percentile_ms(hist, fraction));
}
