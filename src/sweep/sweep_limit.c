/*-------------------------------------------------------------------------
 *
 * sweep_limit.c
 *		SELECT * FROM ranread_limit(sweep): what limits the volume a sweep
 *		read (the rule: rules/limit_rules.c), the kind with its figures and
 *		its evidence in the verdict's Limit: sentences (sweep_verdict.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "extension.h"
#include "format.h"
#include "ranread.h"
#include "sweep/sweep_verdict.h"

PG_FUNCTION_INFO_V1(ranread_limit);

/* The columns of ranread_limit(). */
#define LIMIT_COLUMNS	11

/*
 * ranread_limit(sweep): what limits the volume the sweep read, as columns
 * (kind, rate, band, MB/s, the bucket's burst, size and seconds, the refill,
 * rounded as the views round) and the evidence in words; NULL for no such
 * sweep.
 */
Datum
ranread_limit(PG_FUNCTION_ARGS)
{
	int64		sweep = PG_GETARG_INT64(0);
	RanreadSweepRecord record;
	RanreadLimit limit;
	TupleDesc	desc;
	Datum		values[LIMIT_COLUMNS];
	bool		nulls[LIMIT_COLUMNS] = {0};

	desc = ranread_result_row_desc(fcinfo, LIMIT_COLUMNS);
	if (!ranread_sweep_read(sweep, false, &record))
		PG_RETURN_NULL();
	ranread_sweep_limit(&record, &limit);
	values[0] = CStringGetTextDatum(ranread_limit_kind_name(limit.kind));
	values[1] = Float8GetDatum(ranread_round(limit.rate_iops, 1));
	values[2] = Float8GetDatum(ranread_round(limit.rate_iops * record.block_size / 1e6, 3));
	values[3] = Float8GetDatum(ranread_round(limit.rate_band_pct, 1));
	nulls[1] = nulls[2] = !(limit.rate_iops > 0);
	nulls[3] = nulls[1] || !(limit.rate_band_pct > 0);
	values[4] = BoolGetDatum(limit.bucket);
	values[5] = Float8GetDatum(ranread_round(limit.burst_iops, 1));
	values[6] = Float8GetDatum(ranread_round(limit.bucket_reads, 0));
	values[7] = Float8GetDatum(ranread_round(limit.bucket_s, 1));
	nulls[5] = nulls[6] = nulls[7] = !limit.bucket;
	values[8] = Float8GetDatum(ranread_round(limit.refill_per_s, 1));
	nulls[8] = !(limit.refill_per_s >= 0);
	values[9] = Float8GetDatum(ranread_round(limit.probe_ratio, 3));
	nulls[9] = !(limit.probe_ratio >= 0);
	values[10] = CStringGetTextDatum(ranread_sweep_limit_text(&record, &limit));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
