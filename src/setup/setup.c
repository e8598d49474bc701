/*-------------------------------------------------------------------------
 *
 * setup.c
 *		ranread_setup(): create a target relation and write every block.
 *
 * The target is an UNLOGGED table (no WAL, not replicated) with autovacuum
 * off.  Every block is written for real, 1 MiB at a time, as a valid empty
 * heap page (it passes page verification, with a checksum when the cluster
 * has them) whose free space is filled with pseudo-random bytes: no sparse
 * file, no preallocated extent and no zero page that the file system or a
 * compressing array could answer without reading the device.  The writes use
 * O_DIRECT where the file system accepts it: they go straight to the device
 * without filling the OS page cache (and ran faster and steadier than
 * buffered writes in bench/setup_vs_fio.sh).  Once all are written, every
 * file is flushed (fdatasync) and evicted from the OS page cache, in one
 * pass; flushing only at the end lets writeback overlap the writing.  The table is created
 * in the caller's transaction, so an error or a cancel leaves nothing behind.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "access/table.h"
#include "access/transam.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_tablespace_d.h"
#include "catalog/pg_type.h"
#include "commands/tablespace.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/bufpage.h"
#include "storage/fd.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "compat.h"
#include "extension.h"
#include "os/osstats.h"
#include "os/segments.h"
#include "setup/setup.h"
#include "setup/setup_progress.h"
#include "run/target.h"

#define MIN_TARGET_BYTES		(8 * 1024 * 1024)
#define WRITE_CHUNK_BLOCKS		128 /* 1 MiB per write() */
#define PROGRESS_STEPS			10

/* The one tuple of a target page: as large as a heap tuple can be. */
#define FILLER_TUPLE_LEN		MaxHeapTupleSize
#define FILLER_TUPLE_OFFSET		(BLCKSZ - FILLER_TUPLE_LEN)

PG_FUNCTION_INFO_V1(ranread_setup);

/*
 * Four independent xorshift128+ streams, advanced together so the compiler
 * can interleave (or vectorise) them: one stream alone is bound by its own
 * dependency chain and made page filling a third of setup's time.  The output
 * does not compress; it is not for cryptography.
 */
#define FILL_LANES	4

typedef struct FillRandom
{
	uint64		s0[FILL_LANES];
	uint64		s1[FILL_LANES];
} FillRandom;

static void
fill_random_seed(FillRandom *r, uint64 seed)
{
	for (int lane = 0; lane < FILL_LANES; lane++)
	{
		/* splitmix64, so that no lane starts from a weak (e.g. zero) state */
		for (int k = 0; k < 2; k++)
		{
			uint64		z = (seed += UINT64CONST(0x9E3779B97F4A7C15));

			z = (z ^ (z >> 30)) * UINT64CONST(0xBF58476D1CE4E5B9);
			z = (z ^ (z >> 27)) * UINT64CONST(0x94D049BB133111EB);
			z ^= z >> 31;
			if (k == 0)
				r->s0[lane] = z;
			else
				r->s1[lane] = z;
		}
	}
}

/* Advance one lane and return its next 64 random bits. */
static inline uint64
fill_random_next(FillRandom *r, int lane)
{
	uint64		x = r->s0[lane];
	uint64		y = r->s1[lane];

	r->s0[lane] = y;
	x ^= x << 23;
	r->s1[lane] = x ^ y ^ (x >> 17) ^ (y >> 26);
	return r->s1[lane] + y;
}

/*
 * Make buf a valid heap page for blkno holding one frozen tuple whose only
 * column, a bytea stored PLAIN, is random bytes filling the page.  A page of
 * live, frozen data is what routine maintenance leaves alone: VACUUM has no
 * empty page to truncate and no tuple to freeze, and VACUUM FULL copies each
 * tuple, one per page, into the new file.  The page is marked all-visible.
 */
static void
fill_page(char *buf, BlockNumber blkno, FillRandom *r)
{
	PageHeader	header = (PageHeader) buf;
	HeapTupleHeader tuple = (HeapTupleHeader) (buf + FILLER_TUPLE_OFFSET);
	uint64	   *word = (uint64 *) tuple;
	uint64	   *end = (uint64 *) (buf + BLCKSZ);

	PageInit((Page) buf, BLCKSZ, 0);
	for (; end - word >= FILL_LANES; word += FILL_LANES)
	{
		for (int lane = 0; lane < FILL_LANES; lane++)
			word[lane] = fill_random_next(r, lane);
	}
	for (int lane = 0; word < end; lane++)
		*word++ = fill_random_next(r, lane);

	/* the tuple's header and the bytea's length word overwrite the first bytes */
	memset(tuple, 0, SizeofHeapTupleHeader);
	HeapTupleHeaderSetXmin(tuple, FrozenTransactionId);
	HeapTupleHeaderSetXmax(tuple, InvalidTransactionId);
	ItemPointerSet(&tuple->t_ctid, blkno, FirstOffsetNumber);
	HeapTupleHeaderSetNatts(tuple, 1);
	tuple->t_infomask = HEAP_HASVARWIDTH | HEAP_XMIN_FROZEN | HEAP_XMAX_INVALID;
	tuple->t_hoff = MAXALIGN(SizeofHeapTupleHeader);
	SET_VARSIZE((char *) tuple + tuple->t_hoff, FILLER_TUPLE_LEN - tuple->t_hoff);

	ItemIdSetNormal(PageGetItemId((Page) buf, FirstOffsetNumber),
					FILLER_TUPLE_OFFSET, FILLER_TUPLE_LEN);
	header->pd_lower = SizeOfPageHeaderData + sizeof(ItemIdData);
	header->pd_upper = FILLER_TUPLE_OFFSET;
	PageSetAllVisible((Page) buf);
	ranread_page_set_checksum((Page) buf, blkno);
}

static void
write_all(int fd, const char *path, const char *buf, size_t len, off_t offset)
{
	while (len > 0)
	{
		ssize_t		written = pg_pwrite(fd, buf, len, offset);

		if (written < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not write to file \"%s\": %m", path)));
		if (written == 0)
		{
			errno = ENOSPC;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not write to file \"%s\": %m", path)));
		}
		buf += written;
		len -= written;
		offset += written;
	}
}

/*
 * Open a segment for writing, with O_DIRECT unless the file system refuses
 * it (tmpfs on older kernels, some network file systems).
 */
static int
open_for_writing(const char *path, int log_level)
{
	int			fd = OpenTransientFile(path, O_RDWR | O_CREAT | PG_BINARY | O_DIRECT);

	if (fd < 0 && errno == EINVAL)
	{
		if (log_level >= 2)
			ereport(NOTICE,
					(errmsg("ranread_setup: the file system refuses direct I/O; writing %s through the page cache",
							path)));
		fd = OpenTransientFile(path, O_RDWR | O_CREAT | PG_BINARY);
	}
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", path)));
	return fd;
}

/*
 * Write blocks [0, blocks) of the target's main fork, segment by segment.
 * Reports progress as NOTICEs per log_level, and to other sessions through
 * `progress`.  The caller flushes the files.
 */
static void
write_target(RanreadRelFile file, BlockNumber blocks, int log_level, RanreadSetupProgress *progress)
{
	char	   *chunk = ranread_alloc_io_buffer(WRITE_CHUNK_BLOCKS * BLCKSZ);
	FillRandom	random;
	BlockNumber blkno = 0;
	BlockNumber segno;
	int			next_step = 1;
	instr_time	start;

	fill_random_seed(&random, ((uint64) MyProcPid << 32) ^ (uint64) GetCurrentTimestamp() ^ RANREAD_REL_FILE_NUMBER(file));
	RANREAD_TIME_SET_CURRENT(start);

	for (segno = 0; segno < ranread_segment_count(blocks); segno++)
	{
		char	   *path = ranread_segment_path(file, segno);
		BlockNumber seg_end = Min(blocks, (segno + 1) * RELSEG_SIZE);
		int			fd;

		fd = open_for_writing(path, log_level);

		while (blkno < seg_end)
		{
			BlockNumber n = Min(WRITE_CHUNK_BLOCKS, seg_end - blkno);
			BlockNumber i;

			CHECK_FOR_INTERRUPTS();
			for (i = 0; i < n; i++)
				fill_page(chunk + i * BLCKSZ, blkno + i, &random);
			write_all(fd, path, chunk, (size_t) n * BLCKSZ,
					  (off_t) (blkno - segno * RELSEG_SIZE) * BLCKSZ);
			blkno += n;
			ranread_setup_progress_written(progress, (uint64) blkno * BLCKSZ);

			if (log_level >= 1 && next_step < PROGRESS_STEPS &&
				(uint64) blkno * PROGRESS_STEPS >= (uint64) blocks * next_step)
			{
				instr_time	now;
				double		mb = (double) blkno * BLCKSZ / BYTES_PER_MB;

				RANREAD_TIME_SET_CURRENT(now);
				INSTR_TIME_SUBTRACT(now, start);
				ereport(NOTICE,
						(errmsg("ranread_setup: %d%% written (%.0f of %.0f MB, %.0f MB/s)",
								next_step * 100 / PROGRESS_STEPS, mb,
								(double) blocks * BLCKSZ / BYTES_PER_MB,
								mb / Max(ranread_instr_time_s(now), 1e-6))));
				next_step++;
			}
		}

		CloseTransientFile(fd);
		if (log_level >= 3)
			ereport(NOTICE,
					(errmsg("ranread_setup: wrote segment %s (%u blocks)",
							path, seg_end - segno * RELSEG_SIZE)));
		pfree(path);
	}
}

static void
run_sql(const char *sql, int expected)
{
	int			rc = SPI_execute(sql, false, 0);

	if (rc != expected)
		elog(ERROR, "SPI_execute failed: %s", SPI_result_code_string(rc));
}

/*
 * Refuse a caller who may not create relations in the tablespace a target of
 * this persistence would land in (`tablespace`, or else default_tablespace),
 * as CREATE TABLE would; the database's own tablespace needs no privilege.
 */
static void
check_may_create_in_tablespace(const char *tablespace, char persistence)
{
	Oid			spc = tablespace != NULL ? get_tablespace_oid(tablespace, false) :
		GetDefaultTablespace(persistence, false);
	AclResult	aclresult;

	if (!OidIsValid(spc) || spc == MyDatabaseTableSpace)
		return;
	aclresult = ranread_tablespace_create_aclcheck(spc, GetUserId());
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_TABLESPACE, get_tablespace_name(spc));
}

/*
 * A role other than a superuser names its targets (`what`: "target" or
 * "write target") with the prefix "ranread_": a target is a table of the
 * extension's schema, and any other free name there may be one that another
 * extension or an application will need (review of 1.3, D11: a role took
 * pg_stat_statements_info, and that extension then failed to install).
 */
void
ranread_setup_check_name(const char *name, const char *what)
{
	if (!superuser() && strncmp(name, RANREAD_TARGET_PREFIX, strlen(RANREAD_TARGET_PREFIX)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to name a ranread %s \"%s\"", what, name),
				 errdetail("Roles other than superusers name targets beginning with \"%s\": a target is a table of schema %s, where another name may be one that an extension or an application needs.",
						   RANREAD_TARGET_PREFIX, ranread_extension_schema()),
				 errhint("Use a name beginning with \"%s\", such as \"%s%s\".", RANREAD_TARGET_PREFIX,
						 RANREAD_TARGET_PREFIX, name)));
}

/*
 * Create a target (or a write target, setup_writes.c) in the extension's
 * schema, owned by the caller, and make it a member of the extension;
 * returns its OID.  `create` is its CREATE TABLE and `alter` one ALTER TABLE
 * after it.  The caller needs no CREATE on the extension's schema (a role
 * that may create there could plant objects that other roles' calls find):
 * the table is created as the extension's owner and given to the caller, who
 * must still be allowed the tablespace a table of this persistence lands in.
 */
Oid
ranread_setup_create_table(const char *schema, const char *name, const char *tablespace,
						   char persistence, const char *create, const char *alter)
{
	Oid			caller;
	int			security_context;
	Oid			relid;

	check_may_create_in_tablespace(tablespace, persistence);
	GetUserIdAndSecContext(&caller, &security_context);
	SetUserIdAndSecContext(ranread_extension_owner(),
						   security_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	SPI_connect();
	run_sql(create, SPI_OK_UTILITY);
	run_sql(alter, SPI_OK_UTILITY);
	run_sql(psprintf("ALTER TABLE %s OWNER TO %s", quote_qualified_identifier(schema, name),
					 quote_identifier(GetUserNameFromId(caller, false))),
			SPI_OK_UTILITY);
	SPI_finish();
	SetUserIdAndSecContext(caller, security_context);
	relid = get_relname_relid(name, get_namespace_oid(schema, false));
	ranread_target_adopt(relid);
	return relid;
}

/*
 * Create the target table, empty (ranread_setup_create_table()).  Its one
 * column is stored PLAIN, so that a rewrite (VACUUM FULL) keeps every value
 * uncompressed and in line, one tuple per page.  VACUUM never truncates it,
 * and autovacuum leaves it alone unless wraparound forces it (when it finds
 * every page frozen and changes nothing).
 */
static Oid
create_target_table(const char *schema, const char *name, const char *tablespace)
{
	const char *table = quote_qualified_identifier(schema, name);

	/* one ALTER, so that PostgreSQL sees no column to toast and makes no TOAST table */
	return ranread_setup_create_table(schema, name, tablespace, RELPERSISTENCE_UNLOGGED,
									  psprintf("CREATE UNLOGGED TABLE %s () "
											   "WITH (autovacuum_enabled = false, vacuum_truncate = false)%s",
											   table, tablespace != NULL ?
											   psprintf(" TABLESPACE %s", quote_identifier(tablespace)) : ""),
									  psprintf("ALTER TABLE %s ADD COLUMN filler pg_catalog.bytea, "
											   "ALTER COLUMN filler SET STORAGE PLAIN", table));
}

static void
register_target(const char *schema, const char *name, Oid relid,
				BlockNumber blocks, const char *tablespace)
{
	StringInfoData sql;
	Oid			argtypes[5] = {NAMEOID, OIDOID, INT8OID, INT8OID, NAMEOID};
	Datum		args[5];
	NameData	target_name;
	NameData	tablespace_name;

	namestrcpy(&target_name, name);
	namestrcpy(&tablespace_name, tablespace);
	args[0] = NameGetDatum(&target_name);
	args[1] = ObjectIdGetDatum(relid);
	args[2] = Int64GetDatum((int64) blocks * BLCKSZ);
	args[3] = Int64GetDatum((int64) blocks);
	args[4] = NameGetDatum(&tablespace_name);

	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "INSERT INTO %s.ranread_targets (target, relation, bytes, blocks, tablespace) "
					 "VALUES ($1, $2, $3, $4, $5)",
					 quote_identifier(schema));
	SPI_connect();
	if (SPI_execute_with_args(sql.data, 5, argtypes, args, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not register ranread target \"%s\"", name);
	SPI_finish();
}

/*
 * Refuse an intact target of the same name, or a relation that is not a
 * target; clear away a stale target (dropped, emptied, or without its row)
 * so that setup can make it anew.
 */
static void
check_target_name_free(const char *name)
{
	RanreadTarget existing;

	ranread_target_lookup(name, AccessShareLock, true, &existing);
	if (ranread_target_intact(&existing))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("ranread target \"%s\" already exists", name),
				 errhint("Use another target name, or remove this one first with ranread_drop('%s').", name)));
	if (existing.registered || existing.relation_exists)
	{
		ereport(NOTICE,
				(errmsg("replacing ranread target \"%s\", which was dropped or emptied", name)));
		ranread_target_forget(&existing);
	}
}

/*
 * size as pg_size_bytes() reads it; its "invalid size" error gains a hint
 * with the accepted forms, unless it has one (an unknown unit does).
 */
static int64
size_bytes(text *size_text)
{
	MemoryContext context = CurrentMemoryContext;
	int64		bytes = 0;

	PG_TRY();
	{
		bytes = DatumGetInt64(DirectFunctionCall1(pg_size_bytes, PointerGetDatum(size_text)));
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(context);
		edata = CopyErrorData();
		FlushErrorState();
		if (edata->hint == NULL && edata->sqlerrcode == ERRCODE_INVALID_PARAMETER_VALUE)
			edata->hint = pstrdup("Give a number and a unit, such as '64 GB' or '512 MB' (bytes, kB, MB, GB, TB or PB), or NULL for twice the server's memory.");
		ReThrowError(edata);
	}
	PG_END_TRY();
	return bytes;
}

/* The size requested, in whole blocks. */
static BlockNumber
target_blocks(text *size_text)
{
	int64		bytes;

	if (size_text == NULL)
		bytes = (int64) Min(ranread_physical_memory_bytes() * 2, (uint64) PG_INT64_MAX);
	else
		bytes = size_bytes(size_text);

	if (bytes < MIN_TARGET_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target size must be at least 8 MB"),
				 errdetail("The size given is " INT64_FORMAT " bytes.", bytes)));
	if (bytes / BLCKSZ > MaxBlockNumber)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("target size is too large"),
				 errdetail("A relation holds at most %u blocks of %d bytes.",
						   MaxBlockNumber, BLCKSZ)));
	return (BlockNumber) (bytes / BLCKSZ);
}

Datum
ranread_setup(PG_FUNCTION_ARGS)
{
	text	   *size_text = PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0);
	const char *tablespace = PG_ARGISNULL(1) ? NULL : NameStr(*PG_GETARG_NAME(1));
	const char *name;
	int			log_level;
	const char *schema = ranread_extension_schema();
	BlockNumber blocks;
	Oid			relid;
	Relation	rel;
	RanreadRelFile file;
	char	   *first_segment;
	uint64		free_bytes;
	double		mb;
	double		seconds;
	instr_time	start;
	instr_time	elapsed;
	RanreadSetupProgress *progress;

	ranread_check_sql_version();
	if (PG_ARGISNULL(2) || NameStr(*PG_GETARG_NAME(2))[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("target name must not be null or empty")));
	if (PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("log_level must not be null")));
	if (PG_GETARG_INT32(3) < 0 || PG_GETARG_INT32(3) > 3)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("log_level must be between 0 and 3")));
	name = NameStr(*PG_GETARG_NAME(2));
	log_level = PG_GETARG_INT32(3);
	blocks = target_blocks(size_text);
	if (tablespace != NULL && !OidIsValid(get_tablespace_oid(tablespace, true)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("tablespace \"%s\" does not exist", tablespace),
				 errhint("Create it on the volume under test first, as a superuser and outside a transaction block: CREATE TABLESPACE %s LOCATION '/path/on/the/volume';",
						 quote_identifier(tablespace))));

	ranread_setup_check_name(name, "target");
	check_target_name_free(name);
	relid = create_target_table(schema, name, tablespace);
	rel = table_open(relid, AccessExclusiveLock);
	file = RANREAD_REL_FILE(rel);
	first_segment = ranread_first_segment_absolute_path(file);

	free_bytes = ranread_free_bytes(first_segment);
	if (free_bytes < (uint64) blocks * BLCKSZ)
		ereport(ERROR,
				(errcode(ERRCODE_DISK_FULL),
				 errmsg("not enough free space for a target of %.0f MB",
						(double) blocks * BLCKSZ / BYTES_PER_MB),
				 errdetail("The file system holding \"%s\" has %.0f MB free.",
						   first_segment, (double) free_bytes / BYTES_PER_MB),
				 errhint("Choose a smaller size or another tablespace.")));
	if (log_level >= 2)
		ereport(NOTICE,
				(errmsg("ranread_setup: writing %u blocks of %d bytes to %s (%.0f MB free)",
						blocks, BLCKSZ, first_segment, (double) free_bytes / BYTES_PER_MB)));

	RANREAD_TIME_SET_CURRENT(start);
	progress = ranread_setup_progress_begin(name, (uint64) blocks * BLCKSZ);
	write_target(file, blocks, log_level, progress);
	/* flushes every segment once all are written, then drops them from the cache */
	ranread_setup_progress_flushing(progress);
	ranread_evict_from_page_cache(file, blocks);
	ranread_setup_progress_end(progress);
	RANREAD_TIME_SET_CURRENT(elapsed);
	INSTR_TIME_SUBTRACT(elapsed, start);

	register_target(schema, name, relid, blocks,
					get_tablespace_name(OidIsValid(rel->rd_rel->reltablespace) ?
										rel->rd_rel->reltablespace : MyDatabaseTableSpace));
	table_close(rel, NoLock);

	ranread_target_warn_if_small(name, blocks);

	mb = (double) blocks * BLCKSZ / BYTES_PER_MB;
	seconds = ranread_instr_time_s(elapsed);
	PG_RETURN_TEXT_P(cstring_to_text(psprintf("ranread target \"%s\": %.0f MB (%u blocks) at %s, written in %.2f s (%.0f MB/s)",
											  name, mb, blocks, first_segment,
											  seconds, mb / Max(seconds, 1e-6))));
}
