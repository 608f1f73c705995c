#!/usr/bin/env bash
# scripts/build-deb.sh [OUTDIR]: builds porta's Debian package from this tree
# into OUTDIR (default: the current directory) and prints its path.
#
#   scripts/build-deb.sh && sudo apt install ./porta_*.deb
#
# A Release build with the prefix /usr in a build directory of its own (a
# temporary one, removed afterwards; the tree's build/ is left alone),
# installed with DESTDIR into a staging root; the binary stripped; the man
# page and the changelog compressed; DEBIAN/control with the version of
# project() in CMakeLists.txt (read back from the binary, so the package
# and `porta --version` cannot disagree), Depends computed by
# dpkg-shlibdeps, and md5sums; postinst and postrm that install and load,
# then unload and remove, the AppArmor profile (packaging/apparmor/porta.in);
# then dpkg-deb --root-owner-group, so no root is needed to build it.
# Needs cmake, a C compiler and the build dependencies of scripts/deps.txt,
# and dpkg-dev (dpkg-shlibdeps).  tests/package/test_deb.py builds it, checks
# it with lintian and, as root, installs and removes it.
#
# Environment: PORTA_DEB_JOBS (build parallelism, default nproc),
# PORTA_DEB_MAINTAINER ('Name <email>'; default: the tree's git author).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUTDIR="${1:-.}"
JOBS="${PORTA_DEB_JOBS:-$(nproc 2>/dev/null || echo 2)}"

die() {
	echo "build-deb: $*" >&2
	exit 1
}

for tool in cmake dpkg-deb dpkg-shlibdeps dpkg strip gzip md5sum; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "$tool not found (cmake: scripts/deps.txt; dpkg-shlibdeps: apt-get install dpkg-dev)"
done
mkdir -p "$OUTDIR" || die "cannot make $OUTDIR"
OUTDIR="$(cd "$OUTDIR" && pwd)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/porta-deb.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
BUILD="$WORK/build"
ROOT="$WORK/root"
# Files the package creates must not depend on the caller's umask.
umask 022

# ---- build and stage -----------------------------------------------------------
echo "build-deb: building porta (Release, prefix /usr) in $BUILD" >&2
# PORTA_STATIC_DEPS=OFF: a distribution's package uses the distribution's
# shared libraries (libevent, libcap, jansson, c-ares, mbedtls), so that their
# security updates reach porta without rebuilding it; lintian refuses an
# embedded copy (embedded-library).  This costs each start the dynamic
# loader's ~0.1 ms that the static link saves (CMakeLists.txt, porta_dep()).
cmake -S "$REPO" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
	-DPORTA_STATIC_DEPS=OFF -DPORTA_TESTS=OFF -DCMAKE_COMPILE_WARNING_AS_ERROR=ON \
	>"$WORK/configure.log" 2>&1 ||
	{ cat "$WORK/configure.log" >&2; die "configuring failed"; }
cmake --build "$BUILD" -j "$JOBS" --target porta porta_completions >"$WORK/build.log" 2>&1 ||
	{ tail -n 40 "$WORK/build.log" >&2; die "building failed"; }
DESTDIR="$ROOT" cmake --install "$BUILD" >"$WORK/install.log" 2>&1 ||
	{ cat "$WORK/install.log" >&2; die "installing into $ROOT failed"; }

BIN="$ROOT/usr/bin/porta"
[ -x "$BIN" ] || die "the install put no usr/bin/porta in $ROOT"
# The version and revision the binary reports: "porta X.Y.Z (rev HEX12)".
version_line="$("$BIN" --version)" || die "$BIN --version failed"
VERSION="$(printf '%s\n' "$version_line" | sed -n 's/^porta \([0-9][0-9.]*\) (rev .*)$/\1/p')"
REV="$(printf '%s\n' "$version_line" | sed -n 's/^porta [0-9.]* (rev \(.*\))$/\1/p')"
[ -n "$VERSION" ] || die "cannot read a version from '$version_line'"

# Debian's zsh does not look in /usr/share/zsh/site-functions (that is for
# other prefixes: /usr/local/share/zsh/site-functions is in its fpath); its
# packages put completions in vendor-completions.
mkdir -p "$ROOT/usr/share/zsh/vendor-completions"
mv "$ROOT/usr/share/zsh/site-functions/_porta" "$ROOT/usr/share/zsh/vendor-completions/_porta"
rmdir "$ROOT/usr/share/zsh/site-functions"

# As dh_strip does for an executable: debugging symbols and the comment
# sections out.
strip --remove-section=.comment --remove-section=.note "$BIN"
gzip -9n "$ROOT/usr/share/man/man1/porta.1"

# ---- documentation ---------------------------------------------------------------
DOC="$ROOT/usr/share/doc/porta"
mkdir -p "$DOC"

# The maintainer: PORTA_DEB_MAINTAINER, else the git author of this tree,
# else a placeholder that says it is one (.invalid, RFC 2606: no mail
# reaches it; lintian refuses a host such as localhost).
name="$(git -C "$REPO" config user.name 2>/dev/null || true)"
email="$(git -C "$REPO" config user.email 2>/dev/null || true)"
if [ -n "${PORTA_DEB_MAINTAINER:-}" ]; then
	MAINTAINER="$PORTA_DEB_MAINTAINER"
elif [ -n "$name" ] && [ -n "$email" ]; then
	MAINTAINER="$name <$email>"
else
	MAINTAINER="porta package builder <nobody@porta.invalid>"
	echo "build-deb: no git author found: Maintainer is the placeholder '$MAINTAINER'" \
		"(set PORTA_DEB_MAINTAINER='Name <email>')" >&2
fi
# The changelog's date: the commit's, so that the same commit gives the same
# package; the time of the build outside a git checkout.
DATE="$(git -C "$REPO" log -1 --format=%cD 2>/dev/null || true)"
[ -n "$DATE" ] || DATE="$(date -R)"

{
	printf 'porta (%s) unstable; urgency=medium\n\n' "$VERSION"
	printf '  * Built from the porta source tree (revision %s) by\n' "$REV"
	printf '    scripts/build-deb.sh.\n\n'
	printf ' -- %s  %s\n' "$MAINTAINER" "$DATE"
} >"$DOC/changelog"
gzip -9n "$DOC/changelog"

# Who holds the copyright: the tree states no holder, so the authors its
# git history records, each with the years of their commits.
holders="$(git -C "$REPO" log --format='%ad %an <%ae>' --date=format:%Y 2>/dev/null |
	awk '{ y = $1; $1 = ""; a = substr($0, 2)
	       if (!(a in lo) || y < lo[a]) lo[a] = y
	       if (!(a in hi) || y > hi[a]) hi[a] = y }
	     END { for (a in lo) print (lo[a] == hi[a] ? lo[a] : lo[a] "-" hi[a]) " " a }' |
	LC_ALL=C sort -k2)" || holders=""
[ -n "$holders" ] || holders="the authors of porta (this tree has no git history to name them)"
{
	cat <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: porta
Comment: This package is built from the porta source tree by
 scripts/build-deb.sh.  The tree holds no licence file and no licence
 statement, so none is named here; the holders below are the authors the
 tree's git history records.

Files: *
EOF
	printf '%s\n' "$holders" | sed '1s/^/Copyright: /; 2,$s/^/ /'
	cat <<'EOF'
License: no-licence-stated
 The porta source tree carries no licence: its authors have not stated
 the terms on which porta may be used, copied, modified or distributed.
 This file names no licence because none was given.
EOF
} >"$DOC/copyright"

# ---- maintainer scripts ------------------------------------------------------------
mkdir -p "$ROOT/DEBIAN"
cat >"$ROOT/DEBIAN/postinst" <<'EOF'
#!/bin/sh
# porta's postinst: on a kernel that restricts unprivileged user namespaces
# through AppArmor (Ubuntu 23.10 and later:
# kernel.apparmor_restrict_unprivileged_userns), install the profile that
# grants porta "userns" as /etc/apparmor.d/porta and load it; why porta needs
# it is in the profile's own comment.  Elsewhere (Debian's kernel has no such
# setting, and Debian 12's apparmor_parser does not know the userns rule)
# nothing is done.  Local additions go in /etc/apparmor.d/local/porta, which
# the profile includes: /etc/apparmor.d/porta is rewritten on upgrade.
set -e

profile=/usr/share/porta/apparmor/porta
target=/etc/apparmor.d/porta

if [ "$1" = configure ] &&
	[ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ] &&
	command -v apparmor_parser >/dev/null 2>&1; then
	mkdir -p /etc/apparmor.d
	cp "$profile" "$target.dpkg-new"
	chmod 644 "$target.dpkg-new"
	mv "$target.dpkg-new" "$target"
	# A host where AppArmor is not running (a container) cannot load it:
	# porta still installs, and its check command says what is missing.
	apparmor_parser -r "$target" ||
		echo "porta: could not load $target; porta may be refused user namespaces" >&2
fi
exit 0
EOF
cat >"$ROOT/DEBIAN/postrm" <<'EOF'
#!/bin/sh
# porta's postrm: unload and remove the AppArmor profile postinst installed
# (when it did), on remove and on purge.
set -e

target=/etc/apparmor.d/porta

case "$1" in
remove | purge)
	if [ -e "$target" ]; then
		if command -v apparmor_parser >/dev/null 2>&1; then
			apparmor_parser -R "$target" >/dev/null 2>&1 || true
		fi
		rm -f "$target"
	fi
	;;
esac
exit 0
EOF
chmod 755 "$ROOT/DEBIAN/postinst" "$ROOT/DEBIAN/postrm"

# ---- control ---------------------------------------------------------------------
ARCH="$(dpkg --print-architecture)"
# dpkg-shlibdeps wants a source package's debian/control to stand in.
mkdir -p "$WORK/src/debian"
printf 'Source: porta\n\nPackage: porta\nArchitecture: any\n' >"$WORK/src/debian/control"
DEPENDS="$(cd "$WORK/src" && dpkg-shlibdeps -O "$BIN" 2>"$WORK/shlibdeps.log" |
	sed -n 's/^shlibs:Depends=//p')" ||
	{ cat "$WORK/shlibdeps.log" >&2; die "dpkg-shlibdeps failed"; }
[ -n "$DEPENDS" ] || { cat "$WORK/shlibdeps.log" >&2; die "dpkg-shlibdeps found no dependency"; }

# Every file readable, directories and the binary executable, whatever the
# install or the checkout left.
find "$ROOT" -path "$ROOT/DEBIAN" -prune -o -type d -exec chmod 755 {} +
find "$ROOT" -path "$ROOT/DEBIAN" -prune -o -type f -exec chmod 644 {} +
chmod 755 "$BIN"

(cd "$ROOT" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z |
	xargs -0 md5sum) >"$WORK/md5sums"
mv "$WORK/md5sums" "$ROOT/DEBIAN/md5sums"
SIZE="$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)"

cat >"$ROOT/DEBIAN/control" <<EOF
Package: porta
Version: $VERSION
Architecture: $ARCH
Maintainer: $MAINTAINER
Installed-Size: $SIZE
Depends: $DEPENDS
Recommends: libpsl5, publicsuffix
Suggests: apparmor, bash-completion
Section: utils
Priority: optional
Description: run a command confined: files, processes, syscalls, network
 porta runs a command, and everything it starts, with only the access it
 was given: writes only where a directory was mounted writable,
 credentials unreadable, other processes invisible, dangerous system calls
 refused, and the network open, absent, or allowed by host and port through
 porta's own proxy and DNS, with every refusal reported.
 .
 It is built for coding agents and build tools started many times a day: it
 starts in about a millisecond and needs no root, no daemon and no setuid
 helper, using unprivileged user namespaces, Landlock and seccomp.  porta
 learn writes a profile from what a command used; porta check says what
 this host can enforce.
 .
 libpsl5 and publicsuffix are used by porta learn alone, loaded when it
 runs.  On Ubuntu, where unprivileged user namespaces are restricted by
 AppArmor, the package installs and loads a profile granting porta them.
EOF
chmod 644 "$ROOT/DEBIAN/control" "$ROOT/DEBIAN/md5sums"

DEB="$OUTDIR/porta_${VERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group --build "$ROOT" "$DEB" >&2
echo "$DEB"
