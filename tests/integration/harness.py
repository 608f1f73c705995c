"""Shared helpers for porta's integration tests (Python 3 standard library only).

The binary under test comes from $PORTA (ctest passes $<TARGET_FILE:porta>);
without it, <repo>/build/porta is used.  Every helper here is deliberately
small: a test should read as the story of one check.

Temporary directories live under $HOME, never under /tmp: the sandbox has a
private /tmp, so a host path under /tmp would not be what the sandbox sees
(tests that want exactly that make their directories under /tmp themselves).
"""

import contextlib
import os
import pwd
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# The small internet of tests/netlab, for the tests of network policy.
sys.path.insert(0, os.path.join(REPO, "tests", "netlab"))
import netlab  # noqa: E402

PORTA = os.environ.get("PORTA") or os.path.join(REPO, "build", "porta")
IS_ROOT = os.geteuid() == 0

# Payload programs are named by absolute path so that they do not depend on
# the PATH the sandbox gets (and never on a shim under the user's home).
SH = "/bin/sh"
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else shutil.which("python3")

DEFAULT_TIMEOUT = 60

# PORTA_TEST_DEGRADED=1: every porta runs on a simulated host without user
# namespaces (docs/design.md "Degraded hosts"): inside a throwaway
# `unshare -r` whose own limit of user namespaces is set to 0, so porta's
# clone(CLONE_NEWUSER) fails with ENOSPC and porta confines with Landlock and
# seccomp only.  Nothing outside that throwaway namespace is touched.
DEGRADED = os.environ.get("PORTA_TEST_DEGRADED") == "1"
DEGRADED_WRAP = ["unshare", "-r", "sh", "-c",
                 "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\"", "sh"]


def needs_userns(reason):
    """Skips a test on the degraded host, saying which protection it needs."""
    return unittest.skipIf(DEGRADED, "needs user namespaces: " + reason)

# Subcommands that take the sandbox options (and so --allow-root).
_RUN_LIKE = ("run", "learn", "explain")


class Result:
    """What one porta invocation left: exit code, stdout, stderr (text)."""

    def __init__(self, argv, returncode, stdout, stderr, elapsed):
        self.argv = argv
        self.rc = returncode
        self.out = stdout
        self.err = stderr
        self.elapsed = elapsed

    def describe(self):
        return ("argv: %r\nexit: %r  (%.2fs)\n--- stdout ---\n%s\n--- stderr ---\n%s"
                % (self.argv, self.rc, self.elapsed, self.out, self.err))

    __str__ = describe


def porta_argv(args, allow_root=True):
    """The full argv for `porta ARGS`, with --allow-root added right after the
    subcommand when we are root (porta refuses root without it)."""
    args = list(args)
    if allow_root and IS_ROOT and args and args[0] in _RUN_LIKE:
        args.insert(1, "--allow-root")
    return (DEGRADED_WRAP if DEGRADED else []) + [PORTA] + args


def clean_env(extra=None, drop=()):
    """The environment porta itself is started with: ours, with a few
    overrides.  Values of None in extra remove the variable."""
    env = dict(os.environ)
    for k in drop:
        env.pop(k, None)
    for k, v in (extra or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


@contextlib.contextmanager
def host_sysctl(name, value):
    """Sets a host-wide sysctl (root only) for the block and puts it back.
    Tests and escape-corpus runs that change one take turns on the lock the
    corpus uses (tests/escapes/corpus.py, host_settings_turn()), so none
    reads another's value as the host's."""
    import fcntl
    lock = ("/run/lock" if os.path.isdir("/run/lock") else tempfile.gettempdir()) + \
        "/porta-escapes-sysctl.lock"
    path = "/proc/sys/" + name.replace(".", "/")
    fd = os.open(lock, os.O_RDONLY | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with open(path) as f:
            orig = f.read().strip()
        with open(path, "w") as f:
            f.write(value)
        try:
            yield orig
        finally:
            with open(path, "w") as f:
                f.write(orig)
    finally:
        os.close(fd)


def run(args, *, env=None, timeout=DEFAULT_TIMEOUT, input=None, allow_root=True, cwd=None):
    """Runs porta ARGS to completion; returns a Result.  A run that outlives
    timeout is killed and reported as a test failure by the caller (rc None)."""
    argv = porta_argv(args, allow_root)
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, env=env if env is not None else clean_env(),
                           input=input, capture_output=True, text=True,
                           timeout=timeout, cwd=cwd, stdin=None if input is not None
                           else subprocess.DEVNULL)
        return Result(argv, p.returncode, p.stdout, p.stderr, time.monotonic() - t0)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return Result(argv, None, out, err + "\n[harness: killed after %ss]" % timeout,
                      time.monotonic() - t0)


def run_host(argv, *, env=None, timeout=DEFAULT_TIMEOUT, cwd=None):
    """The control run: the same command without porta."""
    t0 = time.monotonic()
    p = subprocess.run(argv, env=env if env is not None else clean_env(),
                       capture_output=True, text=True, timeout=timeout, cwd=cwd,
                       stdin=subprocess.DEVNULL)
    return Result(argv, p.returncode, p.stdout, p.stderr, time.monotonic() - t0)


def spawn(args, *, env=None, allow_root=True, **kw):
    """Starts porta ARGS without waiting; stdout/stderr are pipes (text)."""
    argv = porta_argv(args, allow_root)
    return subprocess.Popen(argv, env=env if env is not None else clean_env(),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def reap(proc):
    """Kills proc if it still runs, waits for it and closes its pipes (without
    reading them to EOF, which a leaked grandchild could hold open)."""
    if proc.poll() is None:
        with contextlib.suppress(OSError):
            proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)
    for f in (proc.stdout, proc.stderr):
        if f:
            with contextlib.suppress(OSError):
                f.close()


def wait_for_line(proc, want, timeout=20):
    """Reads proc.stdout line by line until a line equal to want; returns the
    lines read.  Raises AssertionError on EOF or timeout."""
    lines = []
    box = {}

    def reader():
        try:
            for line in proc.stdout:
                lines.append(line.rstrip("\n"))
                if line.rstrip("\n") == want:
                    box["ok"] = True
                    return
        except ValueError:
            pass

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    t.join(timeout)
    if not box.get("ok"):
        raise AssertionError("did not see %r on stdout within %ss; got %r" % (want, timeout, lines))
    return lines


def home_base():
    """Where test scratch directories go: /var/tmp/porta-it-UID, outside the
    home, which porta's default reads close (docs/defaults.md, "The home"),
    and outside /tmp, which the sandbox replaces by a private one.  A test
    that plants a home sets HOME to one of these."""
    base = os.path.join("/var/tmp", "porta-it-%d" % os.getuid())
    os.makedirs(base, mode=0o700, exist_ok=True)
    st = os.lstat(base)
    if st.st_uid != os.getuid() or (st.st_mode & 0o077) or not os.path.isdir(base):
        raise RuntimeError("%s is not this user's own private directory" % base)
    return os.path.realpath(base)


def marker(prefix="porta-it"):
    """A string unique to this call."""
    return "%s-%d-%d" % (prefix, os.getpid(), random.randrange(10**9))


def sleep_marker():
    """A sleep duration whose text is unique (e.g. '300.482913371'): a process
    running `sleep <this>` can be found on the host by its command line."""
    return "300.%09d" % random.randrange(10**9)


def pids_with_cmdline(needle):
    """Host pids whose /proc/PID/cmdline contains needle (zombies have an
    empty cmdline and are not counted)."""
    found = []
    b = needle.encode()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % name, "rb") as f:
                if b in f.read():
                    found.append(int(name))
        except OSError:
            pass
    return found


def wait_present(needle, count=1, timeout=5):
    """Polls until at least count host processes carry needle (a process just
    forked may not have exec'd yet); returns their pids."""
    deadline = time.monotonic() + timeout
    while True:
        found = pids_with_cmdline(needle)
        if len(found) >= count or time.monotonic() >= deadline:
            return found
        time.sleep(0.05)


def kill_pids(pids):
    for p in pids:
        with contextlib.suppress(OSError):
            os.kill(p, signal.SIGKILL)


def wait_gone(needle, grace):
    """Polls until no host process carries needle or grace seconds passed;
    returns the pids still there."""
    deadline = time.monotonic() + grace
    while True:
        left = pids_with_cmdline(needle)
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.1)


class TCPListener:
    """A TCP listener on loopback that counts accepted connections."""

    def __init__(self, host="127.0.0.1", family=socket.AF_INET):
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.host = host
        self.accepted = 0
        self._stop = False
        self._t = threading.Thread(target=self._loop, daemon=True)
        self._t.start()

    def _loop(self):
        while not self._stop:
            try:
                c, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            self.accepted += 1
            with contextlib.suppress(OSError):
                c.sendall(b"hello\n")
                c.close()

    def close(self):
        self._stop = True
        self._t.join(2)
        self.sock.close()


class UnixListener:
    """A listening Unix stream socket at path that counts connections."""

    def __init__(self, path=None, abstract=None):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.path = path
        self.sock.bind(path if path is not None else "\0" + abstract)
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.accepted = 0
        self._stop = False
        self._t = threading.Thread(target=self._loop, daemon=True)
        self._t.start()

    def _loop(self):
        while not self._stop:
            try:
                c, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            self.accepted += 1
            with contextlib.suppress(OSError):
                c.sendall(b"agent-hello\n")
                c.close()

    def close(self):
        self._stop = True
        self._t.join(2)
        self.sock.close()
        if self.path:
            with contextlib.suppress(OSError):
                os.unlink(self.path)


# A payload that connects to a Unix socket and prints what it read, or the
# error; exit 0 only when it connected and read the greeting.
UNIX_CONNECT = r"""
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
try:
    s.connect(sys.argv[1])
    data = s.recv(100)
except OSError as e:
    print("connect-failed:", e)
    sys.exit(1)
print("connected:", data.decode(errors="replace").strip())
sys.exit(0 if data.startswith(b"agent-hello") else 2)
"""


def require_porta():
    """The binary under test must exist: an error without it (a skip with
    PORTA_IT_ALLOW_MISSING=1).  Every test class calls this first."""
    if not (os.path.isfile(PORTA) and os.access(PORTA, os.X_OK)):
        raise unittest.SkipTest("porta binary not found at %s (set PORTA)" % PORTA) \
            if os.environ.get("PORTA_IT_ALLOW_MISSING") else \
            AssertionError("porta binary not found at %s (set PORTA)" % PORTA)


class LabTestCase(netlab.LabCase):
    """netlab.LabCase for porta: the binary must exist, then the class gets
    its lab (cls.lab, cls.servers; skipped with the reason on a host that
    cannot make one), reset before each test."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        require_porta()
        super().setUpClass()


class PortaTestCase(unittest.TestCase):
    """Base class: checks that the binary exists, and gives each test fresh
    scratch directories under $HOME that are removed afterwards."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        require_porta()

    def mkdtemp(self, under=None, prefix="porta-it-"):
        d = tempfile.mkdtemp(prefix=prefix, dir=under or home_base())
        d = os.path.realpath(d)
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def write(self, path, text, mode=None):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        if mode is not None:
            os.chmod(path, mode)
        return path

    def read(self, path):
        with open(path) as f:
            return f.read()

    def unix_listener(self, path):
        """A listening Unix socket at path (its directory made), closed when
        the test ends."""
        os.makedirs(os.path.dirname(path), exist_ok=True)
        lst = UnixListener(path)
        self.addCleanup(lst.close)
        return lst

    def assertRc(self, res, rc, msg=""):
        self.assertEqual(res.rc, rc, "%s\n%s" % (msg, res.describe()))

    def assertOk(self, res, msg=""):
        self.assertRc(res, 0, msg)

    def assertFailed(self, res, msg=""):
        self.assertNotEqual(res.rc, 0, "expected a failure\n%s\n%s" % (msg, res.describe()))
        self.assertIsNotNone(res.rc, "%s\n%s" % (msg, res.describe()))
