/*-------------------------------------------------------------------------
 *
 * write_sweep_decide.c
 *		ranread_write_sweep_decide(): the write sweep's rule book
 *		(write_sweep_rules.c) for one step, so that the write sweep
 *		(PL/pgSQL, sql/ranread--1.2--1.3.sql) decides in C as the fleet
 *		sweep does through ranread_sweep_decide().
 *
 * The write sweep passes a step's figures, pooled over its batches (the
 * writers' rate asked and achieved, their mean and p99 commit latency, the
 * readers' p99 and its band, how many batches), and its bounds.  The answer:
 * the decision ('go on', 'repeat', or the name of the rule that stops the
 * sweep) and whether the step was within the SLO.  It is a pure function of
 * its arguments, as ranread_sweep_decide() is, so it is left executable by
 * PUBLIC.  Figures that are negative or not finite are refused with 22023,
 * a NULL where a value is needed with 22004.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "rules/write_sweep_rules.h"

PG_FUNCTION_INFO_V1(ranread_write_sweep_decide);

/* ranread_write_sweep_decide()'s arguments, in the order of its SQL signature. */
typedef enum WriteDecideArgument
{
	ARG_WRITE_RATE_IOPS,
	ARG_WRITE_IOPS,
	ARG_WRITE_MEAN_MS,
	ARG_WRITE_P99_MS,
	ARG_COMPLETED,
	ARG_READ_P99_MS,
	ARG_READ_P99_BAND_PCT,
	ARG_RUNS,
	ARG_MAX_WRITE_RATE_IOPS,
	ARG_SLO_WRITE_MEAN_MS,
	ARG_SLO_WRITE_P99_MS,
	ARG_SLO_P99_MS,
	N_ARGS
} WriteDecideArgument;

/* The arguments' names, for the messages. */
static const char *const argument_names[N_ARGS] = {
	"write_rate_iops", "write_iops", "write_mean_ms", "write_p99_ms", "completed", "read_p99_ms",
	"read_p99_band_pct", "runs", "max_write_rate_iops", "slo_write_mean_ms", "slo_write_p99_ms",
	"slo_p99_ms"
};

/*
 * A float8 argument: `otherwise` if NULL and allowed to be, else refused; a
 * value that is negative or not finite is refused.
 */
static double
figure(FunctionCallInfo fcinfo, WriteDecideArgument arg, bool nullable, double otherwise)
{
	double		value;

	if (PG_ARGISNULL(arg))
	{
		if (!nullable)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not be null", argument_names[arg])));
		return otherwise;
	}
	value = PG_GETARG_FLOAT8(arg);
	if (!(value >= 0) || isinf(value))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a number of at least 0", argument_names[arg]),
				 errdetail("The value given is %g.", value)));
	return value;
}

/*
 * ranread_write_sweep_decide(write_rate_iops, write_iops, write_mean_ms,
 * write_p99_ms, completed, read_p99_ms, read_p99_band_pct, runs,
 * max_write_rate_iops, slo_write_mean_ms, slo_write_p99_ms, slo_p99_ms,
 * OUT decision, OUT within_slo): a write sweep's step judged.  read_p99_ms
 * NULL: the step had no readers; a latency NULL (no writes) is outside any
 * bound on it; a bound NULL is not checked.
 */
Datum
ranread_write_sweep_decide(PG_FUNCTION_ARGS)
{
	RanreadWriteSweepStep step = {0};
	RanreadWriteSweepRules rules = {0};
	TupleDesc	desc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (PG_NARGS() != N_ARGS)
		elog(ERROR, "ranread_write_sweep_decide() has %d arguments, but this library knows %d",
			 PG_NARGS(), N_ARGS);
	step.write_rate_iops = figure(fcinfo, ARG_WRITE_RATE_IOPS, false, 0);
	step.write_iops = figure(fcinfo, ARG_WRITE_IOPS, false, 0);
	step.write_mean_ms = figure(fcinfo, ARG_WRITE_MEAN_MS, true, NAN);
	step.write_p99_ms = figure(fcinfo, ARG_WRITE_P99_MS, true, NAN);
	if (PG_ARGISNULL(ARG_COMPLETED) || PG_ARGISNULL(ARG_RUNS))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("completed and runs must not be null")));
	step.completed = PG_GETARG_BOOL(ARG_COMPLETED);
	step.readers = !PG_ARGISNULL(ARG_READ_P99_MS);
	step.read_p99_ms = figure(fcinfo, ARG_READ_P99_MS, true, 0);
	step.read_p99_band_pct = figure(fcinfo, ARG_READ_P99_BAND_PCT, true, -1);
	step.runs = PG_GETARG_INT32(ARG_RUNS);
	if (step.runs < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("runs must be at least 1"),
				 errdetail("The value given is %d.", step.runs)));
	rules.max_write_rate_iops = figure(fcinfo, ARG_MAX_WRITE_RATE_IOPS, true, 0);
	rules.slo_write_mean_ms = figure(fcinfo, ARG_SLO_WRITE_MEAN_MS, true, 0);
	rules.slo_write_p99_ms = figure(fcinfo, ARG_SLO_WRITE_P99_MS, true, 0);
	rules.slo_p99_ms = figure(fcinfo, ARG_SLO_P99_MS, true, 0);

	values[0] = CStringGetTextDatum(ranread_write_sweep_stop_name(ranread_write_sweep_decide_step(&step, &rules)));
	values[1] = BoolGetDatum(ranread_write_sweep_within_slo(&step, &rules));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
