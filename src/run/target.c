/*-------------------------------------------------------------------------
 *
 * target.c
 *		Finding a ranread target, proving ranread made it, and removing it.
 *
 * A target is an unlogged table that ranread_setup() created in the
 * extension's schema, under the target's name, and made a member of the
 * extension.  Only the extension's owner can make a relation a member of an
 * extension, so membership is the proof that ranread made the table: a row
 * in ranread_targets (which granted roles may write) is never enough for
 * ranread to read, lock or drop a relation.  The row holds what setup wrote
 * (the size), so a run can tell a target that was emptied (crash recovery
 * resets unlogged tables; TRUNCATE) from an intact one.
 *
 * Lookups follow PostgreSQL's lock-then-recheck pattern
 * (RangeVarGetRelidExtended): the relation is checked before it is locked
 * and again after, so a concurrent DROP gives a clear error, never a
 * failed catalog lookup.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "extension.h"
#include "os/osstats.h"
#include "run/target.h"
#include "spi_columns.h"

/* True if relid is an unlogged table that is a member of the extension. */
static bool
is_ranread_target(Oid relid)
{
	return get_rel_relkind(relid) == RELKIND_RELATION &&
		get_rel_persistence(relid) == RELPERSISTENCE_UNLOGGED &&
		getExtensionOfObject(RelationRelationId, relid) == ranread_extension_oid();
}

/*
 * RangeVarGetRelidExtended callback: refuse, before it is locked, a relation
 * of the target's name that ranread did not make.  Called again after the
 * lock is taken, so what it checks holds while the lock is held.
 */
static void
refuse_foreign_relation(const RangeVar *relation, Oid relid, Oid oldrelid, void *arg)
{
	bool		for_setup = *(bool *) arg;

	if (!OidIsValid(relid) || is_ranread_target(relid))
		return;
	if (for_setup)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("relation \"%s\" already exists", relation->relname),
				 errdetail("ranread_setup() creates its target in schema \"%s\", and this relation is not a ranread target.",
						   relation->schemaname),
				 errhint("Choose another target name.")));
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("relation \"%s\" is not a ranread target", relation->relname),
			 errdetail("ranread reads and drops only tables made by ranread_setup(), whatever ranread_targets says."),
			 errhint("Create a target with ranread_setup() under another name.")));
}

/* The size ranread_setup() registered for name, or -1 without a row. */
static int64
registered_blocks(const char *schema, const char *name)
{
	StringInfoData sql;
	Oid			argtypes[1] = {NAMEOID};
	Datum		args[1];
	NameData	namedata;
	int64		blocks = -1;

	namestrcpy(&namedata, name);
	args[0] = NameGetDatum(&namedata);
	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "SELECT blocks FROM %s.ranread_targets WHERE target OPERATOR(pg_catalog.=) $1",
					 quote_identifier(schema));

	SPI_connect();
	if (SPI_execute_with_args(sql.data, 1, argtypes, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read ranread_targets");
	if (SPI_processed == 1)
	{
		bool		isnull;
		Datum		value = ranread_spi_datum_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "blocks", &isnull);

		if (!isnull)
			blocks = DatumGetInt64(value);
	}
	SPI_finish();
	return blocks;
}

/*
 * Fill *target with what ranread_targets and the relation say about name.
 * The relation, if it exists, is proven to be a target and is locked with
 * lockmode until the end of the transaction.  for_setup chooses the error
 * for a relation of that name that is not a target.
 */
void
ranread_target_lookup(const char *name, LOCKMODE lockmode, bool for_setup,
					  RanreadTarget *target)
{
	const char *schema = ranread_extension_schema();
	int64		blocks = registered_blocks(schema, name);

	memset(target, 0, sizeof(RanreadTarget));
	target->name = name;
	target->registered = blocks >= 0;
	target->registered_blocks = blocks;
	target->relid = RangeVarGetRelidExtended(makeRangeVar(pstrdup(schema), pstrdup(name), -1),
											 lockmode, RVR_MISSING_OK,
											 refuse_foreign_relation, &for_setup);
	target->relation_exists = OidIsValid(target->relid);
	if (target->relation_exists)
	{
		Relation	rel = relation_open(target->relid, NoLock);

		target->current_blocks = RelationGetNumberOfBlocks(rel);
		relation_close(rel, NoLock);
	}
}

/* True if the target exists and holds every block setup wrote. */
bool
ranread_target_intact(const RanreadTarget *target)
{
	return target->relation_exists && target->registered &&
		(int64) target->current_blocks == target->registered_blocks;
}

/*
 * Open a registered, intact target for a run, holding AccessShareLock until
 * the end of the transaction so it cannot be dropped or truncated meanwhile.
 * The caller needs SELECT on it, as for any read of a table: checked here,
 * before any worker starts, with the GRANT that is missing in a hint.
 */
Relation
ranread_target_open_for_run(const char *name)
{
	RanreadTarget target;
	AclResult	aclresult;

	ranread_target_lookup(name, AccessShareLock, false, &target);
	if (!target.relation_exists)
	{
		if (target.registered)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("ranread target \"%s\" was dropped", name),
					 errdetail("ranread_targets has a row for it, but its table does not exist (it is not restored from a dump)."),
					 errhint("Run ranread_setup(target => '%s') again.", name)));
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("ranread target \"%s\" does not exist", name),
				 errhint("Create it with ranread_setup(target => '%s').", name)));
	}
	/* PostgreSQL's own check would say the same, without the way out */
	aclresult = pg_class_aclcheck(target.relid, GetUserId(), ACL_SELECT);
	if (aclresult != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", name),
				 errdetail("A run reads its target as the role that runs it, which needs SELECT on the target."),
				 errhint("Run GRANT SELECT ON %s TO %s as the target's owner or a superuser.",
						 quote_qualified_identifier(ranread_extension_schema(), name),
						 quote_identifier(GetUserNameFromId(GetUserId(), false)))));
	if (!ranread_target_intact(&target))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ranread target \"%s\" is empty or incomplete", name),
				 target.registered ?
				 errdetail("It holds %u of the " INT64_FORMAT " blocks written by ranread_setup(); crash recovery empties unlogged tables, and so does TRUNCATE.",
						   target.current_blocks, target.registered_blocks) :
				 errdetail("ranread_targets has no row for it, so its size cannot be checked."),
				 errhint("Run ranread_setup(target => '%s') again: it replaces the target.", name)));

	return relation_open(target.relid, NoLock);
}

/* Record one object as a member of the extension (nothing for InvalidOid). */
static void
add_member(Oid classid, Oid objid, const ObjectAddress *extension)
{
	ObjectAddress member;

	if (!OidIsValid(objid))
		return;
	ObjectAddressSet(member, classid, objid);
	recordDependencyOn(&member, extension, DEPENDENCY_EXTENSION);
}

/*
 * Release a target table (or a write target) from the extension: the table,
 * and its row type and that type's array type, whichever are members (17 and
 * later record them; 1.0 targets were adopted by ALTER EXTENSION ADD TABLE in
 * an update script).
 */
void
ranread_target_release(Oid relid)
{
	Oid			row_type = get_rel_type_id(relid);

	deleteDependencyRecordsForClass(RelationRelationId, relid,
									ExtensionRelationId, DEPENDENCY_EXTENSION);
	if (OidIsValid(row_type))
	{
		deleteDependencyRecordsForClass(TypeRelationId, row_type,
										ExtensionRelationId, DEPENDENCY_EXTENSION);
		deleteDependencyRecordsForClass(TypeRelationId, get_array_type(row_type),
										ExtensionRelationId, DEPENDENCY_EXTENSION);
	}
	CommandCounterIncrement();
}

/*
 * Drop what is left of a target and its row in ranread_targets.  The table
 * must have been found by ranread_target_lookup() (so it is a target); the
 * caller must own it, as for DROP TABLE.
 */
void
ranread_target_forget(const RanreadTarget *target)
{
	StringInfoData sql;
	Oid			argtypes[1] = {NAMEOID};
	Datum		args[1];
	NameData	namedata;

	if (target->relation_exists)
	{
		ObjectAddress object;

		if (!ranread_owns_relation(target->relid))
			aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, target->name);
		/* a member of the extension can only be dropped once it is released */
		ranread_target_release(target->relid);
		ObjectAddressSet(object, RelationRelationId, target->relid);
		performDeletion(&object, DROP_RESTRICT, 0);
	}

	namestrcpy(&namedata, target->name);
	args[0] = NameGetDatum(&namedata);
	initStringInfo(&sql);
	appendStringInfo(&sql, "DELETE FROM %s.ranread_targets WHERE target OPERATOR(pg_catalog.=) $1",
					 quote_identifier(ranread_extension_schema()));
	SPI_connect();
	if (SPI_execute_with_args(sql.data, 1, argtypes, args, NULL, false, 0) != SPI_OK_DELETE)
		elog(ERROR, "could not update ranread_targets");
	SPI_finish();
}

/*
 * Make a table just created by ranread_setup() (or ranread_setup_writes()) a
 * member of the extension, as
 * ALTER EXTENSION ADD TABLE would: since 17 with its row type and that type's
 * array type.
 */
void
ranread_target_adopt(Oid relid)
{
	ObjectAddress extension;

	ObjectAddressSet(extension, ExtensionRelationId, ranread_extension_oid());
	add_member(RelationRelationId, relid, &extension);
	if (RANREAD_EXTENSION_OWNS_ROW_TYPES)
	{
		Oid			row_type = get_rel_type_id(relid);

		add_member(TypeRelationId, row_type, &extension);
		add_member(TypeRelationId, get_array_type(row_type), &extension);
	}
	CommandCounterIncrement();
}

/*
 * Warn that a target smaller than twice the server's memory can be answered
 * by caches: the OS page cache is evicted before each batch, a storage
 * array's cache is not.
 */
void
ranread_target_warn_if_small(const char *name, BlockNumber blocks)
{
	uint64		memory = ranread_physical_memory_bytes();

	if ((uint64) blocks * BLCKSZ < 2 * memory)
		ereport(WARNING,
				(errmsg("ranread target \"%s\" is smaller than twice the server's memory", name),
				 errdetail("The target has %.0f MB and the server %.0f MB of memory.",
						   (double) blocks * BLCKSZ / BYTES_PER_MB, (double) memory / BYTES_PER_MB),
				 errhint("Runs evict the target from the OS page cache, but a storage array's cache can still answer reads: size targets at least twice the server's memory and four times the storage cache.")));
}
