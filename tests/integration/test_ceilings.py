"""integration/ceilings: each resource ceiling ends or refuses what goes past
it, with the exit code docs/porta.1 promises, as root and as an unprivileged user.

--timeout 124; --max-cpu SIGXCPU (152), SIGKILL (137) when SIGXCPU is
ignored; --max-procs: the command's processes beyond N cannot be forked
(EAGAIN), the user's other processes do not count; --max-file-size SIGXFSZ
(153), EFBIG when ignored; --max-memory-mb: the OOM kill (137) and a line
naming the ceiling where porta can make a memory cgroup, 125 with the reason
and nothing run where it cannot.  After every run porta's porta-* cgroups
are gone.

Whether a memory cgroup can be made here is worked out by this file on its
own (memory_cgroup_parent()), not taken from `porta check`, so that a wrong
answer from porta shows up as a failure rather than as the expectation.
"""

import os
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
    has memory or pids (porta, our child, creates its porta-* there)."""
    own, dirs = _own_cgroups(), set()
    for fstype, mnt, root, opts in _mounts():
        key = "" if fstype == "cgroup2" else next((c for c in ("memory", "pids") if c in opts), None)
        if key is None or key not in own:
            continue
        d = _dir_of(mnt, root, own[key])
        if d and os.path.isdir(d):
            dirs.add(d)
    return sorted(dirs)


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

# Touches argv[1] MiB, 4 MiB at a time, then says so.
MEMORY = r"""
import sys
chunks = []
for _ in range(int(sys.argv[1]) // 4):
    chunks.append(bytearray(4 << 20))  # zero-filled: every page touched
print("touched", int(sys.argv[1]), "MiB")
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
            self.skipTest("no memory cgroup can be made here (see MemoryRefused)")
        res = run(["run", "--timeout", "1", "--max-memory-mb", "64", "--", SH, "-c", "sleep 30"])
        self.assertRc(res, 124)


class MaxCpu(CeilingTest):

    def cpu_used(self):
        with open(os.path.join(self.ws, "cpu")) as f:
            return float(f.read().split()[0])

    def test_sigxcpu_at_the_limit(self):
        status, err = shell_status(["run", "-v", self.ws, "--max-cpu", "1", "--",
                                    PY, "-c", CPU, os.path.join(self.ws, "cpu")])
        self.assertEqual(status, 128 + signal.SIGXCPU, err)  # 152
        self.assertLess(self.cpu_used(), 2.0)
        self.assertIn("porta: --max-cpu 1 reached: the command was ended by SIGXCPU", err)

    def test_sigkill_when_sigxcpu_is_ignored(self):
        status, err = shell_status(["run", "-v", self.ws, "--max-cpu", "1", "--",
                                    PY, "-c", CPU, os.path.join(self.ws, "cpu"), "ignore"])
        self.assertEqual(status, 128 + signal.SIGKILL, err)  # 137
        self.assertIn("porta: --max-cpu 1 reached: the command went on past SIGXCPU and was "
                      "killed a second later", err)
        # it lived past the soft limit (SIGXCPU was ignored), not past the hard one
        used = self.cpu_used()
        self.assertGreaterEqual(used, 0.95)
        self.assertLess(used, 3.0)

    def test_control_without_the_ceiling(self):
        res = run(["run", "-v", self.ws, "--timeout", "30", "--", PY, "-c",
                   CPU.replace("used > 10", "used > 2.5"), os.path.join(self.ws, "cpu")])
        self.assertOk(res)
        self.assertIn("not stopped", res.out)


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
                   "grep pids /proc/self/cgroup; cat /sys/fs/cgroup/pids/porta-*/pids.max 2>/dev/null"])
        self.assertOk(res)
        self.assertRegex(res.out, r"pids:/.*porta-\d+", res.describe())
        res = self.forks(2)
        self.assertIn("--max-procs 2 reached", res.err)

    @unittest.skipIf(IS_ROOT, "unprivileged: RLIMIT_NPROC")
    def test_unprivileged_needs_no_cgroup(self):
        res = run(["run", "--max-procs", "2", "--", SH, "-c", "grep pids /proc/self/cgroup"])
        self.assertOk(res)
        self.assertNotIn("porta-", res.out)


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
            self.skipTest("no memory cgroup can be made here (MemoryRefused covers it)")

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
        self.assertRegex(res.out, r"porta-\d+", res.describe())

    def test_exec_failure_removes_the_cgroup(self):
        res = run(["run", "--max-memory-mb", "64", "--", "/nonexistent/cmd"])
        self.assertRc(res, 127)

    def test_signal_to_porta_removes_the_cgroup(self):
        p = spawn(["run", "--max-memory-mb", "64", "--", SH, "-c",
                   "echo ready; while :; do sleep 0.1; done"])
        try:
            harness.wait_for_line(p, "ready")
            self.assertEqual(len(porta_cgroups()), len(self.before) + 1,
                             "the running sandbox's cgroup is not where expected")
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=15)
        finally:
            harness.reap(p)
        self.assertEqual(p.returncode, -signal.SIGTERM)


class MemoryRefused(CeilingTest):

    def setUp(self):
        super().setUp()
        if controller_parent("memory"):
            self.skipTest("a memory cgroup can be made here (MaxMemory covers it)")

    def test_refused_with_the_reason_and_nothing_ran(self):
        flag = os.path.join(self.ws, "ran")
        res = run(["run", "-v", self.ws, "--max-memory-mb", "64", "--", SH, "-c",
                   "touch %s; echo ran" % flag])
        self.assertRc(res, 125)
        self.assertEqual(res.out, "")
        self.assertFalse(os.path.exists(flag), "the command ran although porta refused")
        self.assertIn("--max-memory-mb needs the memory controller in a cgroup porta can create",
                      res.err)
        self.assertRegex(res.err, r"not writable by uid %d|no memory controller|not visible"
                         % os.geteuid())

    def test_explain_notes_the_refusal(self):
        res = run(["explain", "--max-memory-mb", "64", "--", SH])
        self.assertOk(res)
        self.assertIn("run would refuse this: --max-memory-mb needs the memory controller", res.out)


if __name__ == "__main__":
    unittest.main()
