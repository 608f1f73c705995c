"""integration/files: what the sandbox may read and write: mounts, the private
/tmp, closed paths, protected names, credentials, strict reads, /proc/sys,
/dev, and credential sockets."""

import os
import shutil
import subprocess
import tempfile
import time
import unittest

import harness
from harness import IS_ROOT, PY, SH, PortaTestCase, run

SECRET = "MUST-NOT-LEAK"


def sh(*parts):
    return [SH, "-c", " ".join(parts)]


class Mounts(PortaTestCase):

    def test_write_inside_mount(self):
        ws = self.mkdtemp()
        res = run(["run", "-v", ws, "--"] + sh("echo hello > %s/inside.txt" % ws))
        self.assertOk(res)
        self.assertEqual(self.read(os.path.join(ws, "inside.txt")), "hello\n")

    def test_write_outside_mount_fails(self):
        ws, sib = self.mkdtemp(), self.mkdtemp()
        # control: the sibling is writable without porta
        ctl = harness.run_host(sh("echo x > %s/control.txt" % sib))
        self.assertOk(ctl)
        res = run(["run", "-v", ws, "--"] + sh("echo x > %s/outside.txt" % sib))
        self.assertFailed(res)
        self.assertFalse(os.path.exists(os.path.join(sib, "outside.txt")))
        res = run(["run", "-v", ws, "--"] + sh("mkdir %s/newdir" % sib))
        self.assertFailed(res)
        self.assertFalse(os.path.exists(os.path.join(sib, "newdir")))

    def test_nothing_writable_without_mount(self):
        ws = self.mkdtemp()
        self.write(os.path.join(ws, "existing.txt"), "orig\n")
        res = run(["run", "--"] + sh("echo x > %s/new.txt" % ws))
        self.assertFailed(res)
        self.assertFalse(os.path.exists(os.path.join(ws, "new.txt")))
        res = run(["run", "--"] + sh("echo x >> %s/existing.txt" % ws))
        self.assertFailed(res)
        res = run(["run", "--"] + sh("rm -f %s/existing.txt" % ws))
        self.assertFailed(res)
        self.assertEqual(self.read(os.path.join(ws, "existing.txt")), "orig\n")

    def test_read_only_mount(self):
        ws = self.mkdtemp()
        self.write(os.path.join(ws, "f.txt"), "content\n")
        res = run(["run", "-v", ws + ":ro", "--", "cat", os.path.join(ws, "f.txt")])
        self.assertOk(res)
        self.assertEqual(res.out, "content\n")
        for cmd in ("echo x >> %s/f.txt" % ws, "echo x > %s/new.txt" % ws,
                    "rm %s/f.txt" % ws, "mv %s/f.txt %s/g.txt" % (ws, ws)):
            res = run(["run", "-v", ws + ":ro", "--"] + sh(cmd))
            self.assertFailed(res, cmd)
        self.assertEqual(sorted(os.listdir(ws)), ["f.txt"])
        self.assertEqual(self.read(os.path.join(ws, "f.txt")), "content\n")

    def test_mount_of_a_single_file(self):
        ws = self.mkdtemp()
        f = self.write(os.path.join(ws, "only.txt"), "a\n")
        res = run(["run", "-v", f, "--"] + sh("echo b >> %s; echo c > %s/other.txt" % (f, ws)))
        self.assertFailed(res)  # the second write is outside the grant
        self.assertEqual(self.read(f), "a\nb\n")
        self.assertFalse(os.path.exists(os.path.join(ws, "other.txt")))


class PrivateTmp(PortaTestCase):

    def tmp_name(self):
        name = "/tmp/" + harness.marker()
        self.addCleanup(lambda: os.path.exists(name) and os.unlink(name))
        return name

    def test_tmp_is_private(self):
        name = self.tmp_name()
        res = run(["run", "--"] + sh("echo inside > %s && cat %s" % (name, name)))
        if harness.DEGRADED:
            # no private /tmp: the host's is closed to writes (TMPDIR is private)
            self.assertNotEqual(res.rc, 0, res.describe())
            self.assertIn("TMPDIR=/tmp/porta-", res.err)
        else:
            self.assertOk(res)
            self.assertEqual(res.out, "inside\n")
        self.assertFalse(os.path.exists(name), "the sandbox's /tmp is the host's")

    def test_host_tmp_invisible(self):
        name = self.tmp_name()
        with open(name, "w") as f:
            f.write(SECRET)
        res = run(["run", "--"] + sh("cat %s; ls /tmp" % name))
        self.assertNotIn(SECRET, res.out)
        if not harness.DEGRADED:  # degraded: names stay listable (a stated loss)
            self.assertNotIn(os.path.basename(name), res.out)

    def test_share_tmp(self):
        name = self.tmp_name()
        res = run(["run", "--share-tmp", "--"] + sh("echo shared > %s" % name))
        self.assertOk(res)
        self.assertTrue(os.path.exists(name), "--share-tmp: the write is not on the host")
        self.assertEqual(self.read(name), "shared\n")

    def test_mount_under_host_tmp(self):
        d = self.mkdtemp(under="/tmp")
        self.write(os.path.join(d, "pre.txt"), "from-host\n")
        other = self.tmp_name()
        with open(other, "w") as f:
            f.write(SECRET)
        res = run(["run", "-v", d, "--"] +
                  sh("cat %s/pre.txt; echo from-sandbox > %s/new.txt; cat %s" % (d, d, other)))
        self.assertIn("from-host", res.out, res.describe())
        self.assertEqual(self.read(os.path.join(d, "new.txt")), "from-sandbox\n")
        self.assertNotIn(SECRET, res.out, "the rest of the host /tmp is visible")


class DenyRead(PortaTestCase):

    def test_deny_read_file_inside_writable_mount(self):
        ws = self.mkdtemp()
        secret = self.write(os.path.join(ws, "secret.txt"), SECRET)
        self.write(os.path.join(ws, "public.txt"), "public\n")
        res = run(["run", "-v", ws, "--deny-read", secret, "--"] +
                  sh("cat %s/public.txt; cat %s; cp %s %s/copy.txt; cat %s/copy.txt"
                     % (ws, secret, secret, ws, ws)))
        if harness.DEGRADED:
            # Landlock cannot close a path beneath a writable grant: refused
            self.assertEqual(res.rc, 125, res.describe())
            self.assertIn("inside the writable mount", res.err)
        else:
            self.assertIn("public", res.out, res.describe())
        self.assertNotIn(SECRET, res.out + res.err)
        copy = os.path.join(ws, "copy.txt")
        if os.path.exists(copy):
            self.assertNotIn(SECRET, self.read(copy))
        self.assertEqual(self.read(secret), SECRET, "the closed file was changed on the host")

    def test_deny_read_dir_inside_writable_mount(self):
        ws = self.mkdtemp()
        self.write(os.path.join(ws, "secrets", "a.txt"), SECRET)
        self.write(os.path.join(ws, "secrets", "sub", "b.txt"), SECRET)
        res = run(["run", "-v", ws, "--deny-read", os.path.join(ws, "secrets"), "--"] +
                  sh("ls -A %s/secrets; cat %s/secrets/a.txt %s/secrets/sub/b.txt; "
                     "grep -r . %s" % (ws, ws, ws, ws)))
        self.assertNotIn(SECRET, res.out + res.err)
        self.assertNotIn("a.txt", res.out)

    def test_deny_read_outside_mounts(self):
        d = self.mkdtemp()
        secret = self.write(os.path.join(d, "s.txt"), SECRET)
        ctl = run(["run", "--", "cat", secret])  # control: readable under open reads
        self.assertIn(SECRET, ctl.out, ctl.describe())
        res = run(["run", "--deny-read", secret, "--", "cat", secret])
        self.assertNotIn(SECRET, res.out + res.err)


@harness.needs_userns('no protected names inside writable mounts without a mount namespace (a stated loss)')
class Protect(PortaTestCase):

    def attempts(self, ws, name):
        p = os.path.join(ws, name)
        return ["echo evil >> %s" % p, "echo evil > %s" % p, "mv %s %s.moved" % (p, p),
                "rm -f %s" % p, "ln -f %s/other %s" % (ws, p)]

    def check_protected(self, ws, name, extra_args):
        p = os.path.join(ws, name)
        self.write(os.path.join(ws, "other"), "other\n")
        for cmd in self.attempts(ws, name):
            res = run(["run", "-v", ws] + extra_args + ["--"] + sh(cmd))
            self.assertFailed(res, cmd)
            self.assertEqual(self.read(p), "orig\n", "%s changed %s" % (cmd, p))
        self.assertFalse(os.path.exists(p + ".moved"))

    def test_protect_relative_name(self):
        ws = self.mkdtemp()
        self.write(os.path.join(ws, "keep.txt"), "orig\n")
        # control: writable in the same sandbox without --protect
        ctl = run(["run", "-v", ws, "--"] + sh("echo ok >> %s/keep.txt" % ws))
        self.assertOk(ctl)
        self.write(os.path.join(ws, "keep.txt"), "orig\n")
        self.check_protected(ws, "keep.txt", ["--protect", "keep.txt"])

    def test_protect_relative_name_in_every_mount(self):
        a, b = self.mkdtemp(), self.mkdtemp()
        for ws in (a, b):
            self.write(os.path.join(ws, "keep.txt"), "orig\n")
        res = run(["run", "-v", a, "-v", b, "--protect", "keep.txt", "--"] +
                  sh("echo evil >> %s/keep.txt; echo evil >> %s/keep.txt" % (a, b)))
        self.assertFailed(res)
        self.assertEqual(self.read(os.path.join(a, "keep.txt")), "orig\n")
        self.assertEqual(self.read(os.path.join(b, "keep.txt")), "orig\n")

    def test_protect_absolute_path(self):
        ws = self.mkdtemp()
        self.write(os.path.join(ws, "abs.txt"), "orig\n")
        self.check_protected(ws, "abs.txt", ["--protect", os.path.join(ws, "abs.txt")])

    def test_protect_directory(self):
        ws = self.mkdtemp()
        self.write(os.path.join(ws, "conf", "a.txt"), "orig\n")
        for cmd in ("echo evil > %s/conf/new.txt" % ws, "echo evil >> %s/conf/a.txt" % ws,
                    "mv %s/conf %s/conf.moved" % (ws, ws), "rm -rf %s/conf" % ws):
            res = run(["run", "-v", ws, "--protect", "conf", "--"] + sh(cmd))
            self.assertFailed(res, cmd)
        self.assertEqual(sorted(os.listdir(os.path.join(ws, "conf"))), ["a.txt"])
        self.assertEqual(self.read(os.path.join(ws, "conf", "a.txt")), "orig\n")


@harness.needs_userns('no protected names inside writable mounts without a mount namespace (a stated loss)')
class PresetProtectedNames(PortaTestCase):

    def make_ws(self):
        ws = self.mkdtemp()
        self.write(os.path.join(ws, ".bashrc"), "orig\n")
        self.write(os.path.join(ws, ".git", "config"), "orig\n")
        self.write(os.path.join(ws, ".git", "hooks", "pre-commit"), "orig\n", 0o755)
        self.write(os.path.join(ws, "src.txt"), "src\n")
        return ws

    def test_preset_names_unwritable(self):
        ws = self.make_ws()
        cmds = ["echo evil >> %s/.bashrc" % ws,
                "mv %s/.bashrc %s/bashrc.moved" % (ws, ws),
                "echo evil >> %s/.git/config" % ws,
                "echo evil >> %s/.git/hooks/pre-commit" % ws,
                "echo evil > %s/.git/hooks/post-checkout" % ws,
                "mv %s/.git/hooks %s/.git/hooks.old" % (ws, ws)]
        for cmd in cmds:
            res = run(["run", "-v", ws, "--"] + sh(cmd))
            self.assertFailed(res, cmd)
        self.assertEqual(self.read(os.path.join(ws, ".bashrc")), "orig\n")
        self.assertEqual(self.read(os.path.join(ws, ".git", "config")), "orig\n")
        self.assertEqual(self.read(os.path.join(ws, ".git", "hooks", "pre-commit")), "orig\n")
        self.assertEqual(os.listdir(os.path.join(ws, ".git", "hooks")), ["pre-commit"])
        self.assertFalse(os.path.exists(os.path.join(ws, "bashrc.moved")))
        # the rest of the mount stays writable
        res = run(["run", "-v", ws, "--"] + sh("echo more >> %s/src.txt" % ws))
        self.assertOk(res)

    def test_login_and_git_config_of_a_mounted_home_unwritable(self):
        # -v HOME: the files that run code at the next login, shell or git
        # command stay as they were (controls: writable without porta).
        h = self.mkdtemp(prefix="porta-it-home-")
        targets = [".config/git/config", ".zshenv", ".config/systemd/user/evil.service"]
        self.write(os.path.join(h, ".config/git/config"), "orig\n")
        self.write(os.path.join(h, ".zshenv"), "orig\n")
        os.makedirs(os.path.join(h, ".config/systemd/user"))
        for t in targets:
            ctl = harness.run_host(sh("echo x >> %s/%s.ctl" % (h, t)))
            self.assertOk(ctl, t)
        env = harness.clean_env({"HOME": h})
        for t in targets:
            res = run(["run", "-v", h, "--"] + sh("echo '[core] hooksPath=/evil' >> %s/%s" % (h, t)),
                      env=env)
            self.assertFailed(res, t)
        self.assertEqual(self.read(os.path.join(h, ".config/git/config")), "orig\n")
        self.assertEqual(self.read(os.path.join(h, ".zshenv")), "orig\n")
        self.assertFalse(os.path.exists(os.path.join(h, ".config/systemd/user/evil.service")))

    def test_a_mount_above_the_home_keeps_the_homes_start_up_files(self):
        # -v PARENT with HOME=PARENT/home (as -v /home or -v / are): the
        # names are kept relative to the home too, and the rest of the home
        # stays writable (escape corpus row 91).
        parent = self.mkdtemp(prefix="porta-it-above-home-")
        h = os.path.join(parent, "home")
        self.write(os.path.join(h, ".bashrc"), "orig\n")
        self.write(os.path.join(h, ".config/git/config"), "orig\n")
        env = harness.clean_env({"HOME": h})
        for t in (".bashrc", ".config/git/config"):
            res = run(["run", "-v", parent, "--"] + sh("echo evil >> %s/%s" % (h, t)), env=env)
            self.assertFailed(res, t)
            self.assertEqual(self.read(os.path.join(h, t)), "orig\n")
        res = run(["run", "-v", parent, "--"] + sh("echo ok > %s/notes && echo ok > %s/x" % (h, parent)),
                  env=env)
        self.assertOk(res)
        self.assertEqual(self.read(os.path.join(h, "notes")), "ok\n")
        # an absent one that appears stops the run (the guard)
        res = run(["run", "-v", parent, "--"] + sh("mkdir -p %s/.local/bin && echo evil > %s/.local/bin/git"
                                                    % (h, h)), env=env)
        self.assertEqual(res.rc, 137, res.err)
        self.assertFalse(os.path.exists(os.path.join(h, ".local/bin/git")))

    def test_repositories_directly_below_the_mount_keep_their_hooks(self):
        # -v ~/code holding ~/code/proj (escape corpus row 93): proj's hooks
        # and config as the root's own; the rest of the tree stays writable.
        code = self.mkdtemp(prefix="porta-it-code-")
        proj = os.path.join(code, "proj")
        self.write(os.path.join(proj, ".git", "config"), "orig\n")
        self.write(os.path.join(proj, ".git", "hooks", "pre-commit"), "orig\n")
        self.write(os.path.join(proj, "src.txt"), "src\n")
        for cmd in ("echo evil >> %s/.git/config" % proj,
                    "echo evil > %s/.git/hooks/post-checkout" % proj,
                    "mv %s %s/moved" % (proj, code)):
            res = run(["run", "-v", code, "--"] + sh(cmd))
            self.assertFailed(res, cmd)
        self.assertEqual(self.read(os.path.join(proj, ".git", "config")), "orig\n")
        self.assertEqual(os.listdir(os.path.join(proj, ".git", "hooks")), ["pre-commit"])
        res = run(["run", "-v", code, "--"] + sh("echo more >> %s/src.txt && mkdir %s/other"
                                                  % (proj, code)))
        self.assertOk(res)
        res = run(["explain", "-v", code])
        self.assertOk(res)
        self.assertIn(os.path.join(proj, ".git", "hooks"), res.out)

    def test_git_dir_cannot_be_swapped(self):
        # Renaming .git away and making a new .git/hooks must not leave a hook
        # the user's next git command would run, nor change the config.
        ws = self.make_ws()
        run(["run", "-v", ws, "--"] +
            sh("mv %s/.git %s/git.old && mkdir -p %s/.git/hooks && "
               "echo evil > %s/.git/hooks/pre-commit && echo evil > %s/.git/config"
               % (ws, ws, ws, ws, ws)))
        self.assertEqual(self.read(os.path.join(ws, ".git", "hooks", "pre-commit")), "orig\n")
        self.assertEqual(self.read(os.path.join(ws, ".git", "config")), "orig\n")

    def test_gitdir_file_is_followed(self):
        ws = self.mkdtemp()
        self.write(os.path.join(ws, ".git"), "gitdir: .realgit\n")
        self.write(os.path.join(ws, ".realgit", "config"), "orig\n")
        self.write(os.path.join(ws, ".realgit", "hooks", "pre-commit"), "orig\n")
        for cmd in ("echo evil >> %s/.realgit/config" % ws,
                    "echo evil >> %s/.realgit/hooks/pre-commit" % ws):
            res = run(["run", "-v", ws, "--"] + sh(cmd))
            self.assertFailed(res, cmd)
        self.assertEqual(self.read(os.path.join(ws, ".realgit", "config")), "orig\n")
        self.assertEqual(self.read(os.path.join(ws, ".realgit", "hooks", "pre-commit")), "orig\n")

    def test_preset_none_lifts_protection(self):
        ws = self.make_ws()
        res = run(["run", "-v", ws, "--preset", "none", "--"] +
                  sh("echo new >> %s/.bashrc && echo new >> %s/.git/config && "
                     "echo new >> %s/.git/hooks/pre-commit" % (ws, ws, ws)))
        self.assertOk(res)
        self.assertEqual(self.read(os.path.join(ws, ".bashrc")), "orig\nnew\n")
        self.assertEqual(self.read(os.path.join(ws, ".git", "config")), "orig\nnew\n")


@harness.needs_userns('no protected names inside writable mounts without a mount namespace (a stated loss)')
class GuardedNames(PortaTestCase):
    """Protected names a mount cannot hold: the directories above them are
    pinned; absent ones and symbolic links are watched, and one that appears
    or changes is moved aside (bytes kept) and the run stopped (exit 137)."""

    def test_parents_of_protected_names_cannot_be_renamed(self):
        ws = self.mkdtemp()
        self.write(os.path.join(ws, ".claude", "settings.json"), "orig\n")
        self.write(os.path.join(ws, ".config", "git", "config"), "orig\n")
        self.write(os.path.join(ws, ".local", "share", "applications", "a.desktop"), "orig\n")
        for parent, inner in ((".claude", "settings.json"), (".config", "git/config"),
                              (".local", "share/applications/a.desktop"),
                              (".local/share", "applications/a.desktop")):
            ctl = harness.run_host(sh("cd %s && cp -a %s %s.c && mv %s.c %s.ctl && rm -rf %s.ctl"
                                      % (ws, parent, parent, parent, parent, parent)))
            self.assertOk(ctl, "control: " + parent)
            cmd = ("cd %s && mv %s %s.old && mkdir -p %s/$(dirname %s) && echo evil > %s/%s"
                   % (ws, parent, parent, parent, inner, parent, inner))
            res = run(["run", "-v", ws, "--"] + sh(cmd))
            self.assertFailed(res, cmd)
            self.assertEqual(self.read(os.path.join(ws, parent, inner)), "orig\n", parent)
            self.assertFalse(os.path.exists(os.path.join(ws, parent + ".old")), parent)

    def aside(self, directory, name):
        return [n for n in os.listdir(directory) if n.startswith(name + ".porta-refused-")]

    def test_absent_name_created_is_moved_aside_and_the_run_stopped(self):
        ws = self.mkdtemp()
        os.makedirs(os.path.join(ws, ".claude"))
        for rel, how in ((".envrc", "echo evil > .envrc"),
                         (".claude/settings.local.json", "echo evil > .claude/settings.local.json"),
                         (".vscode", "mkdir x; echo evil > x/settings.json; mv x .vscode"),
                         (".mcp.json", "ln -s elsewhere .mcp.json")):
            res = run(["run", "-v", ws, "--"] +
                      sh("cd %s && %s; sleep 5; echo NOT-STOPPED" % (ws, how)))
            self.assertRc(res, 137, rel)
            self.assertNotIn("NOT-STOPPED", res.out, rel)
            self.assertIn("stopping the run: %s/%s" % (ws, rel), res.err)
            self.assertIn("the run was stopped", res.err)
            path = os.path.join(ws, rel)
            self.assertFalse(os.path.lexists(path), rel + " is still there")
            moved = self.aside(os.path.dirname(path), os.path.basename(path))
            self.assertEqual(len(moved), 1, (rel, os.listdir(os.path.dirname(path))))
            kept = os.path.join(os.path.dirname(path), moved[0])
            if rel == ".vscode":
                self.assertEqual(self.read(os.path.join(kept, "settings.json")), "evil\n")
            elif rel == ".mcp.json":
                self.assertEqual(os.readlink(kept), "elsewhere")
            else:
                # kept whole, or empty when the stop came between the
                # shell's open() and its write()
                self.assertIn(self.read(kept), ("", "evil\n"), "the bytes were not kept")

    def test_git_hooks_absent_and_a_new_link_on_the_way(self):
        ws = self.mkdtemp()
        subprocess.run(["git", "init", "-q", ws], check=True)
        shutil.rmtree(os.path.join(ws, ".git", "hooks"))
        self.write(os.path.join(ws, "evil", "pre-commit"), "#!/bin/sh\necho pwn\n", 0o755)
        res = run(["run", "-v", ws, "--"] + sh("cd %s && ln -s ../evil .git/hooks; sleep 5" % ws))
        self.assertRc(res, 137)
        self.assertFalse(os.path.lexists(os.path.join(ws, ".git", "hooks")))
        res = run(["run", "-v", ws, "--"] +
                  sh("cd %s && mkdir .claude.x && ln -s ../evil .claude.x/commands && "
                     "mv .claude.x .claude; sleep 5" % ws))
        self.assertRc(res, 137)
        self.assertFalse(os.path.lexists(os.path.join(ws, ".claude", "commands")))

    def test_a_protected_link_replaced_is_put_back(self):
        ws = self.mkdtemp()
        self.write(os.path.join(ws, "shared.envrc"), "orig\n")
        os.symlink("shared.envrc", os.path.join(ws, ".envrc"))
        res = run(["run", "-v", ws, "--"] +
                  sh("cd %s && rm .envrc && echo evil > .envrc; sleep 5; echo NOT-STOPPED" % ws))
        self.assertRc(res, 137)
        self.assertNotIn("NOT-STOPPED", res.out)
        self.assertEqual(os.readlink(os.path.join(ws, ".envrc")), "shared.envrc")
        self.assertEqual(self.read(os.path.join(ws, "shared.envrc")), "orig\n",
                         "the link's target is protected too")
        moved = self.aside(ws, ".envrc")
        self.assertEqual(len(moved), 1)
        # the guard stops the command as soon as the name appears: between
        # the shell's open() and its write() when it is quick enough
        self.assertIn(self.read(os.path.join(ws, moved[0])), ("", "evil\n"))

    def test_a_protected_link_repointed_is_put_back(self):
        """Removed and made again pointing elsewhere: the new link may get
        the old one's inode number back, so the guard compares targets too
        (escape corpus row 85)."""
        ws = self.mkdtemp()
        self.write(os.path.join(ws, "dotclaude", "settings.json"), "{}\n")
        self.write(os.path.join(ws, "evil", "settings.json"), "{\"hooks\": {}}\n")
        os.symlink("dotclaude", os.path.join(ws, ".claude"))
        res = run(["run", "-v", ws, "--"] +
                  sh("cd %s && rm .claude && ln -s evil .claude; sleep 5; echo NOT-STOPPED" % ws))
        self.assertRc(res, 137)
        self.assertNotIn("NOT-STOPPED", res.out)
        self.assertEqual(os.readlink(os.path.join(ws, ".claude")), "dotclaude")
        self.assertEqual(self.read(os.path.join(ws, ".claude", "settings.json")), "{}\n")

    def replace_during_run(self, ws, path, env=None):
        """Starts a run that reads and writes PATH in a loop, replaces PATH
        from outside (write a temporary file, rename it over, as editors,
        git and token refreshes do), and returns the run's result."""
        script = ('touch "$1/ready"; i=0; while [ $i -lt 100 ]; do i=$((i+1)); '
                  'cat "$2" 2>/dev/null; echo evil >> "$2" 2>/dev/null && echo WROTE; '
                  'sleep 0.05; done; echo NOT-STOPPED')
        # open reads: the closed file is in a planted home, which the
        # default reads would close whole
        proc = harness.spawn(["run", "--read-policy", "open", "-v", ws, "--", SH, "-c", script,
                              "sh", ws, path],
                             env=env)
        self.addCleanup(harness.reap, proc)
        deadline = time.monotonic() + 20
        while not os.path.exists(os.path.join(ws, "ready")) and time.monotonic() < deadline:
            time.sleep(0.02)
        tmp = path + ".host-tmp"
        with open(tmp, "w") as f:
            f.write("replaced-outside\n")
        os.rename(tmp, path)
        out, err = proc.communicate(timeout=30)
        return proc.returncode, out, err

    def test_a_protected_file_replaced_outside_stops_the_run(self):
        # git config writes .git/config by lock-and-rename: the read-only
        # mount over the old file goes with it.
        ws = self.mkdtemp()
        self.write(os.path.join(ws, ".git", "config"), "orig\n")
        self.write(os.path.join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
        rc, out, err = self.replace_during_run(ws, os.path.join(ws, ".git", "config"))
        self.assertEqual(rc, 137, out + err)
        self.assertNotIn("NOT-STOPPED", out)
        self.assertIn("stopping the run: %s/.git/config (kept unwritable: protected) was "
                      "replaced outside the sandbox" % ws, err)

    def test_a_closed_file_replaced_outside_stops_the_run(self):
        h = self.mkdtemp(prefix="porta-it-home-")
        ws = self.mkdtemp()
        netrc = os.path.join(h, ".netrc")
        self.write(netrc, "machine a login b password MUST-NOT-LEAK\n", 0o600)
        rc, out, err = self.replace_during_run(ws, netrc, env=harness.clean_env({"HOME": h}))
        self.assertEqual(rc, 137, out + err)
        # The command reads the path in a loop while it is replaced: in
        # the moment between the kernel's detaching porta's mount and its
        # moving the new entry in, a read finds the old file (README,
        # "Not defended").  What porta holds is the stop, at most one read
        # after it: the command never gets to read twice.
        self.assertLessEqual(out.count("MUST-NOT-LEAK") + out.count("replaced-outside"), 1, out)
        self.assertNotIn("NOT-STOPPED", out)
        self.assertIn("(closed: credential) was replaced outside the sandbox", err)

    def test_ordinary_files_do_not_stop_the_run(self):
        ws = self.mkdtemp()
        res = run(["run", "-v", ws, "--"] +
                  sh("cd %s && mkdir -p .claude src && echo x > .claude/notes.md && "
                     "echo y > src/.envrc && echo z > envrc && echo done" % ws))
        self.assertOk(res)
        self.assertEqual(res.out, "done\n")

    def test_explain_lists_the_guard(self):
        ws = self.mkdtemp()
        self.write(os.path.join(ws, ".claude", "settings.json"), "{}\n")
        res = run(["explain", "-v", ws, "--", "true"])
        self.assertOk(res)
        self.assertIn("pinned, as parents of protected names: %s/.claude" % ws, res.out)
        self.assertIn("absent now (a mount cannot cover them): watched while the command runs",
                      res.out)
        self.assertIn("in %s: " % ws, res.out)


class Caches(PortaTestCase):
    """--caches: the package managers' caches writable (made if absent), the
    rest of the home not, and the variables that place them passed through."""

    def test_caches_are_made_and_writable_the_rest_is_not(self):
        home = self.mkdtemp(prefix="porta-it-home-")
        env = harness.clean_env({"HOME": home})
        script = ("for d in .npm .cache/pip .cargo/registry go/pkg/mod .m2/repository "
                  ".gradle/caches .cache/ccache; do echo x > \"$HOME/$d/f\" && echo \"ok $d\"; done; "
                  "for f in .cargo/bin/cargo .cargo/config.toml .m2/settings.xml .bashrc; do "
                  "mkdir -p \"$(dirname \"$HOME/$f\")\" 2>/dev/null; "
                  "echo x > \"$HOME/$f\" 2>/dev/null && echo \"WROTE $f\"; done; true")
        res = run(["run", "--caches", "--", SH, "-c", script], env=env)
        self.assertOk(res)
        for d in (".npm", ".cache/pip", ".cargo/registry", "go/pkg/mod", ".m2/repository",
                  ".gradle/caches", ".cache/ccache"):
            self.assertIn("ok " + d, res.out, res.describe())
            self.assertEqual(self.read(os.path.join(home, d, "f")), "x\n", d)
        self.assertNotIn("WROTE", res.out, res.describe())
        self.assertFalse(os.path.exists(os.path.join(home, ".cargo", "bin")))
        # without the option, nothing of it
        home2 = self.mkdtemp(prefix="porta-it-home-")
        res = run(["run", "--", SH, "-c", "echo x > $HOME/.npm/f && echo WROTE"],
                  env=harness.clean_env({"HOME": home2}))
        self.assertNotIn("WROTE", res.out)
        self.assertFalse(os.path.exists(os.path.join(home2, ".npm")))

    def test_a_variable_moves_a_cache_and_passes_through(self):
        home = self.mkdtemp(prefix="porta-it-home-")
        elsewhere = os.path.join(self.mkdtemp(), "npm-cache")
        env = harness.clean_env({"HOME": home, "npm_config_cache": elsewhere})
        res = run(["run", "--caches", "--", SH, "-c",
                   "echo \"$npm_config_cache\"; echo x > \"$npm_config_cache/f\" && echo wrote"],
                  env=env)
        self.assertOk(res)
        self.assertEqual(res.out, elsewhere + "\nwrote\n")
        self.assertEqual(self.read(os.path.join(elsewhere, "f")), "x\n")
        # without --caches the variable is scrubbed like any other
        res = run(["run", "--", SH, "-c", "echo \"[$npm_config_cache]\""], env=env)
        self.assertEqual(res.out, "[]\n")

    def test_offline_switches_under_no_net_only(self):
        # --caches --no-net: each tool is told to work from its cache
        # (npm without it retries even "no such host" for about 70 s)
        home = self.mkdtemp(prefix="porta-it-home-")
        show = [SH, "-c", "echo \"$npm_config_offline $CARGO_NET_OFFLINE $GOPROXY $UV_OFFLINE\""]
        res = run(["run", "--caches", "--no-net", "--"] + show,
                  env=harness.clean_env({"HOME": home}))
        self.assertOk(res)
        self.assertEqual(res.out, "true true off 1\n", res.describe())
        # the control: not with the network open, nor --no-net alone
        for opts in (["--caches"], ["--no-net"]):
            res = run(["run"] + opts + ["--"] + show, env=harness.clean_env({"HOME": home}))
            self.assertEqual(res.out, "   \n", (opts, res.describe()))
        # a switch the host sets is the host's (here: not passed, not set),
        # and -e sets any of them
        res = run(["run", "--caches", "--no-net", "-e", "UV_OFFLINE=0", "--"] + show,
                  env=harness.clean_env({"HOME": home, "npm_config_offline": "false"}))
        self.assertEqual(res.out, " true off 0\n", res.describe())

    def test_a_variable_naming_the_home_is_refused(self):
        home = self.mkdtemp(prefix="porta-it-home-")
        for var, value in (("PIP_CACHE_DIR", home), ("CARGO_HOME", "/"), ("PIP_CACHE_DIR", "rel")):
            res = run(["run", "--caches", "--", "true"],
                      env=harness.clean_env({"HOME": home, var: value}))
            self.assertRc(res, 125, (var, value))
            self.assertIn("porta: --caches %s" % var, res.err)

    def test_explain_lists_them(self):
        home = self.mkdtemp(prefix="porta-it-home-")
        res = run(["explain", "--caches", "--", "true"], env=harness.clean_env({"HOME": home}))
        self.assertOk(res)
        self.assertIn("cache %s/.npm  read-write (--caches: npm), absent now: run makes it" % home,
                      res.out)
        self.assertFalse(os.path.exists(os.path.join(home, ".npm")), "explain made it")


class Credentials(PortaTestCase):

    def plant_home(self):
        h = self.mkdtemp(prefix="porta-it-home-")
        self.files = {
            ".ssh/id_ed25519": SECRET + "-ssh\n",
            ".aws/credentials": SECRET + "-aws\n",
            ".netrc": SECRET + "-netrc\n",
            ".config/gh/hosts.yml": SECRET + "-gh\n",
            ".git-credentials": SECRET + "-gitcred\n",
        }
        for rel, text in self.files.items():
            self.write(os.path.join(h, rel), text, 0o600)
        self.write(os.path.join(h, "notes.txt"), "ordinary-notes\n")
        return h

    def reader(self, h):
        paths = " ".join(os.path.join(h, rel) for rel in self.files)
        return sh("cat %s; ls -la %s/.ssh %s/.aws; grep -r %s %s; cat %s/notes.txt"
                  % (paths, h, h, SECRET, h, h))

    def test_control_readable_without_porta(self):
        h = self.plant_home()
        res = harness.run_host(self.reader(h))
        self.assertIn(SECRET + "-ssh", res.out)

    def test_closed_under_open_reads(self):
        h = self.plant_home()
        env = harness.clean_env({"HOME": h})
        res = run(["run", "--read-policy", "open", "--"] + self.reader(h), env=env)
        self.assertNotIn(SECRET, res.out + res.err)
        self.assertIn("ordinary-notes", res.out, "the rest of the home should stay readable")

    def test_closed_with_home_mounted(self):
        h = self.plant_home()
        env = harness.clean_env({"HOME": h})
        res = run(["run", "-v", h, "--"] + self.reader(h), env=env)
        self.assertNotIn(SECRET, res.out + res.err)
        if harness.DEGRADED:
            # Landlock cannot close a path beneath a writable grant: refused
            self.assertEqual(res.rc, 125, res.describe())
            self.assertIn("inside the writable mount", res.err)
        else:
            self.assertIn("ordinary-notes", res.out)
        # nor can the closed paths be written through the mount
        run(["run", "-v", h, "--"] +
            sh("echo evil > %s/.ssh/authorized_keys; echo evil >> %s/.netrc; "
               "echo evil > %s/.aws/config" % (h, h, h)), env=env)
        self.assertFalse(os.path.exists(os.path.join(h, ".ssh", "authorized_keys")))
        self.assertFalse(os.path.exists(os.path.join(h, ".aws", "config")))
        self.assertEqual(self.read(os.path.join(h, ".netrc")), SECRET + "-netrc\n")

    def test_v_on_a_closed_path_reopens_exactly_it(self):
        h = self.plant_home()
        self.write(os.path.join(h, ".config", "gh", "other.yml"), SECRET + "-gh-other\n", 0o600)
        env = harness.clean_env({"HOME": h})
        res = run(["run", "-v", os.path.join(h, ".config/gh/hosts.yml") + ":ro",
                   "-v", os.path.join(h, ".netrc") + ":ro", "--"] +
                  sh("cat %s/.config/gh/hosts.yml %s/.netrc; cat %s/.config/gh/other.yml "
                     "%s/.git-credentials %s/.ssh/id_ed25519" % (h, h, h, h, h)), env=env)
        self.assertIn(SECRET + "-gh\n", res.out, res.describe())
        self.assertIn(SECRET + "-netrc\n", res.out)
        for closed in ("-gh-other", "-gitcred", "-ssh"):
            self.assertNotIn(SECRET + closed, res.out, "reopened more than was named")
        self.assertEqual(res.err.count("reopens"), 2, res.err)
        self.assertIn("-v %s/.netrc reopens a path closed as credential" % h, res.err)
        # -q: not a word
        res = run(["run", "-q", "-v", os.path.join(h, ".netrc") + ":ro", "--", "true"], env=env)
        self.assertEqual(res.err, "")

    def test_mounting_the_home_reopens_nothing(self):
        h = self.plant_home()
        env = harness.clean_env({"HOME": h})
        res = run(["run", "-v", h + ":ro", "--"] + self.reader(h), env=env)
        self.assertNotIn(SECRET, res.out + res.err)
        self.assertNotIn("reopens", res.err)

    def test_explain_lists_the_reopened_path_once(self):
        h = self.plant_home()
        env = harness.clean_env({"HOME": h})
        res = run(["explain", "-v", os.path.join(h, ".netrc") + ":ro", "--json", "--", "true"],
                  env=env)
        self.assertOk(res)
        import json
        doc = json.loads(res.out)
        self.assertNotIn(os.path.join(h, ".netrc"), [c["path"] for c in doc["closed_paths"]])
        self.assertEqual([r["path"] for r in doc["reopened"]], [os.path.join(h, ".netrc")])

    def test_preset_none_opens_them(self):
        h = self.plant_home()
        env = harness.clean_env({"HOME": h})
        res = run(["run", "--read-policy", "open", "--preset", "none", "--", "cat",
                   os.path.join(h, ".netrc")], env=env)
        self.assertIn(SECRET + "-netrc", res.out, res.describe())


class HomeReads(PortaTestCase):
    """--read-policy home (docs/defaults.md, "The home"): outside the home as
    open; in it only the mounts, the working directory's project (read-only),
    the places docs/defaults.md lists and a ~/.gitconfig with the host's user.*
    values.  Degraded, Landlock refuses the rest of the home (EACCES) and no
    ~/.gitconfig is written."""

    def planted(self):
        h = self.mkdtemp(prefix="porta-it-home-")
        files = {
            ".databrickscfg": SECRET + "-databricks",
            "notes.txt": SECRET + "-notes",
            ".bashrc": "export TOKEN=" + SECRET + "-bashrc",
            ".gitconfig": "[user]\n\tname = Home Person\n\temail = hp@example.test\n"
                          "[credential]\n\thelper = store --file ~/" + SECRET + "-helper\n",
            ".local/bin/hometool": "#!/bin/sh\necho hometool-ran\n",
            "code/proj/README": "project-readme\n",
            "code/proj/src/main.c": "int main;\n",
            "code/other/secret.txt": SECRET + "-other",
        }
        for rel, text in files.items():
            self.write(os.path.join(h, rel), text + "\n")
        os.chmod(os.path.join(h, ".local/bin/hometool"), 0o755)
        os.mkdir(os.path.join(h, "code/proj/.git"))
        return h

    def home_run(self, h, cwd, script, extra=()):
        env = harness.clean_env({"HOME": h, "GIT_CONFIG_NOSYSTEM": "1"})
        return run(["run", "--read-policy", "home", *extra, "--"] + sh(script), env=env, cwd=cwd)

    def test_only_the_project_and_the_listed_places_are_shown(self):
        h = self.planted()
        src = os.path.join(h, "code/proj/src")
        res = self.home_run(h, src, (
            "for f in .databrickscfg notes.txt .bashrc code/other/secret.txt; do "
            "cat ~/$f 2>&1; done; cat ../README; cat main.c; "
            "touch ../made 2>/dev/null || echo project-read-only; "
            "~/.local/bin/hometool; ls -A ~ | tr '\\n' ' '; echo"))
        self.assertOk(res)
        self.assertNotIn(SECRET, res.out, res.describe())
        self.assertIn("project-readme", res.out)
        self.assertIn("int main;", res.out)
        self.assertIn("project-read-only", res.out)
        self.assertFalse(os.path.exists(os.path.join(h, "code/proj/made")))
        self.assertIn("hometool-ran", res.out)
        if harness.DEGRADED:
            self.assertIn("Permission denied", res.out, res.describe())
        else:
            self.assertIn("No such file or directory", res.out, res.describe())
            listing = res.out.strip().splitlines()[-1].split()
            self.assertEqual(sorted(listing), [".gitconfig", ".local", "code"], res.describe())

    def test_control_open_reads_the_unlisted_store(self):
        h = self.planted()
        env = harness.clean_env({"HOME": h})
        res = run(["run", "--read-policy", "open", "--"] + sh("cat ~/.databrickscfg"), env=env,
                  cwd=os.path.join(h, "code/proj"))
        self.assertOk(res)
        self.assertIn(SECRET + "-databricks", res.out)

    @harness.needs_userns("the generated ~/.gitconfig is written into the home's cover")
    def test_gitconfig_holds_the_identity_only(self):
        h = self.planted()
        proj = os.path.join(h, "code/proj")
        res = self.home_run(h, proj, "cat ~/.gitconfig; git config user.name; git config "
                                     "user.email; git config credential.helper || echo no-helper")
        self.assertOk(res)
        self.assertIn("Home Person\nhp@example.test\nno-helper", res.out, res.describe())
        self.assertNotIn(SECRET, res.out)

    @harness.needs_userns("the generated ~/.gitconfig is written into the home's cover")
    def test_a_large_identity_fits_the_cover(self):
        # user.* values past 4 KiB: the cover sealed read-only once written
        # must keep what it holds (a remount with a smaller size failed, 125)
        h = self.planted()
        big = "x" * 1000  # under POLICY_GITCFG_VALUE_MAX (1024)
        self.write(os.path.join(h, ".gitconfig"),
                   "[user]\n\tname = Home Person\n\temail = hp@example.test\n" +
                   "".join("\tsigningkey%d = %s\n" % (i, big) for i in range(6)))
        res = self.home_run(h, os.path.join(h, "code/proj"), "git config user.name; wc -c < ~/.gitconfig")
        self.assertOk(res)
        self.assertIn("Home Person", res.out)
        self.assertGreater(int(res.out.split()[-1]), 4096, res.describe())

    def test_a_mount_shows_more(self):
        h = self.planted()
        other = os.path.join(h, "code/other")
        res = self.home_run(h, os.path.join(h, "code/proj"), "cat %s/secret.txt" % other,
                            extra=["-v", other + ":ro"])
        self.assertOk(res)
        self.assertIn(SECRET + "-other", res.out)

    def test_from_the_home_itself_no_project_and_run_says_so(self):
        h = self.planted()
        res = self.home_run(h, h, "cat ~/code/proj/README 2>&1; cat ~/notes.txt 2>&1; echo done")
        self.assertOk(res)
        self.assertNotIn("project-readme", res.out)
        self.assertNotIn(SECRET, res.out)
        self.assertIn("is the home or above it", res.err, res.describe())

    def test_credential_list_stays_closed_inside_the_project(self):
        # the project is below the home; a credential path of the list is
        # the project itself: the list wins
        h = self.planted()
        self.write(os.path.join(h, ".aws/credentials"), SECRET + "-aws\n")
        os.mkdir(os.path.join(h, ".aws/.git"))
        res = self.home_run(h, os.path.join(h, ".aws"), "cat ~/.aws/credentials 2>&1; echo done")
        self.assertNotIn(SECRET, res.out, res.describe())


class HomeTools(PortaTestCase):
    """Real tools under the default reads (the closed home), laid out as a
    user has them: git commit with the host's identity, make, and Python
    and Node.js installed in the home (pyenv's and nvm's places).  npm, pip,
    cargo and go with --caches, and the claude-code and codex profiles, run
    under the default in tests/netlab (npm-install, pip-install,
    cargo-build, profiles)."""

    def setUp(self):
        self.h = self.mkdtemp(prefix="porta-it-home-")
        self.write(os.path.join(self.h, ".gitconfig"),
                   "[user]\n\tname = Tool User\n\temail = tu@example.test\n")
        self.write(os.path.join(self.h, "secret.txt"), SECRET + "-tools\n")
        self.proj = os.path.join(self.h, "src", "proj")
        self.write(os.path.join(self.proj, "hello.c"),
                   '#include <stdio.h>\nint main(void){puts("hello-made");return 0;}\n')
        self.write(os.path.join(self.proj, "Makefile"), "hello: hello.c\n\tcc -o hello hello.c\n")
        self.env = harness.clean_env({"HOME": self.h, "GIT_CONFIG_NOSYSTEM": "1"})
        ctl = harness.run_host(["git", "-C", self.proj, "init", "-q"], env=self.env)
        self.assertOk(ctl)

    def in_project(self, script, extra=()):
        return run(["run", "-v", ".", *extra, "--"] + sh(script), env=self.env, cwd=self.proj)

    @harness.needs_userns("the host's identity is written as ~/.gitconfig into the home's cover")
    def test_git_commit_with_the_hosts_identity(self):
        res = self.in_project("git add -A && git commit -qm first && git log --format='%an <%ae>'"
                              "; cat ~/secret.txt 2>/dev/null || echo home-closed")
        self.assertOk(res)
        self.assertIn("Tool User <tu@example.test>", res.out, res.describe())
        self.assertIn("home-closed", res.out)

    @unittest.skipIf(harness.DEGRADED and IS_ROOT,
                     "degraded as root, chmod is refused everywhere (a stated loss): the "
                     "linker cannot make ./hello executable")
    def test_make(self):
        res = self.in_project("make -s && ./hello")
        self.assertOk(res)
        self.assertIn("hello-made", res.out)

    def test_python_installed_in_the_home(self):
        venv = os.path.join(self.h, ".pyenv", "versions", "t")
        ctl = harness.run_host([PY, "-m", "venv", "--copies", "--without-pip", venv], env=self.env)
        self.assertOk(ctl)
        py = os.path.join(venv, "bin", "python3")
        res = self.in_project("%s -c 'import sys, json; print(\"py-home\", sys.prefix)'" % py)
        self.assertOk(res)
        self.assertIn("py-home " + venv, res.out, res.describe())

    @unittest.skipUnless(shutil.which("node"), "no node on this host")
    def test_node_installed_in_the_home(self):
        bindir = os.path.join(self.h, ".nvm", "versions", "node", "v0-test", "bin")
        os.makedirs(bindir)
        node = os.path.join(bindir, "node")
        shutil.copy2(os.path.realpath(shutil.which("node")), node)
        res = run(["run", "--"] + sh("PATH=%s:$PATH node -e 'console.log(\"node-home\")'" % bindir),
                  env=self.env, cwd=self.proj)
        self.assertOk(res)
        self.assertIn("node-home", res.out, res.describe())


class StrictReads(PortaTestCase):

    def test_strict(self):
        h = self.mkdtemp(prefix="porta-it-home-")
        self.write(os.path.join(h, "notes.txt"), SECRET + "-home\n")
        ws = self.mkdtemp()
        self.write(os.path.join(ws, "w.txt"), "workspace\n")
        other = self.mkdtemp()
        self.write(os.path.join(other, "o.txt"), SECRET + "-other\n")
        env = harness.clean_env({"HOME": h})
        base = ["run", "--read-policy", "strict", "-v", ws, "--"]

        res = run(base + ["cat", "/etc/passwd"], env=env)
        self.assertOk(res, "/etc/passwd must stay readable")
        self.assertIn("root:", res.out)

        res = run(base + ["cat", os.path.join(ws, "w.txt")], env=env)
        self.assertOk(res)
        self.assertEqual(res.out, "workspace\n")

        for path, mark in ((os.path.join(h, "notes.txt"), "-home"),
                           (os.path.join(other, "o.txt"), "-other")):
            ctl = run(["run", "--read-policy", "open", "--", "cat", path], env=env)
            self.assertIn(SECRET + mark, ctl.out, "control (open reads)\n" + ctl.describe())
            res = run(base + ["cat", path], env=env)
            self.assertFailed(res, path)
            self.assertNotIn(SECRET, res.out)

    def test_strict_closes_etc_files_programs_do_not_need(self):
        if not os.path.exists("/etc/hostname"):
            self.skipTest("/etc/hostname does not exist on this host")
        ctl = run(["run", "--", "cat", "/etc/hostname"])
        self.assertOk(ctl, "control: readable under open reads")
        res = run(["run", "--read-policy", "strict", "--", "cat", "/etc/hostname"])
        self.assertFailed(res)

    def test_strict_shadow_closed(self):
        res = run(["run", "--read-policy", "strict", "--"] +
                  sh("cat /etc/shadow /etc/gshadow /etc/sudoers 2>/dev/null | head -c 100"))
        self.assertEqual(res.out, "")

    @harness.needs_userns('the strict home is covered by an empty directory; Landlock alone answers EACCES, which git treats as fatal')
    def test_strict_home_is_empty_but_mounts_under_it_remain(self):
        # HOME points at a planted home with a git config and a secret; the
        # workspace (a git repository) lies under it and is mounted.
        h = self.mkdtemp(prefix="porta-it-home-")
        self.write(os.path.join(h, ".gitconfig"), "[user]\n\tname = Planted\n")
        self.write(os.path.join(h, "notes.txt"), SECRET + "\n")
        ws = os.path.join(h, "ws")
        os.mkdir(ws)
        env = harness.clean_env({"HOME": h, "GIT_CONFIG_NOSYSTEM": "1"})
        ctl = harness.run_host(["git", "-C", ws, "init", "-q"], env=env)
        self.assertOk(ctl)
        res = run(["run", "--read-policy", "strict", "-v", ws, "--"] + sh(
            "ls -A %s; cat %s/notes.txt; cat %s/.gitconfig; git -C %s status --short && echo git-ok; "
            "touch %s/made && echo ws-writable" % (h, h, h, ws, ws)), env=env)
        self.assertNotIn(SECRET, res.out)
        lines = res.out.splitlines()
        self.assertEqual(lines[0], "ws", "the home shows more than the mount: " + res.describe())
        self.assertIn("git-ok", res.out, res.describe())
        self.assertIn("ws-writable", res.out)
        self.assertIn("No such file or directory", res.err)  # ENOENT, not EACCES, for .gitconfig
        self.assertTrue(os.path.exists(os.path.join(ws, "made")))

    def test_strict_programs_still_start(self):
        # from / : a working directory in the home, which strict reads hide,
        # is refused (test_cli.WorkingDirectory)
        res = run(["run", "--read-policy", "strict", "--", PY, "-c", "print('py-ok')"], cwd="/")
        self.assertOk(res)
        self.assertEqual(res.out, "py-ok\n")


class ProcAndDev(PortaTestCase):

    SYSCTL = "/proc/sys/kernel/printk_ratelimit"

    @harness.needs_userns('a read-only /proc/sys mount (Landlock grants no write there on a degraded host)')
    def test_proc_sys_read_only(self):
        # Writing the current value back is harmless; only root can at all.
        rewrite = sh("v=$(cat %s) && echo $v > %s" % (self.SYSCTL, self.SYSCTL))
        if IS_ROOT:
            ctl = harness.run_host(rewrite)
            self.assertOk(ctl, "control: root can write %s on the host" % self.SYSCTL)
        res = run(["run", "--"] + rewrite)
        self.assertFailed(res)
        res = run(["run", "--", "cat", "/proc/self/mountinfo"])
        self.assertOk(res)
        lines = [l.split() for l in res.out.splitlines()]
        sys_lines = [l for l in lines if len(l) > 5 and l[4] == "/proc/sys"]
        self.assertTrue(sys_lines, "no /proc/sys mount\n" + res.out)
        self.assertIn("ro", sys_lines[-1][5].split(","), sys_lines[-1])

    def test_proc_sys_readable(self):
        res = run(["run", "--", "cat", "/proc/sys/kernel/ostype"])
        self.assertOk(res)
        self.assertEqual(res.out, "Linux\n")

    def test_dev_null_and_friends(self):
        res = run(["run", "--"] + sh("echo x > /dev/null && head -c 4 /dev/zero | od -An -tx1 "
                                     "&& head -c 4 /dev/urandom | wc -c"))
        self.assertOk(res)
        self.assertIn("00 00 00 00", res.out)
        self.assertTrue(res.out.strip().endswith("4"), res.out)


class Devices(PortaTestCase):
    """/dev/shm and /dev/pts are the sandbox's own; std streams reopen."""

    @harness.needs_userns('a private /dev/shm (closed on a degraded host)')
    def test_dev_shm_private_and_noexec(self):
        name = "porta-it-shm-" + harness.marker()
        res = run(["run", "--"] + sh("echo x > /dev/shm/%s && cp /bin/true /dev/shm/t && "
                                     "chmod +x /dev/shm/t && /dev/shm/t; echo rc=$?" % name))
        self.assertOk(res)
        self.assertIn("rc=126", res.out, "a program in /dev/shm ran: " + res.describe())
        self.assertFalse(os.path.exists("/dev/shm/" + name), "the write reached the host's /dev/shm")

    @harness.needs_userns('a private devpts instance (no new terminals on a degraded host)')
    def test_dev_pts_is_a_private_instance(self):
        # control: the host's /dev/pts holds the ptys of this machine's
        # terminals; a pty opened here must not show up inside
        import pty
        m, s = pty.openpty()
        self.addCleanup(os.close, m)
        self.addCleanup(os.close, s)
        host_name = os.path.basename(os.ttyname(s))
        self.assertTrue(os.path.exists("/dev/pts/" + host_name))
        res = run(["run", "--", PY, "-c",
                   "import os, pty; print(sorted(os.listdir('/dev/pts')));"
                   "m, s = pty.openpty(); print('new', os.ttyname(s))"])
        self.assertOk(res)
        first = res.out.splitlines()[0]
        self.assertEqual(first, "['ptmx']", "host ptys visible: " + res.describe())
        self.assertIn("new /dev/pts/0", res.out)

    def test_stdout_file_outside_mounts_can_be_reopened(self):
        out_dir = self.mkdtemp()
        out = os.path.join(out_dir, "out.txt")
        with open(out, "w") as f:
            p = harness.subprocess.run(harness.porta_argv(["run", "--"] + sh(
                "echo first > /dev/stdout; echo second >> /dev/stdout; echo bad > %s/other" % out_dir)),
                stdout=f, stderr=harness.subprocess.PIPE, text=True, env=harness.clean_env(),
                stdin=harness.subprocess.DEVNULL, timeout=60)
        self.assertEqual(self.read(out), "first\nsecond\n", p.stderr)
        # the grant is that file, not its directory
        self.assertFalse(os.path.exists(os.path.join(out_dir, "other")))

    def test_stdin_file_reopened_read_only(self):
        d = self.mkdtemp()
        src = self.write(os.path.join(d, "in.txt"), "input\n")
        with open(src) as f:
            p = harness.subprocess.run(harness.porta_argv(["run", "--"] + sh(
                "cat /dev/stdin; echo clobber > /dev/stdin; echo rc=$?")),
                stdin=f, capture_output=True, text=True, env=harness.clean_env(), timeout=60)
        self.assertIn("input", p.stdout)
        self.assertNotIn("rc=0", p.stdout)
        self.assertEqual(self.read(src), "input\n")


@harness.needs_userns('these tests look at what the mounts close (listing /run, a cover answering "Connection refused"); '
                      'degraded, the connect watch decides each call (test_unixsock.py)')
class CredentialSockets(PortaTestCase):

    def listen(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        lst = harness.UnixListener(path)
        self.addCleanup(lst.close)
        return lst

    def connect(self, path, args=(), env=None):
        return run(["run"] + list(args) + ["--", PY, "-c", harness.UNIX_CONNECT, path], env=env)

    def test_agent_socket_closed_and_allow_unix_reopens(self):
        ug = self.mkdtemp()
        path = os.path.join(ug, "ssh-XXXXabcd", "agent.1234")
        lst = self.listen(path)
        ctl = harness.run_host([PY, "-c", harness.UNIX_CONNECT, path])
        self.assertOk(ctl, "control: the socket answers outside")
        self.assertEqual(lst.accepted, 1)

        res = self.connect(path)
        self.assertFailed(res, "the ssh agent socket is reachable")
        self.assertEqual(lst.accepted, 1)

        res = self.connect(path, ["--allow-unix", path])
        self.assertOk(res, "--allow-unix did not reopen it")
        self.assertEqual(lst.accepted, 2)

    def test_agent_socket_closed_inside_writable_mount(self):
        ug = self.mkdtemp()
        path = os.path.join(ug, "ssh-XXXXabcd", "agent.99")
        lst = self.listen(path)
        res = self.connect(path, ["-v", ug])
        self.assertFailed(res)
        self.assertEqual(lst.accepted, 0)

    def test_ssh_auth_sock_closed(self):
        # Inside a writable mount an ordinary socket is reachable; the one
        # $SSH_AUTH_SOCK names is a credential socket, closed there too.
        ug = self.mkdtemp()
        path = os.path.join(ug, "plain-name.sock")
        lst = self.listen(path)
        env = harness.clean_env({"SSH_AUTH_SOCK": path})
        ctl = self.connect(path, ["-v", ug])
        self.assertOk(ctl, "control")
        res = self.connect(path, ["-v", ug], env=env)
        self.assertFailed(res, "$SSH_AUTH_SOCK is reachable")
        self.assertEqual(lst.accepted, 1)

    def test_deny_unix_closes_more(self):
        ug = self.mkdtemp()
        path = os.path.join(ug, "service.sock")
        lst = self.listen(path)
        ctl = self.connect(path, ["-v", ug])
        self.assertOk(ctl, "control: a socket inside a writable mount is reachable")
        res = self.connect(path, ["-v", ug, "--deny-unix", r"/service\.sock$"])
        self.assertFailed(res, "--deny-unix did not close it")
        self.assertEqual(lst.accepted, 1)

    def test_any_host_socket_closed_whatever_its_name(self):
        # Host sockets are closed unless granted: no list decides it.
        ug = self.mkdtemp()
        paths = [os.path.join(ug, "plain", "service.sock"), os.path.join(ug, "x")]
        lsts = [self.listen(p) for p in paths]
        for p, lst in zip(paths, lsts):
            ctl = harness.run_host([PY, "-c", harness.UNIX_CONNECT, p])
            self.assertOk(ctl, "control: the socket answers outside")
            self.assertEqual(lst.accepted, 1)
            res = self.connect(p)
            self.assertFailed(res, p + " is reachable")
            self.assertIn("Connection refused", res.out)
            self.assertEqual(lst.accepted, 1, p)
            res = self.connect(p, ["--allow-unix", p])
            self.assertOk(res, "--allow-unix did not reopen " + p)
            self.assertEqual(lst.accepted, 2, p)

    def test_allow_unix_reaches_a_socket_in_a_closed_directory(self):
        # $XDG_RUNTIME_DIR is closed as a whole (host programs bind there
        # while the command runs); --allow-unix binds one socket back.
        rt = self.mkdtemp()
        os.chmod(rt, 0o700)
        path = os.path.join(rt, "app", "ipc.sock")
        lst = self.listen(path)
        env = harness.clean_env({"XDG_RUNTIME_DIR": rt})
        res = self.connect(path, env=env)
        self.assertFailed(res, "a socket in the runtime directory is reachable")
        self.assertEqual(lst.accepted, 0)
        res = self.connect(path, ["--allow-unix", path], env=env)
        self.assertOk(res, "--allow-unix did not reach it")
        self.assertEqual(lst.accepted, 1)
        res = run(["run", "--", SH, "-c", 'ls -A "$1"', "sh", rt], env=env)
        self.assertOk(res)
        self.assertEqual(res.out, "", "the runtime directory is not empty inside")

    def test_socket_bound_later_in_the_runtime_directory_unreachable(self):
        rt = self.mkdtemp()
        os.chmod(rt, 0o700)
        ws = self.mkdtemp()
        path = os.path.join(rt, "later.sock")
        env = harness.clean_env({"XDG_RUNTIME_DIR": rt})
        script = ('touch "$1/ready"; while [ ! -e "$1/go" ]; do sleep 0.05; done; '
                  'exec "$2" -c "$3" "$4"')
        proc = harness.spawn(["run", "-v", ws, "--", SH, "-c", script, "sh", ws, PY,
                              harness.UNIX_CONNECT, path], env=env)
        self.addCleanup(harness.reap, proc)
        deadline = time.monotonic() + 20
        while not os.path.exists(os.path.join(ws, "ready")) and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertTrue(os.path.exists(os.path.join(ws, "ready")), "the command never started")
        lst = self.listen(path)  # bound after porta looked
        with open(os.path.join(ws, "go"), "w"):
            pass
        out, err = proc.communicate(timeout=30)
        self.assertNotEqual(proc.returncode, 0, "a socket bound later in the runtime "
                            "directory was reached\n" + err)
        self.assertEqual(lst.accepted, 0)

    def test_docker_sock_closed(self):
        ug = self.mkdtemp()
        path = os.path.join(ug, "run", "docker.sock")
        lst = self.listen(path)
        res = self.connect(path)
        self.assertFailed(res)
        self.assertEqual(lst.accepted, 0)

    def test_session_bus_and_systemd_user_manager_closed(self):
        # Either runs commands outside any sandbox (systemd-run --user).
        ug = self.mkdtemp()
        for rel in ("run/user/1000/bus", "run/user/1000/systemd/private",
                    "run/user/1000/keyring/control"):
            path = os.path.join(ug, rel)
            lst = self.listen(path)
            ctl = harness.run_host([PY, "-c", harness.UNIX_CONNECT, path])
            self.assertOk(ctl, rel)
            before = lst.accepted
            res = self.connect(path)
            self.assertFailed(res, rel)
            self.assertEqual(lst.accepted, before, rel)

    def test_unreachable_socket_of_another_user_does_not_refuse_the_run(self):
        # /proc/net/unix lists every socket on the host, other users' too.  A
        # credential socket porta cannot reach is one the sandbox cannot reach
        # either: the run must go ahead, not fail to cover it.
        d = self.mkdtemp()
        path = os.path.join(d, "locked", "ssh-XXXXlock", "agent.555")
        self.listen(path)
        locked = os.path.join(d, "locked")
        if IS_ROOT:
            os.chown(os.path.dirname(path), 65534, 65534)
            os.chown(locked, 65534, 65534)
        os.chmod(locked, 0o000)
        self.addCleanup(os.chmod, locked, 0o755)
        res = run(["run", "--", "echo", "ran"])
        self.assertOk(res)
        self.assertEqual(res.out, "ran\n")

    def test_socket_whose_file_was_removed_does_not_refuse_the_run(self):
        # A listening socket whose path was unlinked still shows in
        # /proc/net/unix under that path; there is nothing to cover.
        d = self.mkdtemp()
        path = os.path.join(d, "ssh-XXXXgone", "agent.556")
        self.listen(path)
        os.unlink(path)
        res = run(["run", "--", "echo", "ran"])
        self.assertOk(res)
        self.assertEqual(res.out, "ran\n")

    @unittest.skipUnless(IS_ROOT, "makes a directory in /run")
    def test_run_is_closed_and_a_socket_bound_there_later_unreachable(self):
        # /run is where the system's services bind (again when they restart):
        # closed whole, so a socket bound there during the run stays out.
        d = tempfile.mkdtemp(prefix="porta-it-", dir="/run")
        self.addCleanup(shutil.rmtree, d, True)
        ws = self.mkdtemp()
        path = os.path.join(d, "daemon.sock")
        script = ('touch "$1/ready"; while [ ! -e "$1/go" ]; do sleep 0.05; done; '
                  'ls /run; exec "$2" -c "$3" "$4"')
        proc = harness.spawn(["run", "-v", ws, "--", SH, "-c", script, "sh", ws, PY,
                              harness.UNIX_CONNECT, path])
        self.addCleanup(harness.reap, proc)
        deadline = time.monotonic() + 20
        while not os.path.exists(os.path.join(ws, "ready")) and time.monotonic() < deadline:
            time.sleep(0.02)
        lst = self.listen(path)
        ctl = harness.run_host([PY, "-c", harness.UNIX_CONNECT, path])
        self.assertOk(ctl, "control: the socket answers outside")
        with open(os.path.join(ws, "go"), "w"):
            pass
        out, err = proc.communicate(timeout=30)
        self.assertNotEqual(proc.returncode, 0, out + err)
        self.assertEqual(lst.accepted, 1, "only the control reached it")
        self.assertNotIn(os.path.basename(d), out, "/run is not closed inside")

    @unittest.skipUnless(IS_ROOT and shutil.which("unshare"), "needs root for a private /etc")
    def test_a_resolv_conf_that_links_into_run_stays_readable(self):
        # systemd-resolved's /etc/resolv.conf links to
        # /run/systemd/resolve/stub-resolv.conf: closing /run keeps it.  A
        # private mount namespace shows porta such an /etc (the host's is
        # not touched).
        run_dir = tempfile.mkdtemp(prefix="porta-it-resolve-", dir="/run")
        self.addCleanup(shutil.rmtree, run_dir, True)
        self.write(os.path.join(run_dir, "stub-resolv.conf"), "nameserver 127.0.0.53\n")
        script = ('set -e; cp -a /etc/. "$1/"; rm -f "$1/resolv.conf"; '
                  'ln -s "$2/stub-resolv.conf" "$1/resolv.conf"; mount --bind "$1" /etc; '
                  'shift 2; exec "$@"')
        for mode in ([], ["--read-policy", "strict"]):
            etc = self.mkdtemp()
            argv = ["unshare", "-m", "--propagation", "private", SH, "-c", script, "sh", etc,
                    run_dir] + harness.porta_argv(["run"] + mode + ["--", "cat",
                                                                   "/etc/resolv.conf"])
            res = harness.run_host(argv)
            self.assertOk(res, "resolv.conf unreadable %r" % mode)
            self.assertEqual(res.out, "nameserver 127.0.0.53\n", mode)

    def test_preset_none_drops_the_names_not_the_rule(self):
        # --preset none: an agent's socket is no longer a credential, so
        # inside a writable mount it is reachable; outside one the rule that
        # host sockets are closed still holds.
        ug = self.mkdtemp()
        path = os.path.join(ug, "ssh-XXXXabcd", "agent.77")
        lst = self.listen(path)
        res = self.connect(path, ["--preset", "none"])
        self.assertFailed(res)
        self.assertEqual(lst.accepted, 0)
        res = self.connect(path, ["--preset", "none", "-v", ug])
        self.assertOk(res)
        self.assertEqual(lst.accepted, 1)


if __name__ == "__main__":
    unittest.main()
