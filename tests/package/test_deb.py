#!/usr/bin/env python3
"""tests/package/test_deb.py: the Debian package, built, checked, installed
and removed.

  test_deb.py --source DIR --project-version X.Y.Z --workdir DIR

As any user:
  - scripts/build-deb.sh builds the package into a scratch directory (one
    Release build);
  - its control fields: Package porta, Version project()'s X.Y.Z,
    Architecture dpkg's, Depends with libc6, Section, Priority, a
    Description with an extended part; the files listed in
    packaging/CMakeLists.txt at their Debian paths;
  - lintian reports no error (E:); its whole report is printed.
As root only (otherwise a skip, "installing a package needs root"):
  - a porta package already installed is purged first;
  - dpkg -i; /usr/bin/porta --version names project()'s version and the
    tree's revision; porta check exits 0; porta profiles lists the built-in
    profiles from /usr/share/porta/profiles; a confined run writes inside its
    -v mount and is refused outside it; the man page is found by man and
    renders without a warning; the AppArmor profile is in /etc/apparmor.d
    exactly when the kernel restricts user namespaces and apparmor_parser
    is present; and, in a private mount namespace that makes this host look
    like one that restricts them, postinst installs and loads the profile
    and postrm unloads and removes it;
  - dpkg -r, then dpkg -P: no file of the package (dpkg -c, taken before)
    is left, nor /etc/apparmor.d/porta, and dpkg knows no porta.
The scratch directories are under --workdir (the build tree); the confined
run's are under /var/tmp when that is below /tmp: a confined run has a
private /tmp, where the refusal to write outside would be a missing
directory rather than a refusal.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pkgtest import VERSION_LINE, check, fail, run, skip, tree_revision  # noqa: E402

ENV = dict(os.environ, DEBIAN_FRONTEND="noninteractive", LC_ALL="C.UTF-8")

# What the package installs (packaging/CMakeLists.txt, with the prefix /usr;
# zsh's completion where Debian's zsh looks: scripts/build-deb.sh).
FILES = [
    "usr/bin/porta",
    "usr/share/man/man1/porta.1.gz",
    "usr/share/bash-completion/completions/porta",
    "usr/share/zsh/vendor-completions/_porta",
    "usr/share/fish/vendor_completions.d/porta.fish",
    "usr/share/porta/apparmor/porta",
    "usr/share/doc/porta/copyright",
    "usr/share/doc/porta/changelog.gz",
]
AA_RESTRICT = "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
AA_ETC = "/etc/apparmor.d/porta"


def field(deb, name):
    r = run(["dpkg-deb", "-f", deb, name])
    return r.stdout.strip() if r.returncode == 0 else ""


def installed():
    r = run(["dpkg-query", "-W", "-f=${Status}", "porta"], env=ENV)
    return r.returncode == 0 and "installed" in r.stdout.split()


def purge(why):
    r = run(["dpkg", "-P", "porta"], env=ENV)
    print("%s: dpkg -P porta: exit %d\n%s%s" % (why, r.returncode, r.stdout, r.stderr))
    return r


def check_built(deb, args, profiles):
    check(field(deb, "Package") == "porta", "Package: porta")
    check(field(deb, "Version") == args.project_version,
          "Version: %s, project()'s (got %s)" % (args.project_version, field(deb, "Version")))
    arch = run(["dpkg", "--print-architecture"]).stdout.strip()
    check(field(deb, "Architecture") == arch, "Architecture: %s" % arch)
    check(re.search(r"(^|, )libc6( |,|$)", field(deb, "Depends")) is not None,
          "Depends, from dpkg-shlibdeps, names libc6: %s" % field(deb, "Depends"))
    check(field(deb, "Section") == "utils" and field(deb, "Priority") == "optional",
          "Section utils, Priority optional")
    check(re.search(r"\S+ <[^>]+@[^>]+>", field(deb, "Maintainer")) is not None,
          "Maintainer: %s" % field(deb, "Maintainer"))
    desc = field(deb, "Description").split("\n")
    check(len(desc) > 3 and desc[0].strip(), "a Description with an extended description")

    r = run(["dpkg-deb", "-c", deb])
    check(r.returncode == 0, "dpkg-deb -c lists the package")
    entries = {}
    for line in r.stdout.splitlines():
        parts = line.split(None, 5)
        entries[parts[5].split(" -> ")[0].lstrip("./").rstrip("/")] = parts[0]
    for rel in FILES + ["usr/share/porta/profiles/" + p for p in profiles]:
        check(entries.get(rel, "").startswith("-"), "the package holds /%s" % rel)
    check(entries["usr/bin/porta"] == "-rwxr-xr-x", "/usr/bin/porta is mode 755")
    check(all(m in ("-rw-r--r--", "drwxr-xr-x") for p, m in entries.items()
              if p and p != "usr/bin/porta"), "every other file 644, every directory 755")
    r = run(["dpkg-deb", "-I", deb])
    for script in ("postinst", "postrm", "md5sums"):
        check(re.search(r"\b%s\b" % script, r.stdout) is not None, "DEBIAN/%s is there" % script)
    return sorted(entries)


def check_lintian(deb):
    r = run(["lintian", "--info", deb], env=ENV, timeout=900)
    print("---- lintian (exit %d) ----\n%s%s---- end of lintian ----"
          % (r.returncode, r.stdout, r.stderr), flush=True)
    errors = [line for line in r.stdout.splitlines() if line.startswith("E:")]
    check(not errors, "lintian reports no error (%d warning(s))"
          % sum(1 for line in r.stdout.splitlines() if line.startswith("W:")))


def check_installed(args, profiles, work):
    porta = "/usr/bin/porta"
    r = run([porta, "--version"])
    m = VERSION_LINE.match(r.stdout)
    check(r.returncode == 0 and m is not None, "%s --version: %r" % (porta, r.stdout))
    check(m.group(1) == args.project_version, "it names version %s" % args.project_version)
    rev = tree_revision(args.source)
    check(m.group(2) == rev, "it names the tree's revision %s (got %s)" % (rev, m.group(2)))

    r = run([porta, "check"])
    print(r.stdout + r.stderr)
    check(r.returncode == 0, "%s check exits 0 (this host can run porta)" % porta)

    home = os.path.join(work, "home")
    os.mkdir(home)
    r = run([porta, "profiles"], env=dict(ENV, HOME=home, XDG_CONFIG_HOME=home))
    check(r.returncode == 0 and
          r.stdout.startswith("built-in profiles (/usr/share/porta/profiles):\n"),
          "porta profiles finds the built-in profiles in /usr/share/porta/profiles: %r"
          % r.stdout[:80])
    listed = re.findall(r"^  (\S+) ", r.stdout, re.M)
    check(all(p in listed for p in profiles), "it lists %s" % profiles)

    # Not below /tmp, which the sandbox replaces with its own.
    where = work
    if os.path.realpath(work).startswith("/tmp/"):
        where = tempfile.mkdtemp(prefix="porta-deb-run-", dir="/var/tmp")
    inside, outside = os.path.join(where, "inside"), os.path.join(where, "outside")
    os.mkdir(inside)
    os.mkdir(outside)
    try:
        r = run([porta, "run", "--allow-root", "-v", inside, "--", "sh", "-c",
                 "echo ok > %s/f; echo x > %s/g" % (inside, outside)], cwd=where, timeout=120)
        wrote = os.path.exists(os.path.join(inside, "f")) and \
            open(os.path.join(inside, "f"), encoding="utf-8").read()
        escaped = os.path.exists(os.path.join(outside, "g"))
    finally:
        if where != work:
            shutil.rmtree(where, ignore_errors=True)
    print("confined run: exit %d, stderr %r" % (r.returncode, r.stderr))
    check(wrote == "ok\n", "the confined run wrote inside its -v mount")
    check(not escaped and r.returncode != 0 and
          ("Permission denied" in r.stderr or "Read-only file system" in r.stderr),
          "and was refused outside it: %r" % r.stderr.strip())

    page = "/usr/share/man/man1/porta.1.gz"
    check(os.path.isfile(page), "%s is installed" % page)
    if shutil.which("man"):
        r = run(["man", "-w", "porta"], env=ENV)
        check(r.stdout.strip() == page, "man -w porta finds %s (got %r)" % (page, r.stdout))
        r = run(["man", "--warnings", "-l", page], env=dict(ENV, MANWIDTH="80", MANPAGER="cat",
                                                              PAGER="cat"))
        check(r.returncode == 0 and not r.stderr.strip() and "porta" in r.stdout,
              "man --warnings -l renders it without a warning: %s" % r.stderr.strip())
    else:
        print("note: man is not installed: the page is not rendered")

    want_aa = os.path.exists(AA_RESTRICT) and shutil.which("apparmor_parser") is not None
    check(os.path.exists(AA_ETC) == want_aa,
          "%s is %s (%s %s, apparmor_parser %s)"
          % (AA_ETC, "installed" if want_aa else "not installed", AA_RESTRICT,
             "exists" if os.path.exists(AA_RESTRICT) else "does not exist",
             "present" if shutil.which("apparmor_parser") else "absent"))


AA_SCRIPT = r"""
set -eu
# the kernel setting Ubuntu's kernels have, and a scratch /etc/apparmor.d
mount -t tmpfs porta-test /proc/sys/kernel
echo 1 > /proc/sys/kernel/apparmor_restrict_unprivileged_userns
mount --bind "$AA/etc" /etc/apparmor.d
export PATH="$AA/bin:$PATH"
sh /var/lib/dpkg/info/porta.postinst configure
cp /etc/apparmor.d/porta "$AA/installed"
stat -c %a /etc/apparmor.d/porta > "$AA/mode"
sh /var/lib/dpkg/info/porta.postrm remove
if [ -e /etc/apparmor.d/porta ]; then echo left; else echo removed; fi > "$AA/after"
"""


def check_apparmor_scripts(work):
    """postinst's and postrm's AppArmor branch, which a host whose kernel
    has no kernel.apparmor_restrict_unprivileged_userns never takes: run
    again in a private mount namespace where that file exists (a tmpfs over
    /proc/sys/kernel), /etc/apparmor.d is a scratch directory, and
    apparmor_parser is a stand-in that logs its arguments."""
    if shutil.which("unshare") is None or not os.path.isdir("/etc/apparmor.d"):
        print("note: no unshare or no /etc/apparmor.d: the maintainer scripts' AppArmor "
              "branch is not run")
        return
    aa = os.path.join(work, "aa")
    for d in ("bin", "etc"):
        os.makedirs(os.path.join(aa, d))
    parser = os.path.join(aa, "bin", "apparmor_parser")
    with open(parser, "w") as f:
        f.write('#!/bin/sh\necho "$*" >> "%s/parser.log"\n' % aa)
    os.chmod(parser, 0o755)
    r = run(["unshare", "-m", "--propagation", "private", "sh", "-c", AA_SCRIPT],
            env=dict(ENV, AA=aa))
    check(r.returncode == 0, "postinst and postrm run where the kernel restricts user "
          "namespaces: %s%s" % (r.stdout, r.stderr))
    with open(os.path.join(aa, "installed"), encoding="utf-8") as f, \
            open("/usr/share/porta/apparmor/porta", encoding="utf-8") as g:
        check(f.read() == g.read(), "postinst installed the profile as %s" % AA_ETC)
    with open(os.path.join(aa, "mode"), encoding="utf-8") as f:
        check(f.read().strip() == "644", "mode 644")
    with open(os.path.join(aa, "parser.log"), encoding="utf-8") as f:
        calls = f.read().splitlines()
    check(calls == ["-r " + AA_ETC, "-R " + AA_ETC],
          "postinst loaded it (apparmor_parser -r), postrm unloaded it (-R): %s" % calls)
    with open(os.path.join(aa, "after"), encoding="utf-8") as f:
        check(f.read().strip() == "removed", "postrm removed %s" % AA_ETC)
    check(os.listdir(os.path.join(aa, "etc")) == [], "and left nothing in /etc/apparmor.d")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--project-version", required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()

    for tool, pkg in (("dpkg-deb", "dpkg"), ("dpkg-shlibdeps", "dpkg-dev"),
                      ("lintian", "lintian")):
        if shutil.which(tool) is None:
            skip("%s is not installed (apt-get install %s; scripts/deps.txt)" % (tool, pkg))
    profiles = sorted(os.listdir(os.path.join(args.source, "profiles")))

    os.makedirs(args.workdir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="deb-", dir=args.workdir)
    os.chmod(work, 0o755)
    try:
        r = run([os.path.join(args.source, "scripts", "build-deb.sh"), work], timeout=900)
        print(r.stderr, end="")
        check(r.returncode == 0, "scripts/build-deb.sh builds the package")
        deb = r.stdout.strip().splitlines()[-1]
        check(os.path.isfile(deb) and os.path.dirname(deb) == work,
              "it names the package it wrote: %s" % deb)
        files = check_built(deb, args, profiles)
        check_lintian(deb)

        if os.geteuid() != 0:
            skip("installing a package needs root (built, checked and lintian-clean as %s)"
                 % os.environ.get("USER", "uid %d" % os.geteuid()))

        if installed():
            check(purge("porta was installed before this test").returncode == 0,
                  "the porta installed before is purged")
        r = run(["dpkg", "-i", deb], env=ENV)
        print(r.stdout + r.stderr)
        check(r.returncode == 0 and installed(), "dpkg -i installs it")
        try:
            check_installed(args, profiles, work)
            check_apparmor_scripts(work)
            r = run(["dpkg", "-r", "porta"], env=ENV)
            check(r.returncode == 0, "dpkg -r porta: %s" % r.stderr)
            r = run(["dpkg", "-P", "porta"], env=ENV)
            check(r.returncode == 0 and not installed(), "dpkg -P porta: %s" % r.stderr)
        finally:
            if installed():
                purge("cleaning up after a failed check")
        left = [p for p in files if p and os.path.isfile("/" + p)]
        check(not left, "no file of the package is left: %s" % left)
        for d in ("/usr/share/porta", "/usr/share/doc/porta"):
            check(not os.path.exists(d), "%s is gone" % d)
        check(not os.path.exists(AA_ETC), "%s is gone" % AA_ETC)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except subprocess.TimeoutExpired as e:
        fail("timed out: %s" % e)
