/*-------------------------------------------------------------------------
 *
 * uring.c
 *		O_DIRECT reads through io_uring: one at a time, or several in flight.
 *
 * At iodepth 1 a read is submitted and waited for in one system call
 * (ranread_uring_read()), as t/io_uring -d 1 does: with the file, the
 * buffer and the ring's own descriptor registered it costs 2 % less CPU
 * than pread() (bench/depth1_roads.sh).  Where io_uring is refused there,
 * the caller reads by pread() instead (ranread_uring_open()'s unavailable).
 *
 * At iodepth > 1 the worker queues a read in the ring as soon as it picks it
 * (ranread_uring_queue).  Whether the ring submits it then, by a system
 * call of its own, or the reap submits every read queued since the last
 * reap together with its wait for the next completion, as t/io_uring does,
 * follows the device (ranread_uring_submits_each()): together where reads
 * complete inside the call that submits them, each at once where they
 * complete later.  No read waits for others to be picked: a refill queues
 * only reads whose slots are free now, and none waits for a batch to fill
 * (fio's iodepth_batch_submit above 1 did, which lost 6 to 20 % of the IOPS
 * on the virtio-blk disk of docs/benchmarks.md).  The
 * segment files are registered with the ring (fio's registerfiles): a read
 * names a file by its index, and the ring keeps its own reference to each
 * file, so the worker holds no descriptor per segment (a 1 TB target has
 * 1024).  The buffers are registered too (fio's fixedbufs: 18 % less CPU
 * per read there at queue depth 32) unless the locked-memory limit refuses
 * them: then the worker records why (registered_buffers) and the run warns.
 * They are allocated with malloc, not palloc: a read still in flight when an error
 * aborts the worker's transaction completes into memory that stays
 * allocated until ranread_uring_close() has waited for every read.
 *
 * Where io_uring is unavailable (a kernel without it, kernel.io_uring_disabled,
 * a seccomp profile), the errors say which and hint at iodepth => 1.
 *
 * A stalled read does not keep a stop or cancel waiting: once the worker's
 * stop flag is raised, the signal that ends the wait for it cancels every
 * read in flight (cancel_in_flight()), and the reap takes their failed
 * completions as given up rather than as errors; a read that has not ended
 * CANCEL_WAIT_MS later (FUSE serves O_DIRECT reads asynchronously, and no
 * cancel reaches them) is abandoned, its buffer left to it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifdef RANREAD_HAVE_LIBURING
#include <liburing.h>
#endif

#include "miscadmin.h"
#include "storage/fd.h"

#include "os/osstats.h"
#include "os/uring.h"

#define URING_HINT "Use iodepth => 1, which keeps one read (pread) in flight per process."

#ifndef RANREAD_HAVE_LIBURING

static void
refuse_without_liburing(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("iodepth above 1 needs io_uring, and this build of ranread has none"),
			 errdetail("ranread was built on a machine without liburing."),
			 errhint("Install liburing (Debian: apt-get install liburing-dev, or scripts/install-deps.sh), rebuild and reinstall ranread; or use iodepth => 1.")));
}

void
ranread_uring_check(const char *path, int iodepth, int block_size)
{
	refuse_without_liburing();
}

RanreadUring *
ranread_uring_open(char *const *paths, int nfiles, int iodepth, int block_size,
				   volatile sig_atomic_t *stop, int *unavailable)
{
	if (unavailable != NULL)
	{
		*unavailable = ENOSYS;
		return NULL;
	}
	refuse_without_liburing();
	return NULL;				/* keep compiler quiet */
}

bool
ranread_uring_read(RanreadUring *ring, BlockNumber first_block)
{
	refuse_without_liburing();
	return false;				/* keep compiler quiet */
}

void
ranread_uring_queue(RanreadUring *ring, int tag, BlockNumber first_block)
{
	refuse_without_liburing();
}

bool
ranread_uring_submits_each(RanreadUring *ring)
{
	refuse_without_liburing();
	return false;				/* keep compiler quiet */
}

int
ranread_uring_reap(RanreadUring *ring, int *tags)
{
	refuse_without_liburing();
	return 0;					/* keep compiler quiet */
}

void
ranread_uring_close(RanreadUring *ring)
{
}

int
ranread_uring_registration(const RanreadUring *ring)
{
	return 0;
}

#else

#define URING_DISABLED_SYSCTL	"/proc/sys/kernel/io_uring_disabled"

/* A unit spans at most two segments: RANREAD_MAX_BLOCK_SIZE is far below 1 GiB. */
#define PIECES_PER_READ		2

/*
 * An entry's user data: the length the piece must read in its upper half,
 * the piece's number (tag * PIECES_PER_READ + its index in the unit) in its
 * lower half, so that a completion is checked without a look-up.
 */
#define PIECE_DATA(len, piece)	(((uint64) (len) << 32) | (uint32) (piece))

/*
 * The user data of the entry that cancels the reads in flight: its result
 * (how many it cancelled, or an error) never equals the length in its upper
 * half, so the reap meets it only where a read failed.
 */
#define CANCEL_DATA				PIECE_DATA(PG_INT32_MAX, PG_UINT32_MAX)

struct RanreadUring
{
	struct io_uring ring;
	char	   *const *paths;
	int			iodepth;
	int			block_size;
	char	   *buffers;		/* iodepth buffers of block_size, malloc'd */
	bool		fixed_buffers;	/* registered with the ring */
	int			register_errno; /* else why not */
	int		   *pending;		/* per tag: pieces queued or in flight */
	BlockNumber *first_block;	/* per tag: the unit's first block, for errors */
	volatile sig_atomic_t *stop;	/* the worker's: it must stop reading */
	bool		cancelled;		/* told to stop, it cancelled the reads in flight */
	bool		gave_up;		/* a read ended short after that: not counted */
	bool		abandoned;		/* reads in flight were given up without ending */
	/*
	 * Per tag: its entry for a whole unit in one segment, all but the file
	 * and the offset filled in once, so that queueing a read copies it.
	 */
	struct io_uring_sqe *entries;

	/*
	 * How reads are submitted (see ranread_uring_submits_each()): each as it
	 * is queued, or together by the reap.  While submitting each, the reads
	 * that completed inside their own submission are counted; in batches,
	 * the refills left until the next check.
	 */
	bool		submit_each;
	int			last_choice;	/* what the last check chose, -1 before one */
	int			checked_reads;
	int			inline_reads;
	int			batch_refills_left;
};

/*
 * Reads submitted one by one that decide how the next are submitted, and
 * refills submitted together before the next such check.
 */
#define CHECK_READS			64
#define BATCH_REFILLS		1024

/* How long reads cancelled at a stop may take to end before they are abandoned. */
#define CANCEL_WAIT_MS		1000

/* kernel.io_uring_disabled (Linux 6.6 on), or -1 where the kernel has none. */
static int
io_uring_disabled(void)
{
	FILE	   *f = fopen(URING_DISABLED_SYSCTL, "r");
	int			value = -1;

	if (f == NULL)
		return -1;
	if (fscanf(f, "%d", &value) != 1)
		value = -1;
	fclose(f);
	return value;
}

/* Say why io_uring_queue_init() failed with -err, and what to do. */
static void
report_setup_failure(int err, int iodepth)
{
	int			disabled = io_uring_disabled();
	struct passwd *pw = getpwuid(geteuid());
	const char *user = pw != NULL ? pw->pw_name : "?";

	if (err == EPERM && disabled == 2)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("io_uring is disabled on this server"),
				 errdetail("The sysctl kernel.io_uring_disabled is 2, which disables io_uring for every process."),
				 errhint(URING_HINT)));
	if (err == EPERM && disabled == 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("io_uring is disabled for the server's user"),
				 errdetail("The sysctl kernel.io_uring_disabled is 1, which allows io_uring only to privileged processes and to members of the group kernel.io_uring_group, and the server runs as \"%s\".",
						   user),
				 errhint(URING_HINT)));
	if (err == EPERM)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("io_uring is blocked for the server process"),
				 errdetail("io_uring_setup() failed with EPERM while kernel.io_uring_disabled is %s: a seccomp profile (containers often have one) or a security module denies it.",
						   disabled < 0 ? "not set" : disabled == 0 ? "0" : "?"),
				 errhint(URING_HINT)));
	if (err == ENOSYS)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("io_uring is not available"),
				 errdetail("io_uring_setup() failed with ENOSYS: the kernel is older than 5.1 or was built without io_uring, or a seccomp profile answers ENOSYS for it."),
				 errhint(URING_HINT)));
	errno = err;
	ereport(ERROR,
			(errcode(err == ENOMEM ? ERRCODE_OUT_OF_MEMORY : ERRCODE_SYSTEM_ERROR),
			 errmsg("could not create an io_uring for %d reads in flight: %m", iodepth),
			 err == ENOMEM ?
			 errdetail("The kernel counts a ring's memory against the locked-memory limit together with what every other process of the server's OS user \"%s\" holds locked, other servers' io_uring rings included.",
					   user) : 0,
			 err == ENOMEM ?
			 errhint("Raise the server's locked-memory limit (ulimit -l), or use a smaller iodepth.") :
			 errhint(URING_HINT)));
}

/*
 * Undo ranread_uring_open() before it reports err about what (a file's
 * name with file, else a step of setting up the ring).
 */
static void
fail_open(RanreadUring *u, int err, const char *what, const char *file)
{
	io_uring_queue_exit(&u->ring);
	ReleaseExternalFD();
	free(u->buffers);
	errno = err;
	if (file != NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not %s \"%s\" for direct I/O: %m", what, file)));
	ereport(ERROR,
			(errcode(err == ENOMEM ? ERRCODE_OUT_OF_MEMORY : ERRCODE_SYSTEM_ERROR),
			 errmsg("could not %s: %m", what)));
}

/* Whether the running kernel is older than major.minor. */
static bool
kernel_before(int major, int minor)
{
	struct utsname uts;
	int			kmajor;
	int			kminor;

	if (uname(&uts) != 0 || sscanf(uts.release, "%d.%d", &kmajor, &kminor) != 2)
		return false;
	return kmajor < major || (kmajor == major && kminor < minor);
}

/*
 * Create the ring as fio and t/io_uring do: the worker is its only user, so
 * completions can wait until it asks for them (DEFER_TASKRUN, Linux 6.1 on)
 * rather than interrupt it.  Older kernels refuse the flags with EINVAL: then
 * without.
 */
static int
create_ring(RanreadUring *u)
{
	struct io_uring_params params;
	int			ret;

	memset(&params, 0, sizeof(params));
	params.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	ret = io_uring_queue_init_params(u->iodepth * PIECES_PER_READ, &u->ring, &params);
	if (ret == -EINVAL)
		ret = io_uring_queue_init(u->iodepth * PIECES_PER_READ, &u->ring, 0);
	/* name the ring by a registered index, not a descriptor (Linux 5.18 on) */
	if (ret == 0)
		(void) io_uring_register_ring_fd(&u->ring);
	return ret;
}

/*
 * Register tag i's buffer as the ring's fixed buffer i, so that the kernel
 * need not map it for every read.  Registered buffers count against the
 * locked-memory limit (ulimit -l); if it refuses them, reads use them
 * unregistered, and the worker records why (ranread_uring_registration).
 */
static void
register_buffers(RanreadUring *u)
{
	struct iovec *iov = palloc(sizeof(struct iovec) * u->iodepth);
	int			ret;

	for (int i = 0; i < u->iodepth; i++)
	{
		iov[i].iov_base = u->buffers + (size_t) i * u->block_size;
		iov[i].iov_len = u->block_size;
	}
	ret = io_uring_register_buffers(&u->ring, iov, u->iodepth);
	u->fixed_buffers = ret == 0;
	u->register_errno = -ret;
	pfree(iov);
}

/*
 * Each tag's entry: a read of block_size bytes into its buffer (its
 * registered buffer if registered) from a registered file.
 */
static void
fill_entries(RanreadUring *u)
{
	u->entries = palloc0(sizeof(struct io_uring_sqe) * u->iodepth);
	for (int tag = 0; tag < u->iodepth; tag++)
	{
		struct io_uring_sqe *sqe = &u->entries[tag];
		char	   *dest = u->buffers + (size_t) tag * u->block_size;

		if (u->fixed_buffers)
			io_uring_prep_read_fixed(sqe, 0, dest, u->block_size, 0, tag);
		else
			io_uring_prep_read(sqe, 0, dest, u->block_size, 0);
		sqe->flags |= IOSQE_FIXED_FILE;
		io_uring_sqe_set_data64(sqe, PIECE_DATA(u->block_size, tag * PIECES_PER_READ));
	}
}

/*
 * A ring for iodepth reads of up to block_size bytes from the files at
 * paths, opened O_DIRECT and registered with it; stop is the worker's flag
 * (see cancel_in_flight()).  If io_uring is unavailable (the kernel, its
 * settings or the locked-memory limit refuse the ring, or the kernel
 * cannot register the files sparsely) it errors out, saying why; or, given
 * unavailable, returns NULL with the errno there.
 */
RanreadUring *
ranread_uring_open(char *const *paths, int nfiles, int iodepth, int block_size,
				   volatile sig_atomic_t *stop, int *unavailable)
{
	RanreadUring *u = palloc0(sizeof(RanreadUring));
	int			ret;

	u->paths = paths;
	u->iodepth = iodepth;
	u->block_size = block_size;
	u->stop = stop;
	u->pending = palloc0(sizeof(int) * iodepth);
	u->first_block = palloc0(sizeof(BlockNumber) * iodepth);

	ReserveExternalFD();
	ret = create_ring(u);
	if (ret < 0)
	{
		ReleaseExternalFD();
		if (unavailable != NULL)
		{
			*unavailable = -ret;
			return NULL;
		}
		report_setup_failure(-ret, iodepth);
	}
	if (posix_memalign((void **) &u->buffers, RANREAD_IO_ALIGN, (size_t) iodepth * block_size) != 0)
	{
		u->buffers = NULL;
		fail_open(u, ENOMEM, "allocate the buffers of the reads in flight", NULL);
	}

	register_buffers(u);
	ret = io_uring_register_files_sparse(&u->ring, nfiles);
	if (ret == -EINVAL && kernel_before(5, 19))
	{
		/* sparse registration came with Linux 5.19 */
		io_uring_queue_exit(&u->ring);
		ReleaseExternalFD();
		free(u->buffers);
		if (unavailable != NULL)
		{
			*unavailable = EINVAL;
			return NULL;
		}
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("io_uring on this kernel cannot register the target's files as ranread needs"),
				 errdetail("iodepth above 1 registers the files sparsely, which needs Linux 5.19 or later."),
				 errhint(URING_HINT)));
	}
	if (ret < 0)
		fail_open(u, -ret, "register the target's files with io_uring", NULL);
	for (int i = 0; i < nfiles; i++)
	{
		int			fd = open(paths[i], O_RDONLY | PG_BINARY | O_DIRECT | O_CLOEXEC);

		if (fd < 0)
			fail_open(u, errno, "open file", paths[i]);
		ret = io_uring_register_files_update(&u->ring, i, &fd, 1);
		close(fd);
		if (ret < 0)
			fail_open(u, -ret, psprintf("register file \"%s\" with io_uring", paths[i]), NULL);
	}
	fill_entries(u);
	/* at iodepth 1 the reap submits the read and waits for it in one call */
	u->submit_each = iodepth > 1;
	u->last_choice = -1;
	return u;
}

/*
 * The next free entry of the submission queue.  It cannot be full: it has
 * room for every piece of iodepth reads (create_ring()), and holds only
 * pieces of reads in flight, as a tag is queued again only once its read
 * has completed.  So the entry is taken without asking the kernel where
 * the queue's head is, as io_uring_get_sqe() does.
 */
static inline struct io_uring_sqe *
next_entry(RanreadUring *u)
{
	struct io_uring_sq *sq = &u->ring.sq;

	Assert(io_uring_sq_space_left(&u->ring) > 0);
	return &sq->sqes[sq->sqe_tail++ & sq->ring_mask];
}

/*
 * Queue the read of len bytes at offset of file into tag's buffer, at
 * buffer_offset, as the unit's piece number `index`.
 */
static void
queue_piece(RanreadUring *u, int tag, int index, int file, off_t offset, size_t len,
			size_t buffer_offset)
{
	struct io_uring_sqe *sqe = next_entry(u);

	*sqe = u->entries[tag];
	sqe->fd = file;
	sqe->off = offset;
	sqe->addr += buffer_offset;
	sqe->len = len;
	io_uring_sqe_set_data64(sqe, PIECE_DATA(len, tag * PIECES_PER_READ + index));
	u->pending[tag]++;
}


/*
 * Submit tag's read, just queued, by itself, and take the completions that
 * have come meanwhile, as fio's io_uring engine does; count whether the read
 * completed inside that system call, as a read that a device serves from
 * memory does (zram, a RAM disk).  Of the completions the call posted, one
 * with the read's tag is the read's own: a tag is queued again only once
 * its read has been reaped.
 */
static pg_noinline void
submit_one(RanreadUring *u, int tag)
{
	struct io_uring_cq *cq = &u->ring.cq;
	unsigned	tail = io_uring_smp_load_acquire(cq->ktail);
	unsigned	new_tail;
	int			ret;

	do
		ret = io_uring_submit_and_get_events(&u->ring);
	while (ret == -EINTR);
	if (ret < 0)
	{
		errno = -ret;
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("could not submit a read to io_uring: %m")));
	}
	new_tail = io_uring_smp_load_acquire(cq->ktail);
	u->checked_reads++;
	for (unsigned next = tail; next != new_tail; next++)
	{
		uint32		piece = (uint32) cq->cqes[next & cq->ring_mask].user_data;

		if (piece / PIECES_PER_READ == (uint32) tag)
		{
			u->inline_reads++;
			break;
		}
	}
}

/*
 * Queue a unit that spans two segments: a piece in each; submitted at once
 * as ranread_uring_queue() submits a unit.
 */
static pg_noinline void
queue_split(RanreadUring *u, int tag, BlockNumber first_block)
{
	BlockNumber block = first_block % RELSEG_SIZE;
	int			file = first_block / RELSEG_SIZE;
	size_t		to_end = (size_t) (RELSEG_SIZE - block) * BLCKSZ;

	queue_piece(u, tag, 0, file, (off_t) block * BLCKSZ, to_end, 0);
	queue_piece(u, tag, 1, file + 1, 0, u->block_size - to_end, to_end);
	if (u->submit_each)
		submit_one(u, tag);
}

/*
 * Queue the read of the unit of block_size bytes from first_block on (of the
 * files taken as one relation's segments) into tag's buffer: one read per
 * segment it spans.  Submitted at once if ranread_uring_submits_each() said
 * so for this refill, else by the next ranread_uring_reap().
 */
void
ranread_uring_queue(RanreadUring *u, int tag, BlockNumber first_block)
{
	BlockNumber block = first_block % RELSEG_SIZE;
	struct io_uring_sqe *sqe;

	Assert(u->pending[tag] == 0);
	u->first_block[tag] = first_block;
	if (unlikely((size_t) (RELSEG_SIZE - block) * BLCKSZ < (size_t) u->block_size))
	{
		queue_split(u, tag, first_block);
		return;
	}
	/* the unit lies in one segment: its entry as filled in, at the offset */
	sqe = next_entry(u);
	*sqe = u->entries[tag];
	sqe->fd = first_block / RELSEG_SIZE;
	sqe->off = (uint64) block * BLCKSZ;
	u->pending[tag] = 1;
	if (u->submit_each)
		submit_one(u, tag);
}

/*
 * Submit the reads queued and, unless a completion is ready already, wait
 * for one, in one system call.  A signal ends the wait early (with -EINTR,
 * or the number submitted if it submitted any): the caller waits again.
 */
static void
submit_and_wait(RanreadUring *u)
{
	bool		queued = io_uring_sq_ready(&u->ring) > 0;
	int			ret;

	if (io_uring_cq_ready(&u->ring) > 0)
		ret = queued ? io_uring_submit(&u->ring) : 0;
	else
		ret = io_uring_submit_and_wait(&u->ring, 1);
	if (ret < 0 && ret != -EINTR)
	{
		errno = -ret;
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 queued ?
				 errmsg("could not submit reads to io_uring: %m") :
				 errmsg("could not wait for reads from io_uring: %m")));
	}
}

/*
 * The worker was told to stop while it waited for reads: cancel every read
 * in flight.  One the kernel has not issued yet, or can interrupt, ends now
 * with an error; one the device already has completes as usual; one that
 * neither ends nor completes (FUSE's asynchronous O_DIRECT reads, which no
 * cancel reaches) is abandoned by wait_after_cancel().
 */
static pg_noinline void
cancel_in_flight(RanreadUring *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	u->cancelled = true;
	if (sqe == NULL)
		return;					/* cannot be: every read queued was submitted */
	io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
	io_uring_sqe_set_data64(sqe, CANCEL_DATA);
	(void) io_uring_submit(&u->ring);
}

/*
 * A wait for reads ended with no completion: a signal ended it.  If it told
 * the worker to stop, cancel the reads in flight (once).
 */
static inline void
cancel_if_told_to_stop(RanreadUring *u)
{
	if (*u->stop && !u->cancelled)
		cancel_in_flight(u);
}

/*
 * After cancel_in_flight(): wait up to CANCEL_WAIT_MS for a completion.  If
 * none comes (or a signal ends the wait), give up every read still in
 * flight: put their tags in tags and return how many; else 0.
 */
static pg_noinline int
wait_after_cancel(RanreadUring *u, int *tags)
{
	struct __kernel_timespec wait = {.tv_sec = CANCEL_WAIT_MS / 1000,
	.tv_nsec = (CANCEL_WAIT_MS % 1000) * 1000000L};
	struct io_uring_cqe *cqe;
	int			ndone = 0;

	if (io_uring_wait_cqe_timeout(&u->ring, &cqe, &wait) == 0)
		return 0;
	for (int tag = 0; tag < u->iodepth; tag++)
		if (u->pending[tag] > 0)
			tags[ndone++] = tag;
	ereport(LOG,
			(errmsg_plural("gave up %d read still in flight %d ms after it was cancelled at a stop",
						   "gave up %d reads still in flight %d ms after they were cancelled at a stop",
						   ndone, ndone, CANCEL_WAIT_MS)));
	u->abandoned = true;
	u->gave_up = true;
	return ndone;
}

/*
 * A piece (piece, in the entries' numbering) read res bytes, not the len it
 * asked for: error out, naming the block and the file.
 */
static void
report_failed_piece(const RanreadUring *u, uint32 piece, int res, size_t len)
{
	BlockNumber first = u->first_block[piece / PIECES_PER_READ];
	int			file = first / RELSEG_SIZE;
	BlockNumber block = first % RELSEG_SIZE;

	if (piece % PIECES_PER_READ > 0)
	{
		/* the rest of the unit, from the start of the next segment */
		file++;
		block = 0;
	}
	if (res < 0)
	{
		errno = -res;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read block %u of \"%s\": %m", block, u->paths[file])));
	}
	ereport(ERROR,
			(errcode_for_file_access(),
			 errmsg("could not read block %u of \"%s\": read only %d of %zu bytes",
					block, u->paths[file], res, len)));
}

/*
 * Submit the reads queued since the last call, and wait until at least one
 * read has completed (every piece of it): one system call, none if nothing
 * is queued and a completion is ready.  Puts the tags of the completed
 * reads in tags, which has room for iodepth, and returns how many there
 * are.  The completions are taken in one pass over the completion queue,
 * which is then advanced once.  A signal does not end the wait, unless the
 * worker's stop flag is raised: then the reads in flight are cancelled, and
 * those that end short are returned as completed, given up (gave_up), as
 * are those still in flight CANCEL_WAIT_MS later (abandoned).
 */
int
ranread_uring_reap(RanreadUring *u, int *tags)
{
	struct io_uring_cq *cq = &u->ring.cq;
	int			ndone = 0;

	while (ndone == 0)
	{
		unsigned	head;
		unsigned	tail;

		if (unlikely(u->cancelled))
		{
			ndone = wait_after_cancel(u, tags);
			if (ndone > 0)
				return ndone;
		}
		else
			submit_and_wait(u);
		head = *cq->khead;
		tail = io_uring_smp_load_acquire(cq->ktail);
		if (unlikely(head == tail))
			cancel_if_told_to_stop(u);
		for (unsigned next = head; next != tail; next++)
		{
			const struct io_uring_cqe *cqe = &cq->cqes[next & cq->ring_mask];
			uint64		data = cqe->user_data;
			uint32		piece = (uint32) data;
			int			tag = piece / PIECES_PER_READ;

			if (unlikely(cqe->res != (int) (data >> 32)))
			{
				if (data == CANCEL_DATA)
					continue;
				if (!u->cancelled)
				{
					u->pending[tag]--;
					io_uring_cq_advance(&u->ring, next + 1 - head);
					report_failed_piece(u, piece, cqe->res, (size_t) (data >> 32));
				}
				u->gave_up = true;
			}
			if (--u->pending[tag] == 0)
				tags[ndone++] = tag;
		}
		io_uring_cq_advance(&u->ring, tail - head);
	}
	return ndone;
}

/*
 * Wait for every read in flight (none may complete into freed memory), then
 * free the ring, its files and the buffers.
 */
void
ranread_uring_close(RanreadUring *u)
{
	int			in_flight = 0;

	if (u->abandoned)
	{
		/* the kernel ends the ring once they end; their buffers stay theirs */
		io_uring_queue_exit(&u->ring);
		ReleaseExternalFD();
		return;
	}
	/* reads queued but not submitted (an error before the reap) will never complete */
	if (io_uring_sq_ready(&u->ring) > 0)
		(void) io_uring_submit(&u->ring);
	for (int tag = 0; tag < u->iodepth; tag++)
		in_flight += u->pending[tag];
	in_flight -= (int) io_uring_sq_ready(&u->ring);
	while (in_flight > 0)
	{
		struct io_uring_cqe *cqe;
		unsigned	head;
		unsigned	seen = 0;
		int			ret = io_uring_wait_cqe(&u->ring, &cqe);

		if (ret < 0 && ret != -EINTR)
			break;
		io_uring_for_each_cqe(&u->ring, head, cqe)
		{
			seen++;
			in_flight -= cqe->user_data != CANCEL_DATA;
		}
		io_uring_cq_advance(&u->ring, seen);
	}
	io_uring_queue_exit(&u->ring);
	ReleaseExternalFD();
	/* a read the kernel could not be waited for keeps its buffer */
	if (in_flight == 0)
		free(u->buffers);
}

/*
 * Read the unit of block_size bytes from first_block on into the ring's one
 * buffer (iodepth 1): submitted and waited for in one system call.  False
 * if the worker was told to stop and the read, cancelled, was given up.
 */
bool
ranread_uring_read(RanreadUring *u, BlockNumber first_block)
{
	struct io_uring_cq *cq = &u->ring.cq;
	int			tag;

	ranread_uring_queue(u, 0, first_block);
	/* the common case: one piece, submitted and completed in one call */
	if (likely(io_uring_submit_and_wait(&u->ring, 1) >= 0))
	{
		unsigned	head = *cq->khead;
		const struct io_uring_cqe *cqe = &cq->cqes[head & cq->ring_mask];

		if (likely(io_uring_smp_load_acquire(cq->ktail) - head == 1 && u->pending[0] == 1 &&
				   cqe->res == (int) (cqe->user_data >> 32)))
		{
			io_uring_cq_advance(&u->ring, 1);
			u->pending[0] = 0;
			return true;
		}
	}
	/* else (a signal, a failed read, a unit in two segments) as any reap */
	if (io_uring_cq_ready(&u->ring) == 0)
		cancel_if_told_to_stop(u);
	(void) ranread_uring_reap(u, &tag);
	return !u->gave_up;
}

/* 0 if the ring's buffers are registered with it, else the errno that refused them. */
int
ranread_uring_registration(const RanreadUring *u)
{
	return u->fixed_buffers ? 0 : u->register_errno;
}

/*
 * Whether the reads of the next refill are each submitted as they are queued
 * (then each takes its own start clock just before its queueing), rather
 * than together by the reap; asked once per refill.
 *
 * Which is faster depends on the device.  Where a read completes inside the
 * system call that submits it (zram), submitting a refill's reads together
 * saves a system call per read: 3 to 6 % more reads per second there.  Where
 * completions come later (a virtio disk, FUSE), submitting each at once lets
 * the device start on the first while the rest are picked: 11 % more reads
 * per second on the virtio disk of docs/benchmarks.md at iodepth 32.  So a
 * ring submits each read of its first CHECK_READS and counts how many
 * completed inline; if most did, it submits BATCH_REFILLS refills together,
 * then checks again, so a device that changes (a cache that fills) is
 * followed.  A choice that differs from the last is logged at DEBUG1.
 */
bool
ranread_uring_submits_each(RanreadUring *u)
{
	if (u->submit_each)
	{
		if (u->checked_reads >= CHECK_READS)
		{
			u->submit_each = u->inline_reads * 2 < u->checked_reads;
			if (u->submit_each != u->last_choice)
				elog(DEBUG1, "%d of %d reads completed inside the system call that submitted them: submitting %s",
					 u->inline_reads, u->checked_reads,
					 u->submit_each ? "each read as it is queued" : "each refill's reads together");
			u->last_choice = u->submit_each;
			u->checked_reads = 0;
			u->inline_reads = 0;
			u->batch_refills_left = BATCH_REFILLS;
		}
	}
	else if (--u->batch_refills_left == 0)
		u->submit_each = true;
	return u->submit_each;
}

/* Leader: create a ring of iodepth entries and read the first block through it. */
void
ranread_uring_check(const char *path, int iodepth, int block_size)
{
	char	   *paths[1] = {unconstify(char *, path)};
	volatile sig_atomic_t never = false;
	RanreadUring *u = ranread_uring_open(paths, 1, iodepth, block_size, &never, NULL);
	int			tag;

	/* the leader's session lives on: give the ring back whatever happens */
	PG_TRY();
	{
		queue_piece(u, 0, 0, 0, 0, BLCKSZ, 0);
		(void) ranread_uring_reap(u, &tag);
	}
	PG_FINALLY();
	{
		ranread_uring_close(u);
	}
	PG_END_TRY();
}

#endif							/* RANREAD_HAVE_LIBURING */
