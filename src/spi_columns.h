/*-------------------------------------------------------------------------
 *
 * spi_columns.h
 *		A column of an SPI result row as a C value, with what to use when it
 *		is NULL: the one way the sweep, chart and compare code read rows.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_SPI_COLUMNS_H
#define RANREAD_SPI_COLUMNS_H

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

#endif							/* RANREAD_SPI_COLUMNS_H */
