"""tests/netlab/test_secrets.py: --secret and --allow-http through porta, in
the lab (issue 14).  Each client runs inside porta with a secret's
placeholder in its environment; the lab's HTTPS servers (netlab.py) record
what they received.  Checked: the server sees the real value, the command
sees only the placeholder (its environment and /proc/self/environ), a
response header echoing the value comes back as the placeholder, another
host's placeholder is refused with nothing reaching that host, and
--allow-http refuses what no rule allows.

porta is found in PORTA_BIN (ctest sets it); porta verifies the lab's
servers with SSL_CERT_FILE (the lab CA) in its own environment, and the
command is given the system bundle back with --env (porta keeps a user's
own SSL_CERT_FILE inside, which would not hold porta's CA)."""
import json
import os
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
        self.assertIn("(secret elsewhere)", r.err)

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
