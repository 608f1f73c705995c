"""integration/ceilings: each resource ceiling ends or refuses what goes past
it, with the exit code docs/porta.1 promises, as root and as an unprivileged user.

--timeout 124; --max-cpu counts every process of the run together and porta
ends the run past it (137, one line saying how much they used), whichever
process used it and whether or not it ignores SIGXCPU, each process keeping
RLIMIT_CPU a second above; --max-procs: the command's processes beyond N
cannot be forked (EAGAIN), the user's other processes do not count; the
default process ceiling holds a fork bomb at 4096 tasks while the host
forks on; --max-file-size SIGXFSZ (153), EFBIG when ignored;
--max-memory-mb: the OOM kill (137) and a line naming the ceiling where porta
can make a memory cgroup; where it cannot, porta's own count of the
processes' resident memory and the sandbox's /tmp ends the run (137).  After
every run porta's porta-* cgroups are gone.

Whether a memory cgroup can be made here is worked out by this file on its
own (memory_cgroup_parent()), not taken from `porta check`, so that a wrong
answer from porta shows up as a failure rather than as the expectation.
"""

import os
import re
import shutil
import signal
import subprocess
import unittest

import harness
from harness import IS_ROOT, PY, SH, PortaTestCase, run, spawn


def _own_cgroups():
    """{controller or '' (v2): own cgroup path} from /proc/self/cgroup."""
    own = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            hid, ctrls, path = line.rstrip("\n").split(":", 2)
            if hid == "0" and not ctrls:
                own[""] = path
            for c in ctrls.split(","):
                if c:
                    own[c] = path
    return own


def _mounts():
    """[(fstype, mount point, root, super options)] of cgroup mounts."""
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, right = line.split(" - ", 1)
            fields = left.split()
            fstype, _src, opts = right.split()[:3]
            if fstype in ("cgroup", "cgroup2"):
                unesc = lambda s: s.encode().decode("unicode_escape")
                out.append((fstype, unesc(fields[4]), unesc(fields[3]), opts.split(",")))
    return out


def _dir_of(mount, root, path):
    if root != "/" and not (path == root or path.startswith(root + "/")):
        return None
    rest = path[len(root):] if root != "/" else path
    return os.path.normpath(mount + "/" + rest)


def own_cgroup_dirs():
    """Every directory that is this process's cgroup in some hierarchy that
    has memory, pids or cpuacct (porta, our child, creates its porta-* there)."""
    own, dirs = _own_cgroups(), set()
    for fstype, mnt, root, opts in _mounts():
        key = "" if fstype == "cgroup2" else next((c for c in ("memory", "pids", "cpuacct")
                                                   if c in opts), None)
        if key is None or key not in own:
            continue
        d = _dir_of(mnt, root, own[key])
        if d and os.path.isdir(d):
            dirs.add(d)
    return sorted(dirs)


# Where this module moved itself (setUpModule): [(its own dir before, the
# private one)].  ctest runs other tests beside this one, and their portas
# make porta-* cgroups below the same parent (a porta in a container's pid
# namespace as well): in a cgroup of its own, "the cgroups porta left" are
# this module's portas' only.
_PRIVATE = []


def setUpModule():
    if not IS_ROOT:
        return  # an unprivileged user's portas make no cgroups here
    own = _own_cgroups()
    for fstype, mnt, root, opts in _mounts():
        key = "" if fstype == "cgroup2" else next((c for c in ("memory", "pids", "cpuacct")
                                                   if c in opts), None)
        if key is None or key not in own:
            continue
        if fstype == "cgroup2" and own[key] == "/":
            continue  # v2's root alone may hold processes and enable controllers
        d = _dir_of(mnt, root, own[key])
        if not d or any(d == was for was, _ in _PRIVATE):
            continue
        mine = os.path.join(d, "ceilings-test-%d" % os.getpid())
        try:
            os.mkdir(mine)
            with open(os.path.join(mine, "cgroup.procs"), "w") as f:
                f.write("0")
        except OSError:
            try:
                os.rmdir(mine)
            except OSError:
                pass
            continue
        _PRIVATE.append((d, mine))


def tearDownModule():
    for d, mine in _PRIVATE:
        with open(os.path.join(d, "cgroup.procs"), "w") as f:
            f.write("0")
        os.rmdir(mine)


def porta_cgroups():
    """The porta-* cgroups below our own cgroups."""
    found = []
    for d in own_cgroup_dirs():
        with_names = [os.path.join(d, n) for n in os.listdir(d) if n.startswith("porta-")]
        found.extend(p for p in with_names if os.path.isdir(p))
    return sorted(found)


def controller_parent(ctrl):
    """Where a cgroup with ctrl can be made by us (cgroup v2 first, then the
    v1 hierarchy of ctrl), or None."""
    own = _own_cgroups()
    for fstype, mnt, root, opts in _mounts():
        if fstype != "cgroup2" or "" not in own:
            continue
        d = _dir_of(mnt, root, own[""])
        if not d:
            continue
        try:
            with open(os.path.join(d, "cgroup.controllers")) as f:
                ctrls = f.read().split()
            with open(os.path.join(d, "cgroup.subtree_control")) as f:
                subtree = f.read().split()
        except OSError:
            continue
        if ctrl in ctrls and (ctrl in subtree or own[""] == "/") and os.access(d, os.W_OK):
            return d
    for fstype, mnt, root, opts in _mounts():
        if fstype == "cgroup" and ctrl in opts and ctrl in own:
            d = _dir_of(mnt, root, own[ctrl])
            if d and os.access(d, os.W_OK | os.X_OK):
                return d
    return None


# Forks children that wait on a pipe, until a fork fails or 12 are alive;
# prints how many were alive at once and the errno name of the failure.
FORKS = r"""
import errno, os, sys
r, w = os.pipe()
kids, err = [], "none"
for i in range(12):
    try:
        pid = os.fork()
    except OSError as e:
        err = errno.errorcode.get(e.errno, str(e.errno))
        break
    if pid == 0:
        os.close(w)
        os.read(r, 1)
        os._exit(0)
    kids.append(pid)
os.close(w)
for k in kids:
    os.waitpid(k, 0)
print("forked=%d err=%s" % (len(kids), err))
"""

# Burns CPU, writing the CPU seconds used so far into argv[1] as it goes.
CPU = r"""
import os, signal, sys, time
if len(sys.argv) > 2:
    signal.signal(signal.SIGXCPU, signal.SIG_IGN)
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
last = 0.0
while True:
    for _ in range(20000):
        pass
    used = time.process_time()
    if used - last >= 0.05:
        os.pwrite(fd, ("%.3f" % used).ljust(32).encode(), 0)
        last = used
    if used > 10:
        break
print("not stopped")
"""

# Six children, each burning 0.5 s of CPU (3 s together, none of them near a
# second alone), then "done".  argv[1]: a marker in every process's command
# line.
CPU_FORKS = r"""
import os, sys, time
kids = []
for _ in range(6):
    pid = os.fork()
    if pid == 0:
        while time.process_time() < 0.5:
            for _ in range(20000):
                pass
        os._exit(0)
    kids.append(pid)
for k in kids:
    os.waitpid(k, 0)
print("done")
"""

# A bounded fork bomb: forks as fast as it can, every child kept alive on a
# pipe, until forks fail 50 times or 90 s have passed (a fork of Python costs
# milliseconds on a loaded VM: 4096 of them can take that long); prints how
# many it reached and the errno of the failures, then holds them until
# argv[2] exists (at most 20 s more) and lets them go.  argv[1] is a marker
# in every process's command line.
BOMB = r"""
import errno, os, sys, time
deadline = time.monotonic() + 90
r, w = os.pipe()
n, err, failures = 0, "none", 0
while time.monotonic() < deadline and failures < 50:
    try:
        pid = os.fork()
    except OSError as e:
        err = errno.errorcode.get(e.errno, str(e.errno))
        failures += 1
        continue
    if pid == 0:
        os.close(w)
        os.read(r, 1)  # until the bomb lets go, or dies
        os._exit(0)
    n += 1
print("forked=%d err=%s" % (n, err), flush=True)
hold = time.monotonic() + 20
while time.monotonic() < hold and not os.path.exists(sys.argv[2]):
    time.sleep(0.05)
os.close(w)
for _ in range(n):
    os.wait()
print("released", flush=True)
"""

# Touches argv[1] MiB, 4 MiB at a time, then says so.
MEMORY = r"""
import sys
chunks = []
for _ in range(int(sys.argv[1]) // 4):
    chunks.append(bytearray(4 << 20))  # zero-filled: every page touched
print("touched", int(sys.argv[1]), "MiB")
"""

# Four processes, each touching argv[1] MiB, 4 MiB at a time, and holding it
# until all four have; "touched" when they all did.
MEMORY_FORKS = r"""
import os, sys, time
r, w = os.pipe()
kids = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        chunks = [bytearray(4 << 20) for _ in range(int(sys.argv[1]) // 4)]
        os.write(w, b"x")
        time.sleep(1)
        os._exit(0)
    kids.append(pid)
got = b""
while len(got) < 4:
    got += os.read(r, 4)
for k in kids:
    os.waitpid(k, 0)
print("touched", 4 * int(sys.argv[1]), "MiB in 4 processes")
"""

# Writes 2 MiB to argv[1]; with argv[2], SIGXFSZ ignored: prints the errno.
FSIZE = r"""
import errno, os, signal, sys
if len(sys.argv) > 2:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
total = 0
try:
    while total < 2 << 20:
        total += os.write(fd, b"x" * 65536)
except OSError as e:
    print("write failed:", errno.errorcode[e.errno], "after", total)
    sys.exit(3)
print("wrote", total)
"""


def read_until(proc, pattern, timeout):
    """proc's stdout lines up to the first matching pattern (the last one
    returned); AssertionError on EOF or past timeout seconds."""
    import threading
    lines, box = [], {}

    def reader():
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if re.match(pattern, lines[-1]):
                box["ok"] = True
                return

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    t.join(timeout)
    if not box.get("ok"):
        raise AssertionError("no line matching %r within %ss; got %r" % (pattern, timeout, lines))
    return lines


def shell_status(args):
    """porta ARGS from a shell: the status the shell sees ($?), and stderr."""
    argv = harness.porta_argv(args)
    p = subprocess.run([SH, "-c", '"$@" 2>&1 >/dev/null; echo "status=$?"', "sh"] + argv,
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    lines = p.stdout.strip().splitlines()
    return int(lines[-1].split("=")[1]), "\n".join(lines[:-1])


class CeilingTest(PortaTestCase):

    def setUp(self):
        self.before = porta_cgroups()
        self.ws = self.mkdtemp()

    def tearDown(self):
        # porta removes its cgroup before it exits, on every path
        self.assertEqual(porta_cgroups(), self.before, "a porta-* cgroup was left behind")


class Timeout(CeilingTest):

    def test_timeout_ends_everything_with_124(self):
        m = harness.sleep_marker()
        res = run(["run", "--timeout", "1", "--", SH, "-c",
                   "sleep %s & sleep %s; echo not-ended" % (m, m)])
        self.assertRc(res, 124)
        self.assertNotIn("not-ended", res.out)
        self.assertIn("--timeout reached", res.err)
        self.assertEqual(harness.pids_with_cmdline(m), [], "processes outlived --timeout")

    def test_timeout_with_memory_ceiling_removes_the_cgroup(self):
        if not controller_parent("memory"):
            self.skipTest("no memory cgroup can be made here (see MemoryPolled)")
        res = run(["run", "--timeout", "1", "--max-memory-mb", "64", "--", SH, "-c", "sleep 30"])
        self.assertRc(res, 124)


CPU_LINE = r"porta: --max-cpu 1 reached: the run's processes used (\d+\.\d) s of CPU together"


class MaxCpu(CeilingTest):

    def cpu_used(self):
        with open(os.path.join(self.ws, "cpu")) as f:
            return float(f.read().split()[0])

    def assertEndedByPorta(self, status, err):
        """porta ended the run at the ceiling: 137, and the line with the
        CPU the run used together, at least the ceiling."""
        self.assertEqual(status, 128 + signal.SIGKILL, err)  # 137
        m = re.search(CPU_LINE, err)
        self.assertTrue(m, err)
        self.assertGreaterEqual(float(m.group(1)), 1.0, err)

    def test_the_run_is_ended_at_the_ceiling(self):
        status, err = shell_status(["run", "-v", self.ws, "--max-cpu", "1", "--",
                                    PY, "-c", CPU, os.path.join(self.ws, "cpu")])
        self.assertEndedByPorta(status, err)
        # the process's own RLIMIT_CPU (a second above) did not come first
        self.assertNotIn("SIGXCPU", err)
        self.assertGreaterEqual(self.cpu_used(), 0.9)

    def test_ignoring_sigxcpu_changes_nothing(self):
        status, err = shell_status(["run", "-v", self.ws, "--max-cpu", "1", "--",
                                    PY, "-c", CPU, os.path.join(self.ws, "cpu"), "ignore"])
        self.assertEndedByPorta(status, err)
        self.assertGreaterEqual(self.cpu_used(), 0.9)

    def test_every_process_of_the_run_counts_together(self):
        # 3 s of CPU in six processes, none near a second alone: each
        # process's RLIMIT_CPU would let all of them finish
        m = harness.marker("cpu-forks")
        status, err = shell_status(["run", "--max-cpu", "1", "--", PY, "-c", CPU_FORKS, m])
        self.assertEndedByPorta(status, err)
        self.assertNotIn("done", err)
        self.assertEqual(harness.pids_with_cmdline(m), [], "processes outlived the ceiling")

    def test_control_the_forks_finish_without_the_ceiling(self):
        # no clock in it: a loaded machine may take long over 3 s of CPU
        res = run(["run", "--", PY, "-c", CPU_FORKS, "x"], timeout=600)
        self.assertOk(res)
        self.assertEqual(res.out.strip(), "done")

    def test_each_process_keeps_rlimit_cpu_a_second_above(self):
        res = run(["run", "--max-cpu", "5", "--", SH, "-c", "grep 'Max cpu time' /proc/self/limits"])
        self.assertOk(res)
        self.assertRegex(res.out, r"Max cpu time\s+6\s+7\s+seconds", res.describe())

    def test_control_without_the_ceiling(self):
        res = run(["run", "-v", self.ws, "--timeout", "30", "--", PY, "-c",
                   CPU.replace("used > 10", "used > 2.5"), os.path.join(self.ws, "cpu")])
        self.assertOk(res)
        self.assertIn("not stopped", res.out)

    def test_explain_says_how_the_run_is_counted(self):
        res = run(["explain", "--max-cpu", "7", "--", SH])
        self.assertOk(res)
        self.assertRegex(res.out, r"--max-cpu 7: the run's processes together, counted by "
                         r"(a cgroup \(cgroup v[12] (cpu\.stat|cpuacct\.usage)|porta from /proc)",
                         res.describe())


@unittest.skipIf(harness.DEGRADED and not harness.IS_ROOT,
                 "needs user namespaces: without one RLIMIT_NPROC would count every process "
                 "of the user, so --max-procs is refused (test_degraded.py checks that)")
class MaxProcs(CeilingTest):

    def forks(self, n, extra=()):
        res = run(["run", *extra, "--max-procs", str(n), "--", PY, "-c", FORKS])
        self.assertOk(res)
        return res

    def test_n_processes_and_no_more(self):
        # N processes of the command: the first and N-1 children; the
        # (N+1)th process cannot be forked.
        for n in (1, 3, 5):
            res = self.forks(n)
            self.assertEqual(res.out.strip(), "forked=%d err=EAGAIN" % (n - 1), res.describe())

    def test_control_without_the_ceiling(self):
        res = run(["run", "--", PY, "-c", FORKS])
        self.assertOk(res)
        self.assertEqual(res.out.strip(), "forked=12 err=none")

    def test_the_users_other_processes_do_not_count(self):
        others = [subprocess.Popen(["sleep", "60"]) for _ in range(6)]
        try:
            res = self.forks(3)
        finally:
            for p in others:
                p.kill()
                p.wait()
        self.assertEqual(res.out.strip(), "forked=2 err=EAGAIN", res.describe())

    @unittest.skipUnless(IS_ROOT, "root: the ceiling is a pids cgroup")
    def test_root_is_held_by_a_pids_cgroup(self):
        res = run(["run", "--max-procs", "2", "--", SH, "-c",
                   "grep pids /proc/self/cgroup; "
                   "cat /sys/fs/cgroup/pids$(sed -n 's/^[0-9]*:pids://p' /proc/self/cgroup)/pids.max"])
        self.assertOk(res)
        self.assertRegex(res.out, r"pids:/.*porta-\d+-[0-9a-f]{8}\n", res.describe())
        # the command and its children, and init where there is one: 2 + 1
        self.assertRegex(res.out, r"\n%d\n$" % (2 if harness.DEGRADED else 3), res.describe())
        res = self.forks(2)
        self.assertIn("--max-procs 2 reached", res.err)

    @unittest.skipUnless(IS_ROOT and shutil.which("unshare"),
                         "root: two pids cgroups side by side, each porta pid 1")
    def test_two_portas_of_the_same_pid_each_get_their_own_cgroup(self):
        # Two portas in pid namespaces of their own, in the same parent
        # cgroup, are both pid 1: the cgroup's name cannot be the pid alone
        # (one would take the other's cgroup, or fail on it)
        started = os.path.join(self.ws, "started")
        argv = ["unshare", "--pid", "--fork"] + harness.porta_argv(
            ["run", "-v", self.ws, "--max-procs", "5", "--", SH, "-c",
             'echo $PPID >> "$1"; grep pids /proc/self/cgroup; '
             'while [ "$(wc -l < "$1")" -lt 2 ]; do sleep 0.05; done', "sh", started])
        procs = [subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(2)]
        outs = []
        try:
            for p in procs:
                outs.append(p.communicate(timeout=60) + (p.returncode,))
        finally:
            for p in procs:
                harness.reap(p)
        for out, err, rc in outs:
            self.assertEqual(rc, 0, err)
        names = [re.search(r"/(porta-[^/\s]+)\s*$", out).group(1) for out, _, _ in outs]
        self.assertRegex(names[0], r"^porta-1-[0-9a-f]{8}$")
        self.assertNotEqual(names[0], names[1], outs)

    @unittest.skipIf(IS_ROOT, "unprivileged: RLIMIT_NPROC")
    def test_unprivileged_needs_no_cgroup(self):
        res = run(["run", "--max-procs", "2", "--", SH, "-c", "grep pids /proc/self/cgroup"])
        self.assertOk(res)
        self.assertNotIn("porta-", res.out)


class DefaultProcs(CeilingTest):
    """The default process ceiling, 4096 tasks (docs/porta.1).  Unprivileged
    with a user namespace: RLIMIT_NPROC, counted in the sandbox's own
    namespace.  Root is exempt from RLIMIT_NPROC and gets no default (a pids
    cgroup for every run would cost each start milliseconds): --max-procs
    4096 holds it there through a pids cgroup.  Degraded: a pids cgroup where
    one can be made, else none, and one line saying so."""

    CEILING = 4096

    def holds(self):
        """How the ceiling holds here, or None: (extra options, how)."""
        if harness.DEGRADED:
            if controller_parent("pids"):
                return [], "a pids cgroup"
            return None
        if IS_ROOT:
            return ["--max-procs", str(self.CEILING)], "--max-procs: a pids cgroup"
        return [], "RLIMIT_NPROC in the sandbox's user namespace"

    def test_a_fork_bomb_ends_at_the_ceiling_and_the_host_forks_on(self):
        how = self.holds()
        if how is None:
            self.skipTest("degraded without a pids cgroup there is no process ceiling "
                          "(test_no_ceiling_is_said checks the line saying so)")
        extra, why = how
        m = harness.marker("bomb")
        flag = os.path.join(self.ws, "host-forked")
        p = spawn(["run", "-v", self.ws, *extra, "--", PY, "-c", BOMB, m, flag])
        try:
            lines = read_until(p, r"^forked=\d+ err=\w+$", timeout=240)
            forked, err = re.match(r"forked=(\d+) err=(\w+)", lines[-1]).groups()
            # the bomb and its children, at most the ceiling; forks past it fail
            self.assertEqual(err, "EAGAIN", "%s (%s)" % (lines, why))
            self.assertLessEqual(int(forked) + 1, self.CEILING, why)
            self.assertEqual(int(forked) + 1, self.CEILING, why)
            # the host, meanwhile: a fork (of the same user) still works
            host = subprocess.run(["/bin/true"], timeout=30)
            self.assertEqual(host.returncode, 0)
            with open(flag, "w"):
                pass
            out, err_text = p.communicate(timeout=120)
        finally:
            harness.reap(p)
        self.assertEqual(p.returncode, 0, err_text)
        self.assertIn("released", out)
        self.assertEqual(harness.pids_with_cmdline(m), [], "processes of the run remain")
        self.assertEqual(subprocess.run(["/bin/true"], timeout=30).returncode, 0)

    @unittest.skipIf(IS_ROOT or harness.DEGRADED,
                     "RLIMIT_NPROC holds the default only in a user namespace of the sandbox's "
                     "own, and not for root")
    def test_the_default_is_rlimit_nproc_in_the_namespace(self):
        res = run(["run", "--", SH, "-c", "grep 'Max processes' /proc/self/limits"])
        self.assertOk(res)
        self.assertRegex(res.out, r"Max processes\s+4097\s+4097\s+processes", res.describe())

    def test_explain_says_what_holds_the_processes(self):
        res = run(["explain", "--", SH])
        self.assertOk(res)
        if harness.DEGRADED:
            want = (r"through a pids cgroup" if controller_parent("pids")
                    else r"processes: no ceiling without a user namespace")
        elif IS_ROOT:
            want = r"processes: no ceiling by default as root"
        else:
            want = (r"processes: at most 4096 tasks of the run at once, threads included \(the "
                    r"default; --max-procs N changes it\), RLIMIT_NPROC counted in the "
                    r"sandbox's own user namespace")
        self.assertRegex(res.out, want, res.describe())

    @unittest.skipUnless(harness.DEGRADED, "only a degraded run can lack the ceiling")
    def test_no_ceiling_is_said(self):
        res = run(["run", "--", SH, "-c", "grep 'Max processes' /proc/self/limits"])
        self.assertOk(res)
        # never RLIMIT_NPROC degraded: it would count the user's other processes
        self.assertNotRegex(res.out, r"Max processes\s+4097")
        if controller_parent("pids"):
            self.assertNotIn("no process ceiling", res.err)
        else:
            self.assertIn("porta: no process ceiling: without a user namespace RLIMIT_NPROC "
                          "would count your other processes too", res.err)


class MaxFileSize(CeilingTest):

    def test_sigxfsz_past_the_limit(self):
        f = os.path.join(self.ws, "big")
        # head, not Python: CPython starts with SIGXFSZ ignored
        status, err = shell_status(["run", "-v", self.ws, "--max-file-size", "1", "--",
                                    SH, "-c", 'head -c 2097152 /dev/zero > "$1"', "sh", f])
        self.assertEqual(status, 128 + signal.SIGXFSZ, err)  # 153
        self.assertEqual(os.path.getsize(f), 1 << 20)

    def test_efbig_when_sigxfsz_is_ignored(self):
        f = os.path.join(self.ws, "big")
        res = run(["run", "-v", self.ws, "--max-file-size", "1", "--", PY, "-c", FSIZE, f, "ign"])
        self.assertRc(res, 3)
        self.assertIn("write failed: EFBIG after %d" % (1 << 20), res.out)
        self.assertEqual(os.path.getsize(f), 1 << 20)

    def test_control_without_the_ceiling(self):
        f = os.path.join(self.ws, "big")
        res = run(["run", "-v", self.ws, "--", PY, "-c", FSIZE, f])
        self.assertOk(res)
        self.assertEqual(os.path.getsize(f), 2 << 20)


class MaxMemory(CeilingTest):

    def setUp(self):
        super().setUp()
        if not controller_parent("memory"):
            self.skipTest("no memory cgroup can be made here (MemoryPolled covers it)")

    def test_oom_kill_past_the_ceiling(self):
        res = run(["run", "--max-memory-mb", "64", "--", PY, "-c", MEMORY, "192"])
        self.assertRc(res, -signal.SIGKILL)  # 137 in a shell
        self.assertNotIn("touched", res.out)
        self.assertIn("--max-memory-mb 64 reached", res.err)

    def test_under_the_ceiling_runs_and_says_nothing(self):
        res = run(["run", "--max-memory-mb", "64", "--", PY, "-c", MEMORY, "16"])
        self.assertOk(res)
        self.assertIn("touched 16 MiB", res.out)
        self.assertNotIn("reached", res.err)

    def test_control_without_the_ceiling(self):
        res = run(["run", "--", PY, "-c", MEMORY, "192"])
        self.assertOk(res)
        self.assertIn("touched 192 MiB", res.out)

    def test_the_command_is_inside_the_cgroup_with_the_limit(self):
        res = run(["run", "--max-memory-mb", "64", "--", SH, "-c",
                   "grep -E '(^0::|memory)' /proc/self/cgroup"])
        self.assertOk(res)
        self.assertRegex(res.out, r"porta-\d+-[0-9a-f]{8}", res.describe())

    def test_exec_failure_removes_the_cgroup(self):
        res = run(["run", "--max-memory-mb", "64", "--", "/nonexistent/cmd"])
        self.assertRc(res, 127)

    def test_signal_to_porta_removes_the_cgroup(self):
        p = spawn(["run", "--max-memory-mb", "64", "--", SH, "-c",
                   "echo ready; while :; do sleep 0.1; done"])
        try:
            harness.wait_for_line(p, "ready")
            mine = set(porta_cgroups()) - set(self.before)
            self.assertTrue(any(os.path.exists(os.path.join(d, "memory.limit_in_bytes")) or
                                os.path.exists(os.path.join(d, "memory.max")) for d in mine),
                            "the running sandbox's memory cgroup is not where expected: %s"
                            % sorted(mine))
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=15)
        finally:
            harness.reap(p)
        self.assertEqual(p.returncode, -signal.SIGTERM)


class MemoryPolled(CeilingTest):
    """Where no memory cgroup can be made, porta counts the run's memory
    itself: the resident memory of all its processes and what its private
    /tmp holds, read every 100 ms; past the ceiling porta ends the run."""

    def setUp(self):
        super().setUp()
        if controller_parent("memory"):
            self.skipTest("a memory cgroup can be made here (MaxMemory covers it)")

    def assertEndedByPorta(self, res):
        self.assertRc(res, 128 + signal.SIGKILL)  # porta's own 137, not a signal
        self.assertRegex(res.err, r"porta: --max-memory-mb 64 reached: the run's processes "
                         r"held \d+ MiB together")

    def test_one_process_past_the_ceiling(self):
        res = run(["run", "--max-memory-mb", "64", "--", PY, "-c", MEMORY, "192"])
        self.assertEndedByPorta(res)
        self.assertNotIn("touched", res.out)

    def test_processes_count_together(self):
        # 4 x 24 MiB: each under the ceiling, together past it
        res = run(["run", "--max-memory-mb", "64", "--", PY, "-c", MEMORY_FORKS, "24"])
        self.assertEndedByPorta(res)
        self.assertNotIn("touched", res.out)

    @harness.needs_userns("degraded, the private TMPDIR is on the host's /tmp, not the "
                          "sandbox's own tmpfs")
    def test_the_private_tmp_counts(self):
        res = run(["run", "--max-memory-mb", "64", "--", SH, "-c",
                   "head -c 134217728 /dev/zero > /tmp/big; sleep 2; echo kept"])
        self.assertEndedByPorta(res)
        self.assertNotIn("kept", res.out)

    def test_under_the_ceiling_runs_and_says_nothing(self):
        res = run(["run", "--max-memory-mb", "64", "--", PY, "-c", MEMORY_FORKS, "4"])
        self.assertOk(res)
        self.assertIn("touched 16 MiB in 4 processes", res.out)
        self.assertNotIn("reached", res.err)

    def test_control_without_the_ceiling(self):
        res = run(["run", "--", PY, "-c", MEMORY_FORKS, "24"])
        self.assertOk(res)
        self.assertIn("touched 96 MiB in 4 processes", res.out)

    def test_explain_says_it_is_polled(self):
        res = run(["explain", "--max-memory-mb", "64", "--", SH])
        self.assertOk(res)
        self.assertIn("--max-memory-mb 64: polled, since no memory cgroup can be made here",
                      res.out)
        self.assertIn("a burst shorter than that can pass it", res.out)


if __name__ == "__main__":
    unittest.main()
