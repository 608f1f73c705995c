"""netlab/selftest-tls: the lab servers TLS termination's tests need,
proved without porta.

TLS termination (placeholder secrets, per-request rules) is
tested end to end by running clients under porta against these servers; this
suite proves first that each server does what those tests will count on,
with bare clients:

  - HTTPS servers record every request head (method, path as sent, every
    header in order with duplicates, SNI), and keep-alive connections
    request by request;
  - a server sends a request header's value back (X-Echo and the body);
  - git over HTTPS checks a token (Basic auth, 401 otherwise), for clone
    and for push;
  - the npm registry can require a bearer token, which npm sends from
    .npmrc;
  - certificates a verifying client must refuse, each for one reason
    (unknown CA, expired, wrong name), next to a control that the same
    certificate is otherwise good.

Every client runs inside the lab (lab.run), so nothing leaves it.  Runs as
root and as an unprivileged user.
"""

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netlab  # noqa: E402
import npm_registry  # noqa: E402

PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
HERE = os.path.dirname(os.path.abspath(__file__))

API, OTHER, ECHO, KEEP = "203.0.113.101", "203.0.113.102", "203.0.113.103", "203.0.113.104"
GIT = "203.0.113.110"
REGISTRY = "203.0.113.120"
GOOD, UNKNOWN_CA, EXPIRED, WRONG = ("203.0.113.130", "203.0.113.131", "203.0.113.132",
                                    "203.0.113.133")

# Looks like a token, means nothing anywhere: the lab's "real" secret.
TOKEN = "ghp_netlabREALsecret0123456789abcdefABCDEF"
WRONG_TOKEN = "ghp_netlabWRONGsecret0123456789abcdefABCD"

# A TLS client that sends its argument (with \r\n escapes) as raw bytes on
# one TLS connection to ADDR, verifying HOST, then reads until the server
# has answered COUNT responses or closed; prints the status lines.
RAW_TLS = r"""
import re, socket, ssl, sys
host, addr, cafile, count, payload = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
ctx = ssl.create_default_context(cafile=cafile)
s = ctx.wrap_socket(socket.create_connection((addr, 443), timeout=10), server_hostname=host)
s.sendall(payload.encode("latin-1").decode("unicode_escape").encode("latin-1"))
got = b""
while got.count(b"HTTP/1.1 ") < count:
    chunk = s.recv(65536)
    if not chunk:
        break
    got += chunk
print("\n".join(re.findall(r"HTTP/1\.1 [0-9]{3} [^\r\n]*", got.decode("latin-1"))))
"""


class TLSLab(netlab.LabCase):
    lab_required = True

    def run_ok(self, argv, **kw):
        res = self.lab.run(argv, **kw)
        self.assertEqual(res.rc, 0, "argv: %r\n%s\n%s" % (argv, res.out, res.err))
        return res

    def curl(self, *args, **kw):
        return self.lab.run(["curl", "-sS", "-m", "10", "--cacert", self.lab.ca_file] + list(args),
                            **kw)


class RequestHeads(TLSLab):

    @classmethod
    def lab_setup(cls, lab):
        cls.api = lab.server_tls(API, names=["api.example"])
        cls.other = lab.server_tls(OTHER, names=["other.example"])
        cls.echo = lab.server_tls(ECHO, names=["echo.example"], echo_header="Authorization")
        cls.keep = lab.server_tls(KEEP, names=["keep.example"], keepalive=True)
        lab.dns({"api.example": API, "other.example": OTHER, "echo.example": ECHO,
                 "keep.example": KEEP})

    def test_every_header_in_order_with_duplicates_and_the_sni(self):
        res = self.curl("-H", "Authorization: Bearer " + TOKEN, "-H", "X-Dup: one",
                        "-H", "X-Dup: two", "https://api.example/v1/repos?page=2&q=a%20b")
        self.assertEqual(res.rc, 0, res.err)
        [req] = self.lab.requests(self.api)
        self.assertEqual((req["sni"], req["method"], req["path"], req["status"]),
                         ("api.example", "GET", "/v1/repos?page=2&q=a%20b", 200))
        self.assertEqual(req["headers"][0], ("Host", "api.example"))
        self.assertEqual([h for h in req["headers"] if h[0] in ("Authorization", "X-Dup")],
                         [("Authorization", "Bearer " + TOKEN), ("X-Dup", "one"), ("X-Dup", "two")])
        self.assertEqual(self.lab.header_values(self.api, "authorization"), ["Bearer " + TOKEN])
        # "zero bytes reached the other server" is a count that can move:
        # nothing so far, and a request to it shows up
        self.assertEqual((self.lab.hits(self.other), self.lab.bytes_received(self.other)), (0, 0))
        self.assertEqual(self.lab.requests(self.other), [])
        self.assertEqual(self.curl("https://other.example/").rc, 0)
        self.assertEqual(self.lab.hits(self.other), 1)
        self.assertGreater(self.lab.bytes_received(self.other), 0)

    def test_names_as_sent_repeated_headers_and_the_body(self):
        # curl normalises nothing here either, but a raw client shows the
        # record keeps the spelling of each name and every repetition
        # (a proxy that lets the first of two Authorization headers win,
        # docs/style.md §17, must be visible)
        payload = (r"POST /upload HTTP/1.1\r\nHost: api.example\r\nauthorization: Basic first\r\n"
                   r"AUTHORIZATION: Bearer second\r\nContent-Length: 11\r\n\r\nbody secret")
        res = self.run_ok([PY, "-c", RAW_TLS, "api.example", API, self.lab.ca_file, "1", payload])
        self.assertEqual(res.out.strip(), "HTTP/1.1 200 OK")
        [req] = self.lab.requests(self.api)
        self.assertEqual(req["headers"], [("Host", "api.example"), ("authorization", "Basic first"),
                                          ("AUTHORIZATION", "Bearer second"),
                                          ("Content-Length", "11")])
        self.assertEqual((req["method"], req["body_length"], req["body"]),
                         ("POST", 11, "body secret"))
        self.assertEqual(self.lab.header_values(self.api, "Authorization"),
                         ["Basic first", "Bearer second"])

    def test_keepalive_records_each_request_with_its_index(self):
        # curl reuses one connection for two URLs
        res = self.curl("https://keep.example/a", "https://keep.example/b?x=1")
        self.assertEqual(res.rc, 0, res.err)
        self.assertEqual(res.out, "tls %s:443 keep.example\n" % KEEP * 2)
        reqs = self.lab.requests(self.keep)
        self.assertEqual([(r["index"], r["path"], r["sni"]) for r in reqs],
                         [(0, "/a", "keep.example"), (1, "/b?x=1", "keep.example")])
        self.assertEqual(self.lab.hits(self.keep), 1)
        # pipelined: a chunked body, then a request whose Host is not the
        # SNI's, sent together before any answer
        self.lab.reset()
        payload = (r"POST /up HTTP/1.1\r\nHost: keep.example\r\nTransfer-Encoding: chunked\r\n\r\n"
                   r"4\r\nabcd\r\n0\r\n\r\n"
                   r"DELETE /repo HTTP/1.1\r\nHost: fronted.example\r\n\r\n")
        res = self.run_ok([PY, "-c", RAW_TLS, "keep.example", KEEP, self.lab.ca_file, "2", payload])
        self.assertEqual(res.out.splitlines(), ["HTTP/1.1 200 OK"] * 2)
        reqs = self.lab.requests(self.keep)
        self.assertEqual([(r["index"], r["method"], r["path"], r["host"], r["sni"], r["body"])
                          for r in reqs],
                         [(0, "POST", "/up", ["keep.example"], "keep.example", "abcd"),
                          (1, "DELETE", "/repo", ["fronted.example"], "keep.example", "")])
        self.assertEqual(self.lab.hits(self.keep), 1)

    def test_keepalive_records_an_incomplete_request(self):
        # "zero bytes of the request reached the server" must be able to
        # fail on a part of one: a head cut short is a record of its own,
        # after the complete requests, with the bytes it had
        whole = r"GET /a HTTP/1.1\r\nHost: keep.example\r\n\r\n"
        part = r"GET /b?token=x HTTP/1.1\r\nHost: kee"
        self.run_ok([PY, "-c", RAW_TLS, "keep.example", KEEP, self.lab.ca_file, "1", whole + part])
        reqs = self.lab.requests(self.keep)
        self.assertEqual([(r["index"], r.get("path"), r.get("http_error"), r.get("partial_bytes"))
                          for r in reqs],
                         [(0, "/a", None, None),
                          (1, None, "incomplete request",
                           len(part.encode().decode("unicode_escape")))])
        # a connection that ends after whole requests has no such record
        self.lab.reset()
        self.run_ok([PY, "-c", RAW_TLS, "keep.example", KEEP, self.lab.ca_file, "1", whole])
        self.assertEqual([r.get("http_error") for r in self.lab.requests(self.keep)], [None])

    def test_one_request_per_connection_without_keepalive(self):
        # the control for the test above: the same two URLs on a server
        # without keepalive take two connections, and records carry no index
        res = self.curl("https://api.example/a", "https://api.example/b")
        self.assertEqual(res.rc, 0, res.err)
        reqs = self.lab.requests(self.api)
        self.assertEqual([r["path"] for r in reqs], ["/a", "/b"])
        self.assertEqual(self.lab.hits(self.api), 2)
        self.assertNotIn("index", reqs[0])

    def test_echo_header_sends_the_received_value_back(self):
        res = self.curl("-D", "-", "-H", "Authorization: Bearer " + TOKEN, "https://echo.example/")
        self.assertEqual(res.rc, 0, res.err)
        head, _, body = res.out.partition("\r\n\r\n")
        self.assertIn("\r\nX-Echo: Bearer %s\r\n" % TOKEN, head + "\r\n")
        self.assertEqual(body, "tls %s:443\nAuthorization: Bearer %s\n" % (ECHO, TOKEN))
        self.assertEqual(self.lab.header_values(self.echo, "Authorization"), ["Bearer " + TOKEN])
        # two values: two X-Echo lines, in order; none: no X-Echo at all
        res = self.curl("-D", "-", "-H", "Authorization: a", "-H", "Authorization: b",
                        "https://echo.example/")
        head = res.out.partition("\r\n\r\n")[0]
        self.assertEqual([l for l in head.split("\r\n") if l.startswith("X-Echo")],
                         ["X-Echo: a", "X-Echo: b"])
        res = self.curl("-D", "-", "https://echo.example/")
        head, _, body = res.out.partition("\r\n\r\n")
        self.assertNotIn("X-Echo", head)
        self.assertEqual(body, "tls %s:443\n" % ECHO)
        # a server without echo_header sends nothing back
        res = self.curl("-D", "-", "-H", "Authorization: Bearer " + TOKEN, "https://api.example/")
        self.assertEqual(res.rc, 0, res.err)
        self.assertNotIn("X-Echo", res.out)
        self.assertNotIn(TOKEN, res.out)


GIT_ENV = dict(GIT_TERMINAL_PROMPT="0", GIT_AUTHOR_NAME="lab", GIT_AUTHOR_EMAIL="lab@git.example",
               GIT_COMMITTER_NAME="lab", GIT_COMMITTER_EMAIL="lab@git.example")

# A credential helper that answers "get" with the token in $LAB_TOKEN.
HELPER = ('!f() { test "$1" = get && printf "username=x-access-token\\npassword=%s\\n" '
          '"$LAB_TOKEN"; }; f')


class GitToken(TLSLab):

    @classmethod
    def lab_setup(cls, lab):
        cls.repo_server = lab.server_git(GIT, names=["git.example"], token=TOKEN,
                                 files={"README": "token-checked\n"})
        lab.dns({"git.example": GIT})

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp(prefix="git-", dir=self.lab.home)
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def git(self, *args, token=None, **kw):
        env = self.lab.ca_env(**GIT_ENV, **({"LAB_TOKEN": token} if token else {}))
        return self.lab.run(["git"] + list(args), env=env, timeout=60, **kw)

    def url(self, token):
        return "https://x-access-token:%s@git.example/repo.git" % token

    def basic(self, token):
        return "Basic " + base64.b64encode(("x-access-token:" + token).encode()).decode()

    def assert_every_answer_followed_the_token(self, reqs):
        """200 exactly where the request carried the right token."""
        for r in reqs:
            auth = [v for k, v in r["headers"] if k.lower() == "authorization"]
            self.assertEqual(r["status"] == 200, auth == [self.basic(TOKEN)], r)

    def test_clone_with_the_token_in_the_url(self):
        dest = os.path.join(self.tmp, "clone")
        res = self.git("clone", "-q", self.url(TOKEN), dest)
        self.assertEqual(res.rc, 0, res.err)
        with open(os.path.join(dest, "README")) as f:
            self.assertEqual(f.read(), "token-checked\n")
        reqs = self.lab.requests(self.repo_server)
        self.assert_every_answer_followed_the_token(reqs)
        ok = [(r["method"], r["path"]) for r in reqs if r["status"] == 200]
        self.assertIn(("GET", "/repo.git/info/refs?service=git-upload-pack"), ok)
        self.assertIn(("POST", "/repo.git/git-upload-pack"), ok)
        self.assertEqual({r["sni"] for r in reqs}, {"git.example"})

    def test_clone_through_a_credential_helper_after_the_401(self):
        dest = os.path.join(self.tmp, "clone")
        res = self.git("-c", "credential.helper=", "-c", "credential.helper=" + HELPER,
                       "clone", "-q", "https://git.example/repo.git", dest, token=TOKEN)
        self.assertEqual(res.rc, 0, res.err)
        self.assertTrue(os.path.exists(os.path.join(dest, "README")))
        reqs = self.lab.requests(self.repo_server)
        # git asks its helper only when challenged: first a 401 without
        # credentials, then the same request with the token
        self.assertEqual((reqs[0]["status"], reqs[0]["path"]),
                         (401, "/repo.git/info/refs?service=git-upload-pack"))
        self.assertFalse([v for k, v in reqs[0]["headers"] if k.lower() == "authorization"])
        self.assertEqual(reqs[1]["path"], reqs[0]["path"])
        self.assertEqual(reqs[1]["status"], 200)
        self.assert_every_answer_followed_the_token(reqs)

    def test_a_wrong_token_or_none_gets_401(self):
        res = self.git("clone", "-q", self.url(WRONG_TOKEN), os.path.join(self.tmp, "wrong"))
        self.assertEqual(res.rc, 128, res.err)
        self.assertIn("Authentication failed", res.err)
        reqs = self.lab.requests(self.repo_server)
        self.assertTrue(reqs)
        self.assertEqual({r["status"] for r in reqs}, {401})
        self.assertIn(self.basic(WRONG_TOKEN), self.lab.header_values(self.repo_server, "Authorization"))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "wrong", "README")))
        # no credentials at all, and no prompt to ask
        self.lab.reset()
        res = self.git("clone", "-q", "https://git.example/repo.git", os.path.join(self.tmp, "none"))
        self.assertEqual(res.rc, 128, res.err)
        self.assertEqual([r["status"] for r in self.lab.requests(self.repo_server)], [401])

    def test_push_a_new_commit(self):
        work = os.path.join(self.tmp, "work")
        self.assertEqual(self.git("clone", "-q", self.url(TOKEN), work).rc, 0)
        with open(os.path.join(work, "pushed.txt"), "w") as f:
            f.write("pushed through the lab\n")
        self.assertEqual(self.git("-C", work, "add", "pushed.txt").rc, 0)
        self.assertEqual(self.git("-C", work, "commit", "-q", "-m", "a pushed commit").rc, 0)
        head = self.git("-C", work, "rev-parse", "HEAD").out.strip()
        # a wrong token cannot push: the served repository is unchanged
        self.lab.reset()
        res = self.git("-C", work, "push", "-q", self.url(WRONG_TOKEN), "HEAD:main")
        self.assertEqual(res.rc, 128, res.err)
        self.assertEqual({r["status"] for r in self.lab.requests(self.repo_server)}, {401})
        self.assertNotEqual(self.served_main(), head)
        # the right one can
        self.lab.reset()
        res = self.git("-C", work, "push", "-q", self.url(TOKEN), "HEAD:main")
        self.assertEqual(res.rc, 0, res.err)
        self.assertEqual(self.served_main(), head)
        reqs = self.lab.requests(self.repo_server)
        self.assert_every_answer_followed_the_token(reqs)
        self.assertIn(("POST", "/repo.git/git-receive-pack", 200),
                      [(r["method"], r["path"], r["status"]) for r in reqs])
        show = subprocess.run(["git", "--git-dir", self.repo_server.repo, "show", "main:pushed.txt"],
                              capture_output=True, text=True, env={"PATH": netlab.SYSTEM_PATH})
        self.assertEqual(show.stdout, "pushed through the lab\n")

    def served_main(self):
        r = subprocess.run(["git", "--git-dir", self.repo_server.repo, "rev-parse", "main"],
                           capture_output=True, text=True, env={"PATH": netlab.SYSTEM_PATH})
        return r.stdout.strip()


def npm_unavailable():
    npm = shutil.which("npm", path=netlab.SYSTEM_PATH)
    if not npm:
        return "npm is not installed (scripts/test.sh installs Debian's)"
    return None


class NpmToken(TLSLab):
    """npm_registry.py --token-file: the registry of a private package."""

    @classmethod
    def lab_setup(cls, lab):
        cls.log = os.path.join(lab.workdir, "registry.jsonl")
        token_file = os.path.join(lab.workdir, "registry-token")
        with open(token_file, "w") as f:
            f.write(TOKEN + "\n")
        cert, key = lab.make_cert(["registry.example"])
        server = lab.popen([sys.executable, "-B", os.path.join(HERE, "npm_registry.py"),
                            "--addr", REGISTRY, "--port", "80", "--host", "registry.example",
                            "--tls-port", "443", "--cert", cert, "--key", key,
                            "--log", cls.log, "--token-file", token_file],
                           side="internet", cwd="/", stdout=subprocess.PIPE)
        line = server.stdout.readline()
        if line != b"listening\n":
            raise netlab.LabError("the lab's npm registry did not start (it printed %r)" % line)
        lab.dns({"registry.example": REGISTRY})
        # a package with no dependencies: one packument, one tarball
        cls.package = [n for n, deps in npm_registry.package_tree() if not deps][0]

    def setUp(self):
        why = npm_unavailable()
        if why:
            self.skipTest(why)
        super().setUp()
        self.project = tempfile.mkdtemp(prefix="npm-", dir=self.lab.home)
        self.addCleanup(shutil.rmtree, self.project, True)
        with open(os.path.join(self.project, "package.json"), "w") as f:
            json.dump({"name": "token-project", "version": "1.0.0", "private": True}, f)
        # what a project of a private registry holds: the token comes from
        # the environment, never from the file
        with open(os.path.join(self.project, ".npmrc"), "w") as f:
            f.write("registry=https://registry.example/\n"
                    "//registry.example/:_authToken=${NPM_TOKEN}\n"
                    "cafile=%s\n" % self.lab.ca_file)
        with open(self.log, "a"):
            self.log_offset = os.path.getsize(self.log)

    def npm_install(self, **env):
        cache = os.path.join(self.project, ".cache")      # cold: nothing comes from a cache
        argv = ["npm", "install", "--cache", cache, "--no-audit", "--no-fund",
                "--no-update-notifier", self.package]
        return self.lab.run(argv, env=self.lab.env(**env), cwd=self.project, timeout=120)

    def registry_log(self):
        with open(self.log) as f:
            f.seek(self.log_offset)
            return [json.loads(l) for l in f if l.strip()]

    def test_install_with_the_token_from_the_environment(self):
        res = self.npm_install(NPM_TOKEN=TOKEN)
        self.assertEqual(res.rc, 0, res.out + res.err)
        with open(os.path.join(self.project, "node_modules", self.package, "package.json")) as f:
            self.assertEqual(json.load(f)["version"], npm_registry.LATEST)
        log = self.registry_log()
        self.assertEqual({(e["kind"], e["status"]) for e in log},
                         {("packument", 200), ("tarball", 200)})
        self.assertEqual({tuple(e["authorization"]) for e in log}, {("Bearer " + TOKEN,)})
        self.assertEqual({e["tls"] for e in log}, {True})

    def test_install_fails_with_a_wrong_token(self):
        res = self.npm_install(NPM_TOKEN=WRONG_TOKEN)
        self.assertNotEqual(res.rc, 0)
        self.assertIn("E401", res.out + res.err)
        self.assertFalse(os.path.exists(os.path.join(self.project, "node_modules", self.package)))
        log = self.registry_log()
        self.assertTrue(log)
        self.assertEqual({e["status"] for e in log}, {401})
        self.assertEqual({tuple(e["authorization"]) for e in log}, {("Bearer " + WRONG_TOKEN,)})

    def test_install_fails_without_the_token(self):
        res = self.npm_install()          # NPM_TOKEN unset
        self.assertNotEqual(res.rc, 0)
        self.assertFalse(os.path.exists(os.path.join(self.project, "node_modules", self.package)))
        # nothing that got through: every request the registry saw was refused
        log = self.registry_log()
        self.assertEqual({e["status"] for e in log} - {401}, set(), log)
        self.assertNotIn(TOKEN, json.dumps(log))


class BadCertificates(TLSLab):
    """Upstream certificates a verifying client must refuse, each for one
    reason: the control beside each shows the certificate is otherwise
    good, so the refusal is for that reason only."""

    @classmethod
    def lab_setup(cls, lab):
        cls.good = lab.server_tls(GOOD, names=["good.example"])
        cls.unknown = lab.server_tls(UNKNOWN_CA, names=["unknown-ca.example"], flaw="unknown-ca")
        cls.expired = lab.server_tls(EXPIRED, names=["expired.example"], flaw="expired")
        cls.wrong = lab.server_tls(WRONG, names=["wrong-name.example"], flaw="wrong-name")
        lab.dns({"good.example": GOOD, "unknown-ca.example": UNKNOWN_CA,
                 "expired.example": EXPIRED, "wrong-name.example": WRONG,
                 netlab.WRONG_NAME: WRONG})

    REASONS = {"unknown-ca": "unable to get local issuer certificate",
               "expired": "certificate has expired",
               "wrong-name": "no alternative certificate subject name matches target host name"}

    def assert_refused_for(self, res, flaw):
        self.assertEqual(res.rc, 60, res.err)       # CURLE_PEER_FAILED_VERIFICATION
        for other, reason in self.REASONS.items():
            (self.assertIn if other == flaw else self.assertNotIn)(reason, res.err)

    def openssl(self, *args):
        return subprocess.run(["openssl"] + list(args), capture_output=True, text=True)

    def test_a_good_certificate_is_accepted(self):
        res = self.curl("https://good.example/")
        self.assertEqual((res.rc, res.out), (0, "tls %s:443\n" % GOOD), res.err)

    def test_unknown_ca(self):
        self.assert_refused_for(self.curl("https://unknown-ca.example/"), "unknown-ca")
        [rec] = self.lab.requests(self.unknown)
        self.assertEqual(rec["sni"], "unknown-ca.example")
        self.assertNotIn("method", rec)
        # control: a client given the other CA accepts it
        res = self.lab.run(["curl", "-sS", "-m", "10", "--cacert", self.lab.other_ca_file,
                            "https://unknown-ca.example/"])
        self.assertEqual(res.rc, 0, res.err)

    def test_expired(self):
        self.assert_refused_for(self.curl("https://expired.example/"), "expired")
        # notAfter is in the past ...
        self.assertEqual(self.openssl("x509", "-in", self.expired.cert, "-noout",
                                      "-checkend", "0").returncode, 1)
        # ... and, time aside, the chain and the name verify (control)
        ok = self.openssl("verify", "-no_check_time", "-CAfile", self.lab.ca_file,
                          "-verify_hostname", "expired.example", self.expired.cert)
        self.assertEqual(ok.returncode, 0, ok.stdout + ok.stderr)
        bad = self.openssl("verify", "-CAfile", self.lab.ca_file, self.expired.cert)
        self.assertIn("certificate has expired", bad.stdout + bad.stderr)

    def test_wrong_name(self):
        self.assert_refused_for(self.curl("https://wrong-name.example/"), "wrong-name")
        self.assertEqual(self.lab.requests(self.wrong)[0]["sni"], "wrong-name.example")
        # control: the same server, asked by the name on its certificate
        res = self.curl("https://%s/" % netlab.WRONG_NAME)
        self.assertEqual((res.rc, res.out), (0, "tls %s:443\n" % WRONG), res.err)


if __name__ == "__main__":
    unittest.main()
