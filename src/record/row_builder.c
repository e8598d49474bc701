/*-------------------------------------------------------------------------
 *
 * row_builder.c
 *		A row for an SPI INSERT, built column by name, and the one way
 *		ranread writes its history: as the extension's owner, each row
 *		labelled with the role that ran it (run_by).  No role but the owner
 *		holds INSERT, UPDATE or DELETE on a history table, so a run records
 *		only what it measured and no role writes another's rows.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "extension.h"
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

/*
 * The current role's name, for a row's run_by: in a backend the caller (after
 * SET ROLE the role set), in a worker the role it connected as, the caller's.
 */
Datum
ranread_run_by(void)
{
	Name		name = (Name) palloc0(NAMEDATALEN);

	namestrcpy(name, GetUserNameFromId(GetUserId(), false));
	return NameGetDatum(name);
}

/*
 * Run one statement that writes ranread's history through the connected SPI,
 * as the extension's owner (a restricted operation, as maintenance commands
 * run index expressions), and return SPI_execute_with_args()'s result.  The
 * statement is ranread's own, its values parameters; the caller's role is
 * back in place afterwards, also after an error.
 */
int
ranread_history_execute(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls)
{
	Oid			caller;
	int			security_context;
	int			result = SPI_ERROR_ARGUMENT;

	GetUserIdAndSecContext(&caller, &security_context);
	SetUserIdAndSecContext(ranread_extension_owner(),
						   security_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	PG_TRY();
	{
		result = SPI_execute_with_args(sql, nargs, types, values, nulls, false, 0);
	}
	PG_FINALLY();
	{
		SetUserIdAndSecContext(caller, security_context);
	}
	PG_END_TRY();
	return result;
}

/*
 * Insert the row, and run_by, through the connected SPI
 * (ranread_history_execute()); returns its result.
 */
int
ranread_row_insert(const RanreadRow *row, const char *schema, const char *table)
{
	StringInfoData sql;
	Oid			types[RANREAD_ROW_MAX_COLUMNS + 1];
	Datum		values[RANREAD_ROW_MAX_COLUMNS + 1];
	char		nulls[RANREAD_ROW_MAX_COLUMNS + 1];

	initStringInfo(&sql);
	appendStringInfo(&sql, "INSERT INTO %s.%s (%s, run_by) VALUES (",
					 quote_identifier(schema), table, row->columns.data);
	for (int i = 0; i <= row->n; i++)
		appendStringInfo(&sql, "%s$%d", i > 0 ? ", " : "", i + 1);
	appendStringInfoChar(&sql, ')');
	memcpy(types, row->types, row->n * sizeof(Oid));
	memcpy(values, row->values, row->n * sizeof(Datum));
	memcpy(nulls, row->nulls, row->n);
	types[row->n] = NAMEOID;
	values[row->n] = ranread_run_by();
	nulls[row->n] = ' ';
	return ranread_history_execute(sql.data, row->n + 1, types, values, nulls);
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
