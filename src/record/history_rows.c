/*-------------------------------------------------------------------------
 *
 * history_rows.c
 *		ranread_history_insert() and ranread_history_update(): how the fleet
 *		run and the write sweep (PL/pgSQL, running as their caller) record
 *		their rows, which no role but the extension's owner may write.
 *
 * Each writes one table of a fixed list, as the extension's owner
 * (ranread_history_execute()), and only the rows of the number this session
 * drew last from the table's sequence: a fleet or a write sweep records its
 * own rows and nobody else's, and a row planted at a number another session
 * will draw cannot be written.  Inserted rows name the caller in run_by; an
 * update reaches only rows that name the caller.  The row's values come as
 * a jsonb object keyed by column (to_jsonb() of a row of the table, or
 * jsonb_build_object()), so that each routine keeps its queries.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "extension.h"
#include "record/row_builder.h"
#include "spi_columns.h"

PG_FUNCTION_INFO_V1(ranread_history_insert);
PG_FUNCTION_INFO_V1(ranread_history_update);

/* A table these functions write: its key, drawn from its sequence. */
typedef struct HistoryTable
{
	const char *table;
	const char *key;
	const char *sequence;
} HistoryTable;

static const HistoryTable history_tables[] = {
	{"ranread_fleet_runs", "fleet", "ranread_fleet_seq"},
	{"ranread_fleet_servers", "fleet", "ranread_fleet_seq"},
	{"ranread_write_sweeps", "write_sweep", "ranread_write_sweep_seq"},
	{"ranread_write_sweep_steps", "write_sweep", "ranread_write_sweep_seq"},
};

/* The table named, one of history_tables (22023 otherwise). */
static const HistoryTable *
history_table(text *name)
{
	char	   *table = text_to_cstring(name);

	for (int i = 0; i < lengthof(history_tables); i++)
		if (strcmp(history_tables[i].table, table) == 0)
			return &history_tables[i];
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("ranread does not record rows of \"%s\" this way", table),
			 errhint("The tables are ranread_fleet_runs, ranread_fleet_servers, ranread_write_sweeps and ranread_write_sweep_steps.")));
	return NULL;				/* not reached */
}

/*
 * The columns an object names, each a column of the table and none run_by
 * (which is the caller) nor, if !with_key, the table's key.
 */
static List *
object_columns(Jsonb *object, Oid relid, const HistoryTable *table, bool with_key)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken token;
	List	   *columns = NIL;

	if (!JB_ROOT_IS_OBJECT(object) || JB_ROOT_IS_SCALAR(object))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a row of %s must be given as a JSON object", table->table)));
	it = JsonbIteratorInit(&object->root);
	while ((token = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		char	   *column;

		if (token != WJB_KEY)
			continue;
		column = pnstrdup(v.val.string.val, v.val.string.len);
		if (get_attnum(relid, column) <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of relation \"%s\" does not exist", column, table->table)));
		if (strcmp(column, "run_by") == 0 || (!with_key && strcmp(column, table->key) == 0))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("column \"%s\" of %s is ranread's to set", column, table->table),
					 errdetail("run_by names the caller, and a row keeps the %s it was recorded for.",
							   table->key)));
		columns = lappend(columns, column);
	}
	return columns;
}

/* The number this session drew last from the table's sequence (55000 if none). */
static int64
drawn_number(const char *schema, const HistoryTable *table)
{
	Oid			types[] = {REGCLASSOID};
	Datum		values[1];

	values[0] = ObjectIdGetDatum(get_relname_relid(table->sequence, get_namespace_oid(schema, false)));
	if (ranread_history_execute("SELECT pg_catalog.currval($1) AS drawn", 1, types, values, NULL) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not read the session's %s", table->sequence);
	return ranread_spi_int_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "drawn", 0);
}

static void
refuse_other_number(const HistoryTable *table, int64 drawn)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("a row of %s may be recorded only for the %s this session drew last", table->table, table->key),
			 errdetail("This session drew %s " INT64_FORMAT ".", table->key, drawn)));
}

/*
 * ranread_history_insert(history_table text, fields jsonb): insert one row,
 * its run_by the caller, for the number this session drew last.
 */
Datum
ranread_history_insert(PG_FUNCTION_ARGS)
{
	const HistoryTable *table = history_table(PG_GETARG_TEXT_PP(0));
	Jsonb	   *fields = PG_GETARG_JSONB_P(1);
	const char *schema = ranread_extension_schema();
	Oid			relid = get_relname_relid(table->table, get_namespace_oid(schema, false));
	const char *qualified = quote_qualified_identifier(schema, table->table);
	List	   *columns = object_columns(fields, relid, table, true);
	StringInfoData names;
	StringInfoData picks;
	ListCell   *lc;
	Oid			types[] = {JSONBOID, NAMEOID, INT8OID};
	Datum		values[3];
	int64		drawn;

	initStringInfo(&names);
	initStringInfo(&picks);
	foreach(lc, columns)
	{
		appendStringInfo(&names, "%s, ", quote_identifier(lfirst(lc)));
		appendStringInfo(&picks, "r.%s, ", quote_identifier(lfirst(lc)));
	}
	SPI_connect();
	drawn = drawn_number(schema, table);
	values[0] = JsonbPGetDatum(fields);
	values[1] = ranread_run_by();
	values[2] = Int64GetDatum(drawn);
	if (ranread_history_execute(psprintf("INSERT INTO %s (%srun_by) SELECT %s$2 "
										 "FROM pg_catalog.jsonb_populate_record(NULL::%s, $1) r "
										 "WHERE r.%s OPERATOR(pg_catalog.=) $3",
										 qualified, names.data, picks.data, qualified,
										 quote_identifier(table->key)),
								lengthof(types), types, values, NULL) != SPI_OK_INSERT)
		elog(ERROR, "could not insert into %s", table->table);
	if (SPI_processed != 1)
		refuse_other_number(table, drawn);
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * ranread_history_update(history_table text, fields jsonb, matching jsonb):
 * set the columns of `fields` in the caller's rows of the number this
 * session drew last whose columns equal those of `matching` ('{}': all of
 * them); returns how many rows it changed.
 */
Datum
ranread_history_update(PG_FUNCTION_ARGS)
{
	const HistoryTable *table = history_table(PG_GETARG_TEXT_PP(0));
	Jsonb	   *fields = PG_GETARG_JSONB_P(1);
	Jsonb	   *matching = PG_GETARG_JSONB_P(2);
	const char *schema = ranread_extension_schema();
	Oid			relid = get_relname_relid(table->table, get_namespace_oid(schema, false));
	const char *qualified = quote_qualified_identifier(schema, table->table);
	List	   *set_columns = object_columns(fields, relid, table, false);
	List	   *match_columns = object_columns(matching, relid, table, false);
	StringInfoData sets;
	StringInfoData conditions;
	ListCell   *lc;
	Oid			types[] = {JSONBOID, NAMEOID, INT8OID, JSONBOID};
	Datum		values[4];
	int64		changed;

	if (set_columns == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no column of %s to set", table->table)));
	initStringInfo(&sets);
	initStringInfo(&conditions);
	foreach(lc, set_columns)
		appendStringInfo(&sets, "%s%s = r.%s", foreach_current_index(lc) > 0 ? ", " : "",
						 quote_identifier(lfirst(lc)), quote_identifier(lfirst(lc)));
	foreach(lc, match_columns)
		appendStringInfo(&conditions, " AND t.%s OPERATOR(pg_catalog.=) m.%s",
						 quote_identifier(lfirst(lc)), quote_identifier(lfirst(lc)));
	SPI_connect();
	values[0] = JsonbPGetDatum(fields);
	values[1] = ranread_run_by();
	values[2] = Int64GetDatum(drawn_number(schema, table));
	values[3] = JsonbPGetDatum(matching);
	if (ranread_history_execute(psprintf("UPDATE %s AS t SET %s "
										 "FROM pg_catalog.jsonb_populate_record(NULL::%s, $1) r, "
										 "pg_catalog.jsonb_populate_record(NULL::%s, $4) m "
										 "WHERE t.%s OPERATOR(pg_catalog.=) $3 AND t.run_by OPERATOR(pg_catalog.=) $2%s",
										 qualified, sets.data, qualified, qualified,
										 quote_identifier(table->key), conditions.data),
								lengthof(types), types, values, NULL) != SPI_OK_UPDATE)
		elog(ERROR, "could not update %s", table->table);
	changed = SPI_processed;
	SPI_finish();
	PG_RETURN_INT64(changed);
}
