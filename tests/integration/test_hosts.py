"""integration/hosts: porta where its users run it, not where it is built.

Three hosts are simulated with a seccomp filter installed before porta starts
(tests/hosts/hostsim.py), so porta meets the same failures, with the same errno,
as on the real thing:

  ubuntu-userns  Ubuntu 23.10+ with kernel.apparmor_restrict_unprivileged_userns=1:
                 a user namespace is made, but what porta's init needs inside it is
                 refused (EPERM).  porta must notice, run degraded by itself and say so.
  docker         Docker's default seccomp profile (moby's default.json) and
                 capabilities: clone(CLONE_NEWUSER) refused; degraded.
  podman         Podman's default profile: namespaces and mounts allowed by the
                 filter, so porta keeps its full sandbox.

And, where a container engine runs here (Debian's podman with runc, root only), a
real container, whose masked /proc refuses a fresh proc mount inside porta's
namespaces: porta must run degraded there too.

In each degraded case what must still hold: a write outside the mounts refused, a
credential unreadable, --no-net with no network, --proxy-allow deciding by name
(lab), and what cannot be enforced refused with 125 and the reason; `porta check`
names the cause and the way to the full sandbox.  Every refusal has its control.
"""

import json
import os
import shutil
import subprocess
import time
import unittest

import harness
from harness import IS_ROOT, PY, SH, PortaTestCase, netlab

HOSTSIM = os.path.join(harness.REPO, "tests", "hosts", "hostsim.py")
SECRET = "porta-hosts-secret-6c0d"


def hostsim_unavailable():
    if not PY:
        return "no python3"
    p = subprocess.run([PY, HOSTSIM, "podman", "--", "true"], capture_output=True, text=True)
    if p.returncode != 0:
        return "hostsim cannot install a filter here: " + p.stderr.strip()
    return None


_UNAVAILABLE = hostsim_unavailable()


def wrap(mode):
    return [PY, HOSTSIM, mode, "--"]


def sh(script):
    return [SH, "-c", script]


class SimulatedHost(PortaTestCase):
    """What every simulated host must show; subclasses name the host."""

    MODE = None
    # the first line porta prints when it degrades there
    DEGRADED_LINE = None
    # words of `porta check`'s verdict on its user-namespace lines
    CHECK_WORDS = ()

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if cls.MODE is None:
            raise unittest.SkipTest("base class")
        if _UNAVAILABLE:
            raise unittest.SkipTest(_UNAVAILABLE)

    def porta(self, args, env=None, timeout=60):
        argv = wrap(self.MODE) + harness.porta_argv(args)
        t0 = time.monotonic()
        p = subprocess.run(argv, env=env or harness.clean_env(), capture_output=True, text=True,
                           timeout=timeout, stdin=subprocess.DEVNULL)
        return harness.Result(argv, p.returncode, p.stdout, p.stderr, time.monotonic() - t0)

    def host(self, argv, env=None):
        """The control: the same command under the same filter, without porta."""
        return harness.run_host(wrap(self.MODE) + argv, env=env)

    # --- what porta says -------------------------------------------------

    def test_degraded_mode_chosen_and_said(self):
        ws = self.mkdtemp()
        res = self.porta(["run", "--no-net", "-v", ws, "--", "true"])
        self.assertOk(res)
        self.assertIn(self.DEGRADED_LINE, res.err)
        for words in ("other processes stay visible", "no private network",
                      "names stay listable"):
            self.assertIn(words, res.err, res.describe())
        # said once: the first attempt's failure is not printed as well
        self.assertNotIn("setting up the sandbox failed", res.err)
        self.assertEqual(res.err.count(self.DEGRADED_LINE), 1, res.describe())
        quiet = self.porta(["run", "-q", "--", "true"])
        self.assertOk(quiet)
        self.assertEqual(quiet.err, "", quiet.describe())

    def test_check_names_the_cause_and_the_way_out(self):
        res = harness.run_host(wrap(self.MODE) + [harness.PORTA, "check"])
        self.assertEqual(res.rc, 0, res.describe())
        for words in self.CHECK_WORDS:
            self.assertIn(words, res.out, res.describe())
        self.assertIn("Why, and what to do:", res.out)
        self.assertIn("porta chooses the degraded mode by itself", res.out)
        self.assertIn("porta can run here, degraded: Landlock and seccomp only.", res.out)
        js = harness.run_host(wrap(self.MODE) + [harness.PORTA, "check", "--json"])
        doc = json.loads(js.out)
        self.assertTrue(doc["degraded"])
        self.assertTrue(doc["advice"])

    def test_explain_says_what_run_would_do(self):
        res = self.porta(["explain", "--no-net", "--", "true"])
        self.assertOk(res)
        self.assertIn("degraded host: " + self.DEGRADED_LINE, res.out)

    # --- what still holds --------------------------------------------------

    def test_write_outside_the_mount_refused(self):
        ws, other = self.mkdtemp(), self.mkdtemp()
        script = "echo in > %s/a && echo wrote; echo out > %s/b" % (ws, other)
        res = self.porta(["run", "-v", ws, "--"] + sh(script))
        self.assertEqual(res.out, "wrote\n", res.describe())
        self.assertEqual(self.read(os.path.join(ws, "a")), "in\n")
        self.assertFalse(os.path.exists(os.path.join(other, "b")), res.describe())
        ctl = self.host(sh(script))
        self.assertTrue(os.path.exists(os.path.join(other, "b")), "control: " + ctl.describe())

    def test_credential_unreadable(self):
        h = self.mkdtemp(prefix="porta-it-home-")
        key = os.path.join(h, ".ssh", "id_ed25519")
        self.write(key, SECRET + "\n", 0o600)
        self.write(os.path.join(h, "notes.txt"), "ordinary-notes\n")
        env = harness.clean_env({"HOME": h})
        # open reads: the credential list is what closes the key (the closed
        # home would hide notes.txt as well; test_files.HomeReads)
        res = self.porta(["run", "--read-policy", "open", "--"] +
                         sh("cat %s; cat %s/notes.txt" % (key, h)), env=env)
        self.assertNotIn(SECRET, res.out + res.err, res.describe())
        self.assertIn("ordinary-notes", res.out, res.describe())
        ctl = self.host(["cat", key], env=env)
        self.assertIn(SECRET, ctl.out, "control: " + ctl.describe())

    def test_no_net_reaches_nothing(self):
        lst = harness.TCPListener()
        self.addCleanup(lst.close)
        script = ("import socket\n"
                  "try:\n"
                  "    socket.create_connection(('127.0.0.1', %d), timeout=3); print('tcp-ok')\n"
                  "except OSError: print('tcp-refused')\n"
                  "try:\n"
                  "    socket.socket(socket.AF_INET, socket.SOCK_DGRAM); print('udp-ok')\n"
                  "except OSError: print('udp-refused')\n" % lst.port)
        res = self.porta(["run", "--no-net", "--", PY, "-c", script])
        self.assertOk(res)
        self.assertEqual(res.out.split(), ["tcp-refused", "udp-refused"], res.describe())
        time.sleep(0.2)
        self.assertEqual(lst.accepted, 0)
        ctl = self.porta(["run", "--", PY, "-c", script])
        self.assertIn("tcp-ok", ctl.out, "control: " + ctl.describe())

    def test_what_cannot_be_enforced_is_refused(self):
        mark = os.path.join(self.mkdtemp(), "ran")
        res = self.porta(["run", "--allow-net", "registry.example:443", "-v",
                          os.path.dirname(mark), "--"] + sh("touch %s" % mark))
        self.assertRc(res, 125)
        self.assertIn("--proxy-allow", res.err)
        self.assertIn("network namespace", res.err)
        self.assertFalse(os.path.exists(mark), "the command ran")
        h = self.mkdtemp(prefix="porta-it-home-")
        self.write(os.path.join(h, ".ssh", "id_ed25519"), SECRET, 0o600)
        res = self.porta(["run", "-v", h, "--", "true"], env=harness.clean_env({"HOME": h}))
        self.assertRc(res, 125)
        self.assertIn("inside the writable mount", res.err)

    def test_seccomp_still_refuses_namespaces(self):
        res = self.porta(["run", "--", PY, "-c",
                          "import ctypes\n"
                          "libc = ctypes.CDLL(None, use_errno=True)\n"
                          "print(libc.unshare(0x10000000 | 0x20000), ctypes.get_errno())"])
        self.assertOk(res)
        self.assertNotEqual(res.out.split()[0], "0", res.describe())


class UbuntuRestrictedUserns(SimulatedHost):
    MODE = "ubuntu-userns"
    DEGRADED_LINE = ("this host makes user namespaces but refuses porta what it needs inside "
                     "them (make / private: Operation not permitted)")
    CHECK_WORDS = ("yes  user namespaces: unprivileged creation allowed",
                   "NO   mounts and id maps inside a user namespace: refused: make / private: "
                   "Operation not permitted",
                   "on Ubuntu's AppArmor restriction the same call fails the same way")

    def test_audit_has_one_attempt_only(self):
        # the first, namespaced attempt wrote nothing of its own to the audit
        d = self.mkdtemp()
        audit = os.path.join(d, "audit.jsonl")
        res = self.porta(["run", "--no-net", "--audit", audit, "--", "true"])
        self.assertOk(res)
        text = self.read(audit) if os.path.exists(audit) else ""
        self.assertNotIn("setup", text)
        self.assertEqual(res.err.count(self.DEGRADED_LINE), 1)


class DockerDefaultProfile(SimulatedHost):
    MODE = "docker"
    DEGRADED_LINE = "user namespaces are refused on this host"
    CHECK_WORDS = ("NO   user namespaces: creation refused: Operation not permitted",
                   "Seccomp: 2 in /proc/self/status",
                   "Docker's default profile refuses CLONE_NEWUSER",
                   "--security-opt seccomp=unconfined")


class PodmanDefaultProfile(PortaTestCase):
    """Podman's profile lets the namespaces and mounts through (it relies on the
    capabilities it drops): porta keeps the full sandbox, and says nothing of
    degrading."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if _UNAVAILABLE:
            raise unittest.SkipTest(_UNAVAILABLE)

    def test_full_sandbox(self):
        ws = self.mkdtemp()
        argv = wrap("podman") + harness.porta_argv(
            ["run", "-v", ws, "--"] + sh("echo in > %s/a; cat /proc/1/cmdline | tr '\\0' ' '" % ws))
        res = harness.run_host(argv)
        self.assertOk(res)
        self.assertNotIn("Landlock and seccomp only", res.err)
        self.assertEqual(self.read(os.path.join(ws, "a")), "in\n")
        # a PID namespace: pid 1 is porta's init, not the host's
        with open("/proc/1/cmdline") as f:
            host_init = f.read().replace("\0", " ")
        self.assertNotEqual(res.out.strip(), host_init.strip(), res.describe())
        chk = harness.run_host(wrap("podman") + [harness.PORTA, "check"])
        self.assertIn("porta can run here.", chk.out, chk.describe())


# --- proxy mode in a small internet ---------------------------------------

WEB = "203.0.113.10"
EVIL = "203.0.113.66"


class SimulatedHostProxy(harness.LabTestCase):
    """--proxy-allow on the simulated Ubuntu and Docker hosts: only porta's
    proxy on the host's 127.0.0.1 is reachable, and it decides by name."""

    @classmethod
    def lab_setup(cls, lab):
        cls.web = lab.server_http(WEB, 80, label="web allowed")
        cls.evil = lab.server_http(EVIL, 80, label="evil")
        cls.canary = lab.canary("127.0.0.1", 18080)
        lab.dns({"web.allowed.test": WEB, "evil.test": EVIL}, ttl=30)

    def setUp(self):
        if _UNAVAILABLE:
            self.skipTest(_UNAVAILABLE)

    def porta(self, mode, argv):
        args = (wrap(mode) + [harness.PORTA, "run"] + (["--allow-root"] if IS_ROOT else []) +
                ["--proxy-allow", "web.allowed.test:80", "--dns-upstream", netlab.DNS_ADDR,
                 "--"] + argv)
        return self.lab.run(args, env=self.lab.env(), timeout=60, cwd=self.lab.home)

    SCRIPT = (
        "import socket, urllib.request\n"
        "out = []\n"
        "for url in ('http://web.allowed.test/', 'http://evil.test/'):\n"
        "    try:\n"
        "        urllib.request.urlopen(url, timeout=5).read(); out.append('ok')\n"
        "    except Exception: out.append('refused')\n"
        "for addr in ((%r, 80), ('127.0.0.1', 18080)):\n"
        "    try:\n"
        "        socket.create_connection(addr, timeout=3); out.append('direct-ok')\n"
        "    except OSError: out.append('direct-refused')\n"
        "print(' '.join(out))\n" % (WEB,))

    def check(self, mode):
        before_web, before_evil = self.lab.hits(self.web), self.lab.hits(self.evil)
        before_canary = self.lab.canary_hits()
        res = self.porta(mode, [PY, "-c", self.SCRIPT])
        self.assertEqual(res.rc, 0, res.err)
        self.assertEqual(res.out.split(), ["ok", "refused", "direct-refused", "direct-refused"],
                         res.err)
        self.assertEqual(self.lab.hits(self.web), before_web + 1)
        self.assertEqual(self.lab.hits(self.evil), before_evil)
        self.assertEqual(self.lab.canary_hits(), before_canary)
        self.assertIn("--proxy-allow evil.test:80", res.err)
        self.assertIn("no transparent egress", res.err)

    def test_ubuntu_restricted_userns(self):
        self.check("ubuntu-userns")

    def test_docker_default_profile(self):
        self.check("docker")

    def test_control_direct_connections_reach_the_lab(self):
        # the same script unconfined (under the same filter) reaches both
        # servers directly: the refusals above are porta's
        res = self.lab.run(wrap("docker") + [PY, "-c", self.SCRIPT], env=self.lab.env(),
                           timeout=60, cwd=self.lab.home)
        self.assertIn("direct-ok", res.out, res.err)


# --- a real container ---------------------------------------------------------

def podman_unavailable():
    if not IS_ROOT:
        return ("rootless podman needs /etc/subuid and /etc/subgid ranges for this user, "
                "which the test host does not give it")
    if not shutil.which("podman"):
        return "podman is not installed"
    if not shutil.which("runc"):
        return "runc is not installed (crun refuses this host's hybrid cgroup layout)"
    return None


# No image is pulled: the container's root is an overlay of the host's (--rootfs
# /:O), so the porta under test and python3 are there.  runc, not crun: crun
# refuses a hybrid cgroup v1/v2 layout.  The file limits are given explicitly:
# Podman's defaults exceed what a process without CAP_SYS_RESOURCE may set.
PODMAN = ["podman", "--runtime", "runc", "--cgroup-manager", "cgroupfs", "run", "--rm",
          "--network", "host", "--ulimit", "nofile=1024:4096", "--ulimit", "nproc=1024:4096",
          "--rootfs", "/:O"]


class RealContainer(PortaTestCase):
    """porta inside a real Podman container, with Podman's default seccomp
    profile, capabilities and masked /proc."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        why = podman_unavailable()
        if why:
            raise unittest.SkipTest(why)
        p = subprocess.run(PODMAN + ["/bin/true"], capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            raise unittest.SkipTest("podman cannot start a container here: " +
                                    p.stderr.strip()[-300:])

    def in_container(self, argv, volumes=()):
        vols = []
        for v in volumes:
            vols += ["-v", "%s:%s" % (v, v)]
        cmd = PODMAN[:-2] + vols + PODMAN[-2:] + argv
        t0 = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                           stdin=subprocess.DEVNULL)
        return harness.Result(cmd, p.returncode, p.stdout, p.stderr, time.monotonic() - t0)

    def test_degraded_and_what_holds(self):
        ws, other = self.mkdtemp(), self.mkdtemp()
        lst = harness.TCPListener()
        self.addCleanup(lst.close)
        script = ("import socket\n"
                  "open(%r, 'w').write('in')\n"
                  "try: open(%r, 'w').write('out'); print('outside-written')\n"
                  "except OSError: print('outside-refused')\n"
                  "try: socket.create_connection(('127.0.0.1', %d), timeout=3); print('tcp-ok')\n"
                  "except OSError: print('tcp-refused')\n"
                  % (os.path.join(ws, "a"), os.path.join(other, "b"), lst.port))
        res = self.in_container([harness.PORTA, "run", "--allow-root", "--no-net", "-v", ws, "--",
                                 PY, "-c", script], volumes=(ws, other))
        self.assertOk(res)
        self.assertIn("this host makes user namespaces but refuses porta what it needs inside "
                      "them (mount /proc", res.err, res.describe())
        self.assertEqual(res.out.split(), ["outside-refused", "tcp-refused"], res.describe())
        self.assertEqual(self.read(os.path.join(ws, "a")), "in")
        self.assertFalse(os.path.exists(os.path.join(other, "b")))
        # the control: the same script in the same container, without porta
        ctl = self.in_container([PY, "-c", script], volumes=(ws, other))
        self.assertEqual(ctl.out.split(), ["outside-written", "tcp-ok"], ctl.describe())

    def test_check_says_why(self):
        res = self.in_container([harness.PORTA, "check"])
        self.assertEqual(res.rc, 0, res.describe())
        self.assertIn("NO   mounts and id maps inside a user namespace: refused: mount /proc",
                      res.out, res.describe())
        self.assertIn("a fresh /proc cannot be mounted", res.out)
        self.assertIn("--security-opt unmask=ALL", res.out)

    def test_unmasked_proc_gives_the_full_sandbox(self):
        # what the README says gives porta its full mode in Podman
        cmd = PODMAN[:-2] + ["--security-opt", "unmask=ALL"] + PODMAN[-2:] + \
            [harness.PORTA, "run", "--allow-root", "--", "true"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("Landlock and seccomp only", p.stderr)


if __name__ == "__main__":
    unittest.main()
