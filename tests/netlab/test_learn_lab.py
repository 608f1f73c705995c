"""netlab/learn: `porta learn` on a program that reaches three names and
writes one directory, in the lab.

The program (Python, plain sockets, no proxy) fetches a page from each of
three names under different parents and writes a file into a directory
that no option mounts; it goes on past a refusal and prints what it got.
`porta learn -o PROFILE` must write a profile whose options are exactly
one --allow-net per name and port reached and the -v of that directory:
nothing the program did not use.  The same program under `porta run
--profile PROFILE --why` then gets all three pages, writes its file, and
the sandbox refuses nothing.  And the profile allows nothing more: a
fourth name and a neighbouring directory stay refused under it."""

import json
import os
import shlex
import shutil
import tempfile
import unittest

import netlab

PORTA = os.environ.get("PORTA_BIN", "")
ADDRS = {"api.alpha.example": "203.0.113.91", "cdn.beta.example": "203.0.113.92",
         "gamma.example": "203.0.113.93", "delta.example": "203.0.113.94"}
# Four names under one parent fold into a wildcard, unless the public suffix
# list has a suffix below that parent: amazonaws.com is no suffix, but
# s3.amazonaws.com (and others) below it are, so "*.amazonaws.com" would
# reach any customer's bucket.  The names resolve in the lab only.
FOLDED = ["a.multi.example", "b.multi.example", "c.multi.example", "d.multi.example"]
NOT_FOLDED = ["sts.amazonaws.com", "ec2.amazonaws.com", "iam.amazonaws.com", "sso.amazonaws.com"]
ADDRS.update({h: "203.0.113.95" for h in FOLDED})
ADDRS.update({h: "203.0.113.96" for h in NOT_FOLDED})
USED = ["api.alpha.example", "cdn.beta.example", "gamma.example"]

# argv[1]: JSON list of hosts to fetch / on port 80; argv[2]: a file to
# write.  Prints {"pages": {host: status or error}, "wrote": true/error}.
PROGRAM = r'''
import json, socket, sys
out = {"pages": {}}
for host in json.loads(sys.argv[1]):
    try:
        s = socket.create_connection((host, 80), timeout=10)
        s.sendall(("GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % host).encode())
        got = b""
        while True:
            c = s.recv(65536)
            if not c:
                break
            got += c
        s.close()
        out["pages"][host] = got.split(b" ", 2)[1].decode() if got else "empty"
    except OSError as e:
        out["pages"][host] = "error: %s" % e
try:
    with open(sys.argv[2], "w") as f:
        f.write("learned\n")
    out["wrote"] = True
except OSError as e:
    out["wrote"] = "error: %s" % e
print(json.dumps(out))
'''


def lab_setup(lab):
    servers = {}
    for h, a in ADDRS.items():
        if a not in [x for k, x in ADDRS.items() if k in servers]:
            servers[h] = lab.server_http(a, 80, label=h)
    lab.dns(ADDRS)
    return servers


def options_of(path, home):
    """The option lines of a profile, each as its words (comments dropped),
    a leading ~/ read as porta reads it: home."""
    def word(w):
        return os.path.join(home, w[2:]) if w.startswith("~/") else w
    with open(path) as f:
        return [tuple(word(x) for x in w) for w in (shlex.split(l, comments=True) for l in f)
                if w]


@unittest.skipUnless(PORTA and os.access(PORTA, os.X_OK), "PORTA_BIN names no porta binary")
class Learn(netlab.LabCase):
    shared_lab = netlab.SharedLab(lab_setup)

    def porta(self, cmd, args, hosts, target):
        argv = [PORTA, cmd] + (["--allow-root"] if os.geteuid() == 0 else []) + args
        argv += ["--", "python3", "-c", PROGRAM, json.dumps(hosts), target]
        return self.lab.run(argv, env=self.lab.env(), cwd="/", timeout=120)

    def test_learn_then_run_with_no_refusal_and_nothing_more(self):
        base = tempfile.mkdtemp(prefix="learn-", dir=self.lab.home)
        os.chmod(base, 0o755)
        self.addCleanup(shutil.rmtree, base, True)
        out_dir, other_dir = os.path.join(base, "out"), os.path.join(base, "other")
        os.makedirs(out_dir)
        os.makedirs(other_dir)
        profile = os.path.join(base, "learned.profile")

        r = self.porta("learn", ["-o", profile], USED, os.path.join(out_dir, "result"))
        self.assertEqual(r.rc, 0, r.out + r.err)
        got = json.loads(r.out)
        self.assertEqual(got["pages"], {h: "200" for h in USED}, "learn lets the names through")
        self.assertNotEqual(got["wrote"], True, "learn refuses what no option allows")
        self.assertIn("learn: wrote %s: 3 destinations and 1 file option learned" % profile, r.err)
        with open(profile) as f:
            text = f.read()
        home = self.lab.env()["HOME"]
        self.assertEqual(sorted(options_of(profile, home)),
                         sorted([("--allow-net", "%s:80" % h) for h in USED] + [("-v", out_dir)]),
                         text)
        self.assertIn("# learned ", text)
        if os.path.realpath(out_dir).startswith(os.path.realpath(home) + "/"):
            self.assertIn("\n-v ~/", text, "a path below the home is written ~/PATH")
        self.assertIn("# not learned in this run", text)
        self.assertFalse(os.path.exists(os.path.join(out_dir, "result")))

        # the profile alone lets the same program do everything, and the
        # sandbox refuses nothing
        r = self.porta("run", ["--profile", profile, "--why"], USED,
                       os.path.join(out_dir, "result"))
        self.assertEqual(r.rc, 0, r.out + r.err)
        got = json.loads(r.out)
        self.assertEqual(got, {"pages": {h: "200" for h in USED}, "wrote": True})
        self.assertIn("porta: --why: the sandbox refused nothing in this run", r.err)
        with open(os.path.join(out_dir, "result")) as f:
            self.assertEqual(f.read(), "learned\n")

        # and nothing more: a fourth name and a neighbouring directory
        r = self.porta("run", ["--profile", profile], ["gamma.example", "delta.example"],
                       os.path.join(other_dir, "result"))
        self.assertEqual(r.rc, 0, r.out + r.err)
        got = json.loads(r.out)
        self.assertEqual(got["pages"]["gamma.example"], "200")
        self.assertTrue(got["pages"]["delta.example"].startswith("error"), got)
        self.assertNotEqual(got["wrote"], True, got)
        self.assertFalse(os.path.exists(os.path.join(other_dir, "result")))
        self.assertEqual(self.lab.requests(self.servers["delta.example"]), [],
                         "delta.example was reached under the learned profile")

    def test_a_wildcard_never_widens_across_a_public_suffix(self):
        base = tempfile.mkdtemp(prefix="learn-", dir=self.lab.home)
        os.chmod(base, 0o755)
        self.addCleanup(shutil.rmtree, base, True)
        profile = os.path.join(base, "learned.profile")
        r = self.porta("learn", ["-o", profile], FOLDED + NOT_FOLDED, os.path.join(base, "x"))
        self.assertEqual(r.rc, 0, r.out + r.err)
        self.assertEqual(json.loads(r.out)["pages"], {h: "200" for h in FOLDED + NOT_FOLDED})
        got = options_of(profile, self.lab.env()["HOME"])
        self.assertIn(("--allow-net", "*.multi.example:80"), got)
        for h in NOT_FOLDED:
            self.assertIn(("--allow-net", "%s:80" % h), got)
        self.assertNotIn(("--allow-net", "*.amazonaws.com:80"), got)

    def test_learn_never_writes_over_a_file(self):
        fd, profile = tempfile.mkstemp(dir=self.lab.home)
        os.close(fd)
        self.addCleanup(os.unlink, profile)
        r = self.porta("learn", ["-o", profile], USED[:1], "/nonexistent/x")
        self.assertEqual(r.rc, 125, r.out + r.err)
        self.assertIn("exists", r.err)
        self.assertEqual(r.out, "", "the command must not run")
        with open(profile) as f:
            self.assertEqual(f.read(), "")


if __name__ == "__main__":
    unittest.main()
