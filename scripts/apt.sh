# apt.sh: sourced by the install scripts (bash).
#
# install_packages [--keep-server] PKG...: install those of the given Debian
# packages that are missing, all in one apt-get call (so that, e.g.,
# postgresql-15 and postgresql-server-dev-15 come at the same minor version).
# A package already installed is not upgraded (--no-upgrade) unless a new
# package's exact version pin forces it (libpq-dev pins libpq5; the test
# tools' postgresql-plperl-15 pins postgresql-15), and none is removed.  With
# --keep-server (the demo), a plan that would upgrade the server's own
# packages (postgresql-NN, postgresql-client-NN, postgresql-common), which apt
# restarts a running server for, or remove a package, is refused and nothing
# changes.  It says what it will install and upgrade first.  Safe to run again.
install_packages() {
	local p missing=() plan installs upgrades server removals keep_server=no
	if [ "${1:-}" = --keep-server ]; then
		keep_server=yes
		shift
	fi
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	apt-get update -q >/dev/null
	plan=$(DEBIAN_FRONTEND=noninteractive apt-get install -s -y -q --no-upgrade "${missing[@]}")
	installs=$(sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1/p' <<<"$plan" | tr '\n' ' ')
	upgrades=$(sed -n 's/^Inst \([^ ]*\) \[\([^]]*\)\] (\([^ ]*\) .*/\1 \2 -> \3/p' <<<"$plan")
	server=$(grep -E '^(postgresql(-client)?-[0-9]+|postgresql-common|postgresql-client-common) ' <<<"$upgrades" || true)
	removals=$(sed -n 's/^Remv \([^ ]*\) .*/\1/p' <<<"$plan" | tr '\n' ' ')
	if [ -n "$removals" ]; then
		echo "install: installing ${missing[*]} would remove $removals; nothing was installed" >&2
		return 1
	fi
	if [ -n "$server" ] && [ $keep_server = yes ]; then
		echo "install: installing ${missing[*]} would upgrade the server's own packages, which restarts a running server:" >&2
		echo "$server" | sed 's/^/  /' >&2
		echo "install: nothing was installed; upgrade them at a time of your choosing (apt-get install ${server%% *}), then run this again" >&2
		return 1
	fi
	echo "install: $(wc -w <<<"$installs") new packages: $installs"
	[ -z "$upgrades" ] || echo "install: upgrades that the new packages' version pins force: $(tr '\n' ',' <<<"$upgrades" | sed 's/,$//; s/,/, /g')"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-upgrade "${missing[@]}"
}
