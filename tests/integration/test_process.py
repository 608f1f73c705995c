"""integration/process: signals reach the payload, nothing outlives porta,
and the payload lives in its own PID namespace."""

import os
import signal
import subprocess
import time
import unittest

import harness
from harness import PY, SH, PortaTestCase, run, spawn

TRAP_SCRIPT = ('trap "echo got-%s; exit 3" %s; echo ready; '
               'while :; do sleep 0.1; done')

# A payload that leaves two daemons behind and exits at once: one made with
# setsid, one with a Python double fork (its own session, stdio closed).
# argv[1] is the unique sleep duration the host looks for.
DAEMONIZE = r"""
import os, sys, subprocess
m = sys.argv[1]
subprocess.Popen(["setsid", "sh", "-c", "exec sleep " + m], stdin=subprocess.DEVNULL,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        fd = os.open("/dev/null", os.O_RDWR)
        for i in (0, 1, 2):
            os.dup2(fd, i)
        os.execvp("sleep", ["sleep", m])
    os._exit(0)
os.wait()
print("daemons-started", flush=True)
"""


class SignalForwarding(PortaTestCase):

    def forward(self, sig):
        name = signal.Signals(sig).name[3:]
        script = TRAP_SCRIPT % (name, name)
        # control: the script itself answers the signal this way outside
        ctl = subprocess.Popen([SH, "-c", script], stdout=subprocess.PIPE, text=True,
                               stdin=subprocess.DEVNULL)
        harness.wait_for_line(ctl, "ready")
        ctl.send_signal(sig)
        out, _ = ctl.communicate(timeout=10)
        self.assertEqual((ctl.returncode, out.strip()), (3, "got-" + name))

        p = spawn(["run", "--", SH, "-c", script])
        try:
            harness.wait_for_line(p, "ready")
            p.send_signal(sig)
            out, err = p.communicate(timeout=15)
        finally:
            harness.reap(p)
        self.assertEqual(p.returncode, 3, "porta did not forward SIG%s\nstdout: %r\nstderr: %r"
                         % (name, out, err))
        self.assertIn("got-" + name, out)

    def test_sigterm(self):
        self.forward(signal.SIGTERM)

    def test_sigint(self):
        self.forward(signal.SIGINT)

    def test_sighup(self):
        self.forward(signal.SIGHUP)

    def test_sigquit(self):
        self.forward(signal.SIGQUIT)

    def test_sigusr1(self):
        self.forward(signal.SIGUSR1)

    def test_unhandled_signal_ends_payload_and_porta_alike(self):
        p = spawn(["run", "--", SH, "-c", "echo ready; while :; do sleep 0.1; done"])
        try:
            harness.wait_for_line(p, "ready")
            p.send_signal(signal.SIGTERM)
            p.communicate(timeout=15)
        finally:
            harness.reap(p)
        self.assertEqual(p.returncode, -signal.SIGTERM)


class NothingOutlivesPorta(PortaTestCase):

    def tearDown(self):
        harness.kill_pids(harness.pids_with_cmdline(getattr(self, "m", "\0never")))

    def test_control_daemons_outlive_their_parent_without_porta(self):
        self.m = harness.sleep_marker()
        res = harness.run_host([PY, "-c", DAEMONIZE, self.m])
        self.assertIn("daemons-started", res.out, res.describe())
        left = harness.wait_present(self.m, 2)
        self.assertGreaterEqual(len(left), 2, "control: the daemons should survive")

    def test_daemons_gone_when_porta_exits(self):
        self.m = harness.sleep_marker()
        res = run(["run", "--", PY, "-c", DAEMONIZE, self.m])
        self.assertOk(res)
        self.assertIn("daemons-started", res.out)
        left = harness.pids_with_cmdline(self.m)
        self.assertEqual(left, [], "processes outlived porta: %s" % left)

    def test_background_child_gone_when_porta_exits(self):
        self.m = harness.sleep_marker()
        res = run(["run", "--", SH, "-c", "sleep %s >/dev/null 2>&1 & echo bg" % self.m])
        self.assertOk(res)
        self.assertEqual(harness.pids_with_cmdline(self.m), [])

    def test_daemons_gone_after_timeout(self):
        self.m = harness.sleep_marker()
        res = run(["run", "--timeout", "2", "--", SH, "-c",
                   "%s -c '%s' %s; sleep 60" % (PY, DAEMONIZE.replace("'", "'\\''"), self.m)],
                  timeout=40)
        self.assertRc(res, 124)
        self.assertEqual(harness.pids_with_cmdline(self.m), [])

    @harness.needs_userns("a PID namespace: what the command started survives porta's SIGKILL (a stated loss)")
    def test_whole_sandbox_dies_with_porta_sigkill(self):
        self.m = harness.sleep_marker()
        script = ("%s -c '%s' %s; echo ready; sleep %s"
                  % (PY, DAEMONIZE.replace("'", "'\\''"), self.m, self.m))
        p = spawn(["run", "--", SH, "-c", script])
        try:
            harness.wait_for_line(p, "ready")
            # the daemons and the payload's own sleep are running
            self.assertGreaterEqual(len(harness.wait_present(self.m, 3)), 3)
            p.kill()
            # wait, not communicate: a surviving process would hold the pipes
            p.wait(timeout=10)
        finally:
            harness.reap(p)
        left = harness.wait_gone(self.m, grace=3)
        self.assertEqual(left, [], "sandbox processes survived SIGKILL of porta: %s" % left)


@harness.needs_userns('a PID namespace: other processes stay visible (a stated loss)')
class PidNamespace(PortaTestCase):

    def test_payload_is_not_pid_1_but_small(self):
        res = run(["run", "--", SH, "-c", "echo $$"])
        self.assertOk(res)
        pid = int(res.out.strip())
        self.assertNotEqual(pid, 1, "the payload must not be pid 1")
        self.assertLessEqual(pid, 10, "the payload does not look like it is in a PID namespace")

    def test_host_processes_invisible(self):
        m = harness.sleep_marker()
        decoy = subprocess.Popen(["sleep", m])
        self.addCleanup(decoy.wait)
        self.addCleanup(decoy.kill)
        # control: on the host the decoy is visible
        self.assertIn(decoy.pid, harness.wait_present(m))
        probe = (
            "import os\n"
            "ps = [p for p in os.listdir('/proc') if p.isdigit()]\n"
            "seen = 0\n"
            "for p in ps:\n"
            "    try:\n"
            "        with open('/proc/%s/cmdline' % p, 'rb') as f:\n"
            "            seen += MARK.encode() in f.read()\n"
            "    except OSError:\n"
            "        pass\n"
            "print(len(ps), seen)\n").replace(
                "MARK", "(%r + %r)" % (m[:5], m[5:]))  # so the probe's own argv lacks it
        res = run(["run", "--", PY, "-c", probe])
        self.assertOk(res)
        count, seen = [int(x) for x in res.out.split()]
        self.assertEqual(seen, 0, "the host's decoy is visible inside")
        self.assertLess(count, 10, "too many processes visible in /proc: %d" % count)

    def test_ps_in_sandbox_sees_only_its_own(self):
        res = run(["run", "--", SH, "-c", "ls /proc | grep -c '^[0-9]'"])
        self.assertOk(res)
        self.assertLess(int(res.out.strip()), 10, res.describe())


if __name__ == "__main__":
    unittest.main()


LIMITS = r"""
import resource, sys
print("start", *resource.getrlimit(resource.RLIMIT_CORE))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))   # as ssh-agent does
print("after", *resource.getrlimit(resource.RLIMIT_CORE))
print("filter", open("/proc/self/coredump_filter").read().strip())
try:
    open("/proc/self/coredump_filter", "w").write("0x33")
    print("filter written")
except OSError as e:
    print("filter refused", e.errno)
"""


@unittest.skipUnless(harness.IS_ROOT, "changing kernel.core_pattern needs root")
class CoreDumps(PortaTestCase):
    """Where kernel.core_pattern hands dumps to a program of the host, the
    command's RLIMIT_CORE stays at 1 (the one value the kernel honours for
    a pipe) and setting it is answered without effect, and its
    coredump_filter is 0 (a socket ignores every limit); where the
    pattern writes files, the command's limit is the caller's and a crash in
    a writable mount leaves its core there.  The crash itself reaching a
    helper is escape corpus row 62."""

    def test_pinned_where_the_pattern_pipes_to_a_program(self):
        for pattern in ("|/bin/false %P", "@/run/porta-it-no-such.socket"):
            with harness.host_sysctl("kernel.core_pattern", pattern):
                res = run(["run", "--", PY, "-c", LIMITS])
                expl = run(["explain", "--", "true"])
            self.assertOk(res, pattern)
            self.assertIn("start 1 1\n", res.out, pattern)
            self.assertIn("after 1 1\n", res.out, "setting it changes nothing: " + pattern)
            # '@' ignores every limit: no memory in the dump, and the
            # command cannot put it back (Landlock)
            self.assertIn("filter 00000000\n", res.out, pattern)
            self.assertNotIn("filter written", res.out, pattern)
            self.assertIn("core dumps: none (kernel.core_pattern pipes them to a program"
                          if pattern.startswith("|") else
                          "core dumps: the kernel's notes only, no memory", expl.out, pattern)

    def test_the_callers_limit_where_the_pattern_writes_files(self):
        ws = self.mkdtemp()
        crash = "ulimit -c unlimited && cd %s && exec %s -c 'import os, signal; " \
                "os.kill(os.getpid(), signal.SIGSEGV)'" % (ws, PY)
        with harness.host_sysctl("kernel.core_pattern", "core"):
            res = run(["run", "-v", ws, "--", PY, "-c", LIMITS])
            expl = run(["explain", "--", "true"])
            dumped = run(["run", "-v", ws, "--", SH, "-c", crash])
        self.assertOk(res)
        self.assertIn("after 0 0\n", res.out, "the command's own limit to set")
        self.assertNotIn("filter 00000000\n", res.out, "the caller's coredump_filter")
        self.assertNotIn("core dumps", expl.out)
        # porta ends as its command did: by the same signal
        self.assertIn(dumped.rc, (-signal.SIGSEGV, 128 + signal.SIGSEGV), dumped.describe())
        self.assertTrue([n for n in os.listdir(ws) if n.startswith("core")],
                        "no core file in the writable mount: %s" % os.listdir(ws))
