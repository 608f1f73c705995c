"""integration/env: the payload's environment starts from a short allowlist;
-e, --env-pass and --env-file add to it."""

import os
import unittest

import harness
from harness import PortaTestCase, run

DEFAULT_NAMES = {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "COLORTERM", "LANG",
                 "LANGUAGE", "TZ", "TMPDIR"}


def allowed_by_default(name):
    return name in DEFAULT_NAMES or name.startswith("LC_")


def parse_env(text):
    """`env -0` output -> dict."""
    out = {}
    for item in text.split("\0"):
        if item:
            k, _, v = item.partition("=")
            out[k] = v
    return out


class Env(PortaTestCase):

    HOST = {
        "SECRET_TOKEN": "x-secret",
        "AWS_SECRET_ACCESS_KEY": "x-aws",
        "LC_ALL": "C.UTF-8",
        "LC_TIME": "C",
        "LANG": "C.UTF-8",
        "TZ": "UTC",
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "USER": "porta-it-user",
        "LOGNAME": "porta-it-user",
        "TMPDIR": "/var/tmp/porta-it-elsewhere",
        "PASS_A": "a-value",
        "PASS_B": "b value with spaces",
        "PASS_C": "c-value",
        "LD_PRELOAD": "",
        "PYTHONPATH": "/porta-it/nowhere",
    }

    def env_inside(self, args=(), host_extra=None, expect_rc=0):
        host = dict(self.HOST)
        host.update(host_extra or {})
        env = harness.clean_env(host)
        res = run(["run"] + list(args) + ["--", "env", "-0"], env=env)
        self.assertRc(res, expect_rc)
        return parse_env(res.out), env

    def test_starts_from_allowlist(self):
        inside, host = self.env_inside()
        extra = sorted(k for k in inside if not allowed_by_default(k))
        self.assertEqual(extra, [], "variables that should not be passed: %s" % extra)
        for k in ("SECRET_TOKEN", "AWS_SECRET_ACCESS_KEY", "PASS_A", "PYTHONPATH", "LD_PRELOAD"):
            self.assertNotIn(k, inside)
        for k in ("PATH", "HOME", "LANG", "LC_ALL", "LC_TIME", "TZ", "TERM", "COLORTERM",
                  "USER", "LOGNAME"):
            self.assertEqual(inside.get(k), host[k], k)
        if harness.DEGRADED:
            # the host's /tmp is closed; TMPDIR is a private directory in it
            self.assertRegex(inside.get("TMPDIR", ""), r"^/tmp/porta-[A-Za-z0-9]{6}$")
        else:
            self.assertEqual(inside.get("TMPDIR"), "/tmp")

    def test_control_host_env_has_them(self):
        res = harness.run_host(["env", "-0"], env=harness.clean_env(self.HOST))
        self.assertEqual(parse_env(res.out).get("SECRET_TOKEN"), "x-secret")

    def test_set_with_e(self):
        inside, _ = self.env_inside(["-e", "FOO=bar baz", "--env", "EMPTY=",
                                     "-e", "EQ=a=b=c", "-e", "LANG=porta.test"])
        self.assertEqual(inside.get("FOO"), "bar baz")
        self.assertEqual(inside.get("EMPTY"), "")
        self.assertEqual(inside.get("EQ"), "a=b=c")
        self.assertEqual(inside.get("LANG"), "porta.test", "-e should override a passed value")
        self.assertNotIn("SECRET_TOKEN", inside)

    def test_env_pass(self):
        inside, _ = self.env_inside(["--env-pass", "PASS_A,PASS_B"])
        self.assertEqual(inside.get("PASS_A"), "a-value")
        self.assertEqual(inside.get("PASS_B"), "b value with spaces")
        self.assertNotIn("PASS_C", inside)
        self.assertNotIn("SECRET_TOKEN", inside)
        inside, _ = self.env_inside(["--env-pass", "PASS_A", "--env-pass", "PASS_C"])
        self.assertEqual(inside.get("PASS_A"), "a-value")
        self.assertEqual(inside.get("PASS_C"), "c-value")
        self.assertNotIn("PASS_B", inside)

    def test_env_file(self):
        d = self.mkdtemp()
        f = self.write(os.path.join(d, "vars.env"),
                       "# a comment\n"
                       "\n"
                       "FILE_A=one\n"
                       "FILE_B=two words\n"
                       "FILE_C=x=y\n"
                       "   \n"
                       "#FILE_D=commented-out\n")
        inside, _ = self.env_inside(["--env-file", f])
        self.assertEqual(inside.get("FILE_A"), "one")
        self.assertEqual(inside.get("FILE_B"), "two words")
        self.assertEqual(inside.get("FILE_C"), "x=y")
        self.assertNotIn("FILE_D", inside)
        self.assertNotIn("SECRET_TOKEN", inside)

    def test_env_file_malformed_line(self):
        d = self.mkdtemp()
        f = self.write(os.path.join(d, "bad.env"), "GOOD=1\n# comment\nNOT A VALID LINE\n")
        flag = os.path.join(d, "ran")
        res = run(["run", "--env-file", f, "--", "touch", flag])
        self.assertRc(res, 125)
        self.assertFalse(os.path.exists(flag))
        self.assertIn("%s:3" % f, res.err, res.describe())
        self.assertTrue(res.err.startswith("porta: "), res.describe())

    def test_env_file_bad_name(self):
        d = self.mkdtemp()
        f = self.write(os.path.join(d, "bad.env"), "1BAD=x\n")
        res = run(["run", "--env-file", f, "--", "true"])
        self.assertRc(res, 125)
        self.assertIn("%s:1" % f, res.err, res.describe())

    def test_env_file_missing(self):
        d = self.mkdtemp()
        f = os.path.join(d, "missing.env")
        res = run(["run", "--env-file", f, "--", "true"])
        self.assertRc(res, 125)
        self.assertIn(f, res.err, res.describe())


if __name__ == "__main__":
    unittest.main()
