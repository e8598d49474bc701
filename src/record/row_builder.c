/*-------------------------------------------------------------------------
 *
 * row_builder.c
 *		A row for an SPI INSERT, built column by name.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "record/row_builder.h"

/* Add column `name` (NULL if isnull) to the row; a new row starts zeroed. */
void
ranread_row_add(RanreadRow *row, const char *name, Oid type, Datum value, bool isnull)
{
	if (row->n >= RANREAD_ROW_MAX_COLUMNS)
		elog(ERROR, "a ranread row has more than %d columns", RANREAD_ROW_MAX_COLUMNS);
	if (row->n == 0)
		initStringInfo(&row->columns);
	appendStringInfo(&row->columns, "%s%s", row->n > 0 ? ", " : "", name);
	row->types[row->n] = type;
	row->values[row->n] = value;
	row->nulls[row->n] = isnull ? 'n' : ' ';
	row->n++;
}

/* INSERT INTO schema.table (its columns) VALUES ($1, ...), schema quoted here. */
static char *
insert_sql(const RanreadRow *row, const char *schema, const char *table)
{
	StringInfoData sql;

	initStringInfo(&sql);
	appendStringInfo(&sql, "INSERT INTO %s.%s (%s) VALUES (",
					 quote_identifier(schema), table, row->columns.data);
	for (int i = 0; i < row->n; i++)
		appendStringInfo(&sql, "%s$%d", i > 0 ? ", " : "", i + 1);
	appendStringInfoChar(&sql, ')');
	return sql.data;
}

/* Insert the row through the connected SPI; returns SPI_execute_with_args()'s result. */
int
ranread_row_insert(const RanreadRow *row, const char *schema, const char *table)
{
	return SPI_execute_with_args(insert_sql(row, schema, table), row->n,
								 (Oid *) row->types, (Datum *) row->values, row->nulls, false, 0);
}

/*
 * A one-dimensional array of n elements of type element, NULL where nulls
 * says: a value for an INSERT that unnests arrays into rows (the series).
 */
Datum
ranread_row_array(Datum *elems, bool *nulls, int n, Oid element)
{
	int			dims[1] = {n};
	int			lbs[1] = {1};
	int16		typlen;
	bool		typbyval;
	char		typalign;

	get_typlenbyvalalign(element, &typlen, &typbyval, &typalign);
	return PointerGetDatum(construct_md_array(elems, nulls, 1, dims, lbs, element, typlen, typbyval, typalign));
}
