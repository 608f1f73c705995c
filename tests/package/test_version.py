#!/usr/bin/env python3
"""tests/package/test_version.py: porta's version, set in one place.

  test_version.py --porta BIN --source DIR --project-version X.Y.Z

Checks
  - `porta --version` prints exactly "porta X.Y.Z (rev HEX12[-dirty])" with
    X.Y.Z the version of project() in CMakeLists.txt and HEX12 the tree's
    git revision (computed here from git: pkgtest.tree_revision()), or
    "rev unknown" when the tree is no git checkout;
  - the man page's .TH line names the same version;
  - cmake/porta_revision.cmake, which writes the revision at build time: in
    a scratch repository it names the commit, a second commit without
    anything else re-run, "-dirty" for a changed tracked file but not for an
    untracked one, "unknown" outside a repository and in a directory below a
    repository's top (a tarball unpacked inside another checkout), and it
    leaves the header untouched (same bytes, same mtime) when nothing changed.
The .deb's version is checked by test_deb.py.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pkgtest import VERSION_LINE, check, fail, run, tree_revision  # noqa: E402


def revision_header(script, src, out):
    r = run(["cmake", "-DSOURCE_DIR=" + src, "-DOUT=" + out, "-P", script])
    if r.returncode != 0:
        fail("porta_revision.cmake in %s failed: %s" % (src, r.stderr))
    with open(out, encoding="utf-8") as f:
        m = re.search(r'#define PORTA_REVISION "([^"]*)"', f.read())
    if not m:
        fail("%s defines no PORTA_REVISION" % out)
    return m.group(1)


def git(repo, *args):
    r = run(["git", "-C", repo, "-c", "user.name=porta test", "-c",
             "user.email=test@porta.invalid", "-c", "commit.gpgsign=false"] + list(args))
    if r.returncode != 0:
        fail("git %s: %s" % (" ".join(args), r.stderr))
    return r.stdout.strip()


def check_script(script):
    tmp = tempfile.mkdtemp(prefix="porta-rev-")
    try:
        out = os.path.join(tmp, "rev.h")
        plain = os.path.join(tmp, "plain")
        os.mkdir(plain)
        check(revision_header(script, plain, out) == "unknown",
              "outside a git checkout the revision is 'unknown'")

        if shutil.which("git") is None:
            print("note: git is not installed: the checks in a repository are not run")
            return
        repo = os.path.join(tmp, "repo")
        os.mkdir(repo)
        git(repo, "init", "-q")
        with open(os.path.join(repo, "a.c"), "w") as f:
            f.write("int a;\n")
        git(repo, "add", "a.c")
        git(repo, "commit", "-q", "-m", "one")
        head = git(repo, "rev-parse", "HEAD")
        check(revision_header(script, repo, out) == head[:12],
              "a clean checkout: the first 12 hex digits of HEAD (%s)" % head[:12])

        # Nothing changed: not rewritten, so nothing that includes it is rebuilt.
        os.utime(out, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
        revision_header(script, repo, out)
        check(os.stat(out).st_mtime_ns == 1_000_000_000_000_000_000,
              "run again with nothing changed, the header is not rewritten")

        with open(os.path.join(repo, "untracked.txt"), "w") as f:
            f.write("x\n")
        check(revision_header(script, repo, out) == head[:12],
              "an untracked file does not make the build dirty")

        with open(os.path.join(repo, "a.c"), "a") as f:
            f.write("int b;\n")
        check(revision_header(script, repo, out) == head[:12] + "-dirty",
              "a changed tracked file: '-dirty' after the revision")

        git(repo, "commit", "-q", "-a", "-m", "two")
        head2 = git(repo, "rev-parse", "HEAD")
        check(head2 != head and revision_header(script, repo, out) == head2[:12],
              "a new commit, without configuring again: its own revision")

        sub = os.path.join(repo, "unpacked")
        os.mkdir(sub)
        check(revision_header(script, sub, out) == "unknown",
              "a tree below another repository's top takes no revision from it")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--porta", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--project-version", required=True)
    a = ap.parse_args()

    r = run([a.porta, "--version"])
    check(r.returncode == 0 and r.stderr == "", "porta --version exits 0, nothing on stderr")
    m = VERSION_LINE.match(r.stdout)
    check(m is not None, "porta --version prints 'porta X.Y.Z (rev HEX12[-dirty])' or "
          "'(rev unknown)': got %r" % r.stdout)
    check(m.group(1) == a.project_version,
          "the version is project()'s, %s (got %s)" % (a.project_version, m.group(1)))
    want = tree_revision(a.source)
    check(m.group(2) == want,
          "the revision is the tree's, %s (got %s; a commit or an edit since the build "
          "needs a build again)" % (want, m.group(2)))
    r2 = run([a.porta, "version"])
    check(r2.stdout == r.stdout, "'porta version' prints the same line")

    with open(os.path.join(a.source, "docs", "porta.1"), encoding="utf-8") as f:
        th = [line for line in f if line.startswith(".TH ")]
    check(len(th) == 1, "docs/porta.1 has one .TH line")
    words = re.findall(r'"[^"]*"|\S+', th[0])
    check(len(words) >= 5 and words[4] == '"porta %s"' % a.project_version,
          "the man page's .TH line names porta %s, project()'s version: %s"
          % (a.project_version, th[0].strip()))

    check_script(os.path.join(a.source, "cmake", "porta_revision.cmake"))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except subprocess.TimeoutExpired as e:
        fail("timed out: %s" % e)
