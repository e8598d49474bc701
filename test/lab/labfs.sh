#!/usr/bin/env bash
# labfs.sh: mount, control and unmount the laboratory file system
# (test/lab/labfs.c: a passthrough FUSE file system whose reads have a delay,
# an in-flight limit, a pace, EIO ranges and stalls we set, and which counts
# them).  Run mount and umount as root.
#
#   labfs.sh mount DIR [COMMANDS]  build labfs, mount it on DIR/mnt (backing
#                                  directory on /dev/shm) with allow_other,
#                                  and make DIR/mnt/tblspc for PostgreSQL's
#                                  OS user (LAB_OWNER, default postgres);
#                                  COMMANDS are labfs's, set at mount
#   labfs.sh umount DIR            unmount it, end the daemon, remove the
#                                  backing directory; only a mount this
#                                  script made (DIR/labfs.pid)
#   labfs.sh set DIR COMMANDS...   write commands to the control file
#   labfs.sh stats DIR             print the counters and settings
#
# The control file is DIR/mnt/.labfs, writable by every user: see the header
# of labfs.c for its commands and counters.
set -euo pipefail

lab_src=$(cd "$(dirname "$0")" && pwd)
owner=${LAB_OWNER:-postgres}

usage() {
	echo "usage: labfs.sh mount|umount|set|stats DIR [COMMANDS...]" >&2
	exit 2
}

# True while the daemon of pid $1 is labfs.
is_labfs() {
	[ -n "$1" ] && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q 'labfs --backing='
}

# Unmount DIR/mnt and end the daemon: fusermount3 -u may leave it connected,
# so it is ended by its pid after 5 s.  Safe to call on a half-made mount.
lab_down() {
	local dir=$1 pid backing
	pid=$(cat "$dir/labfs.pid" 2>/dev/null || true)
	backing=$(cat "$dir/labfs.backing" 2>/dev/null || true)
	if mountpoint -q "$dir/mnt"; then
		fusermount3 -u "$dir/mnt" 2>/dev/null || umount "$dir/mnt" 2>/dev/null || true
	fi
	for _ in $(seq 50); do
		is_labfs "$pid" || break
		sleep 0.1
	done
	if is_labfs "$pid"; then
		echo "labfs.sh: the daemon (pid $pid) is still connected after 5 s; ending it" >&2
		kill "$pid" 2>/dev/null || true
		sleep 0.5
		! is_labfs "$pid" || kill -KILL "$pid" 2>/dev/null || true
	fi
	if mountpoint -q "$dir/mnt"; then
		umount -l "$dir/mnt" 2>/dev/null || true
	fi
	case $backing in
	/dev/shm/ranread_labfs.*) rm -rf "$backing" ;;
	esac
	rm -f "$dir/labfs.pid" "$dir/labfs.backing"
}

lab_up() {
	local dir=$1 commands=${2:-} backing pid
	if [ -e "$dir/labfs.pid" ] || mountpoint -q "$dir/mnt" 2>/dev/null; then
		echo "labfs.sh: $dir already has a mount; unmount it first" >&2
		exit 1
	fi
	mkdir -p "$dir/mnt"
	chmod 755 "$dir"
	cc -O2 -Wall -Wextra -Werror $(pkg-config --cflags fuse3) -o "$dir/labfs" "$lab_src/labfs.c" \
		$(pkg-config --libs fuse3)
	backing=$(mktemp -d /dev/shm/ranread_labfs.XXXXXX)
	chmod 755 "$backing"
	echo "$backing" >"$dir/labfs.backing"
	# from here on, any failure unmounts and ends the daemon
	trap 'lab_down "$dir"' EXIT
	# The device's service must not wait for a CPU the tests' load holds: its
	# threads (which inherit it) run under SCHED_FIFO, or at least niced up.
	local sched=()
	if chrt -f 10 true 2>/dev/null; then
		sched=(chrt -f 10)
	elif nice -n -15 true 2>/dev/null; then
		sched=(nice -n -15)
	fi
	# max_threads: libfuse serves 10 requests at once by default (io_uring runs need 32 and more)
	"${sched[@]}" "$dir/labfs" --backing="$backing" ${commands:+--set="$commands"} "$dir/mnt" -f \
		-o allow_other,default_permissions,max_threads=128,fsname=labfs,subtype=labfs \
		>"$dir/labfs.log" 2>&1 &
	pid=$!
	echo "$pid" >"$dir/labfs.pid"
	for _ in $(seq 100); do
		mountpoint -q "$dir/mnt" && break
		if ! kill -0 "$pid" 2>/dev/null; then
			cat "$dir/labfs.log" >&2
			echo "labfs.sh: labfs exited before mounting $dir/mnt" >&2
			exit 1
		fi
		sleep 0.1
	done
	if ! mountpoint -q "$dir/mnt"; then
		echo "labfs.sh: $dir/mnt is not mounted after 10 s" >&2
		exit 1
	fi
	mkdir "$dir/mnt/tblspc"
	chown "$owner": "$dir/mnt/tblspc"
	chmod 700 "$dir/mnt/tblspc"
	trap - EXIT
	echo "labfs.sh: mounted $dir/mnt (daemon pid $pid, backing $backing)"
}

[ $# -ge 2 ] || usage
action=$1
dir=$2
shift 2
case $action in
mount)
	lab_up "$dir" "$*"
	;;
umount)
	if [ ! -e "$dir/labfs.pid" ]; then
		echo "labfs.sh: $dir has no mount made by labfs.sh; leaving it alone" >&2
		exit 1
	fi
	lab_down "$dir"
	;;
set)
	[ $# -ge 1 ] || usage
	printf '%s\n' "$*" >"$dir/mnt/.labfs"
	;;
stats)
	cat "$dir/mnt/.labfs"
	;;
*)
	usage
	;;
esac
