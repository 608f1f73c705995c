#!/usr/bin/env python3
"""tests/package/test_install_prefix.py: `cmake --install BUILD --prefix P`,
as any user.

  test_install_prefix.py --build BUILD --source DIR

Installs the tree built in BUILD into a scratch prefix P and checks that
every file packaging/CMakeLists.txt lists is there with the right bytes and
modes: P/bin/porta, the man page, each built-in profile of profiles/, the
bash, zsh and fish completions as built, and the AppArmor profile written
for P (naming P/bin/porta and no other binary); then that P/bin/porta
finds its built-in profiles under P/share/porta/profiles and runs.
"""
import argparse
import filecmp
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pkgtest import check, fail, run  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    a = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="porta-prefix-")
    try:
        prefix = os.path.realpath(os.path.join(tmp, "prefix"))
        r = run(["cmake", "--install", a.build, "--prefix", prefix])
        check(r.returncode == 0, "cmake --install --prefix %s: %s%s" % (prefix, r.stdout, r.stderr))

        def p(rel):
            return os.path.join(prefix, rel)

        porta = p("bin/porta")
        check(os.path.isfile(porta) and os.access(porta, os.X_OK), "bin/porta is installed, executable")
        check(filecmp.cmp(p("share/man/man1/porta.1"),
                          os.path.join(a.source, "docs/porta.1"), shallow=False),
              "share/man/man1/porta.1 is docs/porta.1")
        comp = os.path.join(a.build, "completions")
        for rel, built in (("share/bash-completion/completions/porta", "porta.bash"),
                           ("share/zsh/site-functions/_porta", "_porta"),
                           ("share/fish/vendor_completions.d/porta.fish", "porta.fish")):
            check(os.path.isfile(p(rel)) and
                  filecmp.cmp(p(rel), os.path.join(comp, built), shallow=False),
                  "%s is the completion built in %s" % (rel, built))
        src_profiles = sorted(os.listdir(os.path.join(a.source, "profiles")))
        inst_profiles = sorted(os.listdir(p("share/porta/profiles")))
        check(src_profiles and inst_profiles == src_profiles,
              "share/porta/profiles holds every profile of profiles/: %s" % inst_profiles)
        for name in inst_profiles:
            mode = stat.S_IMODE(os.stat(p("share/porta/profiles/" + name)).st_mode)
            check(mode & 0o444 == 0o444 and not mode & 0o022,
                  "profile %s is readable by all, writable by its owner only (%o)" % (name, mode))

        aa = p("share/porta/apparmor/porta")
        check(os.path.isfile(aa), "share/porta/apparmor/porta is installed")
        with open(aa, encoding="utf-8") as f:
            text = f.read()
        rules = [line.strip() for line in text.splitlines()
                 if line.strip() and not line.strip().startswith("#")]
        check(rules[:2] == ["abi <abi/4.0>,", "include <tunables/global>"],
              "the AppArmor profile starts with abi 4.0 and the global tunables: %s" % rules[:2])
        check(("profile porta %s flags=(unconfined) {" % porta) in rules,
              "the AppArmor profile names the installed binary %s, unconfined" % porta)
        check("userns," in rules and "include if exists <local/porta>" in rules and
              rules[-1] == "}", "it grants userns and includes local/porta")
        others = set(re.findall(r"/\S*/bin/porta", text)) - {porta}
        check("@" not in text and not others,
              "nothing left unsubstituted, no other binary named: %s" % sorted(others))

        # BIN/../share/porta/profiles (host/profiles.h), outside the build tree
        r = run([porta, "profiles"], env=dict(os.environ, HOME=tmp, XDG_CONFIG_HOME=tmp))
        check(r.returncode == 0, "%s profiles exits 0: %s" % (porta, r.stderr))
        first = r.stdout.splitlines()[0] if r.stdout else ""
        check(first == "built-in profiles (%s):" % p("share/porta/profiles"),
              "porta profiles finds the built-in ones under the prefix: %r" % first)
        listed = re.findall(r"^  (\S+) ", r.stdout, re.M)
        check(all(name in listed for name in src_profiles),
              "every built-in profile is listed: %s" % listed)
        r = run([porta, "--version"])
        check(r.returncode == 0 and r.stdout.startswith("porta "),
              "the installed porta runs: %s" % r.stdout.strip())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except subprocess.TimeoutExpired as e:
        fail("timed out: %s" % e)
