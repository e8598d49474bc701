/*-------------------------------------------------------------------------
 *
 * spi_columns.h
 *		A column of an SPI result row as a C value, by its name in the
 *		query's SELECT list, with what to use when it is NULL: the one way
 *		ranread reads the rows of its queries, so that a list reordered or
 *		grown cannot be read as another column (as row_builder.c's writer
 *		does not depend on a table's order).  Also the rows of a query's one
 *		bigint column as an array, and a column's text by number for the
 *		writers that copy every column of a result in its order (export.c).
 *		scripts/lint.sh fails if SPI_getbinval() or SPI_getvalue() is called
 *		anywhere else.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_SPI_COLUMNS_H
#define RANREAD_SPI_COLUMNS_H

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"

/* The number (from 1) of the column named `name` in the result; an error if there is none. */
static inline int
ranread_spi_column(TupleDesc desc, const char *name)
{
	int			n = SPI_fnumber(desc, name);

	if (n <= 0)
		elog(ERROR, "column \"%s\" is not in the result", name);
	return n;
}

/* The column named `name` as a Datum, *isnull set. */
static inline Datum
ranread_spi_datum_named(HeapTuple row, TupleDesc desc, const char *name, bool *isnull)
{
	return SPI_getbinval(row, desc, ranread_spi_column(desc, name), isnull);
}

/* A float8 column by name, or `otherwise` if NULL. */
static inline double
ranread_spi_float_named(HeapTuple row, TupleDesc desc, const char *name, double otherwise)
{
	bool		isnull;
	Datum		value = ranread_spi_datum_named(row, desc, name, &isnull);

	return isnull ? otherwise : DatumGetFloat8(value);
}

/* A text column by name as a string in the current memory context, or `otherwise` if NULL. */
static inline char *
ranread_spi_text_named(HeapTuple row, TupleDesc desc, const char *name, char *otherwise)
{
	bool		isnull;
	Datum		value = ranread_spi_datum_named(row, desc, name, &isnull);

	return isnull ? otherwise : TextDatumGetCString(value);
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

/* A boolean column by name, or `otherwise` if NULL. */
static inline bool
ranread_spi_bool_named(HeapTuple row, TupleDesc desc, const char *name, bool otherwise)
{
	bool		isnull;
	Datum		value = ranread_spi_datum_named(row, desc, name, &isnull);

	return isnull ? otherwise : DatumGetBool(value);
}

/* A column of any type by name, as its type's output function writes it; NULL if NULL. */
static inline char *
ranread_spi_output_named(HeapTuple row, TupleDesc desc, const char *name)
{
	return SPI_getvalue(row, desc, ranread_spi_column(desc, name));
}

/*
 * Column `n` (from 1) as its type's output function writes it, NULL if NULL:
 * only for a writer that copies every column of a result in its order.
 */
static inline char *
ranread_spi_output_at(HeapTuple row, TupleDesc desc, int n)
{
	return SPI_getvalue(row, desc, n);
}

/*
 * The int4 or int8 column `name` of every row of the last SPI query, in
 * order, NULLs as 0; *n gets how many.
 */
static inline int64 *
ranread_spi_int_column(const char *name, int *n)
{
	int64	   *values;

	*n = (int) SPI_processed;
	values = palloc(sizeof(int64) * Max(1, *n));
	for (int i = 0; i < *n; i++)
		values[i] = ranread_spi_int_named(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, name, 0);
	return values;
}

#endif							/* RANREAD_SPI_COLUMNS_H */
