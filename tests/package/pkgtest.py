"""tests/package/pkgtest.py: what the package tests share.

Each test is a script run by ctest (tests/package/CMakeLists.txt) that exits
0 when every check passed, 1 with the failed check's words, and 77 (ctest's
SKIP_RETURN_CODE) after printing "SKIP: <reason>" when the host cannot run
it.  Standard library only.
"""
import os
import re
import subprocess
import sys

SKIP = 77

# `porta --version`: "porta X.Y.Z (rev HEX12)", "-dirty" after HEX12 when a
# tracked file differed from the commit at build time, "rev unknown" outside
# a git checkout (cmake/porta_revision.cmake).
VERSION_LINE = re.compile(r"porta (\d+\.\d+\.\d+) \(rev ([0-9a-f]{12}(?:-dirty)?|unknown)\)\n\Z")


def skip(reason):
    print("SKIP: " + reason, flush=True)
    sys.exit(SKIP)


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)
    print("ok: " + msg.split("\n")[0], flush=True)


def run(argv, **kw):
    """Runs argv, capturing text output; never raises on an exit status."""
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("timeout", 600)
    return subprocess.run(argv, check=False, **kw)


def tree_revision(src):
    """The revision a build of the tree at src names, computed here from git
    independently of cmake/porta_revision.cmake: HEAD's first 12 hex digits,
    "-dirty" when a tracked file differs from it, "unknown" when src is not
    the top of a git work tree or git is absent."""
    try:
        top = run(["git", "-C", src, "rev-parse", "--show-toplevel"])
    except FileNotFoundError:
        return "unknown"
    if top.returncode != 0 or os.path.realpath(top.stdout.strip()) != os.path.realpath(src):
        return "unknown"
    head = run(["git", "-C", src, "rev-parse", "--verify", "-q", "HEAD"])
    if head.returncode != 0:
        return "unknown"
    st = run(["git", "--no-optional-locks", "-C", src, "status", "--porcelain",
              "--untracked-files=no"])
    dirty = st.returncode != 0 or st.stdout != ""
    return head.stdout.strip()[:12] + ("-dirty" if dirty else "")
