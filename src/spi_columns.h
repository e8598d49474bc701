/*-------------------------------------------------------------------------
 *
 * spi_columns.h
 *		A column of an SPI result row as a C value, by position or by name,
 *		with what to use when it is NULL: the one way the sweep, chart and
 *		compare code read rows.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_SPI_COLUMNS_H
#define RANREAD_SPI_COLUMNS_H

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"

/* Column `n` (from 1) of `row` as a float8, or `otherwise` if NULL. */
static inline double
ranread_spi_float(HeapTuple row, TupleDesc desc, int n, double otherwise)
{
	bool		isnull;
	Datum		value = SPI_getbinval(row, desc, n, &isnull);

	return isnull ? otherwise : DatumGetFloat8(value);
}

/* Column `n` (from 1) of `row` as a string in the current memory context, or `otherwise` if NULL. */
static inline char *
ranread_spi_text(HeapTuple row, TupleDesc desc, int n, char *otherwise)
{
	bool		isnull;
	Datum		value = SPI_getbinval(row, desc, n, &isnull);

	return isnull ? otherwise : TextDatumGetCString(value);
}

/*
 * The same, by the column's name in the query's SELECT list: a reader then
 * does not depend on the list's order (as results.c's row writer does not).
 */
static inline int
ranread_spi_column(TupleDesc desc, const char *name)
{
	int			n = SPI_fnumber(desc, name);

	if (n <= 0)
		elog(ERROR, "column \"%s\" is not in the result", name);
	return n;
}

static inline double
ranread_spi_float_named(HeapTuple row, TupleDesc desc, const char *name, double otherwise)
{
	return ranread_spi_float(row, desc, ranread_spi_column(desc, name), otherwise);
}

static inline char *
ranread_spi_text_named(HeapTuple row, TupleDesc desc, const char *name, char *otherwise)
{
	return ranread_spi_text(row, desc, ranread_spi_column(desc, name), otherwise);
}

/* An int4 or int8 column by name, or `otherwise` if NULL. */
static inline int64
ranread_spi_int_named(HeapTuple row, TupleDesc desc, const char *name, int64 otherwise)
{
	int			n = ranread_spi_column(desc, name);
	bool		isnull;
	Datum		value = SPI_getbinval(row, desc, n, &isnull);

	if (isnull)
		return otherwise;
	return SPI_gettypeid(desc, n) == INT8OID ? DatumGetInt64(value) : DatumGetInt32(value);
}

#endif							/* RANREAD_SPI_COLUMNS_H */
