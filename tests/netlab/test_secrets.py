"""tests/netlab/test_secrets.py: --secret and --allow-http through porta, in
the lab.  Each client runs inside porta with a secret's
placeholder in its environment; the lab's HTTPS servers (netlab.py) record
what they received.  Checked: the server sees the real value, the command
sees only the placeholder (its environment and /proc/self/environ), a
response header echoing the value comes back as the placeholder, another
host's placeholder is refused with nothing reaching that host (in a
header, a query string, a Basic header), and --allow-http refuses what no
rule allows, on every request of a connection (AllowHttp), and each trust
variable sandbox/trust.c sets works with its client: requests, the AWS CLI
(TrustVariables), pip (PipTrust), cargo (CargoTrust), each skipped with the
reason where the client is missing for the user running the tests.

porta is found in PORTA_BIN (ctest sets it); porta verifies the lab's
servers with SSL_CERT_FILE (the lab CA) in its own environment, and the
command is given the system bundle back with --env (porta keeps a user's
own SSL_CERT_FILE inside, which would not hold porta's CA)."""
import base64
import contextlib
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

import netlab
import npm_registry
from test_netlab_tls import npm_unavailable

HERE = os.path.dirname(os.path.abspath(__file__))

PORTA = os.environ.get("PORTA_BIN", "")
REAL = "ghp_RealValue0123456789abcdefABCDEFxyz12"
OTHER_REAL = "sk-other0123456789abcdefghijklmnopqrs"
API, OTHER = "203.0.113.41", "203.0.113.42"


def setup(lab):
    api = lab.server_tls(API, 443, names=["api.example"], echo_header="Authorization",
                         keepalive=True)
    other = lab.server_tls(OTHER, 443, names=["other.example"], keepalive=True)
    lab.dns({"api.example": API, "other.example": OTHER})
    return {"api": api, "other": other}


SHARED = netlab.SharedLab(setup)


@unittest.skipUnless(PORTA and os.access(PORTA, os.X_OK), "PORTA_BIN names no porta binary")
class Secrets(netlab.LabCase):
    shared_lab = SHARED

    def porta(self, options, script, extra_env=None):
        env = self.lab.env(GH_TOKEN=REAL, OTHER_TOKEN=OTHER_REAL, SSL_CERT_FILE=self.lab.ca_file,
                           **(extra_env or {}))
        argv = [PORTA, "run", "--env", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"]
        if os.geteuid() == 0:
            argv.append("--allow-root")
        argv += options + ["--", "sh", "-c", script]
        return self.lab.run(argv, env=env, timeout=120, cwd="/")

    def auth_seen(self, name):
        return [v for q in self.lab.requests(self.servers[name])
                for (h, v) in q.get("headers", []) if h.lower() == "authorization"]

    def test_curl_real_value_upstream_placeholder_inside(self):
        r = self.porta(["--secret", "GH_TOKEN@api.example"],
                       'curl -sS -D - -o /dev/null -H "Authorization: Bearer $GH_TOKEN" '
                       'https://api.example/v1/x; echo "env=$GH_TOKEN"; '
                       'tr "\\0" "\\n" < /proc/self/environ | grep -c "' + REAL + '" || true')
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(self.auth_seen("api"), ["Bearer " + REAL])
        lines = r.out.splitlines()
        placeholder = [l for l in lines if l.startswith("env=")][0][4:]
        self.assertTrue(placeholder.startswith("ghp_") and len(placeholder) == len(REAL))
        self.assertNotEqual(placeholder, REAL)
        self.assertIn("X-Echo: Bearer " + placeholder, r.out)
        self.assertNotIn(REAL, r.out)
        self.assertEqual(lines[-1], "0", "the real value in /proc/self/environ")

    def test_users_own_bundle_gets_the_ca_too(self):
        """SSL_CERT_FILE set by the user (here the lab's CA, which the spliced
        other.example needs) is kept inside, and the file it names holds
        porta's CA too, so the terminated api.example verifies as well."""
        code = ("import os,urllib.request as u;"
                "print(os.environ['SSL_CERT_FILE']);"
                "print(u.urlopen(u.Request('https://api.example/p',headers={'Authorization':"
                "'token '+os.environ['GH_TOKEN']})).status);"
                "print(u.urlopen('https://other.example/').status)")
        env = self.lab.env(GH_TOKEN=REAL, SSL_CERT_FILE=self.lab.ca_file)
        argv = [PORTA, "run", "--env-pass", "SSL_CERT_FILE", "--secret", "GH_TOKEN@api.example",
                "--allow-net", "other.example"]
        if os.geteuid() == 0:
            argv.append("--allow-root")
        r = self.lab.run(argv + ["--", "python3", "-c", code], env=env, timeout=120, cwd="/")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(r.out.split(), [self.lab.ca_file, "200", "200"])
        self.assertEqual(self.auth_seen("api"), ["token " + REAL])
        with open(self.lab.ca_file) as f:
            self.assertNotIn("porta", f.read(), "the host's file changed")

    def test_python_urllib(self):
        if not shutil.which("python3"):
            self.skipTest("no python3")
        code = ("import os,urllib.request as u;"
                "q=u.Request('https://api.example/p',headers={'Authorization':'token '+os.environ['GH_TOKEN']});"
                "r=u.urlopen(q);print(r.status, r.headers['X-Echo'] == 'token '+os.environ['GH_TOKEN'])")
        r = self.porta(["--secret", "GH_TOKEN@api.example"], "python3 -c \"" + code + "\"")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(r.out.strip(), "200 True")
        self.assertEqual(self.auth_seen("api"), ["token " + REAL])

    def test_node_fetch_and_https(self):
        if not shutil.which("node"):
            self.skipTest("no node")
        code = ("const h=require('https');const t=process.env.GH_TOKEN;"
                "fetch('https://api.example/f',{headers:{Authorization:'Bearer '+t}}).then(r=>{"
                "console.log('fetch',r.status,r.headers.get('x-echo')==='Bearer '+t);"
                "h.get('https://api.example/h',{headers:{Authorization:'Basic '+Buffer.from('u:'+t).toString('base64')}},"
                "s=>{console.log('https',s.statusCode);s.resume();})});")
        r = self.porta(["--secret", "GH_TOKEN@api.example"], "node -e \"" + code + "\"")
        self.assertEqual(r.rc, 0, r.err)
        self.assertIn("fetch 200 true", r.out)
        self.assertIn("https 200", r.out)
        import base64
        self.assertEqual(self.auth_seen("api"),
                         ["Bearer " + REAL, "Basic " + base64.b64encode(("u:" + REAL).encode()).decode()])

    def test_placeholder_to_another_terminated_host_refused(self):
        r = self.porta(["--secret", "GH_TOKEN@api.example", "--secret", "OTHER_TOKEN@other.example"],
                       'curl -sS -o /dev/null -w "%{http_code}\\n" -H "X-Token: $GH_TOKEN" '
                       'https://other.example/')
        self.assertEqual(r.out.strip(), "403", r.err)
        self.assertEqual(self.lab.requests(self.servers["other"]), [])
        self.assertIn("(secret elsewhere: ", r.err)

    def elsewhere(self, attempt):
        """Runs `attempt` (curl, its URL on other.example) beside a control
        that sends other.example its own placeholder.  Returns the
        attempt's status, the audit's secret-elsewhere records and the
        result, having checked the control went through and that nothing of
        the attempt reached other.example."""
        audit = os.path.join(self.lab.home, "audit-%d-%s.jsonl" % (os.getpid(), self.id()))
        self.addCleanup(lambda: os.path.exists(audit) and os.unlink(audit))
        r = self.porta(["--audit", audit, "--secret", "GH_TOKEN@api.example",
                        "--secret", "OTHER_TOKEN@other.example"],
                       'curl -sS -o /dev/null -w "%{http_code}\\n" -u "x:$OTHER_TOKEN" '
                       'https://other.example/control; '
                       'curl -sS -o /dev/null -w "%{http_code}\\n" ' + attempt)
        with open(audit) as f:
            text = f.read()
        self.assertNotIn(REAL, text, "the real value in the audit")
        self.assertNotIn(REAL, r.out + r.err)
        statuses = r.out.split()
        # curl exits 0 on a 403 (no --fail): anything else is porta's own
        # (a sanitizer build's report ends it with another code)
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(statuses[0], "200", r.err)
        # the control only: not a byte of the attempt, not even a part of
        # its head (netlab records one)
        seen = self.lab.requests(self.servers["other"])
        self.assertEqual([(q.get("path"), q.get("http_error")) for q in seen],
                         [("/control", None)], seen)
        self.assertEqual([v for q in seen for (h, v) in q["headers"] if h == "Authorization"],
                         ["Basic " + base64.b64encode(("x:" + OTHER_REAL).encode()).decode()])
        records = [json.loads(l) for l in text.splitlines()
                   if json.loads(l).get("reason") == "secret-elsewhere"]
        return statuses[1], records, r

    def test_placeholder_elsewhere_in_a_query_string(self):
        status, records, r = self.elsewhere('"https://other.example/q?token=$GH_TOKEN"')
        self.assertEqual(status, "403", r.err)
        self.assertEqual(len(records), 1, records)
        self.assertEqual((records[0]["kind"], records[0]["verdict"], records[0]["path"][:9]),
                         ("http", "deny", "/q?token="))
        self.assertIn("(secret elsewhere: ", r.err)

    def test_placeholder_elsewhere_in_a_basic_header(self):
        status, records, r = self.elsewhere('-u "x-access-token:$GH_TOKEN" '
                                            'https://other.example/basic')
        self.assertEqual(status, "403", r.err)
        self.assertEqual(len(records), 1, records)
        self.assertEqual((records[0]["kind"], records[0]["verdict"], records[0]["path"]),
                         ("http", "deny", "/basic"))
        self.assertIn("(secret elsewhere: ", r.err)

    def test_placeholder_elsewhere_names_the_variable(self):
        """The stderr line about a placeholder sent elsewhere names the
        variable it stands for (GH_TOKEN), so the user knows which secret
        went astray; never its value."""
        status, records, r = self.elsewhere('"https://other.example/q?token=$GH_TOKEN"')
        self.assertEqual(status, "403", r.err)
        line = [l for l in r.err.splitlines() if "(secret elsewhere: " in l]
        self.assertTrue(line, r.err)
        self.assertIn("GH_TOKEN", line[0], r.err)

    def test_audit_records_each_request_and_no_value(self):
        audit = os.path.join(self.lab.home, "audit-%d.jsonl" % os.getpid())
        self.addCleanup(lambda: os.path.exists(audit) and os.unlink(audit))
        r = self.porta(["--audit", audit, "--secret", "GH_TOKEN@api.example",
                        "--allow-http", "GET https://api.example/v1/*"],
                       'curl -sS -o /dev/null -H "Authorization: Bearer $GH_TOKEN" '
                       'https://api.example/v1/ok https://api.example/v2/no')
        import json
        with open(audit) as f:
            text = f.read()
        self.assertNotIn(REAL, text, "the real value in the audit")
        http = [json.loads(l) for l in text.splitlines() if '"kind":"http"' in l]
        self.assertEqual([(h["method"], h["path"], h["verdict"], h["reason"]) for h in http],
                         [("GET", "/v1/ok", "allow", "allow"),
                          ("GET", "/v2/no", "deny", "http-no-rule")], text)
        self.assertEqual(http[0]["rule"], "GET https://api.example/v1/*")
        self.assertEqual(http[1]["hint"], "--allow-http 'GET https://api.example/v2/no'")
        self.assertIn("no --allow-http rule", http[1]["detail"])

    def test_placeholder_in_names_refused(self):
        """A wildcard rule would let <placeholder>.other.example out as a DNS
        question, a CONNECT target and an SNI: each is refused, and the lab's
        resolver never hears the name."""
        r = self.porta(["--secret", "GH_TOKEN@api.example", "--allow-net", "*.other.example"],
                       'echo "ph=$GH_TOKEN"; getent hosts "$GH_TOKEN.other.example"; echo "dns=$?"; '
                       'curl -sS -o /dev/null "https://$GH_TOKEN.other.example/"; echo "proxy=$?"; '
                       'curl -sS -o /dev/null --noproxy "*" --resolve "x.other.example:443:' + OTHER +
                       '" --connect-to "x.other.example:443:' + OTHER + ':443" '
                       '-H "Host: x.other.example" "https://$(echo $GH_TOKEN | tr A-Z a-z).other.example/"; '
                       'echo "sni=$?"')
        out = dict(l.split("=", 1) for l in r.out.splitlines() if "=" in l)
        ph = out["ph"]
        self.assertNotEqual(out["dns"], "0", r.out)
        self.assertNotEqual(out["proxy"], "0", r.out)
        self.assertNotEqual(out["sni"], "0", r.out)
        self.assertEqual(self.lab.queries((ph + ".other.example").lower()), [])
        self.assertEqual(self.lab.queries(ph + ".other.example"), [])
        self.assertEqual(self.lab.requests(self.servers["other"]), [])
        self.assertIn("secret", r.err)

    def test_allow_http_refuses_what_no_rule_allows(self):
        r = self.porta(["--allow-http", "GET https://api.example/v1/*"],
                       'curl -sS -o /dev/null -w "%{http_code}\\n" https://api.example/v1/a '
                       '-o /dev/null -w "%{http_code}\\n" -X GET https://api.example/v2/b; '
                       'curl -sS -o /dev/null -w "%{http_code}\\n" -X POST https://api.example/v1/a')
        self.assertEqual(r.out.split(), ["200", "403", "403"], r.err)
        paths = [q.get("path") for q in self.lab.requests(self.servers["api"])]
        self.assertEqual(paths, ["/v1/a"])
        self.assertIn("--allow-http 'POST https://api.example/v1/a'", r.err)


# A TLS client for one connection to api.example (the transparent path: no
# proxy variable is read), verifying with the system store inside (which
# holds porta's CA).  argv[1]: a JSON list of latin-1 strings, each sent with
# ONE sendall ($GH_TOKEN in it replaced by the placeholder), after which the
# client reads until it holds argv[2][i] complete responses in all (null:
# until the stream ends).  Prints JSON: the bytes read back and how the
# stream ended ("open": it had not).
RAW_CLIENT = r"""
import json, os, socket, ssl, sys
sends, counts = json.loads(sys.argv[1]), json.loads(sys.argv[2])
ctx = ssl.create_default_context()
# a TCP close without close_notify is an error here, not an end of stream
# (OpenSSL may be configured to take it for one: OP_IGNORE_UNEXPECTED_EOF)
ctx.options &= ~getattr(ssl, "OP_IGNORE_UNEXPECTED_EOF", 0)
s = ctx.wrap_socket(socket.create_connection(("api.example", 443), timeout=20),
                    server_hostname="api.example", suppress_ragged_eofs=False)
got, end = b"", "open"
def responses(b):
    n, off = 0, 0
    while True:
        head_end = b.find(b"\r\n\r\n", off)
        if head_end < 0:
            return n
        length = 0
        for line in b[off:head_end].split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v)
        if len(b) < head_end + 4 + length:
            return n
        n, off = n + 1, head_end + 4 + length
for data, count in zip(sends, counts):
    s.sendall(data.replace("$GH_TOKEN", os.environ["GH_TOKEN"]).encode("latin-1"))
    while end == "open" and (count is None or responses(got) < count):
        try:
            chunk = s.recv(65536)
        except ssl.SSLError as e:
            end = "eof without close_notify" if "EOF" in str(e).upper() else "tls: %s" % e
        except ConnectionResetError:
            end = "reset"
        except socket.timeout:
            end = "timeout"
        else:
            if chunk:
                got += chunk
            else:
                end = "close_notify"
print(json.dumps({"got": got.decode("latin-1"), "end": end}))
"""


def split_responses(raw):
    """[(status, {lower-case name: value}, body)] of the HTTP/1.1 responses
    in raw, each framed by its Content-Length; what is left over, if any, is
    one more item (None, {}, the bytes)."""
    out = []
    while raw:
        head, sep, rest = raw.partition("\r\n\r\n")
        if not sep:
            out.append((None, {}, raw))
            break
        lines = head.split("\r\n")
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        length = int(headers.get("content-length", "0"))
        out.append((int(lines[0].split(" ")[1]), headers, rest[:length]))
        raw = rest[length:]
    return out


# the placeholder (RAW_CLIENT fills it in), which porta swaps upstream
AUTH = "Authorization: Bearer $GH_TOKEN\r\n"


def req(method, path, host="api.example", extra=""):
    return "%s %s HTTP/1.1\r\nHost: %s\r\n%s\r\n" % (method, path, host, extra)


@unittest.skipUnless(PORTA and os.access(PORTA, os.X_OK), "PORTA_BIN names no porta binary")
class AllowHttp(netlab.LabCase):
    """--allow-http holds every request of a connection to the rules, not
    just its first: a keep-alive connection, a pipelined pair, a Host that
    is not the SNI's, a request after a chunked body.  Each runs with
    GH_TOKEN bound to api.example and sent in each request, and an audit
    that must never hold its real value."""
    shared_lab = SHARED

    RULES = ["--allow-http", "GET,POST https://api.example/v1/*"]

    def run_in_porta(self, options, argv, audit=True):
        """(result, audit records) of argv run in porta with options,
        GH_TOKEN@api.example and the RULES; the audit is checked for the
        real value here."""
        path = os.path.join(self.lab.home, "audit-%d-%s.jsonl" % (os.getpid(), self.id()))
        self.addCleanup(lambda: os.path.exists(path) and os.unlink(path))
        env = self.lab.env(GH_TOKEN=REAL, OTHER_TOKEN=OTHER_REAL, SSL_CERT_FILE=self.lab.ca_file)
        full = [PORTA, "run", "--env", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
                "--audit", path, "--secret", "GH_TOKEN@api.example"] + self.RULES + options
        if os.geteuid() == 0:
            full.append("--allow-root")
        r = self.lab.run(full + ["--"] + argv, env=env, timeout=120, cwd="/")
        with open(path) as f:
            text = f.read()
        self.assertNotIn(REAL, text, "the real value in the audit")
        # (r.out may hold it: api.example echoes the header in its body,
        # which porta does not rewrite)
        self.assertNotIn(REAL, r.err)
        return r, [json.loads(l) for l in text.splitlines() if l.strip()]

    def raw(self, sends, counts):
        """RAW_CLIENT in porta: ([(status, headers, body)], how it ended,
        the audit's http records as (method, path, verdict, reason))."""
        r, audit = self.run_in_porta([], ["python3", "-c", RAW_CLIENT, json.dumps(sends),
                                          json.dumps(counts)])
        self.assertEqual(r.rc, 0, r.out + r.err)
        res = json.loads(r.out)
        http = [(a["method"], a["path"], a["verdict"], a["reason"])
                for a in audit if a["kind"] == "http"]
        return split_responses(res["got"]), res["end"], http, r

    def api_seen(self):
        return [(q["index"], q.get("method"), q.get("path"), q.get("http_error"))
                for q in self.lab.requests(self.servers["api"])]

    def auth_seen(self):
        return [v for q in self.lab.requests(self.servers["api"])
                for (h, v) in q.get("headers", []) if h.lower() == "authorization"]

    def assert_refusal(self, resp, rule=None):
        status, headers, body = resp
        self.assertEqual((status, headers.get("x-porta-refused"), headers.get("connection")),
                         (403, "1", "close"), body)
        if rule:
            self.assertIn("--allow-http '%s'" % rule, body)

    def test_refused_second_request_on_a_keepalive_connection(self):
        """http.client keeps one connection: the second request goes out on
        the socket the first came back on (checked before its answer is
        read), is answered 403 by porta, and never reaches the server."""
        code = ("import http.client, json, os\n"
                "c = http.client.HTTPSConnection('api.example', timeout=20)\n"
                "h = {'Authorization': 'Bearer ' + os.environ['GH_TOKEN']}\n"
                "c.request('GET', '/v1/first', headers=h)\n"
                "r1 = c.getresponse(); r1.read()\n"
                "sock, port = c.sock, c.sock.getsockname()[1]\n"
                "c.request('GET', '/v2/second', headers=h)\n"
                "same = c.sock is sock and c.sock.getsockname()[1] == port\n"
                "r2 = c.getresponse()\n"
                "print(json.dumps({'statuses': [r1.status, r2.status], 'same': same,\n"
                "                  'refused': r2.getheader('X-Porta-Refused'),\n"
                "                  'body': r2.read().decode()}))\n")
        r, audit = self.run_in_porta([], ["python3", "-c", code])
        self.assertEqual(r.rc, 0, r.out + r.err)
        out = json.loads(r.out)
        self.assertEqual((out["statuses"], out["same"], out["refused"]), ([200, 403], True, "1"),
                         out)
        self.assertIn("--allow-http 'GET https://api.example/v2/second'", out["body"])
        self.assertEqual(self.api_seen(), [(0, "GET", "/v1/first", None)])
        self.assertEqual(self.auth_seen(), ["Bearer " + REAL])
        self.assertEqual([(a["method"], a["path"], a["verdict"], a["reason"])
                          for a in audit if a["kind"] == "http"],
                         [("GET", "/v1/first", "allow", "allow"),
                          ("GET", "/v2/second", "deny", "http-no-rule")])

    def test_head_then_get_on_a_keepalive_connection(self):
        """A HEAD's answer has no body, whatever its Content-Length says
        (RFC 9110, 9.3.2): porta frames it so, and the GET after it on the
        same connection gets its own answer, whole."""
        code = ("import http.client, json, os\n"
                "c = http.client.HTTPSConnection('api.example', timeout=20)\n"
                "h = {'Authorization': 'Bearer ' + os.environ['GH_TOKEN']}\n"
                "c.request('HEAD', '/v1/head', headers=h)\n"
                "r1 = c.getresponse(); b1 = r1.read()\n"
                "sock = c.sock\n"
                "c.request('GET', '/v1/get', headers=h)\n"
                "r2 = c.getresponse()\n"
                "print(json.dumps({'statuses': [r1.status, r2.status], 'same': c.sock is sock,\n"
                "                  'length': r1.getheader('Content-Length'),\n"
                "                  'bodies': [b1.decode(), r2.read().decode()]}))\n")
        r, audit = self.run_in_porta(["--allow-http", "HEAD https://api.example/v1/*"],
                                     ["python3", "-c", code])
        self.assertEqual(r.rc, 0, r.out + r.err)
        out = json.loads(r.out)
        self.assertEqual((out["statuses"], out["same"]), ([200, 200], True), out)
        self.assertEqual(out["bodies"][0], "")
        self.assertEqual(int(out["length"]), len(out["bodies"][1].encode()), out)
        self.assertIn(" api.example\n", out["bodies"][1], out)  # the lab echoes the Host
        self.assertEqual(self.api_seen(), [(0, "HEAD", "/v1/head", None),
                                           (1, "GET", "/v1/get", None)])
        self.assertEqual([(a["method"], a["path"], a["verdict"])
                          for a in audit if a["kind"] == "http"],
                         [("HEAD", "/v1/head", "allow"), ("GET", "/v1/get", "allow")])

    def test_pipelined_pair_allowed_then_refused(self):
        """Both heads in one write: the allowed one's answer first, then
        porta's 403 (terminate.c: a refusal waits for the earlier
        responses), then close_notify; the server saw the first only."""
        resps, end, http, _ = self.raw([req("GET", "/v1/a", extra=AUTH) +
                                        req("GET", "/v2/b", extra=AUTH)], [None])
        self.assertEqual([x[0] for x in resps], [200, 403], resps)
        self.assertIsNone(resps[0][1].get("x-porta-refused"))
        self.assert_refusal(resps[1], "GET https://api.example/v2/b")
        self.assertEqual(end, "close_notify")
        self.assertEqual(self.api_seen(), [(0, "GET", "/v1/a", None)])
        self.assertEqual(self.auth_seen(), ["Bearer " + REAL])
        self.assertEqual(http, [("GET", "/v1/a", "allow", "allow"),
                                ("GET", "/v2/b", "deny", "http-no-rule")])

    def test_pipelined_pair_refused_then_allowed(self):
        """The refused head first: porta answers 403 and closes, and the
        allowed head behind it is never read (terminate.c, refuse()):
        nothing at the server, no answer for it, no audit record of it."""
        resps, end, http, _ = self.raw([req("GET", "/v2/b", extra=AUTH) +
                                        req("GET", "/v1/a", extra=AUTH)], [None])
        self.assertEqual([x[0] for x in resps], [403], resps)
        self.assert_refusal(resps[0], "GET https://api.example/v2/b")
        self.assertEqual(end, "close_notify")
        self.assertEqual(self.api_seen(), [])
        self.assertEqual(http, [("GET", "/v2/b", "deny", "http-no-rule")])

    def test_host_other_than_the_sni_refused(self):
        """On a connection opened to api.example (SNI), a request whose
        Host is other.example, a host the rules allow too, is refused after
        an ordinary request on the same connection went through: neither
        server sees it."""
        self.RULES = self.RULES + ["--allow-http", "GET,POST https://other.example/*"]
        resps, end, http, _ = self.raw([req("GET", "/v1/ok", extra=AUTH),
                                        req("GET", "/v1/fronted", host="other.example",
                                            extra=AUTH)], [1, None])
        self.assertEqual([x[0] for x in resps], [200, 403], resps)
        self.assert_refusal(resps[1])
        self.assertIn("another host", resps[1][2])
        self.assertEqual(end, "close_notify")
        self.assertEqual(self.api_seen(), [(0, "GET", "/v1/ok", None)])
        self.assertEqual(self.lab.requests(self.servers["other"]), [])
        self.assertEqual(http, [("GET", "/v1/ok", "allow", "allow"),
                                ("GET", "/v1/fronted", "deny", "host-mismatch")])

    def chunked_then(self, second):
        """A chunked POST whose body reads as a request (to a path no rule
        allows), then `second`, in one write."""
        inner = req("GET", "/v2/secret", extra="X-Smuggled: 1\r\n")
        post = ("POST /v1/upload HTTP/1.1\r\nHost: api.example\r\n" + AUTH +
                "Transfer-Encoding: chunked\r\n\r\n" +
                "%x\r\n%s\r\n5\r\ntail.\r\n0\r\n\r\n" % (len(inner), inner))
        return inner, post + second

    def test_chunked_body_then_an_allowed_request(self):
        inner, data = self.chunked_then(req("GET", "/v1/next", extra=AUTH))
        resps, end, http, _ = self.raw([data], [2])
        self.assertEqual([x[0] for x in resps], [200, 200], resps)
        self.assertEqual(end, "open")
        seen = self.lab.requests(self.servers["api"])
        self.assertEqual([(q["index"], q.get("method"), q.get("path"), q.get("http_error"))
                          for q in seen],
                         [(0, "POST", "/v1/upload", None), (1, "GET", "/v1/next", None)])
        # the body passed as body, byte for byte: no record of its request
        # line anywhere
        self.assertEqual(seen[0]["body"], inner + "tail.")
        self.assertEqual(self.auth_seen(), ["Bearer " + REAL] * 2)
        self.assertEqual(http, [("POST", "/v1/upload", "allow", "allow"),
                                ("GET", "/v1/next", "allow", "allow")])

    def test_chunked_body_then_a_refused_request(self):
        inner, data = self.chunked_then(req("DELETE", "/v1/next", extra=AUTH))
        resps, end, http, _ = self.raw([data], [None])
        self.assertEqual([x[0] for x in resps], [200, 403], resps)
        self.assert_refusal(resps[1], "DELETE https://api.example/v1/next")
        self.assertEqual(end, "close_notify")
        seen = self.lab.requests(self.servers["api"])
        self.assertEqual([(q["index"], q.get("method"), q.get("path"), q.get("http_error"))
                          for q in seen], [(0, "POST", "/v1/upload", None)])
        self.assertEqual(seen[0]["body"], inner + "tail.")
        self.assertEqual(http, [("POST", "/v1/upload", "allow", "allow"),
                                ("DELETE", "/v1/next", "deny", "http-no-rule")])


FLAWED = {"unknown-ca": ("203.0.113.44", "unknown certificate authority"),
          "expired": ("203.0.113.45", "expired"),
          "wrong-name": ("203.0.113.46", "not bad.example")}


@unittest.skipUnless(PORTA and os.access(PORTA, os.X_OK), "PORTA_BIN names no porta binary")
class Upstream(netlab.LabCase):
    """An upstream porta cannot verify is answered 502 with the reason, and
    the request never reaches it."""

    @classmethod
    def lab_setup(cls, lab):
        servers = {}
        for flaw, (addr, _) in FLAWED.items():
            servers[flaw] = lab.server_tls(addr, 443, names=["bad.example"], flaw=flaw)
        return servers

    def test_each_flaw_refused_with_its_reason(self):
        for flaw, (addr, words) in FLAWED.items():
            with self.subTest(flaw=flaw):
                self.lab.dns({"bad.example": addr})
                env = self.lab.env(GH_TOKEN=REAL, SSL_CERT_FILE=self.lab.ca_file)
                argv = [PORTA, "run", "--env", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
                        "--secret", "GH_TOKEN@bad.example"]
                if os.geteuid() == 0:
                    argv.append("--allow-root")
                r = self.lab.run(argv + ["--", "sh", "-c",
                                         'curl -sS -w "\\n%{http_code}\\n" '
                                         '-H "Authorization: Bearer $GH_TOKEN" https://bad.example/'],
                                 env=env, timeout=120, cwd="/")
                lines = r.out.strip().splitlines()
                self.assertEqual(lines[-1], "502", r.out + r.err)
                self.assertIn(words, r.out)
                self.assertIn(words, r.err)
                # the handshake porta abandoned is logged; no request followed it
                self.assertEqual([q for q in self.lab.requests(self.servers[flaw])
                                  if q.get("method")], [])


def pythons_with(module):
    """Each python3 the current user can run that imports module, found on
    the lab's PATH (netlab.SYSTEM_PATH: Debian's /usr/bin/python3) or this
    process's PATH (a pyenv build), resolved to the interpreter itself
    (pyenv's shims need pyenv's environment)."""
    found = []
    for path in (netlab.SYSTEM_PATH, os.environ.get("PATH", "")):
        python = shutil.which("python3", path=path)
        if not python:
            continue
        r = subprocess.run([python, "-c", "import sys, %s; print(sys.executable)" % module],
                           capture_output=True, text=True)
        exe = r.stdout.strip()
        if r.returncode == 0 and os.access(exe, os.X_OK) and exe not in found:
            found.append(exe)
    return found


def python_with(module):
    """The first of pythons_with(module), or None."""
    return (pythons_with(module) or [None])[0]


def aws_cli():
    """The AWS CLI's script and the python3 that runs it, as a list to
    start it with, or a reason it cannot run for the current user."""
    aws = shutil.which("aws") or shutil.which("aws", path=netlab.SYSTEM_PATH)
    if not aws:
        return "no AWS CLI on PATH that this user can reach (CI's Debian 12 has none)"
    # pyenv's shim is a shell script that execs the version's own script
    r = subprocess.run(["sh", "-c", "command -v pyenv >/dev/null && pyenv which aws || echo " +
                        shlex.quote(aws)], capture_output=True, text=True)
    script = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else aws
    if not os.access(script, os.R_OK | os.X_OK):
        return "the AWS CLI at %s cannot be run by this user" % script
    r = subprocess.run([script, "--version"], capture_output=True, text=True)
    if r.returncode != 0:
        return "the AWS CLI at %s does not run for this user: %s" % (script, r.stderr.strip())
    return [script]


# A trust variable's control: the same command run with the variable(s)
# removed inside the sandbox, so the client falls back to its own default
# store, which lacks porta's run CA; verification must then fail.
TRUST_FAILS = ("CERTIFICATE_VERIFY_FAILED", "SSL validation failed", "certificate verify failed")


@unittest.skipUnless(PORTA and os.access(PORTA, os.X_OK), "PORTA_BIN names no porta binary")
class TrustVariables(netlab.LabCase):
    """Each variable sandbox/trust.c sets for a runtime whose default store
    is not the system one, tested with that runtime's client against a
    host porta terminates: the client verifies porta's leaf and completes
    its request only because of the variable, which the control (the
    same command with the variable unset inside) shows.  Deno reads
    DENO_CERT; it is not installed here, so it has no test."""
    shared_lab = SHARED

    def porta(self, options, argv, extra_env=None, passed=()):
        env = self.lab.env(GH_TOKEN=REAL, SSL_CERT_FILE=self.lab.ca_file, **(extra_env or {}))
        cmd = [PORTA, "run", "--env", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"]
        if passed:
            cmd += ["--env-pass", ",".join(passed)]
        if os.geteuid() == 0:
            cmd.append("--allow-root")
        return self.lab.run(cmd + options + ["--"] + argv, env=env, timeout=180, cwd="/")

    def api_requests(self):
        return [(q.get("method"), q.get("path")) for q in self.lab.requests(self.servers["api"])
                if q.get("method")]

    def assert_verify_fails(self, r, path):
        self.assertNotEqual(r.rc, 0, r.out + r.err)
        self.assertTrue(any(w in r.out + r.err for w in TRUST_FAILS), r.out + r.err)
        self.assertNotIn(path, [p for (_, p) in self.api_requests()])

    def test_python_requests(self):
        """requests verifies with REQUESTS_CA_BUNDLE, else CURL_CA_BUNDLE,
        else certifi's own cacert.pem, never the system store: without
        both variables it refuses porta's leaf."""
        python = python_with("requests")
        if not python:
            self.skipTest("no python3 with requests for this user (CI's Debian 12 has none)")
        code = ("import os,requests;t=os.environ['GH_TOKEN'];"
                "r=requests.get('https://api.example/requests',headers={'Authorization':'token '+t});"
                "print(r.status_code, r.headers['X-Echo']=='token '+t)")
        r = self.porta(["--secret", "GH_TOKEN@api.example"], [python, "-c", code])
        self.assertEqual(r.rc, 0, r.out + r.err)
        self.assertEqual(r.out.strip(), "200 True")
        self.assertEqual(self.api_requests(), [("GET", "/requests")])
        self.assertEqual(self.auth_seen(), ["token " + REAL])
        r = self.porta(["--secret", "GH_TOKEN@api.example"],
                       ["env", "-u", "REQUESTS_CA_BUNDLE", "-u", "CURL_CA_BUNDLE", python, "-c",
                        code.replace("/requests", "/control")])
        self.assert_verify_fails(r, "/control")

    def auth_seen(self):
        return [v for q in self.lab.requests(self.servers["api"])
                for (h, v) in q.get("headers", []) if h.lower() == "authorization"]

    def test_aws_cli(self):
        """The AWS CLI (botocore) verifies with AWS_CA_BUNDLE, else
        REQUESTS_CA_BUNDLE, else certifi's cacert.pem, never the system
        store.  s3api get-object from an endpoint on a terminated host,
        allowed by an --allow-http rule."""
        aws = aws_cli()
        if isinstance(aws, str):
            self.skipTest(aws)
        keys = dict(AWS_ACCESS_KEY_ID="AKIAEXAMPLE0123456789", AWS_SECRET_ACCESS_KEY="lab-secret",
                    AWS_CONFIG_FILE="/dev/null", AWS_SHARED_CREDENTIALS_FILE="/dev/null",
                    AWS_EC2_METADATA_DISABLED="true")
        # s3api get-object, one GET (s3 cp would HEAD first, which the rule
        # below does not allow)
        def get(key):
            return aws + ["s3api", "get-object", "--bucket", "bucket", "--key", key, "/dev/stdout",
                          "--region", "us-east-1", "--endpoint-url", "https://api.example"]
        options = ["--allow-http", "GET https://api.example/bucket/*"]
        r = self.porta(options, get("object"), extra_env=keys, passed=sorted(keys))
        self.assertEqual(r.rc, 0, r.out + r.err)
        self.assertEqual(self.api_requests(), [("GET", "/bucket/object")])
        # botocore parsed the answer (the body went to /dev/stdout, then this)
        self.assertIn('"ContentType": "text/plain"', r.out)
        r = self.porta(options, ["env", "-u", "AWS_CA_BUNDLE", "-u", "REQUESTS_CA_BUNDLE"] +
                       get("control"), extra_env=keys, passed=sorted(keys))
        self.assert_verify_fails(r, "/bucket/control")


PYPI, PYPI_FILES = "203.0.113.48", "203.0.113.49"


def pip_default_bundle(python):
    """The bundle pip verifies with when given no --cert / PIP_CERT: its
    vendored certifi's where() (Debian patches it to the system bundle)."""
    r = subprocess.run([python, "-c", "from pip._vendor import certifi; print(certifi.where())"],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


@unittest.skipUnless(PORTA and os.access(PORTA, os.X_OK), "PORTA_BIN names no porta binary")
class PipTrust(netlab.LabCase):
    """pip reads PIP_CERT as its --cert.  Without it, pip verifies with its
    vendored certifi's cacert.pem (a pyenv or venv pip from PyPI), except
    Debian's pip, whose certifi is patched to the system bundle (which
    porta's mount gives the run CA too).  pip's vendored requests also
    reads REQUESTS_CA_BUNDLE and CURL_CA_BUNDLE, so the control unsets all
    three inside; it must fail only for a pip whose default bundle is not
    the system one, and runs only for such a pip (each python3 found is
    tried: as root here, Debian's and pyenv's)."""

    @classmethod
    def lab_setup(cls, lab):
        cls.log = os.path.join(lab.workdir, "pypi-trust.jsonl")
        cert, key = lab.make_cert(["pypi.example", "files.pypi.example"])
        server = lab.popen([sys.executable, "-B", os.path.join(HERE, "pypi_registry.py"),
                            "--index-addr", PYPI, "--files-addr", PYPI_FILES,
                            "--files-host", "files.pypi.example", "--port", "443",
                            "--cert", cert, "--key", key, "--log", cls.log],
                           side="internet", cwd="/", stdout=subprocess.PIPE)
        if server.stdout.readline() != b"listening\n":
            raise netlab.LabError("the lab's package index did not start")
        lab.dns({"pypi.example": PYPI, "files.pypi.example": PYPI_FILES})
        return {}

    def fetched(self):
        with open(self.log) as f:
            return [(e.get("host"), e.get("path")) for e in map(json.loads, f) if e.get("kind") == "wheel"]

    def pip_download(self, python, dest, unset=()):
        env = self.lab.env(SSL_CERT_FILE=self.lab.ca_file)
        argv = [PORTA, "run", "--env", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
                "-v", dest, "--allow-http", "GET https://pypi.example/*",
                "--allow-http", "GET https://files.pypi.example/*"]
        if os.geteuid() == 0:
            argv.append("--allow-root")
        pip = [python, "-m", "pip", "download", "--no-deps", "--no-cache-dir", "--no-input",
               "--disable-pip-version-check", "--retries", "0", "-d", dest,
               "--index-url", "https://pypi.example/simple/", "lab-log"]
        # PIP_CONFIG_FILE=/dev/null: no pip.conf (a host's /etc/pip.conf
        # may name a cert= of its own, which would decide the control)
        cmd = ["env"] + [a for v in unset for a in ("-u", v)] + ["PIP_CONFIG_FILE=/dev/null"] + pip
        return self.lab.run(argv + ["--"] + cmd, env=env, timeout=180, cwd="/")

    def test_pip_download(self):
        pythons = pythons_with("pip")
        if not pythons:
            self.skipTest("no python3 with pip for this user")
        for python in pythons:
            with self.subTest(python=python):
                self.download_and_control(python)

    def download_and_control(self, python):
        dest = tempfile.mkdtemp(prefix="pip-trust-", dir=self.lab.home)
        os.chmod(dest, 0o777)
        self.addCleanup(shutil.rmtree, dest, True)
        before = len(self.fetched())
        r = self.pip_download(python, dest)
        self.assertEqual(r.rc, 0, r.out + r.err)
        self.assertEqual(os.listdir(dest), ["lab_log-1.1.0-py3-none-any.whl"])
        self.assertEqual([h for (h, _) in self.fetched()[before:]], ["files.pypi.example"])
        default = pip_default_bundle(python)
        if default in (None, "/etc/ssl/certs/ca-certificates.crt"):
            return  # Debian's pip: no store of its own to fall back on
        os.unlink(os.path.join(dest, "lab_log-1.1.0-py3-none-any.whl"))
        r = self.pip_download(python, dest, unset=("PIP_CERT", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"))
        self.assertNotEqual(r.rc, 0, r.out + r.err)
        self.assertIn("CERTIFICATE_VERIFY_FAILED", r.out + r.err)
        self.assertEqual(os.listdir(dest), [])
        self.assertEqual(len(self.fetched()), before + 1, "the control fetched a wheel")


CRATES_INDEX, CRATES_STATIC = "203.0.113.50", "203.0.113.51"


@unittest.skipUnless(PORTA and os.access(PORTA, os.X_OK), "PORTA_BIN names no porta binary")
class CargoTrust(netlab.LabCase):
    """cargo fetch from a sparse registry on two terminated hosts (the lab's
    crates_registry.py), with a CARGO_HOME whose config names no cainfo:
    cargo takes CARGO_HTTP_CAINFO, which porta sets.  cargo's libcurl
    otherwise verifies with the system store, which porta's mount gives
    the run CA too, so unsetting the variable is no control here: the
    fetch shows porta's value for it is a bundle cargo accepts."""

    @classmethod
    def lab_setup(cls, lab):
        cls.log = os.path.join(lab.workdir, "crates-trust.jsonl")
        index_cert, index_key = lab.make_cert(["index.crates.example"])
        static_cert, static_key = lab.make_cert(["static.crates.example"])
        server = lab.popen([sys.executable, "-B", os.path.join(HERE, "crates_registry.py"),
                            "--index-addr", CRATES_INDEX, "--static-addr", CRATES_STATIC,
                            "--index-name", "index.crates.example",
                            "--static-name", "static.crates.example", "--log", cls.log,
                            "--index-cert", index_cert, "--index-key", index_key,
                            "--static-cert", static_cert, "--static-key", static_key],
                           side="internet", cwd="/", stdout=subprocess.PIPE)
        if server.stdout.readline() != b"listening\n":
            raise netlab.LabError("the lab's cargo registry did not start")
        lab.dns({"index.crates.example": CRATES_INDEX, "static.crates.example": CRATES_STATIC})
        return {}

    def test_cargo_fetch(self):
        import cargo_build
        import crates_registry
        said = io.StringIO()
        try:
            with contextlib.redirect_stdout(said):
                cargo, rustc, _ = cargo_build.find_toolchain(None)
        except SystemExit:
            # find_toolchain's skip() printed the reason and exits 77
            self.skipTest(said.getvalue().strip().replace("netlab/cargo-build: skipped: ", "") +
                          " (CI installs none)")
        work = tempfile.mkdtemp(prefix="cargo-trust-", dir=self.lab.home)
        os.chmod(work, 0o777)
        self.addCleanup(shutil.rmtree, work, True)
        project, home = os.path.join(work, "project"), os.path.join(work, "cargo-home")
        for rel, text in crates_registry.project_files().items():
            os.makedirs(os.path.dirname(os.path.join(project, rel)), exist_ok=True)
            with open(os.path.join(project, rel), "w") as f:
                f.write(text)
        os.makedirs(home)
        with open(os.path.join(home, "config.toml"), "w") as f:
            f.write('[source.crates-io]\nreplace-with = "lab"\n\n'
                    '[source.lab]\nregistry = "sparse+https://index.crates.example/"\n')
        path = os.pathsep.join(dict.fromkeys([os.path.dirname(cargo), os.path.dirname(rustc),
                                              netlab.SYSTEM_PATH]))
        env = self.lab.env(PATH=path, CARGO_HOME=home, SSL_CERT_FILE=self.lab.ca_file)
        argv = [PORTA, "run", "--env", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
                "--env-pass", "CARGO_HOME,PATH", "-v", work,
                "--allow-http", "GET https://index.crates.example/*",
                "--allow-http", "GET https://static.crates.example/*"]
        if os.geteuid() == 0:
            argv.append("--allow-root")
        script = 'cd "%s" && echo "cainfo=$CARGO_HTTP_CAINFO" && cargo fetch' % project
        r = self.lab.run(argv + ["--", "sh", "-c", script], env=env, timeout=300, cwd="/")
        self.assertEqual(r.rc, 0, r.out + r.err)
        self.assertIn("cainfo=/", r.out)
        with open(self.log) as f:
            hosts = {json.loads(l).get("host") for l in f if l.strip()}
        self.assertEqual(hosts, {"index.crates.example", "static.crates.example"})


NPM_REGISTRY = "203.0.113.47"
NPM_REAL = "npm_RealValue0123456789abcdefABCDEFxy"


@unittest.skipUnless(PORTA and os.access(PORTA, os.X_OK), "PORTA_BIN names no porta binary")
class NpmSecret(netlab.LabCase):
    """npm installs from a registry that requires a bearer token, the
    token in .npmrc coming from NPM_TOKEN, which holds the placeholder."""

    @classmethod
    def lab_setup(cls, lab):
        cls.log = os.path.join(lab.workdir, "registry-secret.jsonl")
        token_file = os.path.join(lab.workdir, "registry-secret-token")
        with open(token_file, "w") as f:
            f.write(NPM_REAL + "\n")
        cert, key = lab.make_cert(["registry.example"])
        server = lab.popen([sys.executable, "-B", os.path.join(HERE, "npm_registry.py"),
                            "--addr", NPM_REGISTRY, "--port", "80", "--host", "registry.example",
                            "--tls-port", "443", "--cert", cert, "--key", key,
                            "--log", cls.log, "--token-file", token_file],
                           side="internet", cwd="/", stdout=subprocess.PIPE)
        if server.stdout.readline() != b"listening\n":
            raise netlab.LabError("the lab's npm registry did not start")
        lab.dns({"registry.example": NPM_REGISTRY})
        cls.package = [n for n, deps in npm_registry.package_tree() if not deps][0]
        return {}

    def test_install_with_the_token_as_a_placeholder(self):
        why = npm_unavailable()
        if why:
            self.skipTest(why)
        project = tempfile.mkdtemp(prefix="npm-secret-", dir=self.lab.home)
        os.chmod(project, 0o755)
        self.addCleanup(shutil.rmtree, project, True)
        with open(os.path.join(project, "package.json"), "w") as f:
            json.dump({"name": "secret-project", "version": "1.0.0", "private": True}, f)
        with open(os.path.join(project, ".npmrc"), "w") as f:
            f.write("registry=https://registry.example/\n"
                    "//registry.example/:_authToken=${NPM_TOKEN}\n")
        env = self.lab.env(NPM_TOKEN=NPM_REAL, SSL_CERT_FILE=self.lab.ca_file)
        argv = [PORTA, "run", "--env", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
                "-v", project, "--secret", "NPM_TOKEN@registry.example"]
        if os.geteuid() == 0:
            argv.append("--allow-root")
        script = ('cd "%s" && npm install --cache "%s/.cache" --no-audit --no-fund '
                  '--no-update-notifier %s' % (project, project, self.package))
        r = self.lab.run(argv + ["--", "sh", "-c", script], env=env, timeout=180, cwd="/")
        self.assertEqual(r.rc, 0, r.out + r.err)
        with open(os.path.join(project, "node_modules", self.package, "package.json")) as f:
            self.assertEqual(json.load(f)["version"], npm_registry.LATEST)
        with open(self.log) as f:
            log = [json.loads(l) for l in f if l.strip()]
        self.assertEqual({tuple(e["authorization"]) for e in log}, {("Bearer " + NPM_REAL,)})
        self.assertNotIn(NPM_REAL, r.out + r.err)


GIT = "203.0.113.43"
GIT_ENV = dict(GIT_TERMINAL_PROMPT="0", GIT_AUTHOR_NAME="lab", GIT_AUTHOR_EMAIL="lab@git.example",
               GIT_COMMITTER_NAME="lab", GIT_COMMITTER_EMAIL="lab@git.example")


@unittest.skipUnless(PORTA and os.access(PORTA, os.X_OK), "PORTA_BIN names no porta binary")
class GitSecret(netlab.LabCase):
    """git clone and push over HTTPS to a lab server that checks the token
    (Basic, any user), the command holding only the placeholder."""

    @classmethod
    def lab_setup(cls, lab):
        cls.git_server = lab.server_git(GIT, names=["git.example"], token=REAL,
                                        files={"README": "token-checked\n"})
        lab.dns({"git.example": GIT})
        return {}

    def test_clone_and_push(self):
        work = tempfile.mkdtemp(prefix="secret-git-", dir=self.lab.home)
        os.chmod(work, 0o755)
        self.addCleanup(shutil.rmtree, work, True)
        env = self.lab.env(GIT_TOKEN=REAL, SSL_CERT_FILE=self.lab.ca_file, **GIT_ENV)
        script = ('cd "' + work + '" && '
                  'git clone -q "https://x-access-token:$GIT_TOKEN@git.example/repo.git" r && '
                  'cd r && echo pushed > pushed.txt && git add pushed.txt && '
                  'git commit -qm pushed && git push origin HEAD:main && echo pushed-ok; '
                  'git remote get-url origin')
        argv = [PORTA, "run", "--env", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
                "--env-pass", ",".join(GIT_ENV), "-v", work, "--secret", "GIT_TOKEN@git.example"]
        if os.geteuid() == 0:
            argv.append("--allow-root")
        r = self.lab.run(argv + ["--", "sh", "-c", script], env=env, timeout=120, cwd="/")
        self.assertEqual(r.rc, 0, r.err)
        self.assertIn("pushed-ok", r.out, r.err)
        self.assertNotIn(REAL, r.out + r.err)
        # the remote URL the clone kept holds the placeholder, not the value
        with open(os.path.join(work, "r", ".git", "config")) as f:
            self.assertNotIn(REAL, f.read())
        shown = subprocess.run(["git", "--git-dir", self.git_server.repo, "show", "main:pushed.txt"],
                               capture_output=True, text=True)
        self.assertEqual(shown.stdout, "pushed\n", shown.stderr)


if __name__ == "__main__":
    unittest.main()
