"""tests/netlab/test_secrets_plain.py: the --secret tripwire on connections
porta sniffs but does not terminate: plain HTTP to another
allowed host (transparent, through porta's HTTP proxy, allowed by name or
by address, the first request or a later one on a kept-alive connection)
and the first bytes of a connection that is not HTTP.  A secret's
placeholder in any of them is refused before a byte of it leaves: nothing
at the server, one audit record "secret-elsewhere" naming the variable,
and a stderr line.  (Terminated connections: test_secrets.py.)

porta is found in PORTA_BIN (ctest sets it)."""
import json
import os
import tempfile
import unittest

import netlab

PORTA = os.environ.get("PORTA_BIN", "")
REAL = "ghp_RealValue0123456789abcdefABCDEFxyz12"
PLAIN, ECHO = "203.0.113.51", "203.0.113.52"


def setup(lab):
    plain = lab.server_http(PLAIN, 80, keepalive=True)
    echo = lab.server_echo(ECHO, 7000)
    lab.dns({"plain.example": PLAIN, "api.example": "203.0.113.53"})
    return {"plain": plain, "echo": echo}


SHARED = netlab.SharedLab(setup)


@unittest.skipUnless(PORTA and os.access(PORTA, os.X_OK), "PORTA_BIN names no porta binary")
class PlainTripwire(netlab.LabCase):
    shared_lab = SHARED

    def porta(self, options, script):
        fd, audit = tempfile.mkstemp(prefix="audit-plain-", suffix=".jsonl", dir=self.lab.home)
        os.close(fd)
        os.chmod(audit, 0o666)
        self.addCleanup(os.unlink, audit)
        argv = [PORTA, "run", "--audit", audit, "--secret", "GH_TOKEN@api.example"]
        if os.geteuid() == 0:
            argv.append("--allow-root")
        r = self.lab.run(argv + options + ["--", "sh", "-c", script],
                         env=self.lab.env(GH_TOKEN=REAL), timeout=120, cwd="/")
        with open(audit) as f:
            text = f.read()
        self.assertNotIn(REAL, text, "the real value in the audit")
        self.assertNotIn(REAL, r.out + r.err, "the real value in porta's output")
        records = [json.loads(l) for l in text.splitlines()]
        return r, [x for x in records if x.get("reason") == "secret-elsewhere"]

    def paths(self):
        return [q.get("path") for q in self.lab.requests(self.servers["plain"])]

    def assert_refused(self, r, tripped, n=1):
        """n attempts refused: a client may try a request again on a new
        connection after the reset of a kept-alive one (curl does), and the
        retry is refused on its own, with its own record."""
        self.assertGreaterEqual(len(tripped), n, tripped)
        self.assertLessEqual(len(tripped), 2 * n, tripped)
        for t in tripped:
            self.assertIn("GH_TOKEN", t.get("detail", ""), t)
        self.assertIn("secret elsewhere", r.err)
        self.assertIn("GH_TOKEN", r.err)

    def test_query_string_transparent_and_through_the_proxy(self):
        for how in (["--noproxy", "*"], []):
            with self.subTest(proxy=not how):
                before = len(self.paths())
                r, tripped = self.porta(
                    ["--allow-net", "plain.example:80"],
                    "curl -sS -o /dev/null -w 'code=%%{http_code}\\n' %s "
                    "'http://plain.example/q?t='\"$GH_TOKEN\""
                    % " ".join("'%s'" % a for a in how))
                # transparent: a reset (000); through the proxy: its 403
                self.assertEqual(r.out.strip(), "code=403" if not how else "code=000", r.err)
                self.assertEqual(len(self.paths()), before, "a request reached the server")
                self.assert_refused(r, tripped)

    def test_basic_header_and_percent_encoded(self):
        r, tripped = self.porta(
            ["--allow-net", "plain.example:80"],
            "curl -sS -o /dev/null -w 'code=%{http_code}\\n' --noproxy '*' "
            "-u \"user:$GH_TOKEN\" http://plain.example/b; "
            "p=$(printf %s \"$GH_TOKEN\" | od -An -tx1 | tr -d ' \\n' | sed 's/../%&/g'); "
            "curl -sS -o /dev/null -w 'code=%{http_code}\\n' \"http://plain.example/p/$p\"")
        self.assertEqual(r.out.split(), ["code=000", "code=403"], r.out + r.err)
        self.assertEqual([p for p in self.paths() if p in ("/b",) or p.startswith("/p/")], [])
        self.assert_refused(r, tripped, 2)

    def test_later_request_on_a_kept_alive_connection(self):
        """The first request is clean and arrives; the second, on the same
        connection, carries the placeholder in a header and is refused
        there: the relay's gate searches every head."""
        before = len(self.paths())
        r, tripped = self.porta(
            ["--allow-net", "plain.example:80"],
            "curl -sS -o /dev/null --noproxy '*' http://plain.example/first --next "
            "-sS -o /dev/null --noproxy '*' -H \"X-Token: $GH_TOKEN\" http://plain.example/second; "
            "echo rc=$?")
        paths = self.paths()[before:]
        self.assertEqual(paths, ["/first"], r.err)
        self.assert_refused(r, tripped)

    def test_allowed_by_address(self):
        """An IP rule allows whatever the bytes name, but not a placeholder:
        the first request and every later one are searched."""
        before = len(self.paths())
        r, tripped = self.porta(
            ["--allow-net", PLAIN + ":80"],
            "curl -sS -o /dev/null --noproxy '*' http://%s/ok -o /dev/null "
            "\"http://%s/later?$GH_TOKEN\"; echo rc=$?; "
            "curl -sS -o /dev/null --noproxy '*' -H \"Host: anything.example\" "
            "-H \"Cookie: t=$GH_TOKEN\" http://%s/first; echo rc=$?" % (PLAIN, PLAIN, PLAIN))
        self.assertEqual(self.paths()[before:], ["/ok"], r.err)
        self.assert_refused(r, tripped, 2)

    def test_first_bytes_that_are_not_http(self):
        r, tripped = self.porta(
            ["--allow-net", ECHO + ":7000"],
            "python3 -c '\n"
            "import os, socket\n"
            "s = socket.create_connection((\"%s\", 7000), timeout=10)\n"
            "s.sendall(b\"\\x00\\x01\" + os.environ[\"GH_TOKEN\"].encode() + b\"\\n\")\n"
            "try:\n"
            "    print(\"echo=%%r\" %% s.recv(100))\n"
            "except OSError as e:\n"
            "    print(\"error=%%s\" %% e)\n'" % ECHO)
        # binary first bytes, which no HTTP or TLS sniffing would take for
        # its own: only the search for the placeholder stops them
        self.assertNotIn("\\x00\\x01", r.out, r.err)
        got = [e for e in self.lab.requests(self.servers["echo"]) if e.get("bytes")]
        self.assertEqual(got, [])
        self.assert_refused(r, tripped)

    def test_clean_traffic_passes(self):
        """The control: the same paths without the placeholder arrive."""
        before = len(self.paths())
        r, tripped = self.porta(
            ["--allow-net", "plain.example:80", "--allow-net", PLAIN + ":80"],
            "curl -sS -o /dev/null --noproxy '*' 'http://plain.example/q?t=x' "
            "-o /dev/null http://plain.example/second; "
            "curl -sS -o /dev/null 'http://plain.example/proxy' -u user:pw; echo rc=$?")
        self.assertIn("rc=0", r.out, r.err)
        self.assertEqual(self.paths()[before:], ["/q?t=x", "/second", "/proxy"])
        self.assertEqual(tripped, [])



@unittest.skipUnless(PORTA and os.access(PORTA, os.X_OK), "PORTA_BIN names no porta binary")
class PlainRules(netlab.LabCase):
    """--allow-http with an http:// URL: every request of a plain HTTP
    connection to that HOST:PORT, transparent or through porta's HTTP
    proxy, first or later on a kept-alive connection, must match a rule;
    otherwise porta answers 403 naming the rule that would allow it, and the
    server never sees the request."""
    shared_lab = SHARED

    def porta(self, script):
        fd, audit = tempfile.mkstemp(prefix="audit-rules-", suffix=".jsonl", dir=self.lab.home)
        os.close(fd)
        os.chmod(audit, 0o666)
        self.addCleanup(os.unlink, audit)
        argv = [PORTA, "run", "--audit", audit, "--allow-http", "GET,HEAD http://plain.example/v1/*"]
        if os.geteuid() == 0:
            argv.append("--allow-root")
        r = self.lab.run(argv + ["--", "sh", "-c", script], env=self.lab.env(), timeout=120, cwd="/")
        with open(audit) as f:
            http = [json.loads(l) for l in f.read().splitlines() if '"kind":"http"' in l]
        return r, [(h["method"], h["path"], h["verdict"], h["reason"]) for h in http]

    def paths(self):
        return [q.get("path") for q in self.lab.requests(self.servers["plain"])]

    def test_transparent_and_through_the_proxy(self):
        for how in ("--noproxy '*'", ""):
            with self.subTest(proxy=not how):
                before = len(self.paths())
                r, http = self.porta(
                    "for u in /v1/a /v2/b; do curl -sS -o /dev/null -w '%%{http_code}\\n' %s "
                    "http://plain.example$u; done; "
                    "curl -sS -w '\\n%%{http_code}\\n' %s -X POST http://plain.example/v1/a" % (how, how))
                lines = r.out.split("\n")
                self.assertEqual([lines[0], lines[1], lines[-2]], ["200", "403", "403"], r.out + r.err)
                self.assertIn("--allow-http 'POST http://plain.example/v1/a'", r.out, r.out + r.err)
                self.assertEqual(self.paths()[before:], ["/v1/a"])
                self.assertEqual(http, [("GET", "/v1/a", "allow", "allow"),
                                        ("GET", "/v2/b", "deny", "http-no-rule"),
                                        ("POST", "/v1/a", "deny", "http-no-rule")])
                self.assertIn("--allow-http 'GET http://plain.example/v2/b'", r.err)

    def test_second_request_on_a_kept_alive_connection(self):
        for how in ("--noproxy '*'", ""):
            with self.subTest(proxy=not how):
                before = len(self.paths())
                r, http = self.porta(
                    "curl -sS -o /dev/null -o /dev/null -w '%%{http_code} %%{num_connects}\\n' %s "
                    "http://plain.example/v1/a http://plain.example/v2/b" % how)
                self.assertEqual(r.out.split(), ["200", "1", "403", "0"], r.out + r.err)
                self.assertEqual(self.paths()[before:], ["/v1/a"])
                self.assertEqual([h[2] for h in http], ["allow", "deny"])

    def test_proxy_fields_never_reach_the_server(self):
        before = len(self.lab.requests(self.servers["plain"]))
        r, http = self.porta("curl -sS -o /dev/null -w '%{http_code}\\n' -U u:pw "
                             "http://plain.example/v1/p")
        self.assertEqual(r.out.split(), ["200"], r.err)
        q = self.lab.requests(self.servers["plain"])[before:]
        self.assertEqual([x["path"] for x in q], ["/v1/p"], "origin-form upstream")
        names = [h.lower() for (h, _) in q[0]["headers"]]
        self.assertNotIn("proxy-authorization", names)
        self.assertNotIn("proxy-connection", names)


if __name__ == "__main__":
    unittest.main()
