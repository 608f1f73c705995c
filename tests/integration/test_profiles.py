"""integration/profiles: --profile NAME|PATH and `porta profiles`
(docs/porta.1, PROFILES): a profile means what its options typed mean, the
command line overrides it, a malformed line is refused with its file and
line, user profiles come from porta's configuration directory, which no
sandbox can read or write, and explain says where each option came from."""

import json
import os
import re
import unittest

from harness import DEGRADED, IS_ROOT, SH, PortaTestCase, clean_env, run

# Options that mean the same typed or in a profile, across the kinds of
# value: a name rule, a path (relative, absolute and ~/), a quoted value
# with blanks, a single-valued option, flags.
PROFILE = """\
# a test profile: every kind of option
--allow-net registry.example
--allow-net '*.cdn.example:8443'
--allow-http 'GET,HEAD https://api.example/v1/*'
--deny-read ~/porta-it-profile-closed
-v {ws}
--timeout 30
--env "GREETING=hello world"
--caches
--why
"""

TYPED = ["--allow-net", "registry.example", "--allow-net", "*.cdn.example:8443",
         "--allow-http", "GET,HEAD https://api.example/v1/*",
         "--deny-read", "{home}/porta-it-profile-closed", "-v", "{ws}", "--timeout", "30",
         "--env", "GREETING=hello world", "--caches", "--why"]


def without_bound_sockets(text):
    """explain's text less the sockets bound when porta started: those are the
    machine's (tests running beside this one make and remove them), not the
    options'."""
    out, skipping = [], False
    for line in text.split("\n"):
        if line.startswith("  closed now (bound when porta started):"):
            skipping = True
            continue
        if skipping and line.startswith("    "):
            continue
        skipping = False
        out.append(line)
    return "\n".join(out)


class Profiles(PortaTestCase):

    def setUp(self):
        self.cfg = self.mkdtemp(prefix="porta-it-xdg-")
        self.env = clean_env({"XDG_CONFIG_HOME": self.cfg})
        self.ws = self.mkdtemp()
        self.home = os.path.realpath(os.environ["HOME"])

    def profile(self, name, text):
        return self.write(os.path.join(self.cfg, "porta", "profiles", name), text)

    def explain(self, args, json_out=True):
        res = run(["explain"] + (["--json"] if json_out else []) + args + ["--", SH, "-c", "true"],
                  env=self.env)
        self.assertOk(res)
        return json.loads(res.out) if json_out else res.out

    def test_a_profile_means_its_options_typed(self):
        path = self.write(os.path.join(self.ws, "p"), PROFILE.format(ws=self.ws))
        typed = [w.format(ws=self.ws, home=self.home) for w in TYPED]
        for given in (["--profile", path], ["--profile=" + path]):
            a = self.explain(given)
            b = self.explain(typed)
            self.assertIn("options", a)
            self.assertNotIn("options", b, "no profile, no sources")
            a.pop("options")
            # the sockets found under the home are the machine's, not the
            # options': tests running beside this one make and remove them
            a.pop("closed_sockets")
            b.pop("closed_sockets")
            self.assertEqual(a, b)
        # the text too, but for the sources the profile's adds at its end
        a = self.explain(["--profile", path], json_out=False)
        b = self.explain(typed, json_out=False)
        head, sep, _ = a.partition("\noptions, and where each came from:\n")
        self.assertTrue(sep, a)
        self.assertEqual(without_bound_sockets(head.rstrip("\n")),
                         without_bound_sockets(b.rstrip("\n")))

    def test_a_user_profile_by_name_and_where_each_option_came_from(self):
        path = self.profile("mine", "# mine\n--allow-net registry.example\n\n--timeout 30\n")
        out = self.explain(["--profile", "mine", "--allow-net", "other.example"])
        got = [(o["words"], o["from"], o.get("profile"), o.get("file"), o.get("line"))
               for o in out["options"] if o["words"][0] not in ("--allow-root", "--json")]
        self.assertEqual(got, [
            (["--allow-net", "registry.example"], "profile", "mine", path, 2),
            (["--timeout", "30"], "profile", "mine", path, 4),
            (["--allow-net", "other.example"], "command line", None, None, None)])
        text = self.explain(["--profile", "mine", "-e", "A=b c"], json_out=False)
        self.assertIn("  --allow-net registry.example    (profile mine: %s, line 2)" % path,
                      text)
        self.assertIn("  -e 'A=b c'    (command line)", text)

    def test_the_command_line_overrides(self):
        path = self.profile("base", "--timeout 30\n--read-policy strict\n--preset none\n"
                                    "--max-procs 50\n--allow-net registry.example\n")
        out = self.explain(["--profile", "base", "--timeout", "5", "--read-policy=open",
                            "--allow-net", "other.example"])
        self.assertEqual(out["limits"]["timeout_ms"], 5000, out["limits"])
        self.assertEqual(out["read_policy"], "open")
        # what the command line does not give stays the profile's; lists add up
        self.assertEqual(out["limits"]["max_procs"], 50)
        words = [o["words"] for o in out["options"]]
        self.assertIn(["--preset", "none"], words)
        self.assertNotIn(["--timeout", "30"], words)
        self.assertEqual(sorted(r["rule"] for r in out["network"]["rules"]
                                if r["rule"] in ("registry.example", "other.example")),
                         ["other.example", "registry.example"], path)
        # and the later of two profiles overrides the earlier
        self.profile("later", "--timeout 60\n")
        out = self.explain(["--profile", "base", "--profile", "later"])
        self.assertEqual(out["limits"]["timeout_ms"], 60000)

    def test_a_malformed_line_is_refused_with_file_and_line(self):
        cases = [("--allow-net registry.example\n\n--allow-net a.example; curl x\n",
                  "line 3: ';' outside quotes"),
                 ("# ok\n--timeout soon\n", "line 2: --timeout 'soon'"),
                 ("--allow-net a.example b.example\n", "line 1: 3 words"),
                 ("--allow-net 'open\n", "line 1: a ' that is never closed"),
                 ("-v $HOME\n", "line 1: '$' outside single quotes"),
                 ("--allow-root\n", "line 1: --allow-root inside a profile"),
                 ("--profile other\n", "line 1: --profile inside a profile"),
                 ("echo hi\n", "line 1: 'echo' is not an option")]
        for text, want in cases:
            path = self.profile("bad", text)
            res = run(["run", "--profile", "bad", "--", SH, "-c", "echo ran"], env=self.env)
            self.assertRc(res, 125)
            self.assertNotIn("ran", res.out)
            self.assertIn(path, res.err)
            self.assertIn(want, res.err)

    def test_unknown_and_invalid_names(self):
        res = run(["run", "--profile", "no-such-profile", "--", "true"], env=self.env)
        self.assertRc(res, 125)
        self.assertIn("no such profile", res.err)
        self.assertIn(os.path.join(self.cfg, "porta", "profiles"), res.err)
        self.assertIn("porta profiles", res.err)
        res = run(["run", "--profile", "..", "--", "true"], env=self.env)
        self.assertRc(res, 125)
        self.assertIn("not a profile name", res.err)
        res = run(["run", "--profile", os.path.join(self.ws, "absent"), "--", "true"],
                  env=self.env)
        self.assertRc(res, 125)
        self.assertIn("No such file", res.err)

    def test_porta_profiles_lists_built_in_and_user_profiles(self):
        self.profile("mine", "# my own registry\n--allow-net registry.example\n")
        self.profile("npm", "# my npm\n--allow-net registry.example\n")
        res = run(["profiles"], env=self.env)
        self.assertOk(res)
        builtin, _, user = res.out.partition("user profiles")
        for name in ("npm", "pip", "cargo", "go", "git-github", "claude-code", "codex"):
            self.assertRegex(builtin, r"\n  %s +\S" % re.escape(name))
        self.assertRegex(builtin, r"\n  npm +.*a user profile of this name is used instead")
        self.assertIn("mine           my own registry", user)
        # the user's npm is the one used
        out = self.explain(["--profile", "npm"])
        self.assertEqual(out["options"][0]["file"],
                         os.path.join(self.cfg, "porta", "profiles", "npm"))
        res = run(["profiles", "extra"], env=self.env)
        self.assertRc(res, 125)

    def test_every_built_in_profile_is_accepted(self):
        home = self.mkdtemp(prefix="porta-it-home-")
        for d in (".claude", ".codex"):
            os.mkdir(os.path.join(home, d))
        self.write(os.path.join(home, ".claude.json"), "{}")
        env = clean_env({"HOME": home, "XDG_CONFIG_HOME": self.cfg})
        for name in ("npm", "pip", "cargo", "go", "git-github", "claude-code", "codex"):
            res = run(["explain", "--json", "--profile", name, "--", "true"], env=env)
            self.assertOk(res, name)
            out = json.loads(res.out)
            self.assertTrue(out["options"], name)
            for o in out["options"]:
                if o["from"] == "profile":
                    self.assertTrue(o["file"].endswith("/share/porta/profiles/" + name), o)

    def test_the_configuration_directory_is_closed_to_the_command(self):
        self.profile("mine", "--timeout 30\n")
        parent = os.path.dirname(self.cfg)
        script = ("ls %s/porta 2>&1; cat %s/porta/profiles/mine 2>&1; "
                  "echo '--allow-net evil.example' > %s/porta/profiles/mine 2>&1; "
                  "mkdir %s/porta/profiles/new 2>&1; echo done" % ((self.cfg,) * 4))
        # even inside a writable mount that holds it, and with --preset none
        for extra in ([], ["--preset", "none"]):
            res = run(["run", "-v", parent] + extra + ["--", SH, "-c", script], env=self.env)
            if DEGRADED:
                # without user namespaces nothing can be closed inside a
                # writable mount: the run is refused, never run open
                self.assertRc(res, 125)
                self.assertIn("porta's configuration", res.err)
                continue
            self.assertOk(res)
            self.assertIn("done", res.out)
            self.assertNotIn("--timeout", res.out, "the profile was read")
            self.assertEqual(self.read(os.path.join(self.cfg, "porta", "profiles", "mine")),
                             "--timeout 30\n")
            self.assertFalse(os.path.exists(os.path.join(self.cfg, "porta", "profiles", "new")))
        # and no -v opens it
        for target in (os.path.join(self.cfg, "porta"),
                       os.path.join(self.cfg, "porta", "profiles")):
            res = run(["run", "-v", target, "--", "true"], env=self.env)
            self.assertRc(res, 125)
            self.assertIn("porta's own configuration", res.err)
        out = self.explain(["-v", parent])
        self.assertIn({"path": os.path.join(self.cfg, "porta"), "kind": "dir",
                       "reason": "porta's configuration"},
                      [{k: c[k] for k in ("path", "kind", "reason")}
                       for c in out["closed_paths"]])

    def test_an_absent_configuration_directory_inside_a_writable_mount(self):
        """Absent at start inside a writable mount, the directory could be
        made by the command for its next run (escape corpus row 90): run
        makes it first, 0700 and empty, and closes it; explain makes
        nothing and says so; a parent cannot be renamed aside; without user
        namespaces the run is refused."""
        parent = self.mkdtemp()
        xdg = os.path.join(parent, "xdg")
        cfg = os.path.join(xdg, "porta")
        env = clean_env({"XDG_CONFIG_HOME": xdg})
        res = run(["explain", "--json", "-v", parent, "--", "true"], env=env)
        self.assertOk(res)
        self.assertIn({"path": cfg, "kind": "dir", "reason": "porta's configuration",
                       "absent": True}, json.loads(res.out)["closed_paths"])
        self.assertFalse(os.path.exists(xdg), "explain makes nothing")
        res = run(["explain", "-v", parent, "--", "true"], env=env)
        self.assertIn("%s  (directory, porta's configuration; absent now: run makes it" % cfg,
                      res.out)
        script = ("mkdir -p %s/profiles; echo '--allow-net evil.example' > %s/profiles/evil; "
                  "echo done" % (cfg, cfg))
        res = run(["run", "-v", parent, "--", SH, "-c", script], env=env)
        if DEGRADED:
            self.assertRc(res, 125)
            self.assertIn("porta's configuration %s lies inside the writable mount %s"
                          % (cfg, parent), res.err)
            self.assertFalse(os.path.exists(os.path.join(cfg, "profiles")))
            return
        self.assertOk(res)
        self.assertIn("done", res.out)
        self.assertEqual(os.listdir(cfg), [], "the command wrote into it")
        self.assertEqual(os.stat(cfg).st_mode & 0o777, 0o700)
        for extra in ([], ["--preset", "none"]):
            res = run(["run", "-v", parent] + extra +
                      ["--", SH, "-c", "mv %s %s.old && echo MOVED" % (xdg, xdg)], env=env)
            self.assertNotIn("MOVED", res.out, extra)
            self.assertIn("Device or resource busy", res.err, extra)
            self.assertTrue(os.path.isdir(cfg))

    def test_a_configuration_directory_in_a_shared_tmp_is_refused(self):
        """--share-tmp makes the host's /tmp writable, where no mount can
        keep a directory from being made or renamed aside."""
        env = clean_env({"XDG_CONFIG_HOME": "/tmp/porta-it-xdg-%d" % os.getpid()})
        res = run(["run", "--share-tmp", "--", "true"], env=env)
        self.assertRc(res, 125)
        self.assertIn("porta's configuration directory /tmp/porta-it-xdg-%d/porta lies in /tmp"
                      % os.getpid(), res.err)
        self.assertFalse(os.path.exists("/tmp/porta-it-xdg-%d" % os.getpid()))
        self.assertOk(run(["run", "--", "true"], env=env))

    @unittest.skipUnless(IS_ROOT or os.environ.get("HOME"), "needs a home")
    def test_home_config_by_default(self):
        """Without XDG_CONFIG_HOME the directory is HOME/.config/porta."""
        home = self.mkdtemp(prefix="porta-it-home-")
        self.write(os.path.join(home, ".config", "porta", "profiles", "mine"),
                   "--allow-net registry.example\n")
        env = clean_env({"HOME": home}, drop=("XDG_CONFIG_HOME",))
        res = run(["explain", "--json", "--profile", "mine", "--", "true"], env=env)
        self.assertOk(res)
        self.assertEqual(json.loads(res.out)["options"][0]["file"],
                         os.path.join(home, ".config", "porta", "profiles", "mine"))


class ProjectFile(PortaTestCase):
    """.porta, used by run and explain in its directory and below only once
    `porta trust` recorded its hash; its relative paths are the project's;
    the command can change neither it nor the record."""

    def setUp(self):
        self.cfg = self.mkdtemp(prefix="porta-it-xdg-")
        self.env = clean_env({"XDG_CONFIG_HOME": self.cfg})
        self.project = self.mkdtemp(prefix="porta-it-project-")
        self.sub = os.path.join(self.project, "src", "deep")
        os.makedirs(self.sub)
        self.file = self.write(os.path.join(self.project, ".porta"),
                               "# the project\n-v .\n--env PROJECT=1\n")

    def porta(self, args, cwd=None):
        return run(args, env=self.env, cwd=cwd or self.sub)

    def sources(self, cwd=None):
        res = self.porta(["explain", "--json", "--", "true"], cwd=cwd)
        self.assertOk(res)
        return res, [(o["words"], o["from"], o.get("file"), o.get("line"))
                     for o in json.loads(res.out).get("options", [])
                     if o["words"][0] != "--allow-root" and o["words"] != ["--json"]]

    def test_untrusted_then_trusted_then_changed(self):
        # an untrusted project file stops the run (125): skipped, it would
        # turn the trusted policy above it off (escape corpus row 99)
        res = self.porta(["explain", "--json", "--", "true"])
        self.assertRc(res, 125)
        self.assertIn("%s is not trusted" % self.file, res.err)
        self.assertIn("porta trust %s" % self.file, res.err)
        self.assertIn("porta explain --no-project --profile %s" % self.file, res.err)
        self.assertIn("--no-project", res.err)
        self.assertEqual(res.err.count("\n"), 1, "one line")
        ran = os.path.join(self.project, "ran")
        res = self.porta(["run", "--", SH, "-c", "touch %s" % ran])
        self.assertRc(res, 125)
        self.assertFalse(os.path.exists(ran), "the command ran")
        # asked for by name, the run goes on without it
        res, got = self.sources_with(["--no-project"])
        self.assertEqual(got, [])

        res = self.porta(["trust"])  # from a subdirectory: the nearest .porta above
        self.assertOk(res)
        self.assertIn("trusted %s" % self.file, res.out)
        res, got = self.sources()
        self.assertEqual(res.err, "")
        self.assertEqual(got, [(["-v", self.project + "/."], "project file", self.file, 2),
                               (["--env", "PROJECT=1"], "project file", self.file, 3)])
        # the project's -v . is the project, from wherever porta runs below it
        res = self.porta(["run", "--", SH, "-c",
                          "echo made $PROJECT > %s/made" % self.project])
        self.assertOk(res)
        self.assertEqual(self.read(os.path.join(self.project, "made")), "made 1\n")

        with open(self.file, "a") as f:
            f.write("-v /\n")
        res = self.porta(["explain", "--json", "--", "true"])
        self.assertRc(res, 125)
        self.assertIn("%s changed since it was trusted" % self.file, res.err)
        # -q silences notes, not a refusal
        res = self.porta(["explain", "-q", "--json", "--", "true"])
        self.assertRc(res, 125)
        # --no-project: none of it
        res, got = self.sources_with(["--no-project"])
        self.assertEqual(got, [])
        # a --no-project in a profile is refused: it is the command line's
        prof = self.write(os.path.join(self.mkdtemp(), "p.porta"), "--no-project\n")
        res = self.porta(["explain", "--no-project", "--profile", prof, "--", "true"])
        self.assertRc(res, 125)
        self.assertIn("--no-project inside a profile", res.err)

    def test_a_nearer_untrusted_file_never_shadows_the_trusted_one(self):
        self.assertOk(self.porta(["trust", self.file]))
        nearer = self.write(os.path.join(self.project, "src", ".porta"), "--share-tmp\n")
        res = self.porta(["run", "--", "true"])
        self.assertRc(res, 125)
        self.assertIn("%s is not trusted" % nearer, res.err)

    def sources_with(self, extra, cwd=None):
        res = self.porta(["explain"] + extra + ["--json", "--", "true"], cwd=cwd)
        self.assertOk(res)
        return res, [(o["words"], o["from"], o.get("file"), o.get("line"))
                     for o in json.loads(res.out).get("options", [])
                     if o["words"][0] != "--allow-root" and o["words"] != ["--json"]
                     and o["words"] != ["--no-project"]]

    def test_the_command_cannot_change_the_file_or_the_record(self):
        self.assertOk(self.porta(["trust", self.file]))
        store = os.path.join(self.cfg, "porta", "trusted")
        before = self.read(store)
        script = ("echo '-v /' >> %s 2>/dev/null; mv %s %s.x 2>/dev/null; "
                  "echo forged >> %s 2>/dev/null; cat %s 2>/dev/null; echo done"
                  % (self.file, self.file, self.file, store, store))
        res = self.porta(["run", "-v", os.path.dirname(self.cfg), "--", SH, "-c", script])
        if DEGRADED:
            self.assertRc(res, 125)  # the closed store inside a writable mount
        else:
            self.assertOk(res)
            self.assertIn("done", res.out)
            self.assertNotIn(before.split()[0], res.out, "the record was read")
        self.assertEqual(self.read(self.file), "# the project\n-v .\n--env PROJECT=1\n")
        self.assertEqual(self.read(store), before)
        _, got = self.sources()
        self.assertEqual(len(got), 2, "still trusted, still used")

    def test_trust_refuses_what_it_should(self):
        bad = self.write(os.path.join(self.project, "other", ".porta"),
                         "-v .\n--allow-net a.example; true\n")
        res = self.porta(["trust", bad])
        self.assertRc(res, 125)
        self.assertIn("line 2: ';' outside quotes", res.err)
        self.assertFalse(os.path.exists(os.path.join(self.cfg, "porta", "trusted")))
        other = self.write(os.path.join(self.project, "policy.txt"), "--why\n")
        res = self.porta(["trust", other])
        self.assertRc(res, 125)
        self.assertIn("porta uses files named .porta only", res.err)
        empty = self.mkdtemp()
        res = self.porta(["trust"], cwd=empty)
        self.assertRc(res, 125)
        self.assertIn("no .porta here or in a parent directory", res.err)
        res = self.porta(["trust", "a", "b"])
        self.assertRc(res, 125)

    def test_trusting_one_keeps_the_others(self):
        second = self.write(os.path.join(self.mkdtemp(), ".porta"), "--why\n")
        self.assertOk(self.porta(["trust", self.file]))
        self.assertOk(self.porta(["trust", second]))
        self.assertOk(self.porta(["trust", self.file]))  # again: replaced, not added
        lines = self.read(os.path.join(self.cfg, "porta", "trusted")).splitlines()
        self.assertEqual(sorted(l.split(" ", 1)[1] for l in lines),
                         sorted([self.file, second]))
        self.assertEqual(os.stat(os.path.join(self.cfg, "porta")).st_mode & 0o777, 0o700)


class Learn(PortaTestCase):
    """porta learn without a network (the lab's test, tests/netlab/
    test_learn_lab.py, has the destinations): what it refuses before the
    command runs, the files it learns, what it says it could not learn,
    and that the profile it writes is one run accepts."""

    def setUp(self):
        self.ws = self.mkdtemp()
        self.out = os.path.join(self.ws, "learned")

    def learn(self, args, script, cwd=None):
        return run(["learn"] + args + ["--", SH, "-c", script], cwd=cwd)

    def test_what_learn_refuses_before_the_command_runs(self):
        marker = os.path.join(self.ws, "ran")
        script = "touch %s" % marker
        for args, words in (([], "missing -o FILE"),
                            (["-o", self.out, "--no-net"], "drop --no-net"),
                            (["-o", os.path.join(self.ws, "no", "such", "dir", "p")],
                             "does not exist")):
            res = self.learn(args, script)
            self.assertRc(res, 125, args)
            self.assertIn(words, res.err, args)
        self.write(self.out, "mine\n")
        res = self.learn(["-o", self.out], script)
        self.assertRc(res, 125)
        self.assertIn("-o %s exists" % self.out, res.err)
        self.assertEqual(self.read(self.out), "mine\n", "learn wrote over a file")
        res = run(["run", "-o", self.out, "--", "true"])
        self.assertRc(res, 125)
        self.assertIn("--output is not an option of 'porta run'", res.err)
        self.assertFalse(os.path.exists(marker), "the command ran")

    def test_files_learned_closed_ones_listed_and_the_profile_runs(self):
        data = os.path.join(self.ws, "data")
        os.makedirs(data)
        home = self.mkdtemp(prefix="porta-it-home-")
        self.write(os.path.join(home, ".ssh", "id_ed25519"), "MUST-NOT-LEAK\n")
        env = clean_env({"HOME": home})
        script = ("cat %s/.ssh/id_ed25519; echo made > %s/made; echo done"
                  % (home, data))
        res = run(["learn", "-o", self.out, "-e", "GREETING=hello world", "--",
                   SH, "-c", script], env=env)
        self.assertOk(res)
        self.assertNotIn("MUST-NOT-LEAK", res.out)
        self.assertIn("done", res.out)
        self.assertIn("learn: wrote %s: 0 destinations and 1 file option learned" % self.out,
                      res.err)
        text = self.read(self.out)
        lines = [l for l in text.splitlines() if l and not l.startswith("#")]
        self.assertEqual(lines, ["-e 'GREETING=hello world'", "-v " + data], text)
        self.assertIn("#   closed, no option opens it: read %s/.ssh/id_ed25519 (credential"
                      % home, text)
        self.assertIn("# not learned in this run", text)
        # one run accepts it, and it allows what the command did
        res = run(["run", "--profile", self.out, "--why", "--", SH, "-c",
                   'echo made > %s/made && echo "$GREETING"' % data], env=env)
        self.assertOk(res)
        self.assertIn("hello world", res.out)
        self.assertIn("the sandbox refused nothing", res.err)
        self.assertEqual(self.read(os.path.join(data, "made")), "made\n")


if __name__ == "__main__":
    unittest.main()
