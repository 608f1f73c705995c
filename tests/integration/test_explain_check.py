"""integration/explain_check: `porta explain` prints the policy run would
apply and runs nothing; `porta check` says what this host can enforce."""

import ctypes
import json
import os
import platform
import re
import struct
import subprocess
import unittest

import harness
from harness import SH, PortaTestCase, run

EXPLAIN_KEYS = {"mounts", "read_policy", "closed_paths", "protected", "closed_sockets",
                "network", "limits", "env", "command", "notes"}


class Explain(PortaTestCase):

    def setUp(self):
        self.ws = self.mkdtemp()
        self.ro = self.mkdtemp()
        self.home = self.mkdtemp(prefix="porta-it-home-")
        self.write(os.path.join(self.home, ".ssh", "id_ed25519"), "k", 0o600)
        self.write(os.path.join(self.home, ".netrc"), "n", 0o600)
        self.write(os.path.join(self.ws, ".bashrc"), "b")
        self.write(os.path.join(self.ws, ".git", "config"), "c")
        os.makedirs(os.path.join(self.ws, ".git", "hooks"))
        self.sockpath = os.path.join(self.home, "ssh-abcdef", "agent.4321")
        os.makedirs(os.path.dirname(self.sockpath))
        lst = harness.UnixListener(self.sockpath)
        self.addCleanup(lst.close)
        self.flag = os.path.join(self.ws, "ran")
        self.env = harness.clean_env({"HOME": self.home, "SECRET_TOKEN": "x"})
        self.cmd = [SH, "-c", "touch %s" % self.flag]

    def explain(self, extra=(), json_out=False):
        args = ["explain"] + (["--json"] if json_out else []) + list(extra) + ["--"] + self.cmd
        res = run(args, env=self.env)
        self.assertOk(res)
        self.assertFalse(os.path.exists(self.flag), "explain ran the command")
        return res

    # These name the credential list and the home's sockets one by one:
    # under open reads.  The default (home) covers the home whole instead
    # (test_default_closes_the_home).
    def test_text(self):
        res = self.explain(["--read-policy", "open", "-v", self.ws, "-v", self.ro + ":ro"])
        text = res.out
        self.assertIn(self.ws, text)
        self.assertIn(self.ro, text)
        self.assertRegex(text.lower(), r"read")
        self.assertIn("open", text.lower())
        self.assertIn(os.path.join(self.home, ".ssh"), text)
        self.assertIn(os.path.join(self.home, ".netrc"), text)
        self.assertIn(os.path.join(self.ws, ".bashrc"), text)
        self.assertIn(".git/hooks", text)
        self.assertIn(self.sockpath, text)
        self.assertIn("network", text.lower())

    def test_text_modes(self):
        res = self.explain(["--read-policy", "strict", "--no-net"])
        self.assertIn("strict", res.out.lower())
        self.assertRegex(res.out.lower(), r"none|no network|--no-net")

    def test_json(self):
        res = self.explain(["--read-policy", "open", "-v", self.ws, "-v", self.ro + ":ro",
                            "--max-procs", "17",
                            "-e", "FOO_SET=1", "--protect", "keep.me"], json_out=True)
        try:
            doc = json.loads(res.out)
        except ValueError as e:
            self.fail("explain --json is not JSON: %s\n%s" % (e, res.describe()))
        missing = EXPLAIN_KEYS - set(doc)
        self.assertEqual(missing, set(), "keys missing from explain --json")

        mounts = {m["path"]: m["access"] for m in doc["mounts"]}
        self.assertEqual(mounts.get(self.ws), "rw", doc["mounts"])
        self.assertEqual(mounts.get(self.ro), "ro", doc["mounts"])
        self.assertEqual(doc["read_policy"], "open")

        closed = {c["path"]: c for c in doc["closed_paths"]}
        ssh = closed.get(os.path.join(self.home, ".ssh"))
        self.assertIsNotNone(ssh, doc["closed_paths"])
        self.assertEqual(ssh["kind"], "dir")
        self.assertIsInstance(ssh.get("reason"), str)
        netrc = closed.get(os.path.join(self.home, ".netrc"))
        self.assertIsNotNone(netrc, doc["closed_paths"])
        self.assertEqual(netrc["kind"], "file")
        self.assertNotIn(os.path.join(self.home, ".aws"), closed,
                         "a credential path that does not exist is listed as closed")

        prot = {p["path"]: p["present"] for p in doc["protected"]}
        self.assertIs(prot.get(os.path.join(self.ws, ".bashrc")), True, doc["protected"])
        self.assertIs(prot.get(os.path.join(self.ws, ".git", "config")), True)
        self.assertIs(prot.get(os.path.join(self.ws, ".git", "hooks")), True)
        self.assertIs(prot.get(os.path.join(self.ws, ".zshrc")), False,
                      "names absent at start must be listed with present: false")
        self.assertIs(prot.get(os.path.join(self.ws, "keep.me")), False)
        self.assertNotIn(os.path.join(self.ro, ".bashrc"), prot,
                         "protected names are relative to writable mounts only")

        self.assertIn(self.sockpath, doc["closed_sockets"])
        self.assertEqual(doc["network"]["mode"], "open")
        self.assertIsInstance(doc["limits"], dict)
        self.assertIn(17, list(doc["limits"].values()), doc["limits"])
        self.assertIn("FOO_SET", doc["env"])
        self.assertIn("PATH", doc["env"])
        self.assertIn("TMPDIR", doc["env"])
        self.assertNotIn("SECRET_TOKEN", doc["env"])
        self.assertEqual(doc["command"], self.cmd)
        self.assertIsInstance(doc["notes"], list)
        self.assertTrue(all(isinstance(n, str) for n in doc["notes"]))

    def test_default_closes_the_home(self):
        doc = json.loads(self.explain(["-v", self.ws], json_out=True).out)
        self.assertEqual(doc["read_policy"], "home")
        homes = [p for p in doc["closed_paths"] if p["path"] == self.home]
        self.assertEqual(homes, [{"path": self.home, "kind": "dir",
                                  "reason": "the home (closed unless granted)"}], doc["closed_paths"])
        # run from outside the home: no project; the planted home holds no
        # toolchain and no git identity
        self.assertEqual([e for e in doc["home_shown"]
                          if e["path"].startswith(self.home + "/")], [], doc)
        self.assertFalse(doc["home_gitconfig"])
        text = self.explain(["-v", self.ws]).out
        self.assertIn("reads: home", text)

    def test_json_modes(self):
        doc = json.loads(self.explain(["--no-net", "--read-policy", "strict"], json_out=True).out)
        self.assertEqual(doc["network"]["mode"], "none")
        self.assertEqual(doc["read_policy"], "strict")
        doc = json.loads(self.explain(["--read-policy", "open", "--preset", "none", "-v", self.ws],
                                      json_out=True).out)
        # --preset none drops the lists; the fresh /proc's kallsyms stays
        # closed (kernel addresses: escape corpus row 59).
        fixed = [{"path": "/proc/kallsyms", "kind": "file", "reason": "kernel addresses"}] \
            if os.path.exists("/proc/kallsyms") else []
        self.assertEqual(doc["closed_paths"], fixed)
        self.assertEqual([p for p in doc["protected"] if p["path"].startswith(self.ws)], [])
        # --preset none drops the lists, not the rule: a host socket outside
        # the writable mounts stays closed (and is no longer called a credential).
        self.assertIn(self.sockpath, doc["closed_sockets"])
        doc = json.loads(self.explain(["--preset", "none", "-v", self.ws,
                                       "-v", os.path.dirname(self.sockpath)], json_out=True).out)
        self.assertNotIn(self.sockpath, doc["closed_sockets"],
                         "a socket inside a writable mount is reachable once no list names it")

    def test_json_allow_unix_and_deny_read(self):
        secret = self.write(os.path.join(self.ws, "secret.txt"), "s")
        doc = json.loads(self.explain(["-v", self.ws, "--allow-unix", self.sockpath,
                                       "--deny-read", secret], json_out=True).out)
        self.assertNotIn(self.sockpath, doc["closed_sockets"])
        closed = {c["path"]: c["kind"] for c in doc["closed_paths"]}
        self.assertEqual(closed.get(secret), "file", doc["closed_paths"])

    def test_explain_refuses_like_run(self):
        res = run(["explain", "-v", os.path.join(self.ws, "missing"), "--"] + self.cmd,
                  env=self.env)
        self.assertRc(res, 125)
        res = run(["explain", "--max-procs", "0", "--"] + self.cmd, env=self.env)
        self.assertRc(res, 125)


class Check(PortaTestCase):

    def test_text(self):
        res = run(["check"])
        self.assertOk(res)
        text = res.out.lower()
        self.assertIn("user namespace", text)
        self.assertRegex(text, r"landlock[^\n]*\d", "Landlock line should give the ABI number")
        self.assertIn("seccomp", text)
        self.assertRegex(text, r"user notif")

    def test_json(self):
        res = run(["check", "--json"])
        self.assertOk(res)
        try:
            doc = json.loads(res.out)
        except ValueError as e:
            self.fail("check --json is not JSON: %s\n%s" % (e, res.describe()))
        self.assertIsInstance(doc.get("primitives"), list)
        names = []
        for p in doc["primitives"]:
            self.assertTrue({"name", "available", "detail", "missing_means"} <= set(p), p)
            self.assertIsInstance(p["name"], str)
            self.assertIsInstance(p["available"], bool)
            names.append(p["name"].lower())
        joined = " ".join(names)
        for want in (r"user.?n(ame)?s", r"landlock", r"seccomp", r"notif"):
            self.assertRegex(joined, want, names)

    def test_json_agrees_with_a_run(self):
        # When check says user namespaces are available, run gets a PID namespace.
        doc = json.loads(run(["check", "--json"]).out)
        userns = [p for p in doc["primitives"] if re.search(r"user.?n", p["name"].lower())]
        self.assertTrue(userns)
        if userns[0]["available"]:
            res = run(["run", "--", SH, "-c", "echo $$"])
            self.assertOk(res)
            self.assertLess(int(res.out), 10)

    def test_cgroup_lines_agree_with_a_run(self):
        # check's memory-cgroup answer is run's: where check says a cgroup
        # can be made, the run is in one; where not, the run goes on and
        # porta counts its memory itself, as check's ceilings say.
        doc = json.loads(run(["check", "--json"]).out)
        mem = [p for p in doc["primitives"] if "memory controller" in p["name"]]
        self.assertEqual(len(mem), 1, doc)
        self.assertTrue(any("pids controller" in p["name"] for p in doc["primitives"]), doc)
        ceilings = doc["ceilings"]
        self.assertEqual(ceilings["memory"]["accounting"],
                         "cgroup" if mem[0]["available"] else "polled", ceilings)
        res = run(["run", "--max-memory-mb", "64", "--", SH, "-c",
                   "grep -E '(^0::|memory)' /proc/self/cgroup; echo ran"])
        self.assertOk(res)
        self.assertIn("ran", res.out)
        if mem[0]["available"]:
            self.assertRegex(res.out, r"porta-\d+-[0-9a-f]{8}", res.describe())
        else:
            self.assertNotIn("porta-", res.out)

    def test_ceilings_say_what_a_run_counts_with(self):
        doc = json.loads(run(["check", "--json"]).out)
        c = doc["ceilings"]
        self.assertIn(c["cpu"]["accounting"], ("cgroup", "porta"), c)
        self.assertIn(c["memory"]["accounting"], ("cgroup", "polled"), c)
        self.assertIn(c["processes"]["accounting"], ("rlimit", "cgroup", "none"), c)
        self.assertEqual(c["audit_max_mib"], 64)
        for k in ("cpu", "memory", "processes"):
            self.assertIsInstance(c[k]["detail"], str)
        if c["processes"]["accounting"] == "none":
            self.assertIsNone(c["processes"]["default"])
        else:
            self.assertEqual(c["processes"]["default"], 4096)
        # the text says the same, before its last line (the verdict)
        res = run(["check"])
        self.assertOk(res)
        lines = res.out.splitlines()
        self.assertTrue(lines[-1].startswith("porta can"), lines[-1])
        self.assertIn("Ceilings a run here counts:", res.out)
        self.assertIn("  - " + c["cpu"]["detail"], res.out)
        self.assertIn("  - " + c["memory"]["detail"], res.out)

    def test_exit_status_says_whether_porta_can_run(self):
        # Here porta can run: 0.  With Landlock taken away (a seccomp filter
        # answers landlock_create_ruleset with ENOSYS, as a kernel without
        # it does) check says it cannot, and exits 1 in both formats.
        self.assertOk(run(["check"]))
        if platform.machine() != "x86_64":
            self.skipTest("the filter below names x86_64's syscall number")
        for extra, want in (([], "porta cannot run here"), (["--json"], '"can_run": false')):
            argv = harness.porta_argv(["check"] + extra, True)
            p = subprocess.run(argv, env=harness.clean_env(), capture_output=True, text=True,
                               timeout=harness.DEFAULT_TIMEOUT, stdin=subprocess.DEVNULL,
                               preexec_fn=without_landlock)
            self.assertEqual(p.returncode, 1, "%s\n%s%s" % (argv, p.stdout, p.stderr))
            self.assertIn(want, p.stdout)
            self.assertRegex(p.stdout, r"(?i)NO\s+Landlock: absent|\"detail\": \"absent\"")


def without_landlock():
    """In the child before exec: a seccomp filter under which
    landlock_create_ruleset (x86_64: 444) fails with ENOSYS."""
    def insn(code, jt, jf, k):
        return struct.pack("HBBI", code, jt, jf, k)
    prog = b"".join([
        insn(0x20, 0, 0, 0),                 # ld  seccomp_data.nr
        insn(0x15, 0, 1, 444),               # jeq landlock_create_ruleset
        insn(0x06, 0, 0, 0x00050000 | 38),   # ret ERRNO(ENOSYS)
        insn(0x06, 0, 0, 0x7fff0000),        # ret ALLOW
    ])
    buf = ctypes.create_string_buffer(prog, len(prog))

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = Fprog(len(prog) // 8, ctypes.addressof(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong,
                           ctypes.c_ulong]
    if libc.prctl(38, 1, None, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "installing the test's seccomp filter")


class Agreement(PortaTestCase):
    """`porta explain` and `porta run` accept and refuse the same option sets
    (tests/integration/data/option-sets.txt), a refusal with the same
    message and exit 125: explain says what run would do."""

    CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                          "option-sets.txt")

    @harness.needs_userns("run refuses TLS termination (--secret, --allow-http) without a "
                          "mount namespace of its own, which explain does not probe for")
    def test_explain_and_run_agree(self):
        import shlex
        ws, ro = self.mkdtemp(), self.mkdtemp()
        home = self.mkdtemp(prefix="porta-it-home-")
        os.makedirs(os.path.join(home, "notes"))
        env = harness.clean_env({"HOME": home, "SECRET_TOKEN": "s3cret-T0ken-value",
                                 "NOPE_TOKEN": None,
                                 "JWT_TOKEN": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0."
                                              "c2lnbmF0dXJlLW9mLXRoZS10b2tlbg",
                                 "LONG_TOKEN": "tok_" + "a1b2c3d4" * 25,
                                 "BLANK_TOKEN": " tok_0123456789abcdefghij"})
        n_accepted = n_refused = 0
        with open(self.CORPUS) as f:
            lines = [ln.strip() for ln in f]
        for line in lines:
            if not line or line.startswith("#"):
                continue
            opts = shlex.split(line.replace("{WS}", ws).replace("{RO}", ro)
                               .replace("{HOME}", home))
            res = {}
            for cmd in ("explain", "run"):
                res[cmd] = run([cmd] + opts + ["--", "/bin/true"], env=env, cwd=ws)
            ex, rn = res["explain"], res["run"]
            with self.subTest(options=line):
                self.assertIn(ex.rc, (0, 125), ex.describe())
                self.assertEqual(ex.rc, rn.rc, "explain and run disagree:\n%s\n%s"
                                 % (ex.describe(), rn.describe()))
                if ex.rc == 125:
                    self.assertEqual(ex.err.strip(), rn.err.strip(),
                                     "not the same refusal:\n%s\n%s"
                                     % (ex.describe(), rn.describe()))
                    self.assertEqual(len(ex.err.strip().splitlines()), 1, ex.describe())
                    n_refused += 1
                else:
                    n_accepted += 1
        # the corpus holds both kinds, so the test cannot pass on one alone
        self.assertGreater(n_accepted, 10)
        self.assertGreater(n_refused, 20)


if __name__ == "__main__":
    unittest.main()
