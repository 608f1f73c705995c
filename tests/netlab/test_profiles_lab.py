"""netlab/profiles: porta's built-in profiles at work, in the lab.

Each test runs a real tool under `porta run --profile NAME` alone (plus the
project's -v and the lab CA the tool must trust) against a lab server that
answers on the very names the built-in profile allows: the names are read
from the profile file installed beside porta, never written here, and the
lab's resolver answers them with addresses inside the lab, so nothing
leaves it.  Each test has its control: the same command with the
profile's rules replaced by an unrelated --allow-net fails, so it is the
profile that let the tool through.

  npm         npm install of a package from the lab's npm registry
              (npm_registry.py), its cache in ~/.npm (--caches);
  pip         pip install -r requirements.txt into a fresh venv from the
              lab's package index (pypi_registry.py: the index on the
              profile's first name, the wheels on its second), its cache
              in ~/.cache/pip (--caches);
  git-github  git clone over HTTPS from the lab's git server;
  cargo, go, claude-code, codex
              their tools are not run (no go toolchain or agent here):
              curl reaches each of the profile's hosts (a lab HTTPS
              server answering all of them) and no other name, and for
              the agents their state is writable and their settings are
              not.
"""

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
import pypi_registry
from test_netlab_tls import npm_unavailable

HERE = os.path.dirname(os.path.abspath(__file__))
PORTA = os.environ.get("PORTA_BIN", "")

NPM_ADDR, INDEX_ADDR, FILES_ADDR, GIT_ADDR = ("203.0.113.61", "203.0.113.62", "203.0.113.63",
                                              "203.0.113.64")
API_ADDR = "203.0.113.65"
# The built-in profiles whose tools are not run here (no go toolchain, no
# agent in CI): their hosts are exercised with curl, their files by hand.
API_PROFILES = ("cargo", "go", "claude-code", "codex")
UNRELATED = "unrelated.example"


def profile_hosts(name):
    """The hosts of the built-in profile NAME's --allow-net lines, in
    order, read from the file beside PORTA_BIN (what `--profile NAME`
    loads when no user profile of that name exists)."""
    path = os.path.join(os.path.dirname(PORTA), "share", "porta", "profiles", name)
    hosts = []
    with open(path) as f:
        for line in f:
            words = shlex.split(line, comments=True)
            if words[:1] == ["--allow-net"]:
                hosts.append(words[1])
    return hosts


def lab_setup(lab):
    """The three servers, each on its profile's names."""
    servers = {}
    npm_host, = profile_hosts("npm")
    index_host, files_host = profile_hosts("pip")
    git_hosts = profile_hosts("git-github")

    log = os.path.join(lab.workdir, "npm.jsonl")
    cert, key = lab.make_cert([npm_host])
    npm = lab.popen([sys.executable, "-B", os.path.join(HERE, "npm_registry.py"),
                     "--addr", NPM_ADDR, "--port", "80", "--host", npm_host,
                     "--tls-port", "443", "--cert", cert, "--key", key, "--log", log],
                    side="internet", cwd="/", stdout=subprocess.PIPE)
    if npm.stdout.readline() != b"listening\n":
        raise netlab.LabError("the lab's npm registry did not start")
    servers["npm log"] = log

    log = os.path.join(lab.workdir, "pypi.jsonl")
    cert, key = lab.make_cert([index_host, files_host])
    pypi = lab.popen([sys.executable, "-B", os.path.join(HERE, "pypi_registry.py"),
                      "--index-addr", INDEX_ADDR, "--files-addr", FILES_ADDR,
                      "--files-host", files_host, "--port", "443", "--cert", cert, "--key", key,
                      "--log", log],
                     side="internet", cwd="/", stdout=subprocess.PIPE)
    if pypi.stdout.readline() != b"listening\n":
        raise netlab.LabError("the lab's package index did not start")
    servers["pypi log"] = log

    servers["git"] = lab.server_git(GIT_ADDR, names=[git_hosts[0]],
                                    files={"README": "cloned through the profile\n"})
    api_hosts = sorted({h for p in API_PROFILES for h in profile_hosts(p)} | {UNRELATED})
    servers["api"] = lab.server_tls(API_ADDR, 443, names=api_hosts, label="api")
    names = {npm_host: NPM_ADDR, index_host: INDEX_ADDR, files_host: FILES_ADDR,
             git_hosts[0]: GIT_ADDR}
    names.update({h: API_ADDR for h in api_hosts})
    lab.dns(names, ttl=60)
    return servers


SHARED = netlab.SharedLab(lab_setup)


@unittest.skipUnless(PORTA and os.access(PORTA, os.X_OK), "PORTA_BIN names no porta binary")
class BuiltinProfiles(netlab.LabCase):
    shared_lab = SHARED

    def home(self):
        """A fresh HOME (the tools' caches go there) and a project beside it."""
        base = tempfile.mkdtemp(prefix="profile-", dir=self.lab.home)
        os.chmod(base, 0o755)
        self.addCleanup(shutil.rmtree, base, True)
        home, project = os.path.join(base, "home"), os.path.join(base, "project")
        os.makedirs(home)
        os.makedirs(project)
        return home, project

    def porta(self, rules, argv, home, project, extra=(), env=None):
        """porta run RULES -v PROJECT EXTRA -- ARGV, in the lab, HOME=home."""
        full = [PORTA, "run"] + (["--allow-root"] if os.geteuid() == 0 else [])
        full += rules + ["-v", project] + list(extra) + ["--"] + argv
        return self.lab.run(full, env=self.lab.env(HOME=home, **(env or {})), cwd=project,
                            timeout=300)

    def log(self, name):
        with open(self.servers[name]) as f:
            return [json.loads(l) for l in f if l.strip()]

    def test_npm(self):
        why = npm_unavailable()
        if why:
            self.skipTest(why)
        host, = profile_hosts("npm")
        package = [n for n, deps in npm_registry.package_tree() if not deps][0]
        results = {}
        for variant, rules in (("control", ["--allow-net", UNRELATED]),
                               ("profile", ["--profile", "npm"])):
            home, project = self.home()
            with open(os.path.join(project, "package.json"), "w") as f:
                json.dump({"name": "p", "version": "1.0.0", "private": True}, f)
            with open(os.path.join(project, ".npmrc"), "w") as f:
                f.write("registry=https://%s/\ncafile=%s\nfetch-retries=0\n"
                        % (host, self.lab.ca_file))
            before = len(self.log("npm log"))
            r = self.porta(rules, ["npm", "install", "--no-audit", "--no-fund",
                                   "--no-update-notifier", package], home, project)
            results[variant] = (r, before, home, project)
        r, before, home, project = results["profile"]
        self.assertEqual(r.rc, 0, r.out + r.err)
        with open(os.path.join(project, "node_modules", package, "package.json")) as f:
            self.assertEqual(json.load(f)["version"], npm_registry.LATEST)
        got = [(e["kind"], e["status"], e["host"], e["tls"]) for e in self.log("npm log")[before:]]
        self.assertIn(("tarball", 200, host, True), got)
        # --caches: npm's cache in the home, written through the profile
        self.assertTrue(os.listdir(os.path.join(home, ".npm")), "nothing in ~/.npm")
        r, before, _, project = results["control"]
        self.assertNotEqual(r.rc, 0, "npm installed without the profile:\n" + r.out + r.err)
        self.assertIn(host, r.err, "refused, and the refusal names the registry")
        self.assertFalse(os.path.exists(os.path.join(project, "node_modules", package)))

    def test_pip(self):
        index_host, files_host = profile_hosts("pip")
        results = {}
        for variant, rules in (("control", ["--allow-net", UNRELATED]),
                               ("profile", ["--profile", "pip"])):
            home, project = self.home()
            with open(os.path.join(project, "requirements.txt"), "w") as f:
                f.write(pypi_registry.REQUIREMENTS)
            venv = os.path.join(project, ".venv")
            p = subprocess.run(["/usr/bin/python3", "-m", "venv",
                                venv], capture_output=True, text=True, cwd="/",
                               env={"PATH": netlab.SYSTEM_PATH, "HOME": home, "LANG": "C.UTF-8"})
            if p.returncode != 0 or not os.access(os.path.join(venv, "bin", "pip"), os.X_OK):
                self.skipTest("python3 -m venv made no pip (Debian: python3-venv): "
                              + " ".join((p.stdout + p.stderr).split()[:40]))
            with open(os.path.join(venv, "pip.conf"), "w") as f:
                f.write("[global]\nindex-url = https://%s/simple/\ncert = %s\nretries = 0\n"
                        "timeout = 10\n" % (index_host, self.lab.ca_file))
            r = self.porta(rules, [os.path.join(venv, "bin", "pip"), "install",
                                   "--disable-pip-version-check", "-r", "requirements.txt"],
                           home, project)
            results[variant] = (r, home, venv)
        r, home, venv = results["profile"]
        self.assertEqual(r.rc, 0, r.out + r.err)
        expected = pypi_registry.expected_versions()
        modules = sorted(pypi_registry.module_name(n) for n in expected)
        p = subprocess.run([os.path.join(venv, "bin", "python"), "-I", "-c",
                            "import importlib, sys\n"
                            "for m in sys.argv[1:]: importlib.import_module(m)\n"] + modules,
                           capture_output=True, text=True, cwd="/",
                           env={"PATH": netlab.SYSTEM_PATH, "LANG": "C.UTF-8"})
        self.assertEqual(p.returncode, 0, p.stderr)
        wheels = [e for e in self.log("pypi log") if e.get("kind") == "wheel"]
        self.assertTrue(any(e["host"] == files_host and e["status"] == 200 for e in wheels))
        self.assertTrue(os.path.isdir(os.path.join(home, ".cache", "pip")), "no pip cache")
        r, _, venv = results["control"]
        self.assertNotEqual(r.rc, 0, "pip installed without the profile:\n" + r.out + r.err)

    def test_git_github(self):
        host = profile_hosts("git-github")[0]
        env = dict(GIT_TERMINAL_PROMPT="0")
        results = {}
        for variant, rules in (("control", ["--allow-net", UNRELATED]),
                               ("profile", ["--profile", "git-github"])):
            home, project = self.home()
            r = self.porta(rules, ["git", "-c", "http.sslCAInfo=" + self.lab.ca_file, "clone",
                                   "-q", "https://%s/repo.git" % host, "r"],
                           home, project, env=env, extra=["--env", "GIT_TERMINAL_PROMPT=0"])
            results[variant] = (r, project)
        r, project = results["profile"]
        self.assertEqual(r.rc, 0, r.out + r.err)
        with open(os.path.join(project, "r", "README")) as f:
            self.assertEqual(f.read(), "cloned through the profile\n")
        r, project = results["control"]
        self.assertNotEqual(r.rc, 0, "git cloned without the profile:\n" + r.out + r.err)
        self.assertFalse(os.path.exists(os.path.join(project, "r", "README")))

    # $1 the lab CA; then each host: "HOST CODE" per host (000: refused);
    # then the agent's files, when the profile names them ($AGENT_STATE,
    # $AGENT_SETTINGS: one writable, one protected).
    CURL = r'''
ca=$1; shift
for h in "$@"; do
    printf '%s %s\n' "$h" "$(curl -sS --max-time 10 --cacert "$ca" -o /dev/null -w '%{http_code}' "https://$h/" 2>/dev/null)"
done
if [ -n "$AGENT_STATE" ]; then
    echo state > "$AGENT_STATE" && echo "wrote state"
    echo evil >> "$AGENT_SETTINGS" 2>/dev/null && echo "wrote settings"
fi
true
'''

    def api_profile(self, name, state=None, settings=None, made=()):
        """Under --profile NAME alone: each of its hosts answers 200 (a
        name outside it does not); with state/settings (relative to HOME),
        the agent's state is writable and its settings are not.  The
        control, an unrelated --allow-net, reaches none of its hosts."""
        hosts = profile_hosts(name)
        self.assertTrue(hosts, name)
        results = {}
        for variant, rules in (("control", ["--allow-net", UNRELATED]),
                               ("profile", ["--profile", name])):
            home, project = self.home()
            for rel in made:  # what the profile's -v and --protect name
                path = os.path.join(home, rel)
                if rel.endswith("/"):
                    os.makedirs(path, exist_ok=True)
                else:
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    with open(path, "w") as f:
                        f.write("{}\n")
            env = {}
            if state:
                env = {"AGENT_STATE": os.path.join(home, state),
                       "AGENT_SETTINGS": os.path.join(home, settings)}
            extra = [w for k, v in env.items() for w in ("--env", "%s=%s" % (k, v))]
            r = self.porta(rules, ["sh", "-c", self.CURL, "sh", self.lab.ca_file] + hosts +
                           [UNRELATED], home, project, extra=extra)
            results[variant] = (r, home)
        r, home = results["profile"]
        self.assertEqual(r.rc, 0, r.out + r.err)
        codes = dict(l.split() for l in r.out.splitlines() if len(l.split()) == 2
                     and not l.startswith("wrote"))
        self.assertEqual(codes, dict({h: "200" for h in hosts}, **{UNRELATED: "000"}), r.out)
        if state:
            self.assertIn("wrote state", r.out)
            self.assertNotIn("wrote settings", r.out)
            with open(os.path.join(home, state)) as f:
                self.assertEqual(f.read(), "state\n")
            with open(os.path.join(home, settings)) as f:
                self.assertEqual(f.read(), "{}\n", "the agent's settings were written")
        r, _ = results["control"]
        codes = dict(l.split() for l in r.out.splitlines() if len(l.split()) == 2
                     and not l.startswith("wrote"))
        self.assertEqual({h: codes.get(h) for h in hosts}, {h: "000" for h in hosts}, r.out)

    def test_cargo(self):
        self.api_profile("cargo")

    def test_go(self):
        self.api_profile("go")

    def test_claude_code(self):
        self.api_profile("claude-code", state=".claude/state.json",
                         settings=".claude/settings.json",
                         made=(".claude/settings.json", ".claude/commands/", ".claude/agents/",
                               ".claude.json"))

    def test_codex(self):
        self.api_profile("codex", state=".codex/state.json", settings=".codex/config.toml",
                         made=(".codex/config.toml",))


if __name__ == "__main__":
    unittest.main()
