"""integration/links: paths porta opens for the user, and the links on them.

The escape corpus (rows 94-98, tests/escapes/rows_links.py) shows each way a
link a command made steered porta before, held now.  Here: what a user sees.
A link the user made on purpose keeps working where it points somewhere porta
does not close; a link into a closed place is refused (125) naming the link
and its target, whichever option named it; a cache path that is a link is left
out with one line; learn's output is made in the directory taken before the
run, and when the command removed that directory the profile is printed, not
lost.
"""

import os
import subprocess
import unittest

import harness
from harness import IS_ROOT, SH, PortaTestCase

KEY = "porta-links-key-0b7e"


def sh(script):
    return [SH, "-c", script]


class Links(PortaTestCase):

    def home(self):
        h = self.mkdtemp(prefix="porta-it-home-")
        self.write(os.path.join(h, ".ssh", "id_ed25519"), KEY + "\n", 0o600)
        self.write(os.path.join(h, ".aws", "credentials"), "AWS_KEY=" + KEY + "\n", 0o600)
        return h

    def test_a_link_the_user_made_elsewhere_keeps_working(self):
        ws, scratch = self.mkdtemp(), self.mkdtemp()
        os.symlink(scratch, os.path.join(ws, "build"))
        res = harness.run(["run", "-v", os.path.join(ws, "build"), "--"] +
                          sh("echo out > %s/build/artifact" % ws))
        self.assertOk(res)
        self.assertEqual(self.read(os.path.join(scratch, "artifact")), "out\n")

    def test_a_link_into_a_credential_is_refused_naming_link_and_target(self):
        h, ws = self.home(), self.mkdtemp()
        link = os.path.join(ws, "build")
        os.symlink(os.path.join(h, ".ssh"), link)
        res = harness.run(["run", "-v", link, "--", "true"], env=harness.clean_env({"HOME": h}))
        self.assertRc(res, 125)
        self.assertIn("%s is a symbolic link to %s" % (link, os.path.join(h, ".ssh")), res.err)
        self.assertIn("credential", res.err)
        # the same place named itself is the user's choice, as before
        lit = harness.run(["run", "-v", os.path.join(h, ".ssh") + ":ro", "--", "cat",
                           os.path.join(h, ".ssh", "id_ed25519")],
                          env=harness.clean_env({"HOME": h}))
        self.assertOk(lit)
        self.assertIn(KEY, lit.out)

    def test_explain_refuses_what_run_refuses(self):
        h, ws = self.home(), self.mkdtemp()
        link = os.path.join(ws, "cfg")
        os.makedirs(os.path.join(h, ".config", "porta"))
        os.symlink(os.path.join(h, ".config", "porta"), link)
        res = harness.run(["explain", "-v", link, "--", "true"],
                          env=harness.clean_env({"HOME": h}))
        self.assertRc(res, 125)
        self.assertIn("symbolic link", res.err)
        self.assertIn("porta's configuration", res.err)

    def test_env_file_and_profile_through_a_link_into_a_credential(self):
        h, ws = self.home(), self.mkdtemp()
        env = harness.clean_env({"HOME": h})
        envfile = os.path.join(ws, "app.env")
        os.symlink(os.path.join(h, ".aws", "credentials"), envfile)
        res = harness.run(["run", "--env-file", envfile, "--", "env"], env=env)
        self.assertRc(res, 125)
        self.assertNotIn(KEY, res.out)
        self.assertIn("symbolic link", res.err)
        prof = os.path.join(ws, "team.porta")
        os.symlink(os.path.join(h, ".aws", "credentials"), prof)
        res = harness.run(["run", "--profile", prof, "--", "true"], env=env)
        self.assertRc(res, 125)
        self.assertIn("symbolic link", res.err)
        self.assertNotIn(KEY, res.err)
        # a profile linked from somewhere open is read as always
        real = os.path.join(self.mkdtemp(), "real.porta")
        self.write(real, "--timeout 30\n")
        ok = os.path.join(ws, "ok.porta")
        os.symlink(real, ok)
        self.assertOk(harness.run(["run", "--profile", ok, "--", "true"], env=env))

    def test_cache_path_that_is_a_link_is_left_out_with_one_line(self):
        h = self.home()
        os.makedirs(os.path.join(h, ".cache"))
        os.symlink(os.path.join(h, ".ssh"), os.path.join(h, ".cache", "pip"))
        env = harness.clean_env({"HOME": h})
        res = harness.run(["run", "--caches", "--"] +
                          sh("cat %s/.cache/pip/id_ed25519; echo x > %s/.cache/pip/f"
                             % (h, h)), env=env)
        self.assertNotIn(KEY, res.out)
        self.assertFalse(os.path.exists(os.path.join(h, ".ssh", "f")))
        self.assertEqual(res.err.count("--caches: %s/.cache/pip is a symbolic link" % h), 1,
                         res.describe())
        self.assertIn("the pip cache is left out", res.err)
        ex = harness.run(["explain", "--caches", "--", "true"], env=env)
        self.assertIn("left out (--caches: pip)", ex.out, ex.describe())

    def test_audit_file_rules(self):
        d = self.mkdtemp()
        target = os.path.join(d, "unrelated")
        self.write(target, "keep\n")
        link = os.path.join(d, "audit.jsonl")
        os.symlink(target, link)
        res = harness.run(["run", "--audit", link, "--no-net", "--", "true"])
        self.assertRc(res, 125)
        self.assertIn("symbolic link", res.err)
        self.assertEqual(self.read(target), "keep\n")
        # a regular file of one's own is appended to
        own = os.path.join(d, "own.jsonl")
        self.write(own, "")
        self.assertOk(harness.run(["run", "--audit", own, "--proxy-allow", "x.test", "--",
                                   "true"]))

    @unittest.skipUnless(IS_ROOT, "needs root to give the file to another user")
    def test_audit_file_of_another_user_refused(self):
        d = self.mkdtemp()
        other = os.path.join(d, "theirs.jsonl")
        self.write(other, "")
        os.chown(other, 65534, 65534)
        res = harness.run(["run", "--audit", other, "--no-net", "--", "true"])
        self.assertRc(res, 125)
        self.assertIn("belongs to uid 65534", res.err)

    def test_learn_output_directory_removed_during_the_run(self):
        ws, ug = self.mkdtemp(), self.mkdtemp()
        os.makedirs(os.path.join(ws, "out"))
        out = os.path.join(ws, "out", "p.porta")
        res = harness.run(["learn", "-v", ws, "-o", out, "--"] +
                          sh('rm -rf "%s/out" && ln -s "%s" "%s/out"' % (ws, ug, ws)))
        self.assertFalse(os.path.exists(os.path.join(ug, "p.porta")), res.describe())
        self.assertIn("its directory was removed during the run", res.err)
        self.assertIn("porta learn: the options", res.err, "the profile was not printed")
        self.assertRc(res, 125)

    def test_learn_output_written_through_the_directory_taken_before(self):
        ws = self.mkdtemp()
        os.makedirs(os.path.join(ws, "out"))
        out = os.path.join(ws, "out", "p.porta")
        res = harness.run(["learn", "-v", ws, "-o", out, "--", "true"])
        self.assertOk(res)
        self.assertIn("# porta learn", self.read(out))


if __name__ == "__main__":
    unittest.main()
