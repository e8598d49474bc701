# apt.sh: sourced by the install scripts (bash).
#
# install_packages PKG...: install the given Debian packages when any of them
# is missing, all in one apt-get call (so that, e.g., postgresql-15 and
# postgresql-server-dev-15 come at the same minor version).  Safe to run again.
install_packages() {
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		apt-get update -q
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"
	fi
}
