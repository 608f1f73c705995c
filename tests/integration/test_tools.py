"""Everyday tools still work under the default policy.

Closing host sockets, pinning the directories above protected names and
guarding the absent ones must not get in the way of ordinary work inside a
writable mount: git (commits, submodules, worktrees), npm, make, python, and
ssh with the agent refused.  Each test runs the tool for real inside porta
and checks what it left on the host.
"""

import os
import shutil
import socket
import subprocess
import threading
import unittest

import harness
from harness import IS_ROOT, PY, SH, PortaTestCase, run

GIT = shutil.which("git")
NPM = shutil.which("npm")
MAKE = shutil.which("make")
SSH = shutil.which("ssh")

# git identity and no system or user configuration: the same inside and out.
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.test",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.test",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}


def env_args(env):
    return [a for k, v in env.items() for a in ("-e", "%s=%s" % (k, v))]


def host_git(*args, cwd=None):
    subprocess.run([GIT, "-c", "protocol.file.allow=always", *args], cwd=cwd, check=True,
                   capture_output=True, env=dict(os.environ, **GIT_ENV))


@unittest.skipUnless(GIT, "git is not installed")
class Git(PortaTestCase):
    """A repository with a submodule and a linked worktree, mounted writable:
    its .git, hooks, config, the submodule's and the worktree's git
    directories are pinned or read-only, and git still commits in all three."""

    def setUp(self):
        super().setUp()
        self.ws = self.mkdtemp()
        sub = os.path.join(self.ws, "sub-origin")
        os.makedirs(sub)
        host_git("init", "-q", "-b", "main", cwd=sub)
        self.write(os.path.join(sub, "s.txt"), "s\n")
        host_git("add", ".", cwd=sub)
        host_git("commit", "-q", "-m", "sub", cwd=sub)
        self.repo = os.path.join(self.ws, "repo")
        os.makedirs(self.repo)
        host_git("init", "-q", "-b", "main", cwd=self.repo)
        self.write(os.path.join(self.repo, "a.txt"), "a\n")
        host_git("add", ".", cwd=self.repo)
        host_git("commit", "-q", "-m", "first", cwd=self.repo)
        host_git("submodule", "add", "-q", sub, "sub", cwd=self.repo)
        host_git("commit", "-q", "-m", "add sub", cwd=self.repo)
        host_git("worktree", "add", "-q", "-b", "wt", os.path.join(self.ws, "wt"), cwd=self.repo)

    def git_in_porta(self, script):
        return run(["run", "-v", self.repo, "-v", os.path.join(self.ws, "wt")] +
                   env_args(GIT_ENV) + ["--", SH, "-ec", script, "sh", self.repo,
                                        os.path.join(self.ws, "wt")])

    def log(self, where):
        return subprocess.run([GIT, "log", "--format=%s"], cwd=where, capture_output=True,
                              text=True, env=dict(os.environ, **GIT_ENV)).stdout.split()

    def test_commit_submodule_and_worktree(self):
        script = r'''
cd "$1"
echo b >> a.txt
git commit -q -am in-porta
git status --short
cd sub
echo t >> s.txt
git commit -q -am sub-in-porta
cd ..
git submodule status
git add sub
git commit -q -m bump-sub
cd "$2"
echo w > w.txt
git add w.txt
git commit -q -m wt-in-porta
git worktree list
'''
        res = self.git_in_porta(script)
        self.assertOk(res, "git failed inside porta")
        self.assertEqual(self.log(self.repo)[:2], ["bump-sub", "in-porta"])
        self.assertEqual(self.log(os.path.join(self.repo, "sub"))[0], "sub-in-porta")
        self.assertEqual(self.log(os.path.join(self.ws, "wt"))[0], "wt-in-porta")
        self.assertNotIn("porta: stopping", res.err)

    @harness.needs_userns("no protected names inside writable mounts (a stated loss)")
    def test_protections_hold_while_git_works(self):
        # The directories above the protected names cannot be renamed away,
        # and the submodule's hooks stay unwritable.
        script = r'''
cd "$1"
if mv .git/modules/sub .git/modules/sub.x 2>/dev/null; then echo RENAMED-SUB; fi
if mv .git/worktrees .git/wt.x 2>/dev/null; then echo RENAMED-WT; fi
if echo evil > .git/modules/sub/hooks/pre-commit 2>/dev/null; then echo HOOK; fi
git status --short >/dev/null && echo STATUS-OK
'''
        res = self.git_in_porta(script)
        self.assertOk(res)
        self.assertIn("STATUS-OK", res.out)
        for bad in ("RENAMED-SUB", "RENAMED-WT", "HOOK"):
            self.assertNotIn(bad, res.out)
        self.assertTrue(os.path.isdir(os.path.join(self.repo, ".git", "modules", "sub")))


@unittest.skipUnless(MAKE, "make is not installed")
class Make(PortaTestCase):
    def test_make_builds_in_the_mount(self):
        ws = self.mkdtemp()
        self.write(os.path.join(ws, "Makefile"),
                   "all: out/b.txt\nout/b.txt: a.txt\n\tmkdir -p out\n\tcp a.txt $@\n")
        self.write(os.path.join(ws, "a.txt"), "made\n")
        res = run(["run", "-v", ws, "--", MAKE, "-C", ws])
        self.assertOk(res)
        self.assertEqual(self.read(os.path.join(ws, "out", "b.txt")), "made\n")


class Python(PortaTestCase):
    def test_python_writes_and_uses_tmp(self):
        ws = self.mkdtemp()
        code = ("import json, sys, tempfile, sqlite3\n"
                "with tempfile.NamedTemporaryFile('w', delete=False) as t: t.write('x')\n"
                "db = sqlite3.connect(sys.argv[1] + '/db.sqlite'); db.execute('create table t(x)')\n"
                "db.commit(); open(sys.argv[1] + '/out.json', 'w').write(json.dumps({'ok': 1}))\n")
        res = run(["run", "-v", ws, "--", PY, "-c", code, ws])
        self.assertOk(res)
        self.assertEqual(self.read(os.path.join(ws, "out.json")), '{"ok": 1}')
        self.assertTrue(os.path.exists(os.path.join(ws, "db.sqlite")))


@unittest.skipUnless(NPM, "npm is not installed (Node.js comes from this machine's image)")
class Npm(PortaTestCase):
    def test_npm_init_install_a_local_package_and_run_a_script(self):
        ws = self.mkdtemp()
        app = os.path.join(ws, "app")
        lib = os.path.join(ws, "lib")
        os.makedirs(app)
        os.makedirs(lib)
        self.write(os.path.join(lib, "package.json"),
                   '{"name": "lib", "version": "1.0.0", "main": "index.js"}\n')
        self.write(os.path.join(lib, "index.js"), "module.exports = () => 'from-lib';\n")
        script = r'''
cd "$1"
npm init -y >/dev/null
npm install --offline --no-audit --no-fund ../lib >/dev/null
npm pkg set scripts.build="node -e \"require('fs').writeFileSync('built.txt', require('lib')())\""
npm run -s build
'''
        # npm's cache and logs in the private /tmp: the home is not writable.
        res = run(["run", "-v", ws, "-e", "npm_config_cache=/tmp/npm-cache",
                   "-e", "npm_config_update_notifier=false", "--", SH, "-ec", script, "sh", app])
        self.assertOk(res, "npm failed inside porta")
        self.assertEqual(self.read(os.path.join(app, "built.txt")), "from-lib")
        self.assertTrue(os.path.islink(os.path.join(app, "node_modules", "lib")))


class FakeSshServer:
    """A TCP listener on loopback that sends an SSH identification line and
    records the client's."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.sock.settimeout(10)
        self.port = self.sock.getsockname()[1]
        self.client_id = None
        self._t = threading.Thread(target=self._serve, daemon=True)
        self._t.start()

    def _serve(self):
        try:
            c, _ = self.sock.accept()
            c.settimeout(5)
            c.sendall(b"SSH-2.0-porta_test\r\n")
            self.client_id = c.recv(256).split(b"\r\n")[0].decode(errors="replace")
            c.close()
        except OSError:
            pass

    def close(self):
        self.sock.close()
        self._t.join(2)


@unittest.skipUnless(SSH, "ssh is not installed")
class Ssh(PortaTestCase):
    def test_ssh_works_and_the_agent_is_refused(self):
        ws = self.mkdtemp()
        agent = os.path.join(self.mkdtemp(), "ssh-XXXXtest", "agent.4242")
        lst = self.unix_listener(agent)
        srv = FakeSshServer()
        self.addCleanup(srv.close)
        script = r'''
ssh-keygen -q -t ed25519 -N "" -f "$1/id" && echo KEYGEN-OK
ssh -G -p 2222 host.example.test | grep -q "^port 2222" && echo CONFIG-OK
ssh-add -l; echo "AGENT-RC=$?"
ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
    -o ConnectTimeout=5 -i "$1/id" -p "$2" t@127.0.0.1 true; echo "SSH-RC=$?"
'''
        env = harness.clean_env({"SSH_AUTH_SOCK": agent})
        res = run(["run", "-v", ws, "-e", "SSH_AUTH_SOCK=" + agent, "--", SH, "-c", script,
                   "sh", ws, str(srv.port)], env=env)
        self.assertOk(res)
        self.assertIn("KEYGEN-OK", res.out)
        self.assertIn("CONFIG-OK", res.out)
        self.assertTrue(os.path.exists(os.path.join(ws, "id.pub")))
        # ssh-add exits 2 when it cannot reach the agent (ssh-add(1)).
        self.assertIn("AGENT-RC=2", res.out, res.describe())
        self.assertEqual(lst.accepted, 0, "the agent was reached")
        self.assertIsNotNone(srv.client_id, "ssh never reached the server")
        self.assertTrue(srv.client_id.startswith("SSH-2.0-OpenSSH"), srv.client_id)

    def test_control_reaches_the_agent_outside(self):
        agent = os.path.join(self.mkdtemp(), "ssh-XXXXctl", "agent.4243")
        lst = self.unix_listener(agent)
        harness.run_host(["ssh-add", "-l"], env=harness.clean_env({"SSH_AUTH_SOCK": agent}))
        self.assertEqual(lst.accepted, 1, "the control never reached the planted agent")


if __name__ == "__main__":
    unittest.main()
