/*-------------------------------------------------------------------------
 *
 * setup_writes.c
 *		ranread_setup_writes(): create the write target that a batch's
 *		writers (writer.c) write to.
 *
 * The write target is an ordinary logged table in the extension's schema,
 * "id" int4 (its primary key) and "filler" bytea stored PLAIN, with
 * fillfactor 10 and one row a page: each row's filler is
 * RANREAD_WRITE_ROW_BYTES fresh pseudo-random bytes, so that the updates of
 * a run find room on the row's own page (HOT updates, no index change: see
 * ranread.h) and no second row is ever inserted there.  It is created as the
 * extension's owner, given to the caller and made a member of the extension,
 * which is what lets writers write to it and nothing else (write_target.c).
 * Every row is inserted through SQL, WAL-logged as any insert; an existing
 * write target of the same name is replaced (dropped and made anew), which is
 * also how one is rewritten.  Everything happens in the caller's
 * transaction: an error or a cancel leaves nothing behind.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>

#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/tablespace.h"
#include "common/pg_prng.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "compat.h"
#include "extension.h"
#include "os/osstats.h"
#include "os/segments.h"
#include "ranread.h"
#include "run/write_target.h"
#include "setup/setup.h"

#define MIN_WRITE_TARGET_BYTES	(1024 * 1024)

/*
 * The most a row of the write target costs: its page and its share of the
 * primary key on disk, and the WAL of its insert (measured: 8,217 and 617
 * bytes on 18).
 */
#define ROW_DISK_BYTES			(BLCKSZ + 64)
#define ROW_WAL_BYTES			1024

PG_FUNCTION_INFO_V1(ranread_setup_writes);

/* Create the empty write target (ranread_setup_create_table()); returns its OID. */
static Oid
create_write_target(const char *schema, const char *name, const char *tablespace)
{
	const char *table = quote_qualified_identifier(schema, name);
	const char *in_tablespace = tablespace != NULL ?
		psprintf(" TABLESPACE %s", quote_identifier(tablespace)) : "";

	return ranread_setup_create_table(schema, name, tablespace, RELPERSISTENCE_PERMANENT,
									  psprintf("CREATE TABLE %s (id pg_catalog.int4 NOT NULL, filler pg_catalog.bytea NOT NULL, "
											   "PRIMARY KEY (id)%s) "
											   "WITH (fillfactor = 10, autovacuum_enabled = false, vacuum_truncate = false)%s",
											   table, tablespace != NULL ? psprintf(" USING INDEX%s", in_tablespace) : "",
											   in_tablespace),
									  psprintf("ALTER TABLE %s ALTER COLUMN filler SET STORAGE PLAIN", table));
}

/*
 * Refuse a write target that its file system, or pg_wal's, has no room for
 * (both the same file system: room for both), before a row is inserted.
 */
static void
check_space(Oid relid, int32 rows)
{
	Relation	rel = relation_open(relid, NoLock);
	char	   *table_path = ranread_first_segment_absolute_path(RANREAD_REL_FILE(rel));
	char	   *wal_path = psprintf("%s/pg_wal", DataDir);
	struct stat table_fs;
	struct stat wal_fs;
	double		table_bytes = (double) rows * ROW_DISK_BYTES;
	double		wal_bytes = (double) rows * ROW_WAL_BYTES;
	bool		shared;
	uint64		table_free = ranread_free_bytes(table_path);
	uint64		wal_free = ranread_free_bytes(wal_path);

	relation_close(rel, NoLock);
	shared = stat(table_path, &table_fs) == 0 && stat(wal_path, &wal_fs) == 0 &&
		table_fs.st_dev == wal_fs.st_dev;
	if (shared ? table_bytes + wal_bytes > (double) table_free :
		table_bytes > (double) table_free || wal_bytes > (double) wal_free)
		ereport(ERROR,
				(errcode(ERRCODE_DISK_FULL),
				 errmsg("not enough free space for a write target of %d rows", rows),
				 errdetail("Its rows need up to %.0f MB beside \"%s\", which has %.0f MB free, and their WAL up to %.0f MB in \"%s\", which has %.0f MB free%s.",
						   table_bytes / BYTES_PER_MB, table_path, (double) table_free / BYTES_PER_MB,
						   wal_bytes / BYTES_PER_MB, wal_path, (double) wal_free / BYTES_PER_MB,
						   shared ? " (the same file system)" : ""),
				 errhint("Choose a smaller size or another tablespace.")));
}

/* Insert rows 1 to rows, each with fresh pseudo-random bytes. */
static void
fill_write_target(const char *schema, const char *name, int32 rows)
{
	Oid			types[2] = {INT4OID, BYTEAOID};
	bytea	   *filler = palloc(VARHDRSZ + RANREAD_WRITE_ROW_BYTES);
	Datum		values[2];
	SPIPlanPtr	plan;
	pg_prng_state prng;

	SET_VARSIZE(filler, VARHDRSZ + RANREAD_WRITE_ROW_BYTES);
	pg_prng_seed(&prng, pg_prng_uint64(&pg_global_prng_state));
	SPI_connect();
	plan = SPI_prepare(psprintf("INSERT INTO %s VALUES ($1, $2)", quote_qualified_identifier(schema, name)),
					   2, types);
	if (plan == NULL)
		elog(ERROR, "could not prepare the write target's INSERT");
	for (int32 id = 1; id <= rows; id++)
	{
		for (int i = 0; i + (int) sizeof(uint64) <= RANREAD_WRITE_ROW_BYTES; i += sizeof(uint64))
		{
			uint64		word = pg_prng_uint64(&prng);

			memcpy(VARDATA(filler) + i, &word, sizeof(uint64));
		}
		values[0] = Int32GetDatum(id);
		values[1] = PointerGetDatum(filler);
		if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "could not fill the write target");
		CHECK_FOR_INTERRUPTS();
	}
	SPI_finish();
}

/*
 * ranread_setup_writes(size, tablespace, target): make (or remake) the write
 * target, size bytes of rows, one a page.
 */
Datum
ranread_setup_writes(PG_FUNCTION_ARGS)
{
	const char *schema = ranread_extension_schema();
	const char *tablespace = PG_ARGISNULL(1) ? NULL : NameStr(*PG_GETARG_NAME(1));
	const char *name;
	int64		bytes;
	int32		rows;
	Oid			existing;
	Oid			relid;

	ranread_check_sql_version();
	if (PG_ARGISNULL(0) || PG_ARGISNULL(2) || NameStr(*PG_GETARG_NAME(2))[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("size and target must not be null or empty")));
	name = NameStr(*PG_GETARG_NAME(2));
	bytes = DatumGetInt64(DirectFunctionCall1(pg_size_bytes, PG_GETARG_DATUM(0)));
	if (bytes < MIN_WRITE_TARGET_BYTES || bytes / BLCKSZ > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("write target size must be at least 1 MB and at most %d pages", PG_INT32_MAX),
				 errdetail("The size given is " INT64_FORMAT " bytes.", bytes)));
	if (tablespace != NULL && !OidIsValid(get_tablespace_oid(tablespace, true)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("tablespace \"%s\" does not exist", tablespace),
				 errhint("Create it on the volume under test first, as a superuser and outside a transaction block: CREATE TABLESPACE %s LOCATION '/path/on/the/volume';",
						 quote_identifier(tablespace))));
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot make a write target on a standby"),
				 errhint("Run ranread_setup_writes() on the primary.")));

	ranread_setup_check_name(name, "write target");
	existing = ranread_write_target_lookup(name, AccessExclusiveLock, ranread_write_target_check_owner);
	if (OidIsValid(existing))
	{
		ereport(NOTICE,
				(errmsg("replacing ranread write target \"%s\"", name)));
		ranread_write_target_drop(existing, name);
	}
	rows = (int32) (bytes / BLCKSZ);
	relid = create_write_target(schema, name, tablespace);
	check_space(relid, rows);
	fill_write_target(schema, name, rows);

	PG_RETURN_TEXT_P(cstring_to_text(psprintf("ranread write target \"%s\": %d rows, one a page (%.0f MB), in tablespace %s",
											  name, rows, (double) rows * BLCKSZ / BYTES_PER_MB,
											  get_tablespace_name(OidIsValid(get_rel_tablespace(relid)) ?
																  get_rel_tablespace(relid) : MyDatabaseTableSpace))));
}
