"""integration/degraded: porta on a host that refuses user namespaces.

Every run here is made inside a throwaway `unshare -r` whose own limit of user
namespaces is 0 (harness.DEGRADED_WRAP), so porta's clone(CLONE_NEWUSER)
fails and porta confines with Landlock and seccomp only (docs/design.md, "Degraded
hosts").  What must hold: credentials closed to reads, writes only where
mounted, no network with --no-net, only porta's proxy with --proxy-allow,
nothing left running; what cannot be enforced is refused (125); every lost
protection is named on stderr.  The rest of the integration suite runs on the
same simulated host when ctest's integration-degraded/* tests set
PORTA_TEST_DEGRADED=1.
"""

import os
import signal
import socket
import subprocess
import time
import unittest

import harness
from harness import IS_ROOT, PY, SH, PortaTestCase, netlab

SECRET = "porta-degraded-secret-5f1c"


def run(args, **kw):
    """porta ARGS on the simulated degraded host."""
    # porta_argv() wraps already when the whole suite runs degraded
    argv = ([] if harness.DEGRADED else harness.DEGRADED_WRAP) + harness.porta_argv(args)
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, env=kw.pop("env", None) or harness.clean_env(),
                           capture_output=True, text=True, timeout=kw.pop("timeout", 60),
                           stdin=subprocess.DEVNULL, **kw)
        return harness.Result(argv, p.returncode, p.stdout, p.stderr, time.monotonic() - t0)
    except subprocess.TimeoutExpired as e:
        return harness.Result(argv, None, str(e.stdout), str(e.stderr), time.monotonic() - t0)


def sh(script):
    return [SH, "-c", script]


class Degraded(PortaTestCase):

    def setUp(self):
        probe = harness.run_host(harness.DEGRADED_WRAP + ["true"])
        if probe.rc != 0:
            self.skipTest("cannot simulate a degraded host here: %s" % probe.err.strip())

    # --- what porta says -------------------------------------------------

    def test_stderr_names_each_lost_protection(self):
        ws = self.mkdtemp()
        os.makedirs(os.path.join(ws, ".git", "hooks"))
        self.write(os.path.join(ws, ".git", "config"), "[core]\n")
        res = run(["run", "--no-net", "-v", ws, "--", "true"])
        self.assertOk(res)
        for words in ("user namespaces are refused", "other processes stay visible",
                      "no protected names inside writable mounts", "/tmp is the host's",
                      "no private network", "names stay listable",
                      "survive if porta itself is killed"):
            self.assertIn(words, res.err, res.describe())
        quiet = run(["run", "-q", "--", "true"])
        self.assertOk(quiet)
        self.assertEqual(quiet.err, "", "-q still printed\n" + quiet.describe())

    def test_check_says_degraded(self):
        argv = harness.DEGRADED_WRAP + [harness.PORTA, "check"]
        res = harness.run_host(argv)
        self.assertEqual(res.rc, 0, res.describe())
        self.assertIn("NO   user namespaces: creation refused", res.out)
        self.assertIn("porta can run here, degraded", res.out)

    def test_explain_says_what_run_would_do(self):
        res = run(["explain", "--no-net", "--", "true"])
        self.assertOk(res)
        self.assertIn("degraded host: user namespaces are refused", res.out)
        self.assertIn("degraded host: no private network", res.out)
        res = run(["explain", "--allow-net", "example.com:443", "--", "true"])
        self.assertIn("run would refuse this: user namespaces are refused here", res.out)
        self.assertIn("--proxy-allow", res.out)

    def test_control_full_sandbox_says_nothing_of_it(self):
        res = harness.run(["run", "--", "true"])
        if harness.DEGRADED:
            self.skipTest("the whole suite runs degraded")
        self.assertOk(res)
        self.assertNotIn("user namespaces are refused", res.err)

    # --- what cannot be enforced is refused -------------------------------

    def test_transparent_allow_net_refused(self):
        mark = os.path.join(self.mkdtemp(), "ran")
        res = run(["run", "--allow-net", "example.com:443", "-v", os.path.dirname(mark), "--"] +
                  sh("touch %s" % mark))
        self.assertRc(res, 125)
        self.assertIn("--proxy-allow", res.err)
        self.assertIn("network namespace", res.err)
        self.assertFalse(os.path.exists(mark), "the command ran")

    def test_credential_inside_writable_mount_refused(self):
        h = self.mkdtemp(prefix="porta-it-home-")
        self.write(os.path.join(h, ".ssh", "id_ed25519"), SECRET, 0o600)
        res = run(["run", "-v", h, "--", "cat", os.path.join(h, ".ssh", "id_ed25519")],
                  env=harness.clean_env({"HOME": h}))
        self.assertRc(res, 125)
        self.assertIn("inside the writable mount", res.err)
        self.assertNotIn(SECRET, res.out + res.err)

    def test_read_only_mount_inside_writable_refused(self):
        ws = self.mkdtemp()
        os.makedirs(os.path.join(ws, "ro"))
        res = run(["run", "-v", ws, "-v", os.path.join(ws, "ro") + ":ro", "--", "true"])
        self.assertRc(res, 125)
        self.assertIn("read-only mount", res.err)

    @unittest.skipIf(IS_ROOT, "as root a pids cgroup holds --max-procs (test_ceilings)")
    def test_max_procs_refused(self):
        # RLIMIT_NPROC would count every process of the user: refused
        res = run(["run", "--max-procs", "4", "--", "true"])
        self.assertRc(res, 125)
        self.assertIn("--max-procs", res.err)

    # --- what holds ------------------------------------------------------

    def test_credentials_closed_ordinary_files_readable(self):
        h = self.mkdtemp(prefix="porta-it-home-")
        for rel in (".ssh/id_ed25519", ".aws/credentials", ".netrc", ".git-credentials"):
            self.write(os.path.join(h, rel), SECRET + rel + "\n", 0o600)
        self.write(os.path.join(h, "notes.txt"), "ordinary-notes\n")
        files = " ".join(os.path.join(h, rel) for rel in
                         (".ssh/id_ed25519", ".aws/credentials", ".netrc", ".git-credentials"))
        res = run(["run", "--read-policy", "open", "--"] + sh("cat %s; grep -r %s %s; cat %s/notes.txt"
                                     % (files, SECRET, h, h)),
                  env=harness.clean_env({"HOME": h}))
        self.assertNotIn(SECRET, res.out + res.err, res.describe())
        self.assertIn("ordinary-notes", res.out, res.describe())
        # the control: the same command unconfined reads them
        ctl = harness.run_host(sh("cat %s" % files))
        self.assertIn(SECRET, ctl.out)

    def test_writes_only_where_mounted(self):
        ws = self.mkdtemp()
        other = self.mkdtemp()
        res = run(["run", "-v", ws, "--"] +
                  sh("echo in > %s/a && echo yes; echo out > %s/b; echo out > $HOME/porta-dg-x"
                     % (ws, other)))
        self.assertEqual(res.out, "yes\n", res.describe())
        self.assertEqual(self.read(os.path.join(ws, "a")), "in\n")
        self.assertFalse(os.path.exists(os.path.join(other, "b")))
        self.assertFalse(os.path.exists(os.path.join(os.environ["HOME"], "porta-dg-x")))

    def test_private_tmpdir_and_host_tmp_closed(self):
        secret = os.path.join("/tmp", "porta-dg-secret-%d" % os.getpid())
        with open(secret, "w") as f:
            f.write(SECRET)
        self.addCleanup(os.unlink, secret)
        res = run(["run", "--"] +
                  sh('echo t > "$TMPDIR/f" && cat "$TMPDIR/f" && echo "$TMPDIR"; cat %s; '
                     'echo x > /tmp/porta-dg-made' % secret))
        lines = res.out.splitlines()
        self.assertEqual(lines[0], "t", res.describe())
        tmpdir = lines[1]
        self.assertRegex(tmpdir, r"^/tmp/porta-[A-Za-z0-9]{6}$")
        self.assertNotIn(SECRET, res.out)
        self.assertFalse(os.path.exists("/tmp/porta-dg-made"))
        self.assertFalse(os.path.exists(tmpdir), "the private TMPDIR was left behind")

    def test_no_net_reaches_nothing(self):
        lst = harness.TCPListener()
        self.addCleanup(lst.close)
        script = (
            "import socket\n"
            "out = []\n"
            "for fam, addr in ((socket.AF_INET, ('127.0.0.1', %d)), (socket.AF_INET6, ('::1', %d))):\n"
            "    try:\n"
            "        socket.create_connection(addr[:2], timeout=2); out.append('tcp-ok')\n"
            "    except OSError as e: out.append('tcp-refused')\n"
            "for typ in (socket.SOCK_DGRAM, socket.SOCK_SEQPACKET):\n"
            "    try:\n"
            "        socket.socket(socket.AF_INET, typ); out.append('sock-ok')\n"
            "    except OSError: out.append('sock-refused')\n"
            "try:\n"
            "    s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); out.append('listen-ok')\n"
            "except OSError: out.append('listen-refused')\n"
            "print(' '.join(out))\n" % (lst.port, lst.port))
        res = run(["run", "--no-net", "--", PY, "-c", script])
        self.assertOk(res)
        self.assertEqual(res.out.split(), ["tcp-refused", "tcp-refused", "sock-refused",
                                           "sock-refused", "listen-refused"], res.describe())
        time.sleep(0.3)
        self.assertEqual(lst.accepted, 0, "the host's loopback listener was reached")
        # control: without --no-net the same listener is reached
        ctl = run(["run", "--", PY, "-c", script])
        self.assertIn("tcp-ok", ctl.out, ctl.describe())

    def test_nothing_left_running(self):
        ws = self.mkdtemp()
        pidfile = os.path.join(ws, "pid")
        # a daemon: double fork + setsid, then it writes its pid and sleeps
        script = ("import os, time\n"
                  "if os.fork() == 0:\n"
                  "    os.setsid()\n"
                  "    if os.fork() == 0:\n"
                  "        open(%r, 'w').write(str(os.getpid()))\n"
                  "        time.sleep(60)\n"
                  "    os._exit(0)\n"
                  "time.sleep(0.5)\n" % pidfile)
        res = run(["run", "-v", ws, "--", PY, "-c", script])
        self.assertOk(res)
        pid = int(self.read(pidfile))
        alive = True
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            alive = False
        if alive:
            os.kill(pid, signal.SIGKILL)
        self.assertFalse(alive, "the daemon %d outlived porta" % pid)

    def test_timeout_ends_everything(self):
        res = run(["run", "--timeout", "1", "--"] + sh("sleep 30 & sleep 30"), timeout=20)
        self.assertRc(res, 124)
        self.assertLess(res.elapsed, 15)

    def test_seccomp_still_applies(self):
        res = run(["run", "--", PY, "-c",
                   "import ctypes, os\n"
                   "libc = ctypes.CDLL(None, use_errno=True)\n"
                   "print(libc.unshare(0x10000000), ctypes.get_errno())"])  # CLONE_NEWUSER
        self.assertOk(res)
        self.assertNotEqual(res.out.split()[0], "0", res.describe())

    @unittest.skipIf(IS_ROOT, "uid 0 of a namespace made by root is root")
    def test_namespace_root_of_a_user_is_not_refused_as_root(self):
        res = run(["run", "--", "id", "-u"])
        self.assertOk(res)
        self.assertEqual(res.out.strip(), "0")


# --- proxy mode in a small internet --------------------------------------

WEB = "203.0.113.10"
EVIL = "203.0.113.66"


class DegradedProxy(harness.LabTestCase):
    """--proxy-allow on a degraded host: only porta's proxy on the host's
    127.0.0.1 is reachable, and it decides by name."""

    @classmethod
    def lab_setup(cls, lab):
        cls.web = lab.server_http(WEB, 80, label="web allowed")
        cls.evil = lab.server_http(EVIL, 80, label="evil")
        cls.canary = lab.canary("127.0.0.1", 18080)
        lab.dns({"web.allowed.test": WEB, "evil.test": EVIL}, ttl=30)

    def porta(self, argv):
        args = (harness.DEGRADED_WRAP + [harness.PORTA, "run"] + (["--allow-root"] if IS_ROOT else []) +
                ["--proxy-allow", "web.allowed.test:80", "--dns-upstream", netlab.DNS_ADDR, "--"] + argv)
        return self.lab.run(args, env=self.lab.env(), timeout=60, cwd=self.lab.home)

    def test_proxy_decides_and_nothing_else_is_reachable(self):
        script = (
            "import os, socket, urllib.request\n"
            "out = []\n"
            "for url in ('http://web.allowed.test/', 'http://evil.test/'):\n"
            "    try:\n"
            "        urllib.request.urlopen(url, timeout=5).read(); out.append('ok')\n"
            "    except Exception: out.append('refused')\n"
            "for addr in ((%r, 80), ('127.0.0.1', 18080)):\n"
            "    try:\n"
            "        socket.create_connection(addr, timeout=3); out.append('direct-ok')\n"
            "    except OSError: out.append('direct-refused')\n"
            "port = int(os.environ['HTTP_PROXY'].rsplit(':', 1)[1])\n"
            "for host in ('127.0.0.2', %r):\n"
            "    try:\n"
            "        socket.create_connection((host, port), timeout=3); out.append('port-ok')\n"
            "    except OSError: out.append('port-refused')\n"
            "print(' '.join(out))\n" % (WEB, EVIL))
        res = self.porta([PY, "-c", script])
        self.assertEqual(res.rc, 0, res.err)
        self.assertEqual(res.out.split(), ["ok", "refused", "direct-refused", "direct-refused",
                                           "port-refused", "port-refused"], res.err)
        self.assertEqual(self.lab.hits(self.web), 1)
        self.assertEqual(self.lab.hits(self.evil), 0)
        self.assertEqual(self.lab.canary_hits(), {})
        self.assertIn("--proxy-allow evil.test:80", res.err)
        self.assertIn("no transparent egress", res.err)


if __name__ == "__main__":
    unittest.main()
