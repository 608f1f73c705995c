"""netlab/audit: `porta audit` on audits of real runs in the lab.

A client inside porta (Python, plain sockets, no proxy) makes known
connections to the lab's HTTP servers and counts the bytes it sent and
received on each; porta writes the run's --audit.  `porta audit --json`
must count the same connections, the same bytes both ways and the same
process; the refused name must be refused with the option that would
allow it.  Then the lock round trip: the lock of run 1 holds run 1 (exit
0), and run 2, which also reaches a third host, drifts from it (exit 1,
naming that host and only it)."""

import json
import os
import subprocess
import tempfile
import unittest

import netlab

PORTA = os.environ.get("PORTA_BIN", "")
A, B, C = "203.0.113.81", "203.0.113.82", "203.0.113.83"

# argv[1]: JSON list of [host, path, repeat]: that many requests, each on a
# connection of its own, each counted: {host: [sent, received, requests]}.
CLIENT = r'''
import json, socket, sys
out = {}
for host, path, n in json.loads(sys.argv[1]):
    for _ in range(n):
        try:
            s = socket.create_connection((host, 80), timeout=10)
        except OSError as e:
            out.setdefault(host, {"error": str(e)})
            continue
        req = ("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (path, host)).encode()
        s.sendall(req)
        got = b""
        while True:
            c = s.recv(65536)
            if not c:
                break
            got += c
        s.close()
        d = out.setdefault(host, {"sent": 0, "received": 0, "requests": 0})
        d["sent"] += len(req)
        d["received"] += len(got)
        d["requests"] += 1
print(json.dumps(out))
'''


def lab_setup(lab):
    servers = {"a": lab.server_http(A, 80, label="a"), "b": lab.server_http(B, 80, label="b"),
               "c": lab.server_http(C, 80, label="c")}
    lab.dns({"a.example": A, "b.example": B, "c.example": C})
    return servers


@unittest.skipUnless(PORTA and os.access(PORTA, os.X_OK), "PORTA_BIN names no porta binary")
class AuditOfRealRuns(netlab.LabCase):
    shared_lab = netlab.SharedLab(lab_setup)

    def run_client(self, allow, plan):
        """(client's counts, audit path) of CLIENT under porta --allow-net allow."""
        fd, audit = tempfile.mkstemp(prefix="audit-", suffix=".jsonl", dir=self.lab.home)
        os.close(fd)
        self.addCleanup(os.unlink, audit)
        argv = [PORTA, "run", "--audit", audit, "-q"]
        if os.geteuid() == 0:
            argv.append("--allow-root")
        for a in allow:
            argv += ["--allow-net", a]
        r = self.lab.run(argv + ["--", "python3", "-c", CLIENT, json.dumps(plan)],
                         env=self.lab.env(), cwd="/", timeout=120)
        self.assertEqual(r.rc, 0, r.out + r.err)
        return json.loads(r.out), audit

    def audit(self, *args):
        return subprocess.run([PORTA, "audit"] + list(args), capture_output=True, text=True,
                              timeout=60)

    def test_counts_bytes_processes_and_the_lock_round_trip(self):
        plan = [["a.example", "/one", 2], ["b.example", "/" + "x" * 300, 1],
                ["c.example", "/never", 1]]
        counts, audit1 = self.run_client(["a.example:80", "b.example:80"], plan)
        self.assertIn("error", counts["c.example"])
        r = self.audit("--json", audit1)
        self.assertEqual(r.returncode, 0, r.stderr)
        summary = json.loads(r.stdout)
        dests = {(d["name"], d["port"]): d for d in summary["destinations"]}
        for host in ("a.example", "b.example"):
            d = dests[(host, 80)]
            self.assertEqual((d["allowed"], d["refused"]), (counts[host]["requests"], 0), d)
            self.assertEqual((d["bytes_up"], d["bytes_down"]),
                             (counts[host]["sent"], counts[host]["received"]), d)
            self.assertEqual(d["processes"], {"python3": counts[host]["requests"]}, d)
        refused = [d for d in summary["destinations"] if d["name"] == "c.example"]
        self.assertTrue(refused and all(d["allowed"] == 0 and d["refused"] >= 1 for d in refused),
                        summary)
        self.assertTrue(any(h.startswith("--allow-net c.example") for h in summary["would_allow"]),
                        summary["would_allow"])
        self.assertEqual(summary["refused"], sum(d["refused"] for d in refused))
        # the text summary says the same
        r = self.audit(audit1)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\na\.example:80 +2 +0 +%d +%d  python3 \(2\)\n"
                         % (counts["a.example"]["sent"], counts["a.example"]["received"]))
        self.assertIn("to allow what was refused:\n  --allow-net c.example", r.stdout)

        # the lock: run 1's own destinations, which hold run 1
        r = self.audit("--lock", audit1)
        self.assertEqual(r.returncode, 0, r.stderr)
        lock = os.path.join(self.lab.home, "lock-%d" % os.getpid())
        self.addCleanup(os.unlink, lock)
        with open(lock, "w") as f:
            f.write(r.stdout)
        self.assertEqual([l for l in r.stdout.splitlines() if not l.startswith("#")],
                         ["--allow-net a.example:80", "--allow-net b.example:80"])
        r = self.audit("--against", lock, audit1)
        self.assertEqual(r.returncode, 1, "the refused c.example is outside too:\n" + r.stdout)
        self.assertEqual([l.split()[3] for l in r.stdout.splitlines()],
                         ["c.example"] if "(DNS)" in r.stdout else ["c.example:80"], r.stdout)

        # run 2 reaches c.example too: outside the lock, named, exit 1
        counts2, audit2 = self.run_client(["a.example:80", "c.example:80"],
                                          [["a.example", "/one", 1], ["c.example", "/new", 1]])
        self.assertEqual(counts2["c.example"]["requests"], 1, counts2)
        r = self.audit("--against", lock, audit2)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("outside the lock: c.example:80 (1 allowed, 0 refused; python3)", r.stdout)
        self.assertNotIn("a.example", r.stdout)
        self.assertIn("1 destination outside", r.stderr)
        # and a run that stays inside passes
        _, audit3 = self.run_client(["a.example:80"], [["a.example", "/again", 1]])
        r = self.audit("--against", lock, audit3)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("is inside", r.stdout)

    def test_a_line_that_is_no_record_is_named(self):
        fd, bad = tempfile.mkstemp(dir=self.lab.home)
        os.write(fd, b'{"kind":"dns","verdict":"allow","reason":"allow","host":"a.example"}\n'
                     b'garbage\n')
        os.close(fd)
        self.addCleanup(os.unlink, bad)
        r = self.audit(bad)
        self.assertEqual(r.returncode, 125)
        self.assertIn("%s:2: not a JSON object" % bad, r.stderr)
        r = self.audit("--lock", "--against", bad, bad)
        self.assertEqual(r.returncode, 125)
        r = self.audit()
        self.assertEqual(r.returncode, 125)
        self.assertIn("no audit FILE", r.stderr)


if __name__ == "__main__":
    unittest.main()
