"""integration/why: `porta run --why`.

One run is refused a write outside the mounts, a read of a credential, a
connection and a DNS name (network policy mode, inside tests/netlab's small
internet); --why must list exactly those, each with the right option (or
"closed by the preset" for the credential), and the command line it suggests
must then let the same program do everything but read the credential.
Failures that file permissions alone cause are not listed; a run refused
nothing says so; --no-net and Unix sockets name their options.
"""

import json
import os
import re
import socket
import subprocess
import unittest

import harness
from harness import IS_ROOT, PORTA, PY, netlab, run

WEB = "203.0.113.10"    # web.test: an echo server on 8080 no rule opens
OTHER = "203.0.113.11"  # other.test: a name no rule allows

# The program under test: each step, in order, and one JSON line of results.
# Every step catches its own failure, so the run always exits 0.
PAYLOAD = r"""
import json, socket, sys
steps = json.loads(sys.argv[1])
res = []
for st in steps:
    try:
        if st["op"] == "write":
            with open(st["path"], "w") as f:
                f.write("written\n")
            res.append({"ok": True})
        elif st["op"] == "read":
            with open(st["path"]) as f:
                data = f.read()
            res.append({"ok": bool(data), "data": data})
        elif st["op"] == "tcp":
            s = socket.create_connection((st["host"], st["port"]), timeout=5)
            s.sendall(b"ping\n")
            s.shutdown(socket.SHUT_WR)
            res.append({"ok": s.recv(100) == b"ping\n"})
            s.close()
        elif st["op"] == "resolve":
            infos = socket.getaddrinfo(st["name"], 443, type=socket.SOCK_STREAM)
            res.append({"ok": True, "addrs": sorted({i[4][0] for i in infos})})
        elif st["op"] == "unix":
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(5)
            s.connect(st["path"])
            res.append({"ok": s.recv(100).startswith(b"agent-hello")})
    except OSError as e:
        res.append({"ok": False, "error": "%s: %s" % (type(e).__name__, e)})
print(json.dumps(res))
"""

# No bytecode written anywhere, so Python's own cache files never show up as
# refused writes when the test runs as root.
PYENV = {"PYTHONDONTWRITEBYTECODE": "1"}


def why_block(err):
    """The --why report: (refusal lines, the run-again argv or None, the
    header line)."""
    lines = [l for l in err.splitlines() if l.startswith("porta:")]
    head = [i for i, l in enumerate(lines) if l.startswith("porta: --why:")]
    if not head:
        return None, None, None
    i = head[0]
    items = []
    for l in lines[i + 1:]:
        if not l.startswith("porta:   "):
            break
        items.append(l[len("porta:   "):])
    again = None
    for l in lines[i:]:
        m = re.match(r"^porta: --why: run again with: (.*)$", l)
        if m:
            again = shell_words(m.group(1))
    return items, again, lines[i]


def shell_words(line):
    """The words a shell makes of line (bash: porta quotes a word holding a
    newline as $'...')."""
    p = subprocess.run(["bash", "-c", "printf '%s\\0' " + line], capture_output=True)
    if p.returncode != 0:
        raise AssertionError("bash cannot parse %r: %r" % (line, p.stderr))
    return [w.decode() for w in p.stdout.split(b"\0")[:-1]]


def results(res):
    for line in reversed(res.out.splitlines()):
        if line.startswith("["):
            return json.loads(line)
    raise AssertionError("the payload printed no results\n%s" % res)


class WhyLocal(harness.PortaTestCase):
    """Without a network: files, permissions, Unix sockets, --no-net."""

    def scratch(self):
        """A directory --why may suggest mounting: outside the home's
        dot-directories (the harness's own ~/.cache/porta-it is one, where
        --why suggests nothing writable, policy/why.c) and outside /tmp
        (the sandbox's is private)."""
        base = os.path.join("/var/tmp", "porta-it-why-%d" % os.getuid())
        os.makedirs(base, exist_ok=True)
        return self.mkdtemp(under=base)

    def payload(self, steps):
        return [PY, "-c", PAYLOAD, json.dumps(steps)]

    def test_nothing_refused_says_so(self):
        res = run(["run", "--why", "--", "/bin/true"], env=harness.clean_env(PYENV))
        self.assertOk(res)
        items, again, head = why_block(res.err)
        self.assertEqual(head, "porta: --why: the sandbox refused nothing in this run", res)
        self.assertEqual((items, again), ([], None), res)

    def test_exit_code_stays_the_commands(self):
        d = self.scratch()
        res = run(["run", "--why", "--", "/bin/sh", "-c", "echo x > %s/f; exit 7" % d])
        self.assertRc(res, 7)
        items, again, _ = why_block(res.err)
        self.assertEqual(len(items), 1, res)

    def test_each_call_is_named_by_what_it_does(self):
        # one refusal per kind of call --why decodes (supervisor/why.c's
        # table), each named with its verb and path
        d = self.scratch()
        self.write(os.path.join(d, "file"), "x\n")
        script = ("mkdir {d}/new; rm -f {d}/file; ln -s x {d}/l; mv {d}/file {d}/f2; "
                  "ln {d}/file {d}/hard; chmod 600 {d}/file; mkfifo {d}/fifo; "
                  "python3 -c 'import os; os.rename(\"{d}/file\", \"{d}/r2\")'; "
                  "true").format(d=d)
        res = run(["run", "--why", "--", "/bin/sh", "-c", script], env=harness.clean_env(PYENV))
        self.assertOk(res)
        items, again, _ = why_block(res.err)
        why = "(outside every writable mount): allow with -v " + d
        want = ["create directory %s/new" % d, "remove %s/file" % d, "create symlink %s/l" % d,
                "rename to %s/f2" % d, "link to %s/hard" % d, "chmod %s/file" % d,
                "create %s/fifo" % d, "rename to %s/r2" % d]
        if harness.DEGRADED:
            # the degraded wrapper (unshare -r) makes porta root without a
            # mount namespace: seccomp refuses every chmod (a stated loss)
            # before any path is judged
            want.remove("chmod %s/file" % d)
        self.assertEqual(items, ["%s %s" % (w, why) for w in want], res)
        self.assertEqual(again[again.index("-v") + 1], d, res)

    def test_permissions_alone_are_not_blamed(self):
        d = self.scratch()
        locked = self.write(os.path.join(d, "locked"), "secret\n", 0o000)
        ro_dir = os.path.join(d, "rodir")
        os.makedirs(ro_dir)
        os.chmod(ro_dir, 0o555)
        self.addCleanup(os.chmod, ro_dir, 0o755)
        # inside a writable mount (the sandbox allows all) and outside it
        steps = [{"op": "read", "path": locked}, {"op": "write", "path": locked},
                 {"op": "write", "path": os.path.join(ro_dir, "new")}]
        for mount in (["-v", d], []):
            res = run(["run", "--why"] + mount + ["--"] + self.payload(steps),
                      env=harness.clean_env(PYENV))
            self.assertOk(res)
            r = results(res)
            self.assertEqual([x["ok"] for x in r], [False, False, False],
                             "permissions alone refuse these\n%s" % res)
            items, again, head = why_block(res.err)
            self.assertEqual(items, [], "refusals that file permissions alone cause were "
                             "blamed on the sandbox (mount %r)\n%s" % (mount, res))
            self.assertIsNone(again, res)

    def test_a_line_to_run_again_never_opens_the_home_or_a_protected_name(self):
        # The command picks what --why names (escape corpus row 92): a
        # write in the home or into a repository's hooks is named with its
        # option, and that option stays out of the line to run again.
        d = self.scratch()
        home = os.path.join(d, "home")
        hooks = os.path.join(d, "repo", ".git", "hooks")
        os.makedirs(home)
        os.makedirs(hooks)
        os.makedirs(os.path.join(d, "out"))
        env = harness.clean_env(dict(PYENV, HOME=home))
        steered = [{"op": "write", "path": os.path.join(home, "notes")},
                   {"op": "write", "path": os.path.join(hooks, "pre-commit")}]
        res = run(["run", "--why", "--"] + self.payload(steered), env=env)
        self.assertOk(res)
        items, again, _ = why_block(res.err)
        self.assertEqual(items, [
            "create %s/notes (outside every writable mount): -v %s would allow it, and is not "
            "suggested: it would make your home writable, and files there run later outside the "
            "sandbox" % (home, home),
            "create %s/pre-commit (outside every writable mount): -v %s would allow it, and is "
            "not suggested: it would make a protected name writable" % (hooks, hooks)], res)
        self.assertIsNone(again, res)
        self.assertIn("porta: --why: no option is suggested for these", res.err)
        # beside an ordinary refusal: only that one's option is in the line
        res = run(["run", "--why", "--"] + self.payload(
            steered + [{"op": "write", "path": os.path.join(d, "out", "f")}]), env=env)
        items, again, _ = why_block(res.err)
        self.assertEqual(len(items), 3, res)
        mounts = [again[i + 1] for i, w in enumerate(again) if w == "-v"]
        self.assertEqual(mounts, [os.path.join(d, "out")], res)

    def test_repeats_are_one_line(self):
        d = self.scratch()
        target = os.path.join(d, "out.txt")
        steps = [{"op": "write", "path": target}] * 3
        res = run(["run", "--why", "--"] + self.payload(steps), env=harness.clean_env(PYENV))
        items, again, _ = why_block(res.err)
        self.assertEqual(len(items), 1, res)
        self.assertIn(target, items[0])
        self.assertIn("3 times", items[0])
        self.assertTrue(items[0].endswith("allow with -v %s" % d), res)

    def test_credential_socket_names_allow_unix(self):
        d = self.scratch()
        path = os.path.join(d, "ssh-XXXXwhy1", "agent.4242")
        os.makedirs(os.path.dirname(path))
        lst = harness.UnixListener(path)
        self.addCleanup(lst.close)
        steps = [{"op": "unix", "path": path}]
        res = run(["run", "--why", "--"] + self.payload(steps), env=harness.clean_env(PYENV))
        self.assertFalse(results(res)[0]["ok"], res)
        items, again, _ = why_block(res.err)
        self.assertEqual(len(items), 1, res)
        self.assertIn("connect to socket %s" % path, items[0])
        self.assertTrue(items[0].endswith("allow with --allow-unix %s" % path), res)
        self.assertIn("--allow-unix", again)
        res2 = harness.run_host(again, env=harness.clean_env(PYENV))
        self.assertTrue(results(res2)[0]["ok"], "the suggested command line still refuses "
                        "the socket\n%s" % res2)
        self.assertEqual(lst.accepted, 1)

    @harness.needs_userns("strict reads hide the home by a mount; degraded, Landlock refuses "
                          "the open instead, which --why already lists")
    def test_strict_reads_list_a_config_looked_up_in_the_hidden_home(self):
        # git asks access(~/.gitconfig) and, answered ENOENT, opens nothing:
        # "Author identity unknown" must lead to the file
        home = self.mkdtemp(prefix="porta-it-home-")
        ws = self.mkdtemp()
        cfg = self.write(os.path.join(home, ".gitconfig"),
                         "[user]\n\tname = Porta Test\n\temail = test@registry.example\n")
        env = harness.clean_env({"HOME": home, "GIT_CONFIG_NOSYSTEM": "1"})
        self.assertEqual(harness.run_host(["git", "init", "-q", ws], env=env).rc, 0)
        cmd = ["git", "-C", ws, "commit", "--allow-empty", "-qm", "x"]
        res = run(["run", "--why", "--read-policy", "strict", "-v", ws, "--"] + cmd, env=env)
        self.assertNotEqual(res.rc, 0, res)
        items, again, _ = why_block(res.err)
        mine = [i for i in items if cfg in i]
        self.assertEqual(len(mine), 1, res)
        self.assertTrue(mine[0].endswith("allow with -v %s:ro" % cfg), res)
        self.assertIsNotNone(again, res)
        res2 = harness.run_host(again, env=env)
        self.assertEqual(res2.rc, 0, "the suggested command line still fails\n%s" % res2)

    def test_no_net_names_allow_net_and_drops_no_net(self):
        # 192.0.2.1 (TEST-NET-1): under --no-net nothing is sent anywhere
        steps = [{"op": "tcp", "host": "192.0.2.1", "port": 9}]
        res = run(["run", "--no-net", "--why", "--"] + self.payload(steps),
                  env=harness.clean_env(PYENV))
        self.assertFalse(results(res)[0]["ok"], res)
        items, again, _ = why_block(res.err)
        # the connect watch refused it and says so (every mode has one: it
        # decides every call before a tracing filter could stop it)
        want = "network 192.0.2.1:9 (no net)"
        self.assertEqual(items, [want + ": allow with --allow-net 192.0.2.1:9"], res)
        if not harness.DEGRADED:
            self.assertIn("porta: refused 192.0.2.1:9 (no net); allow with --allow-net "
                          "192.0.2.1:9 in place of --no-net", res.err)
        self.assertNotIn("--no-net", again, "--no-net and --allow-net cannot be combined")
        self.assertIn("--allow-net", again)
        self.assertEqual(again[again.index("--allow-net") + 1], "192.0.2.1:9")


@harness.needs_userns("--allow-net needs a network namespace (refused on a degraded host; "
                      "test_degraded.py checks that)")
class WhyNetwork(harness.LabTestCase):
    """The acceptance run, in the small internet."""

    @classmethod
    def lab_setup(cls, lab):
        cls.echo = lab.server_echo(WEB, 8080)
        lab.dns({"web.test": WEB, "other.test": OTHER}, ttl=30)

    def porta(self, argv):
        env = self.lab.env(**PYENV)
        res = self.lab.run(argv, env=env, timeout=60, cwd=self.lab.home)
        return harness.Result(argv, res.rc, res.out, res.err, 0)

    def test_refusals_listed_and_the_suggested_line_succeeds(self):
        lab = self.lab
        home = lab.home
        ssh = os.path.join(home, ".ssh")
        os.makedirs(ssh, exist_ok=True)
        key = os.path.join(ssh, "id_ed25519")
        with open(key, "w") as f:
            f.write("why-secret-key\n")
        os.chmod(key, 0o600)
        ws = os.path.join(lab.workdir, "ws-why")
        os.makedirs(ws, exist_ok=True)
        target = os.path.join(ws, "out.txt")
        steps = [{"op": "write", "path": target},
                 {"op": "read", "path": key},
                 {"op": "tcp", "host": WEB, "port": 8080},
                 {"op": "resolve", "name": "other.test"}]
        argv = [PORTA, "run"] + (["--allow-root"] if IS_ROOT else []) + \
            ["--why", "--allow-net", "web.test:80", "--dns-upstream", netlab.DNS_ADDR, "--",
             PY, "-c", PAYLOAD, json.dumps(steps)]
        res = self.porta(argv)
        self.assertEqual(res.rc, 0, res)
        self.assertEqual([r["ok"] for r in results(res)], [False, False, False, False],
                         "every step should have been refused\n%s" % res)
        self.assertEqual(lab.hits(self.echo), 0)

        items, again, head = why_block(res.err)
        self.assertEqual(head, "porta: --why: the sandbox refused 4 things:", res)
        want = [
            ("create %s " % target, "allow with -v %s" % ws),
            ("read %s " % key, "closed by the preset"),
            ("network %s:8080 " % WEB, "allow with --allow-net %s:8080" % WEB),
            # a name refused at DNS was asked without a port: none is made up
            ("network other.test ", "allow with --allow-net other.test"),
        ]
        self.assertEqual(len(items), len(want), "--why lists exactly the four refusals\n%s" % res)
        for prefix, option in want:
            hit = [l for l in items if l.startswith(prefix)]
            self.assertEqual(len(hit), 1, "no line for %r\n%s" % (prefix, res))
            if option.startswith("allow with"):
                self.assertTrue(hit[0].endswith(option), "%r should end %r" % (hit[0], option))
            else:
                self.assertIn(option, hit[0])
        self.assertIsNotNone(again, "no command line to run again\n%s" % res)
        self.assertEqual(again[:2], [PORTA, "run"])
        self.assertEqual(again[again.index("--") + 1:], [PY, "-c", PAYLOAD, json.dumps(steps)],
                         "the command itself must be repeated unchanged")
        for opt in (["-v", ws], ["--allow-net", "%s:8080" % WEB],
                    ["--allow-net", "other.test"]):
            self.assertTrue(any(again[i:i + 2] == opt for i in range(len(again))),
                            "%r missing from %r" % (opt, again))
        self.assertNotIn("--preset", again, "the credential stays closed")

        # the suggested command line: all but the credential now succeed
        res2 = self.porta(again)
        self.assertEqual(res2.rc, 0, res2)
        r = results(res2)
        self.assertEqual([x["ok"] for x in r], [True, False, True, True], res2)
        self.assertEqual(r[3]["addrs"], [OTHER])
        with open(target) as f:
            self.assertEqual(f.read(), "written\n")
        self.assertEqual(lab.hits(self.echo), 1)
        items2, _, _ = why_block(res2.err)
        self.assertEqual(len(items2), 1, res2)
        self.assertTrue(items2[0].startswith("read %s " % key), res2)
        self.assertIn("closed by the preset", items2[0])


if __name__ == "__main__":
    unittest.main()
