/*-------------------------------------------------------------------------
 *
 * labfs.c
 *		A laboratory file system: a passthrough FUSE file system whose reads
 *		have a service time, a queue, a pace, errors and stalls that a test
 *		sets, and which counts what it served.
 *
 * One purpose: a device whose truth we know, to test what ranread measures
 * against.  Every file operation PostgreSQL needs for a tablespace passes
 * through to a backing directory (on /dev/shm: no device of its own); only
 * read() is instrumented.  A read
 *
 *	1. fails with EIO if it overlaps an EIO range (file name + byte range);
 *	2. blocks while it overlaps a stall range, until "release", the stall's
 *	   time limit, or a FUSE interrupt (the reader was signalled);
 *	3. waits for its turn under the pace (at most pace reads/s) and the
 *	   token bucket (below);
 *	4. waits for one of the limit in-flight slots (limit 0: no limit);
 *	5. holds its slot for delay_us, and kb_us more for each kB it reads (a
 *	   device's transfer time), then reads the backing file.
 *
 * The file system measures each read itself: service time is step 5 (slot
 * taken to reply), latency steps 2-5; their means are the truths a test
 * compares ranread with (the configured delay overshoots: timers wake
 * late).  A finishing read hands its slot to the first waiting read, whose
 * service time starts then; so with reads waiting, the slots are never idle
 * and the reads served per second are exactly limit / service time of the
 * reads that waited (queued_service_us_mean).  Files created are owned by
 * the caller (PostgreSQL's OS user).
 *
 * Control: the virtual file "/.labfs" at the root of the mount (mode 0666,
 * not listed): write commands, read counters and settings as key=value
 * lines.  Commands, separated by blanks or newlines:
 *
 *	delay_us=N  kb_us=N  limit=K  pace=R  stall_s=S (0: until released)
 *	eio=FILE:FROM-TO  stall=FILE:FROM-TO  (FILE: a file's base name; bytes)
 *	release (ends every stall)  clear (no faults, no delay/limit/pace)
 *	reset (zeroes the counters)  count=FILE (count only reads of FILE and
 *	its segments FILE.N; empty: all)
 *	bucket=N  burst=R  baseline=R (a token bucket, active when all three
 *	are above 0; setting bucket=N fills it)
 *
 * The token bucket is a cloud volume's burst contract as AWS gp2 and Azure
 * Premium SSD state it: credits (tokens, one a read) accrue at the baseline
 * rate up to the bucket's size, every read spends one, and while credits
 * last reads are served at up to the burst rate.  Exactly: reads take turns
 * at least 1/burst s apart; at its turn a read adds baseline tokens a second
 * since the last turn (at most bucket in all); if a token is left it takes
 * it and is served then (a burst read); otherwise it waits until a whole
 * token has accrued, takes it and is served then (a baseline read).  So from
 * a full bucket of N tokens a closed loop reads at the burst rate B for
 * N / (B - b) seconds, B N / (B - b) reads, and then at the baseline rate b
 * exactly; idle time refills the bucket.  Counters: bucket_tokens (left
 * now), bucket_burst_reads, bucket_baseline_reads, and
 * bucket_empty_reads / bucket_empty_after_s / bucket_empty_accrued: the
 * counted reads served, the seconds from the first bucket read, and the
 * tokens accrued since reset (none while full), until the first baseline
 * read; so the bucket held bucket_empty_reads - bucket_empty_accrued tokens
 * (less one) when reads began, if only counted reads spent them.
 * bucket_first_at: the wall-clock time (seconds since the epoch) of the
 * first bucket read's turn, to set against a batch's own start.
 *
 * Usage: labfs --backing=DIR [--set=COMMANDS] [--page-cache] MOUNTPOINT
 *		  [FUSE options, e.g. -f -o allow_other,max_threads=64]
 * Without --page-cache every file is opened with FUSE's direct_io: reads
 * bypass the kernel's page cache (each pread is one read here) and files
 * cannot be mapped (mmap fails with ENODEV).  test/lab/labfs.sh mounts it.
 *
 *-------------------------------------------------------------------------
 */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define CONTROL_PATH	"/.labfs"
#define MAX_RANGES		16
#define NAME_LEN		64
#define POLL_NS			10000000L	/* interrupts and releases are seen within 10 ms */

/* A read waiting for an in-flight slot: a finishing read hands its slot over. */
typedef struct Waiter
{
	struct Waiter *next;
	bool		granted;
	int64_t		granted_at;
} Waiter;

typedef struct Range
{
	char		file[NAME_LEN];
	uint64_t	from;
	uint64_t	to;				/* exclusive */
} Range;

/* Settings and counters, under lock. */
static struct
{
	pthread_mutex_t lock;
	pthread_cond_t changed;		/* a slot freed, a stall released */
	int			backing;		/* directory file descriptor */
	bool		direct_io;
	/* settings */
	long		delay_us;
	long		kb_us;			/* slot time per kB read, beside delay_us */
	int			limit;
	double		pace;
	long		stall_s;
	Range		eio[MAX_RANGES];
	int			neio;
	Range		stall[MAX_RANGES];
	int			nstall;
	uint64_t	release_generation;
	char		count_file[NAME_LEN];
	double		bucket;			/* token bucket: capacity, tokens = reads */
	double		burst;			/* reads/s while tokens last */
	double		baseline;		/* tokens/s accrued, so reads/s when empty */
	/* state */
	int			in_flight;
	Waiter	   *queue;			/* FIFO of reads waiting for a slot */
	struct timespec next_paced;
	int64_t		lateness_ns;	/* how late the sleeps wake, smoothed */
	double		tokens;
	int64_t		tokens_at;		/* turn at which tokens was last brought up to date */
	int64_t		next_burst;		/* earliest turn of the next bucket read */
	int64_t		bucket_first_ns;	/* turn of the first bucket read since reset */
	double		bucket_first_at;	/* that turn on the wall clock, in s since the epoch */
	int64_t		bucket_empty_ns;	/* turn of the first baseline read since reset */
	double		bucket_accrued;	/* tokens accrued since reset (beyond a full bucket: none) */
	double		turn_accrued;	/* bucket_accrued at the last turn, before it waited */
	double		bucket_empty_accrued;	/* turn_accrued at the first baseline read */
	/* counters */
	uint64_t	reads;
	uint64_t	bytes;
	uint64_t	service_ns;
	uint64_t	latency_ns;
	uint64_t	queued_reads;	/* reads that waited for a slot: the device was saturated */
	uint64_t	queued_service_ns;
	uint64_t	errors;
	uint64_t	stalled;
	uint64_t	interrupted;
	int			max_in_flight;
	int			waiting_stalled;
	uint64_t	bucket_burst_reads;
	uint64_t	bucket_baseline_reads;
	uint64_t	bucket_empty_reads;
}			lab = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};

static int64_t
ns_of(struct timespec t)
{
	return (int64_t) t.tv_sec * 1000000000 + t.tv_nsec;
}

static struct timespec
timespec_of(int64_t ns)
{
	struct timespec t = {ns / 1000000000, ns % 1000000000};

	return t;
}

static int64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return ns_of(t);
}

/* The backing path of a FUSE path: relative to the backing directory. */
static const char *
rel(const char *path)
{
	return path[1] == '\0' ? "." : path + 1;
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/* FILE names the file or one of its segments (FILE.1, ...). */
static bool
names_file(const char *pattern, const char *path)
{
	const char *name = base_name(path);
	size_t		len = strlen(pattern);

	return strncmp(name, pattern, len) == 0 && (name[len] == '\0' || name[len] == '.');
}

static bool
in_ranges(const Range *ranges, int n, const char *path, uint64_t from, uint64_t to)
{
	for (int i = 0; i < n; i++)
	{
		if (strcmp(ranges[i].file, base_name(path)) == 0 &&
			from < ranges[i].to && ranges[i].from < to)
			return true;
	}
	return false;
}

/*
 * Sleep until deadline (CLOCK_MONOTONIC ns), waking early by the sleeps'
 * measured lateness, in steps of at most 10 ms; false if the read was
 * interrupted.  At most half of the wait is skipped so: on a busy machine,
 * whose sleeps wake late by more than a short delay, a wait is still slept
 * in part and its lateness still measured, rather than skipped whole from
 * then on (the file system's measured service time says what it gave).
 */
static bool
sleep_until(int64_t deadline)
{
	int64_t		most_early = (deadline - now_ns()) / 2;

	if (most_early < 0)
		most_early = 0;
	for (;;)
	{
		int64_t		smoothed = __atomic_load_n(&lab.lateness_ns, __ATOMIC_RELAXED);
		int64_t		early = smoothed < most_early ? smoothed : most_early;
		int64_t		now = now_ns();
		int64_t		target = deadline - early;
		bool		last;
		struct timespec t;

		if (now >= target)
			return true;
		if (fuse_interrupted())
			return false;
		last = target - now <= POLL_NS;
		t = timespec_of(last ? target : now + POLL_NS);
		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == 0 && last)
		{
			int64_t		late = now_ns() - target;

			late = late < 0 ? 0 : (late > 1000000 ? 1000000 : late);
			__atomic_store_n(&lab.lateness_ns, smoothed + (late - smoothed) / 8, __ATOMIC_RELAXED);
		}
	}
}

/* Parse FILE:FROM-TO into range; false if malformed. */
static bool
parse_range(const char *text, Range *range)
{
	const char *colon = strchr(text, ':');
	unsigned long long from;
	unsigned long long to;

	if (colon == NULL || colon == text || (size_t) (colon - text) >= NAME_LEN ||
		sscanf(colon + 1, "%llu-%llu", &from, &to) != 2 || to <= from)
		return false;
	memset(range, 0, sizeof(Range));
	memcpy(range->file, text, colon - text);
	range->from = from;
	range->to = to;
	return true;
}

static bool bucket_on(void);
static double bucket_tokens_now(void);

/* Apply one command (under lock); false if it is not one. */
static bool
apply_command(const char *cmd)
{
	const char *value = strchr(cmd, '=');

	value = value != NULL ? value + 1 : "";
	if (strncmp(cmd, "delay_us=", 9) == 0)
		lab.delay_us = atol(value);
	else if (strncmp(cmd, "kb_us=", 6) == 0)
		lab.kb_us = atol(value);
	else if (strncmp(cmd, "limit=", 6) == 0)
		lab.limit = atoi(value);
	else if (strncmp(cmd, "pace=", 5) == 0)
		lab.pace = atof(value);
	else if (strncmp(cmd, "stall_s=", 8) == 0)
		lab.stall_s = atol(value);
	else if (strncmp(cmd, "count=", 6) == 0 && strlen(value) < NAME_LEN)
		strcpy(lab.count_file, value);
	else if (strncmp(cmd, "eio=", 4) == 0 && lab.neio < MAX_RANGES)
		return parse_range(value, &lab.eio[lab.neio]) && ++lab.neio;
	else if (strncmp(cmd, "stall=", 6) == 0 && lab.nstall < MAX_RANGES)
		return parse_range(value, &lab.stall[lab.nstall]) && ++lab.nstall;
	else if (strncmp(cmd, "bucket=", 7) == 0)
	{
		lab.bucket = lab.tokens = atof(value);
		lab.tokens_at = now_ns();
		lab.next_burst = 0;
	}
	else if (strncmp(cmd, "burst=", 6) == 0)
		lab.burst = atof(value);
	else if (strncmp(cmd, "baseline=", 9) == 0)
		lab.baseline = atof(value);
	else if (strcmp(cmd, "release") == 0)
	{
		lab.nstall = 0;
		lab.release_generation++;
	}
	else if (strcmp(cmd, "clear") == 0)
	{
		lab.delay_us = lab.kb_us = lab.limit = lab.neio = lab.nstall = 0;
		lab.pace = 0;
		lab.stall_s = 0;
		lab.bucket = lab.burst = lab.baseline = lab.tokens = 0;
		lab.next_burst = 0;
		lab.count_file[0] = '\0';
		lab.release_generation++;
	}
	else if (strcmp(cmd, "reset") == 0)
	{
		lab.reads = lab.bytes = lab.service_ns = lab.latency_ns = 0;
		lab.queued_reads = lab.queued_service_ns = 0;
		lab.errors = lab.stalled = lab.interrupted = 0;
		lab.max_in_flight = lab.in_flight;
		lab.bucket_burst_reads = lab.bucket_baseline_reads = lab.bucket_empty_reads = 0;
		lab.bucket_first_ns = lab.bucket_empty_ns = 0;
		lab.bucket_first_at = 0;
		lab.bucket_accrued = lab.turn_accrued = lab.bucket_empty_accrued = 0;
		/* what accrued before the reset is in the bucket, not counted as accrued since */
		if (bucket_on() && now_ns() > lab.tokens_at)
		{
			lab.tokens = bucket_tokens_now();
			lab.tokens_at = now_ns();
		}
	}
	else
		return false;
	pthread_cond_broadcast(&lab.changed);
	return true;
}

/* Apply a string of commands; -EINVAL at the first that is not one. */
static int
apply_commands(const char *text, size_t len)
{
	char	   *copy = strndup(text, len);
	char	   *save = NULL;
	int			rc = 0;

	if (copy == NULL)
		return -ENOMEM;
	pthread_mutex_lock(&lab.lock);
	for (char *cmd = strtok_r(copy, " \t\r\n", &save); cmd != NULL && rc == 0;
		 cmd = strtok_r(NULL, " \t\r\n", &save))
	{
		if (!apply_command(cmd))
		{
			fprintf(stderr, "labfs: not a command: %s\n", cmd);
			rc = -EINVAL;
		}
	}
	pthread_mutex_unlock(&lab.lock);
	free(copy);
	return rc;
}

static bool
bucket_on(void)
{
	return lab.bucket > 0 && lab.burst > 0 && lab.baseline > 0;
}

/* Tokens in the bucket now, counting what accrued since the last turn (under lock). */
static double
bucket_tokens_now(void)
{
	double		tokens;

	if (!bucket_on())
		return lab.tokens;
	tokens = lab.tokens + lab.baseline * (now_ns() - lab.tokens_at) / 1e9;
	return tokens < lab.bucket ? tokens : lab.bucket;
}

/*
 * A read's turn under the token bucket (under lock), as the header states:
 * at least 1/burst after the previous one, and later if no whole token is
 * left then; *baseline says it waited for a token.
 */
static int64_t
bucket_turn(int64_t now, bool *baseline)
{
	int64_t		turn = lab.next_burst > now ? lab.next_burst : now;

	if (turn > lab.tokens_at)
	{
		double		tokens = lab.tokens + lab.baseline * (turn - lab.tokens_at) / 1e9;

		if (tokens > lab.bucket)
			tokens = lab.bucket;
		lab.bucket_accrued += tokens - lab.tokens;
		lab.tokens = tokens;
		lab.tokens_at = turn;
	}
	lab.turn_accrued = lab.bucket_accrued;
	*baseline = lab.tokens < 1;
	if (*baseline)
	{
		turn += (int64_t) ((1 - lab.tokens) / lab.baseline * 1e9) + 1;
		lab.bucket_accrued += 1 - lab.tokens;
		lab.tokens = 1;
		lab.tokens_at = turn;
	}
	lab.tokens -= 1;
	lab.next_burst = turn + (int64_t) (1e9 / lab.burst);
	return turn;
}

/* The control file's text: counters and settings. */
static int
control_text(char *buf, size_t size)
{
	int			n;

	pthread_mutex_lock(&lab.lock);
	n = snprintf(buf, size,
				 "reads=%llu\nbytes=%llu\nservice_us_mean=%.3f\nlatency_us_mean=%.3f\n"
				 "queued_reads=%llu\nqueued_service_us_mean=%.3f\n"
				 "errors=%llu\nstalled=%llu\ninterrupted=%llu\nin_flight=%d\nmax_in_flight=%d\n"
				 "waiting_stalled=%d\ndelay_us=%ld\nkb_us=%ld\nlimit=%d\npace=%.0f\nstall_s=%ld\n"
				 "eio_ranges=%d\nstall_ranges=%d\ncount=%s\ndirect_io=%d\n"
				 "bucket=%.0f\nburst=%.0f\nbaseline=%.0f\nbucket_tokens=%.3f\n"
				 "bucket_burst_reads=%llu\nbucket_baseline_reads=%llu\n"
				 "bucket_empty_reads=%llu\nbucket_empty_after_s=%.6f\nbucket_empty_accrued=%.3f\n"
				 "bucket_first_at=%.6f\n",
				 (unsigned long long) lab.reads, (unsigned long long) lab.bytes,
				 lab.reads ? lab.service_ns / 1000.0 / lab.reads : 0.0,
				 lab.reads ? lab.latency_ns / 1000.0 / lab.reads : 0.0,
				 (unsigned long long) lab.queued_reads,
				 lab.queued_reads ? lab.queued_service_ns / 1000.0 / lab.queued_reads : 0.0,
				 (unsigned long long) lab.errors, (unsigned long long) lab.stalled,
				 (unsigned long long) lab.interrupted, lab.in_flight, lab.max_in_flight,
				 lab.waiting_stalled, lab.delay_us, lab.kb_us, lab.limit, lab.pace, lab.stall_s,
				 lab.neio, lab.nstall, lab.count_file, lab.direct_io,
				 lab.bucket, lab.burst, lab.baseline, bucket_tokens_now(),
				 (unsigned long long) lab.bucket_burst_reads,
				 (unsigned long long) lab.bucket_baseline_reads,
				 (unsigned long long) lab.bucket_empty_reads,
				 lab.bucket_empty_ns > lab.bucket_first_ns && lab.bucket_first_ns > 0 ?
				 (lab.bucket_empty_ns - lab.bucket_first_ns) / 1e9 : 0.0,
				 lab.bucket_empty_accrued, lab.bucket_first_at);
	pthread_mutex_unlock(&lab.lock);
	return n;
}

/*
 * Steps 2-4 of a read (under lock): wait out a stall, the pace and a slot,
 * taken free or handed over by a finishing read (then *queued), at
 * *granted_at: its service time starts there, so that a waiting thread's
 * late wake-up is the device's time, not idle time.  0, or -EINTR if the
 * reader was interrupted meanwhile (then it holds no slot).
 */
static int
wait_for_turn(const char *path, uint64_t from, uint64_t to, int64_t *granted_at, bool *queued,
			  bool counted)
{
	if (in_ranges(lab.stall, lab.nstall, path, from, to))
	{
		uint64_t	generation = lab.release_generation;
		int64_t		until = lab.stall_s > 0 ? now_ns() + lab.stall_s * 1000000000 : INT64_MAX;

		lab.stalled++;
		lab.waiting_stalled++;
		while (generation == lab.release_generation && now_ns() < until && !fuse_interrupted())
		{
			struct timespec t;

			clock_gettime(CLOCK_REALTIME, &t);
			t = timespec_of(ns_of(t) + POLL_NS);
			pthread_cond_timedwait(&lab.changed, &lab.lock, &t);
		}
		lab.waiting_stalled--;
		if (fuse_interrupted())
			return -EINTR;
	}
	if (bucket_on())
	{
		bool		baseline;
		int64_t		turn = bucket_turn(now_ns(), &baseline);
		bool		slept;

		if (counted)
		{
			if (lab.bucket_first_ns == 0)
			{
				struct timespec wall;

				clock_gettime(CLOCK_REALTIME, &wall);
				lab.bucket_first_ns = turn;
				lab.bucket_first_at = (ns_of(wall) - (now_ns() - turn)) / 1e9;
			}
			if (baseline && lab.bucket_empty_ns == 0)
			{
				lab.bucket_empty_ns = turn;
				lab.bucket_empty_reads = lab.bucket_burst_reads;
				lab.bucket_empty_accrued = lab.turn_accrued;
			}
			if (baseline)
				lab.bucket_baseline_reads++;
			else
				lab.bucket_burst_reads++;
		}
		pthread_mutex_unlock(&lab.lock);
		slept = sleep_until(turn);
		pthread_mutex_lock(&lab.lock);
		if (!slept)
			return -EINTR;
	}
	if (lab.pace > 0)
	{
		int64_t		now = now_ns();
		int64_t		turn = ns_of(lab.next_paced) > now ? ns_of(lab.next_paced) : now;
		bool		slept;

		lab.next_paced = timespec_of(turn + (int64_t) (1e9 / lab.pace));
		pthread_mutex_unlock(&lab.lock);
		slept = sleep_until(turn);
		pthread_mutex_lock(&lab.lock);
		if (!slept)
			return -EINTR;
	}
	if (lab.limit > 0 && lab.in_flight >= lab.limit)
	{
		Waiter		me = {0};
		Waiter	  **tail = &lab.queue;

		while (*tail != NULL)
			tail = &(*tail)->next;
		*tail = &me;
		while (!me.granted)
		{
			struct timespec t;

			/* the limit was raised or lifted meanwhile: take a free slot */
			if (fuse_interrupted() || lab.limit == 0 || lab.in_flight < lab.limit)
			{
				for (tail = &lab.queue; *tail != &me; tail = &(*tail)->next)
					;
				*tail = me.next;
				if (fuse_interrupted())
					return -EINTR;
				break;
			}
			clock_gettime(CLOCK_REALTIME, &t);
			t = timespec_of(ns_of(t) + POLL_NS);
			pthread_cond_timedwait(&lab.changed, &lab.lock, &t);
		}
		if (me.granted)
		{
			*granted_at = me.granted_at;
			*queued = true;
			return 0;
		}
	}
	lab.in_flight++;
	if (lab.in_flight > lab.max_in_flight)
		lab.max_in_flight = lab.in_flight;
	*granted_at = now_ns();
	return 0;
}

/* A read is done with its slot: hand it to the first waiting read, or free it. */
static void
release_slot(void)
{
	Waiter	   *next = lab.queue;

	if (next != NULL && lab.limit > 0 && lab.in_flight <= lab.limit)
	{
		lab.queue = next->next;
		next->granted = true;
		next->granted_at = now_ns();
	}
	else
		lab.in_flight--;
	pthread_cond_broadcast(&lab.changed);
}

static int
lab_read(const char *path, char *buf, size_t size, off_t offset, struct fuse_file_info *fi)
{
	int64_t		start = now_ns();
	int64_t		served = 0;
	int64_t		done;
	ssize_t		got;
	bool		counted;
	bool		queued = false;
	int			rc;

	if (strcmp(path, CONTROL_PATH) == 0)
	{
		char		text[2048];
		int			n = control_text(text, sizeof(text));

		if (offset >= n)
			return 0;
		got = (ssize_t) size < n - offset ? (ssize_t) size : n - offset;
		memcpy(buf, text + offset, got);
		return (int) got;
	}
	pthread_mutex_lock(&lab.lock);
	counted = lab.count_file[0] == '\0' || names_file(lab.count_file, path);
	if (in_ranges(lab.eio, lab.neio, path, offset, offset + size))
	{
		lab.errors += counted;
		pthread_mutex_unlock(&lab.lock);
		return -EIO;
	}
	rc = wait_for_turn(path, offset, offset + size, &served, &queued, counted);
	if (rc != 0)
	{
		lab.interrupted++;
		pthread_mutex_unlock(&lab.lock);
		return rc;
	}
	pthread_mutex_unlock(&lab.lock);

	rc = 0;
	if ((lab.delay_us > 0 || lab.kb_us > 0) &&
		!sleep_until(served + (lab.delay_us + lab.kb_us * (int64_t) size / 1024) * 1000))
		rc = -EINTR;
	got = rc == 0 ? pread(fi->fh, buf, size, offset) : 0;
	if (got < 0)
		rc = -errno;
	done = now_ns();

	pthread_mutex_lock(&lab.lock);
	release_slot();
	if (rc == -EINTR)
		lab.interrupted++;
	else if (rc != 0)
		lab.errors += counted;
	else if (counted)
	{
		lab.reads++;
		lab.bytes += got;
		lab.service_ns += done - served;
		lab.latency_ns += done - start;
		lab.queued_reads += queued;
		lab.queued_service_ns += queued ? done - served : 0;
	}
	pthread_mutex_unlock(&lab.lock);
	return rc != 0 ? rc : (int) got;
}

/* ---- passthrough ---------------------------------------------------- */

static int
errno_or(int rc)
{
	return rc < 0 ? -errno : 0;
}

/* Files and directories a caller creates are the caller's. */
static void
give_to_caller(const char *path)
{
	struct fuse_context *ctx = fuse_get_context();

	if (fchownat(lab.backing, rel(path), ctx->uid, ctx->gid, AT_SYMLINK_NOFOLLOW) != 0)
		fprintf(stderr, "labfs: could not chown %s: %m\n", path);
}

static int
lab_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	if (strcmp(path, CONTROL_PATH) == 0)
	{
		memset(st, 0, sizeof(struct stat));
		st->st_mode = S_IFREG | 0666;
		st->st_nlink = 1;
		st->st_size = 0;
		return 0;
	}
	if (fi != NULL)
		return errno_or(fstat(fi->fh, st));
	return errno_or(fstatat(lab.backing, rel(path), st, AT_SYMLINK_NOFOLLOW));
}

static int
lab_mkdir(const char *path, mode_t mode)
{
	if (mkdirat(lab.backing, rel(path), mode) != 0)
		return -errno;
	give_to_caller(path);
	return 0;
}

static int
lab_unlink(const char *path)
{
	return errno_or(unlinkat(lab.backing, rel(path), 0));
}

static int
lab_rmdir(const char *path)
{
	return errno_or(unlinkat(lab.backing, rel(path), AT_REMOVEDIR));
}

static int
lab_rename(const char *from, const char *to, unsigned int flags)
{
	return errno_or(renameat2(lab.backing, rel(from), lab.backing, rel(to), flags));
}

static int
lab_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	if (fi != NULL)
		return errno_or(fchmod(fi->fh, mode));
	return errno_or(fchmodat(lab.backing, rel(path), mode, 0));
}

static int
lab_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	if (fi != NULL)
		return errno_or(fchown(fi->fh, uid, gid));
	return errno_or(fchownat(lab.backing, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW));
}

static int
lab_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	int			fd;
	int			rc;

	if (strcmp(path, CONTROL_PATH) == 0)
		return 0;
	if (fi != NULL)
		return errno_or(ftruncate(fi->fh, size));
	fd = openat(lab.backing, rel(path), O_WRONLY);
	if (fd < 0)
		return -errno;
	rc = errno_or(ftruncate(fd, size));
	close(fd);
	return rc;
}

static int
lab_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	if (strcmp(path, CONTROL_PATH) == 0)
		return 0;
	if (fi != NULL)
		return errno_or(futimens(fi->fh, tv));
	return errno_or(utimensat(lab.backing, rel(path), tv, AT_SYMLINK_NOFOLLOW));
}

/* The control file has no descriptor (fh 0 would be stdin: it is never used). */
static int
open_common(const char *path, struct fuse_file_info *fi, int fd)
{
	if (fd < 0)
		return -errno;
	fi->fh = fd;
	fi->direct_io = lab.direct_io || strcmp(path, CONTROL_PATH) == 0;
	return 0;
}

static int
lab_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	int			rc = open_common(path, fi, openat(lab.backing, rel(path),
												  (fi->flags & ~O_DIRECT) | O_CREAT, mode));

	if (rc == 0)
		give_to_caller(path);
	return rc;
}

static int
lab_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, CONTROL_PATH) == 0)
	{
		fi->fh = (uint64_t) -1;
		fi->direct_io = 1;
		return 0;
	}
	return open_common(path, fi, openat(lab.backing, rel(path), fi->flags & ~O_DIRECT));
}

static int
lab_write(const char *path, const char *buf, size_t size, off_t offset, struct fuse_file_info *fi)
{
	ssize_t		done;

	if (strcmp(path, CONTROL_PATH) == 0)
	{
		int			rc = apply_commands(buf, size);

		return rc != 0 ? rc : (int) size;
	}
	done = pwrite(fi->fh, buf, size, offset);
	return done < 0 ? -errno : (int) done;
}

static int
lab_statfs(const char *path, struct statvfs *st)
{
	(void) path;
	return errno_or(fstatvfs(lab.backing, st));
}

static int
lab_release(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, CONTROL_PATH) != 0)
		close(fi->fh);
	return 0;
}

static int
lab_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	if (strcmp(path, CONTROL_PATH) == 0)
		return 0;
	return errno_or(datasync ? fdatasync(fi->fh) : fsync(fi->fh));
}

static int
lab_fallocate(const char *path, int mode, off_t offset, off_t length, struct fuse_file_info *fi)
{
	(void) path;
	return errno_or(fallocate(fi->fh, mode, offset, length));
}

static int
lab_readdir(const char *path, void *entries, fuse_fill_dir_t fill, off_t offset,
			struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	int			fd = openat(lab.backing, rel(path), O_RDONLY | O_DIRECTORY);
	DIR		   *dir;
	struct dirent *entry;

	(void) offset;
	(void) fi;
	(void) flags;
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (dir == NULL)
	{
		close(fd);
		return -errno;
	}
	while ((entry = readdir(dir)) != NULL)
	{
		if (fill(entries, entry->d_name, NULL, 0, 0) != 0)
			break;
	}
	closedir(dir);
	return 0;
}

/* Interrupts honoured; direct_io set per open; attributes from the backing files. */
static void *
lab_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	cfg->intr = 1;
	cfg->intr_signal = SIGUSR1;
	cfg->use_ino = 1;
	/* io_uring at depth 32: the kernel queues this many asynchronous reads */
	conn->max_background = 128;
	conn->congestion_threshold = 96;
	return NULL;
}

static const struct fuse_operations lab_ops = {
	.init = lab_init,
	.getattr = lab_getattr,
	.mkdir = lab_mkdir,
	.unlink = lab_unlink,
	.rmdir = lab_rmdir,
	.rename = lab_rename,
	.chmod = lab_chmod,
	.chown = lab_chown,
	.truncate = lab_truncate,
	.utimens = lab_utimens,
	.create = lab_create,
	.open = lab_open,
	.read = lab_read,
	.write = lab_write,
	.statfs = lab_statfs,
	.release = lab_release,
	.fsync = lab_fsync,
	.fallocate = lab_fallocate,
	.readdir = lab_readdir,
};

/* libfuse interrupts a read by sending its thread SIGUSR1: it must not kill. */
static void
on_interrupt(int sig)
{
	(void) sig;
}

static struct
{
	char	   *backing;
	char	   *set;
	int			page_cache;
}			options;

static const struct fuse_opt option_spec[] = {
	{"--backing=%s", offsetof(typeof(options), backing), 0},
	{"--set=%s", offsetof(typeof(options), set), 0},
	{"--page-cache", offsetof(typeof(options), page_cache), 1},
	FUSE_OPT_END
};

int
main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct sigaction sa = {0};

	if (fuse_opt_parse(&args, &options, option_spec, NULL) != 0)
		return 1;
	if (options.backing == NULL)
	{
		fprintf(stderr, "usage: labfs --backing=DIR [--set=COMMANDS] [--page-cache] MOUNTPOINT [FUSE options]\n");
		return 1;
	}
	lab.backing = open(options.backing, O_RDONLY | O_DIRECTORY);
	if (lab.backing < 0)
	{
		fprintf(stderr, "labfs: could not open backing directory %s: %m\n", options.backing);
		return 1;
	}
	lab.direct_io = !options.page_cache;
	if (options.set != NULL && apply_commands(options.set, strlen(options.set)) != 0)
		return 1;
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) != 0)
		return 1;
	umask(0);
	return fuse_main(args.argc, args.argv, &lab_ops, NULL);
}
