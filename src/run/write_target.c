/*-------------------------------------------------------------------------
 *
 * write_target.c
 *		Finding a write target, proving ranread made it, opening it for a
 *		batch's writers, and removing it.
 *
 * A write target is what a batch's writers (writer.c) write to, and the only
 * relation they write: an ordinary logged table that
 * ranread_setup_writes() created in the extension's schema, with an integer
 * key "id" and a bytea "filler" (one row a page), and made a member of the
 * extension.  As for a read target (target.c), membership is the proof that
 * ranread made it, and only the extension's owner can give it; a read target
 * is unlogged, so neither kind can pass for the other.  A logged table is
 * what PostgreSQL writes as it writes any table: WAL first, full-page images
 * after each checkpoint, dirty buffers flushed by the checkpointer, the
 * background writer or a backend.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "access/xlog.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "executor/spi.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "compat.h"
#include "extension.h"
#include "os/osstats.h"
#include "ranread.h"
#include "run/target.h"
#include "run/write_target.h"
#include "spi_columns.h"

/* True if relid is a logged table with columns id and filler, a member of the extension. */
static bool
is_write_target(Oid relid)
{
	return get_rel_relkind(relid) == RELKIND_RELATION &&
		get_rel_persistence(relid) == RELPERSISTENCE_PERMANENT &&
		get_attnum(relid, "id") == 1 && get_attnum(relid, "filler") == 2 &&
		getExtensionOfObject(RelationRelationId, relid) == ranread_extension_oid();
}

/*
 * The write target called name in the extension's schema, locked in
 * lockmode; InvalidOid if there is no relation of that name.  A relation of
 * that name that is not a write target is refused.  allowed(relid, name)
 * errors out if the caller may not use it: called before the lock, so that
 * a role without the right cannot hold others up by queueing for it, as
 * RangeVarGetRelidExtended()'s callback does.
 */
Oid
ranread_write_target_lookup(const char *name, LOCKMODE lockmode,
							void (*allowed) (Oid relid, const char *name))
{
	Oid			namespace = get_namespace_oid(ranread_extension_schema(), false);
	Oid			relid = get_relname_relid(name, namespace);

	if (!OidIsValid(relid))
		return InvalidOid;
	allowed(relid, name);
	LockRelationOid(relid, lockmode);
	/* recheck once locked: it may have been dropped or replaced meanwhile */
	if (get_relname_relid(name, namespace) != relid)
	{
		UnlockRelationOid(relid, lockmode);
		return ranread_write_target_lookup(name, lockmode, allowed);
	}
	if (!is_write_target(relid))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a ranread write target", name),
				 errdetail("A write target is a logged table that ranread_setup_writes() made a member of the extension; ranread writes no other relation."),
				 errhint("Choose another name for the write target.")));
	return relid;
}

/*
 * What makes the write target differ from what ranread_setup_writes() made,
 * or NULL: anything that could run code, or write elsewhere, when a writer
 * updates a row (a trigger, a rule, row security, a check, another column,
 * an inheritance child or parent, an index beyond the primary key on id).
 * Its owner may be another role than the one whose writers update it, so
 * such code would run as that role (a superuser, say).  Called with a lock
 * that keeps all of these from being added until the run ends.
 */
static const char *
write_target_changed(Relation rel)
{
	Form_pg_class form = rel->rd_rel;
	TupleDesc	desc = RelationGetDescr(rel);
	List	   *indexes = RelationGetIndexList(rel);
	const char *changed = NULL;

	/* (relhastriggers and relhassubclass stay set once a trigger or child is dropped: the relcache and pg_inherits say) */
	if (rel->trigdesc != NULL && rel->trigdesc->numtriggers > 0)
		changed = "a trigger";
	else if (rel->rd_rules != NULL)
		changed = "a rule";
	else if (form->relrowsecurity || form->relforcerowsecurity)
		changed = "row-level security";
	else if (form->relchecks > 0)
		changed = "a check constraint";
	else if (form->relispartition || has_superclass(RelationGetRelid(rel)) ||
			 find_inheritance_children(RelationGetRelid(rel), NoLock) != NIL)
		changed = "an inheritance child or parent";
	else if (desc->natts != 2 || TupleDescAttr(desc, 0)->atttypid != INT4OID ||
			 TupleDescAttr(desc, 1)->atttypid != BYTEAOID ||
			 TupleDescAttr(desc, 0)->attgenerated || TupleDescAttr(desc, 1)->attgenerated)
		changed = "other columns than id integer and filler bytea";
	else if (list_length(indexes) != 1)
		changed = "other indexes than its primary key";
	else
	{
		HeapTuple	tuple = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(linitial_oid(indexes)));
		Form_pg_index index;

		if (!HeapTupleIsValid(tuple))
			elog(ERROR, "cache lookup failed for index %u", linitial_oid(indexes));
		index = (Form_pg_index) GETSTRUCT(tuple);
		if (!index->indisprimary || index->indnatts != 1 || index->indkey.values[0] != 1 ||
			!heap_attisnull(tuple, Anum_pg_index_indexprs, NULL) ||
			!heap_attisnull(tuple, Anum_pg_index_indpred, NULL))
			changed = "another index than its primary key on id";
		ReleaseSysCache(tuple);
	}
	list_free(indexes);
	return changed;
}

/*
 * Refuse writers whose WAL might not fit: at most RANREAD_WRITE_WAL_BYTES a
 * write, at write_rate_iops for the whole duration, against the free space
 * of the file system that holds pg_wal.  Checkpoints recycle WAL beyond
 * max_wal_size, but archiving, replication slots and wal_keep_size can keep
 * all of it, so the estimate is the whole run's.
 */
static void
check_wal_space(const RanreadParams *params)
{
	const char *wal_dir = psprintf("%s/pg_wal", DataDir);
	double		seconds = (double) params->duration_ns / 1e9;
	double		estimate = (double) RANREAD_WRITE_WAL_BYTES * params->write_rate_iops * seconds;
	uint64		free_bytes = ranread_free_bytes(wal_dir);

	if (estimate > (double) free_bytes)
		ereport(ERROR,
				(errcode(ERRCODE_DISK_FULL),
				 errmsg("not enough free space for the WAL the writers may generate"),
				 errdetail("At most %d bytes a write (a full-page image and its commit) at %g writes/s for %.0f s is %.0f MB; "
						   "the file system of \"%s\" has %.0f MB free, and max_wal_size is %s. Nothing was read or written.",
						   RANREAD_WRITE_WAL_BYTES, params->write_rate_iops, seconds, estimate / BYTES_PER_MB,
						   wal_dir, (double) free_bytes / BYTES_PER_MB,
						   GetConfigOptionByName("max_wal_size", NULL, false)),
				 errhint("Lower write_rate_iops or duration, or free space for pg_wal.")));
}

/* The write target's rows: ids 1 to this, as ranread_setup_writes() made them. */
static int32
write_target_rows(Relation write_target)
{
	int32		rows;

	SPI_connect();
	if (SPI_execute(psprintf("SELECT max(id) AS rows FROM %s",
							 quote_qualified_identifier(ranread_extension_schema(),
														RelationGetRelationName(write_target))),
					true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the write target's rows");
	rows = (int32) ranread_spi_int_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "rows", 0);
	SPI_finish();
	if (rows < 1)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ranread write target \"%s\" is empty", RelationGetRelationName(write_target)),
				 errhint("Run ranread_setup_writes(target => '%s') again: it replaces the write target.",
						 RelationGetRelationName(write_target))));
	return rows;
}

/*
 * Refuse a run that would write a row of the write target more often than its
 * page has room for the versions (ranread.h): updates would then leave their
 * page, and the table grow.
 */
static void
check_writes_per_row(const RanreadParams *params, const char *name, int32 rows)
{
	double		writes = params->write_rate_iops * ((double) params->duration_ns / 1e9);

	if (writes / rows > RANREAD_WRITE_MAX_MEAN_PER_ROW)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%.0f writes to the %d rows of ranread write target \"%s\" are %.1f a row, more than %d",
						writes, rows, name, writes / rows, RANREAD_WRITE_MAX_MEAN_PER_ROW),
				 errdetail("A row's page has room for about %d versions of it during a run; more updates would leave the page and grow the table. Nothing was read or written.",
						   RANREAD_WRITE_HOT_VERSIONS),
				 errhint("Make the write target larger (ranread_setup_writes(size => ...)), or lower write_rate_iops or duration.")));
}

/*
 * For ranread_write_target_lookup(): writers update the write target as the
 * role that runs the batch, which needs both SELECT and UPDATE on it (the
 * mask alone would accept either).
 */
static void
check_may_write(Oid relid, const char *name)
{
	AclResult	aclresult = pg_class_aclcheck(relid, GetUserId(), ACL_SELECT);

	if (aclresult == ACLCHECK_OK)
		aclresult = pg_class_aclcheck(relid, GetUserId(), ACL_UPDATE);
	if (aclresult != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", name),
				 errdetail("Writers update the write target as the role that runs the batch, which needs SELECT and UPDATE on it."),
				 errhint("Run GRANT SELECT, UPDATE ON %s TO %s as the write target's owner or a superuser.",
						 quote_qualified_identifier(ranread_extension_schema(), name),
						 quote_identifier(GetUserNameFromId(GetUserId(), false)))));
}

/*
 * Open the write target of a batch with writers, refusing before any worker
 * starts: on a standby, without the target, without the privileges its
 * writers use, when it was changed after setup, when the run would write its
 * rows too often, or without the space for their WAL.  *rows gets its rows.
 */
Relation
ranread_write_target_open_for_run(const RanreadParams *params, int32 *rows)
{
	const char *name = params->write_target_name;
	Oid			relid;
	Relation	write_target;
	const char *changed;

	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot run writers on a standby"),
				 errdetail("The server is in recovery (pg_is_in_recovery()); nothing was read or written."),
				 errhint("Run with writers => 0 here, or run the writers on the primary.")));
	/* a read-only transaction must not have writes made on its behalf */
	PreventCommandIfReadOnly("ranread_run() with writers");
	/* held to the run's end: no trigger, rule, index or policy can be added meanwhile */
	relid = ranread_write_target_lookup(name, ShareUpdateExclusiveLock, check_may_write);
	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("ranread write target \"%s\" does not exist", name),
				 errdetail("Writers write only to a write target made for them; nothing was read or written."),
				 errhint("Create it with ranread_setup_writes(target => '%s').", name)));
	write_target = relation_open(relid, NoLock);
	changed = write_target_changed(write_target);
	if (changed != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ranread write target \"%s\" has %s", name, changed),
				 errdetail("Writers update only a write target as ranread_setup_writes() made it: two columns, its primary key, nothing that runs code on an update. Nothing was read or written."),
				 errhint("Run ranread_setup_writes(target => '%s') again: it replaces the write target.", name)));
	check_wal_space(params);
	*rows = write_target_rows(write_target);
	check_writes_per_row(params, name, *rows);
	return write_target;
}

/* For ranread_write_target_lookup(): the caller must own the write target. */
void
ranread_write_target_check_owner(Oid relid, const char *name)
{
	if (!ranread_owns_relation(relid))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, name);
}

/* Drop a write target found by ranread_write_target_lookup(); the caller must own it. */
void
ranread_write_target_drop(Oid relid, const char *name)
{
	ObjectAddress object;

	ranread_write_target_check_owner(relid, name);
	/* a member of the extension can only be dropped once it is released */
	ranread_target_release(relid);
	ObjectAddressSet(object, RelationRelationId, relid);
	performDeletion(&object, DROP_RESTRICT, 0);
}
