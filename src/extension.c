/*-------------------------------------------------------------------------
 *
 * extension.c
 *		The ranread extension itself: its OID, its schema, whether its SQL
 *		objects are the version this library was built for, and whether the
 *		row a caller declared has the columns a function fills.
 *
 * Nothing is cached across calls: the extension may be dropped and created
 * again in another schema within one session.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/lsyscache.h"

#include "extension.h"

Oid
ranread_extension_oid(void)
{
	return get_extension_oid("ranread", false);
}

/* The row of pg_extension of extension ext_oid, copied (an error if none). */
static Form_pg_extension
extension_row(Oid ext_oid)
{
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	Form_pg_extension row = NULL;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(ext_oid));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
	{
		row = palloc(sizeof(FormData_pg_extension));
		memcpy(row, GETSTRUCT(tuple), sizeof(FormData_pg_extension));
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (row == NULL)
		elog(ERROR, "extension %u not found", ext_oid);
	return row;
}

/* The role that created ranread (a superuser: the extension is not trusted). */
Oid
ranread_extension_owner(void)
{
	return extension_row(ranread_extension_oid())->extowner;
}

/* The schema ranread was created in. */
const char *
ranread_extension_schema(void)
{
	return ranread_extension_schema_of(ranread_extension_oid());
}

/* The schema extension ext_oid was created in (ranread's, or dblink's). */
const char *
ranread_extension_schema_of(Oid ext_oid)
{
	return get_namespace_name(extension_row(ext_oid)->extnamespace);
}

/*
 * Refuse to run against SQL objects of another version: after a new library
 * is installed and before ALTER EXTENSION ranread UPDATE, the tables lack
 * the columns this library records, and a run would lose its rows.
 */
void
ranread_check_sql_version(void)
{
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	char	   *installed = NULL;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(ranread_extension_oid()));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
	{
		bool		isnull;
		Datum		version = heap_getattr(tuple, Anum_pg_extension_extversion,
										   RelationGetDescr(rel), &isnull);

		if (!isnull)
			installed = text_to_cstring(DatumGetTextPP(version));
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);

	if (installed == NULL || strcmp(installed, RANREAD_VERSION) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ranread's SQL objects are version %s, but its library is version %s",
						installed ? installed : "unknown", RANREAD_VERSION),
				 errhint("Run ALTER EXTENSION ranread UPDATE.")));
}

/*
 * Check that the row type the caller expects (a function's declared result,
 * or a column definition list) has the `filled` columns a C function fills
 * by position, before it fills any: a declaration of another version, or
 * one made over this library's symbol by hand, would otherwise have values
 * read past those filled or taken as another type.  pg_stat_statements
 * makes the same check; the message is the executor's for the same mismatch.
 */
void
ranread_check_result_columns(TupleDesc desc, int filled)
{
	if (desc->natts != filled)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("function return row and query-specified return row do not match"),
				 errdetail_plural("Returned row contains %d attribute, but query expects %d.",
								  "Returned row contains %d attributes, but query expects %d.",
								  filled, filled, desc->natts)));
}

/*
 * The row type a function returning one row must fill: its declared result,
 * checked to have the `filled` columns it fills (above).
 */
TupleDesc
ranread_result_row_desc(FunctionCallInfo fcinfo, int filled)
{
	TupleDesc	desc;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	ranread_check_result_columns(desc, filled);
	return desc;
}
