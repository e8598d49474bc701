/*-------------------------------------------------------------------------
 *
 * target.c
 *		Finding a ranread target and checking it is fit to be read.
 *
 * A target is an unlogged table made by ranread_setup() and registered in
 * the ranread_targets catalog table of the extension's schema.  It may have
 * been dropped since, or emptied: crash recovery resets an unlogged table to
 * zero blocks.  A run refuses both with a hint to set the target up again.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "common/relpath.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "compat.h"
#include "target.h"

/* The schema ranread was created in, looked up once per backend. */
const char *
ranread_extension_schema(void)
{
	static char *schema = NULL;

	if (schema == NULL)
	{
		Oid			ext_oid = get_extension_oid("ranread", false);
		Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
		ScanKeyData key;
		SysScanDesc scan;
		HeapTuple	tuple;
		Oid			nsp = InvalidOid;

		ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber,
					F_OIDEQ, ObjectIdGetDatum(ext_oid));
		scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
		tuple = systable_getnext(scan);
		if (HeapTupleIsValid(tuple))
			nsp = ((Form_pg_extension) GETSTRUCT(tuple))->extnamespace;
		systable_endscan(scan);
		table_close(rel, AccessShareLock);

		schema = MemoryContextStrdup(TopMemoryContext, get_namespace_name(nsp));
	}
	return schema;
}

/* Fill *target with what the catalog and the relation say about name. */
void
ranread_target_lookup(const char *name, RanreadTarget *target)
{
	StringInfoData sql;
	Oid			argtypes[1] = {NAMEOID};
	Datum		args[1];
	NameData	namedata;

	memset(target, 0, sizeof(RanreadTarget));
	target->name = name;
	namestrcpy(&namedata, name);
	args[0] = NameGetDatum(&namedata);

	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "SELECT relation::oid, blocks FROM %s.ranread_targets WHERE target = $1",
					 quote_identifier(ranread_extension_schema()));

	SPI_connect();
	if (SPI_execute_with_args(sql.data, 1, argtypes, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read ranread_targets");
	if (SPI_processed == 1)
	{
		bool		isnull;

		target->registered = true;
		target->relid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0],
													   SPI_tuptable->tupdesc, 1, &isnull));
		target->registered_blocks = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
																SPI_tuptable->tupdesc, 2, &isnull));
	}
	SPI_finish();

	if (target->registered &&
		SearchSysCacheExists1(RELOID, ObjectIdGetDatum(target->relid)))
	{
		Relation	rel = relation_open(target->relid, AccessShareLock);

		target->relation_exists = true;
		target->current_blocks = RelationGetNumberOfBlocks(rel);
		relation_close(rel, AccessShareLock);
	}
}

/*
 * Open a registered, intact target for a run, holding AccessShareLock until
 * the end of the transaction so it cannot be dropped or truncated meanwhile.
 */
Relation
ranread_target_open_for_run(const char *name)
{
	RanreadTarget target;
	Relation	rel;

	ranread_target_lookup(name, &target);
	if (!target.registered)
	{
		if (OidIsValid(get_relname_relid(name, get_namespace_oid(ranread_extension_schema(), false))))
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("relation \"%s\" is not a ranread target", name),
					 errdetail("Only tables made by ranread_setup() can be read."),
					 errhint("Create a target with ranread_setup(target => '%s') after dropping the table, or choose another name.", name)));
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("ranread target \"%s\" does not exist", name),
				 errhint("Create it with ranread_setup(target => '%s').", name)));
	}
	if (!target.relation_exists)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("ranread target \"%s\" was dropped", name),
				 errhint("Run ranread_setup(target => '%s') again.", name)));
	if ((int64) target.current_blocks != target.registered_blocks)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ranread target \"%s\" is empty or incomplete", name),
				 errdetail("It holds %u of the " INT64_FORMAT " blocks written by ranread_setup(); crash recovery empties unlogged tables.",
						   target.current_blocks, target.registered_blocks),
				 errhint("Run ranread_setup(target => '%s') again.", name)));

	rel = relation_open(target.relid, AccessShareLock);
	return rel;
}

/* Drop what is left of a target and its catalog row. */
void
ranread_target_forget(const RanreadTarget *target)
{
	StringInfoData sql;
	Oid			argtypes[1] = {NAMEOID};
	Datum		args[1];
	NameData	namedata;

	namestrcpy(&namedata, target->name);
	args[0] = NameGetDatum(&namedata);

	SPI_connect();
	initStringInfo(&sql);
	if (target->relation_exists)
	{
		appendStringInfo(&sql, "DROP TABLE %s",
						 quote_qualified_identifier(get_namespace_name(get_rel_namespace(target->relid)),
													get_rel_name(target->relid)));
		if (SPI_execute(sql.data, false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "could not drop ranread target \"%s\"", target->name);
		resetStringInfo(&sql);
	}
	appendStringInfo(&sql, "DELETE FROM %s.ranread_targets WHERE target = $1",
					 quote_identifier(ranread_extension_schema()));
	if (SPI_execute_with_args(sql.data, 1, argtypes, args, NULL, false, 0) != SPI_OK_DELETE)
		elog(ERROR, "could not update ranread_targets");
	SPI_finish();
}

BlockNumber
ranread_segment_count(BlockNumber blocks)
{
	return (blocks + RELSEG_SIZE - 1) / RELSEG_SIZE;
}

/* Path of one segment file of a main fork, relative to the data directory. */
char *
ranread_segment_path(RelFileNode node, BlockNumber segno)
{
	char	   *path = RANREAD_RELPATH(node);

	if (segno == 0)
		return path;
	return psprintf("%s.%u", path, segno);
}
