/*-------------------------------------------------------------------------
 *
 * row_builder.h
 *		A row for an SPI INSERT, built column by name (row_builder.c): the
 *		one way ranread writes its tables' rows, so that a new column is one
 *		call and no list of positions; written as the extension's owner and
 *		labelled with the role that ran it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_ROW_BUILDER_H
#define RANREAD_ROW_BUILDER_H

#include "lib/stringinfo.h"

#define RANREAD_ROW_MAX_COLUMNS	96

typedef struct RanreadRow
{
	StringInfoData columns;		/* "a, b, c" */
	int			n;
	Oid			types[RANREAD_ROW_MAX_COLUMNS];
	Datum		values[RANREAD_ROW_MAX_COLUMNS];
	char		nulls[RANREAD_ROW_MAX_COLUMNS];
} RanreadRow;

extern void ranread_row_add(RanreadRow *row, const char *name, Oid type, Datum value, bool isnull);
extern Datum ranread_run_by(void);
extern int	ranread_history_execute(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls);
extern int	ranread_row_insert(const RanreadRow *row, const char *schema, const char *table);
extern Datum ranread_row_array(Datum *elems, bool *nulls, int n, Oid element);

#endif							/* RANREAD_ROW_BUILDER_H */
