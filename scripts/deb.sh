# shellcheck shell=bash
# deb.sh: sourced by scripts/package.sh and scripts/test-upgrade.sh, which
# install ranread's Debian packages for a while on a machine (or in a chroot)
# where a `make install` of ranread may have put the same files: install a
# package, and purge it again leaving those files as they were.
#
#   deb_install WORK DEB       keep the files DEB ships that are on disk and
#                              no package owns in WORK/<package>.tar, then
#                              install DEB with apt-get (with dpkg
#                              --force-depends where its server is built from
#                              source, no package: its Depends cannot be met)
#   deb_purge WORK PACKAGE     purge PACKAGE, then put the kept files back
#
# Both log to WORK/<package>.log and print it when they fail.

deb_install() {
	local work=$1 deb=$2 pkg major f
	pkg=$(dpkg-deb -f "$deb" Package)
	major=${pkg#postgresql-}
	major=${major%%-*}
	dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -n 's|^\./|/|; /[^/]$/p' | while read -r f; do
		if [ -e "$f" ]; then echo "$f"; fi
	done >"$work/$pkg.ondisk"
	# dpkg -S prints "package: /path" for the owned ones (one call: each takes 0.1 s)
	: >"$work/$pkg.owned"
	if [ -s "$work/$pkg.ondisk" ]; then
		{ xargs -d '\n' dpkg -S <"$work/$pkg.ondisk" 2>/dev/null || true; } | sed 's/^[^:]*: //' >"$work/$pkg.owned"
	fi
	{ grep -vxFf "$work/$pkg.owned" "$work/$pkg.ondisk" || true; } | sed 's|^/||' >"$work/$pkg.preexisting"
	rm -f "$work/$pkg.tar"
	if [ -s "$work/$pkg.preexisting" ]; then tar -C / -cpf "$work/$pkg.tar" -T "$work/$pkg.preexisting"; fi

	if dpkg-query -W -f='${Status}' "postgresql-$major" 2>/dev/null | grep -q "install ok installed"; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=300 "$deb" >"$work/$pkg.log" 2>&1 ||
			{ cat "$work/$pkg.log"; return 1; }
	else
		dpkg -i --force-depends "$deb" >"$work/$pkg.log" 2>&1 || { cat "$work/$pkg.log"; return 1; }
	fi
}

deb_purge() {
	local work=$1 pkg=$2
	dpkg --purge "$pkg" >>"$work/$pkg.log" 2>&1 || { cat "$work/$pkg.log"; return 1; }
	if [ -f "$work/$pkg.tar" ]; then tar -C / -xpf "$work/$pkg.tar"; fi
}
