"""integration/cli: the command-line contract of docs/porta.1: exit codes,
refusals of malformed options, where options stop, help and version."""

import os
import re
import signal
import subprocess
import unittest

import harness
from harness import IS_ROOT, SH, PortaTestCase, run

# Every option of docs/porta.1; `porta help` must mention each of them.
CLI_OPTIONS = [
    "--mount", "-v", "--read-policy", "--deny-read", "--protect", "--allow-unix",
    "--deny-unix", "--preset", "--share-tmp", "--caches", "--no-net", "--allow-net", "--deny-net",
    "--proxy-allow", "--proxy-deny", "--audit", "--dns-upstream", "--env", "-e",
    "--env-pass", "--env-file", "--timeout", "--max-cpu", "--max-procs",
    "--max-file-size", "--max-memory-mb", "--allow-root", "--why", "--quiet", "-q",
    "--json", "--profile",
]
SUBCOMMANDS = ["run", "explain", "check", "profiles", "help"]


class ExitCodes(PortaTestCase):

    def test_command_own_exit_code(self):
        for code in (0, 1, 7, 42, 255):
            res = run(["run", "--", SH, "-c", "exit %d" % code])
            self.assertRc(res, code)

    def test_signal_death_is_reproduced(self):
        # docs/design.md: porta leaves exactly the same exit status or signal as
        # the payload did; a shell running porta sees 128+15 = 143.
        res = run(["run", "--", SH, "-c", "kill -TERM $$"])
        self.assertRc(res, -signal.SIGTERM)
        res = run(["run", "--", SH, "-c", "kill -USR1 $$"])
        self.assertRc(res, -signal.SIGUSR1)

    def test_signal_seen_by_a_shell_as_128_plus_n(self):
        res = harness.run_host([SH, "-c", '"$@"; echo "status=$?"', "sh"]
                               + harness.porta_argv(["run", "--", SH, "-c", "kill -TERM $$"]))
        self.assertIn("status=143", res.out, res.describe())

    def test_timeout_124(self):
        res = run(["run", "--timeout", "1", "--", "sleep", "30"], timeout=40)
        self.assertRc(res, 124)
        self.assertLess(res.elapsed, 20, "--timeout 1 did not end the run early")

    def test_timeout_fraction(self):
        res = run(["run", "--timeout", "0.5", "--", "sleep", "30"], timeout=40)
        self.assertRc(res, 124)
        self.assertLess(res.elapsed, 20)

    def test_timeout_not_reached_keeps_own_code(self):
        res = run(["run", "--timeout", "30", "--", SH, "-c", "exit 5"])
        self.assertRc(res, 5)

    def test_not_executable_126(self):
        ws = self.mkdtemp()
        script = self.write(os.path.join(ws, "noexec.sh"), "#!/bin/sh\necho RAN\n", 0o644)
        # control: not executable outside either
        self.assertFalse(os.access(script, os.X_OK))
        res = run(["run", "-v", ws, "--", script])
        self.assertRc(res, 126)
        self.assertNotIn("RAN", res.out)
        # and the same file with its x bit runs
        os.chmod(script, 0o755)
        res = run(["run", "-v", ws, "--", script])
        self.assertOk(res)
        self.assertIn("RAN", res.out)

    def test_directory_as_command_126(self):
        ws = self.mkdtemp()
        res = run(["run", "-v", ws, "--", ws])
        self.assertRc(res, 126)

    def test_not_found_127(self):
        res = run(["run", "--", "porta-it-no-such-command-%d" % os.getpid()])
        self.assertRc(res, 127)
        res = run(["run", "--", "/nonexistent-dir/porta-it-no-such"])
        self.assertRc(res, 127)

    def test_missing_mount_path_125(self):
        ws = self.mkdtemp()
        missing = os.path.join(ws, "does-not-exist")
        res = run(["run", "-v", missing, "--", SH, "-c", "echo RAN"])
        self.assertRc(res, 125)
        self.assertNotIn("RAN", res.out)
        self.assertTrue(any(l.startswith("porta: ") and missing in l
                            for l in res.err.splitlines()), res.describe())

    def test_audit_inside_writable_mount_125(self):
        ws = self.mkdtemp()
        audit = os.path.join(ws, "audit.jsonl")
        res = run(["run", "-v", ws, "--audit", audit, "--allow-net", "example.test",
                   "--", SH, "-c", "echo RAN"])
        self.assertRc(res, 125)
        self.assertNotIn("RAN", res.out)
        self.assertIn("--audit", res.err, res.describe())
        self.assertTrue(audit in res.err or "mount" in res.err,
                        "the refusal should say the file lies in a writable mount\n"
                        + res.describe())
        self.assertFalse(os.path.exists(audit))


class Refusals(PortaTestCase):
    """Every malformed or contradictory option: 125, nothing runs, and one
    `porta: ` line naming the option."""

    def refused(self, args, *names):
        ws = self.mkdtemp()
        flag = os.path.join(ws, "ran")
        argv = list(args)
        if argv and argv[-1] == "CMD":
            argv[-1:] = [SH, "-c", "touch %s; echo RAN" % flag]
        res = run(argv)
        self.assertRc(res, 125, "args %r" % (args,))
        self.assertNotIn("RAN", res.out, res.describe())
        self.assertFalse(os.path.exists(flag), "the command ran\n" + res.describe())
        lines = [l for l in res.err.splitlines() if l.strip()]
        self.assertTrue(lines, "no message on stderr\n" + res.describe())
        plines = [l for l in lines if l.startswith("porta: ")]
        self.assertTrue(plines, "no line starting 'porta: '\n" + res.describe())
        for alternatives in names:
            if isinstance(alternatives, str):
                alternatives = (alternatives,)
            self.assertTrue(any(a in l for l in plines for a in alternatives),
                            "message does not name %r\n%s" % (alternatives, res.describe()))
        return res

    def test_unknown_option(self):
        self.refused(["run", "--porta-it-bogus", "--", "CMD"], "--porta-it-bogus")
        self.refused(["run", "-Z", "--", "CMD"], "-Z")

    def test_read_policy_bogus(self):
        self.refused(["run", "--read-policy", "bogus", "--", "CMD"], "--read-policy")

    def test_preset_unknown(self):
        self.refused(["run", "--preset", "x", "--", "CMD"], "--preset")

    def test_mount_empty(self):
        self.refused(["run", "-v", "", "--", "CMD"], ("-v", "--mount"))

    def test_max_procs_zero_and_nonnumber(self):
        self.refused(["run", "--max-procs", "0", "--", "CMD"], "--max-procs")
        self.refused(["run", "--max-procs", "abc", "--", "CMD"], "--max-procs")

    def test_other_limits_malformed(self):
        for opt in ("--max-cpu", "--max-file-size", "--max-memory-mb"):
            self.refused(["run", opt, "abc", "--", "CMD"], opt)
            self.refused(["run", opt, "-5", "--", "CMD"], opt)

    def test_timeout_negative(self):
        self.refused(["run", "--timeout", "-1", "--", "CMD"], "--timeout")
        self.refused(["run", "--timeout", "soon", "--", "CMD"], "--timeout")

    def test_no_net_with_allow_net(self):
        self.refused(["run", "--no-net", "--allow-net", "x.test", "--", "CMD"],
                     "--no-net", "--allow-net")
        self.refused(["run", "--allow-net", "x.test", "--no-net", "--", "CMD"],
                     "--no-net", "--allow-net")

    def test_env_without_equals(self):
        self.refused(["run", "-e", "NOEQUALS", "--", "CMD"], ("-e", "--env"))

    def test_env_bad_name(self):
        self.refused(["run", "-e", "1BAD=x", "--", "CMD"], ("-e", "--env"))
        self.refused(["run", "--env", "=x", "--", "CMD"], ("-e", "--env"))

    def test_env_pass_empty_item(self):
        self.refused(["run", "--env-pass", "A,,B", "--", "CMD"], "--env-pass")

    def test_missing_command(self):
        for args in (["run"], ["run", "--"], ["run", "--no-net"]):
            res = self.refused(args)
            self.assertIn("command", res.err.lower(), res.describe())

    def test_json_is_not_a_run_option(self):
        self.refused(["run", "--json", "--", "CMD"], "--json")

    def test_check_takes_no_arguments(self):
        self.refused(["check", "extra"], "extra")
        self.refused(["check", "--no-net"], "--no-net")

    def test_unknown_subcommand(self):
        self.refused(["porta-it-frobnicate"], "porta-it-frobnicate")

    def test_no_subcommand(self):
        self.refused([])

    def test_value_missing_at_end(self):
        self.refused(["run", "--timeout"], "--timeout")
        self.refused(["run", "-v"], ("-v", "--mount"))
        self.refused(["run", "--env-file"], "--env-file")
        self.refused(["explain", "--read-policy"], "--read-policy")

    def test_flag_given_a_value(self):
        self.refused(["run", "--no-net=yes", "--", "CMD"], "--no-net")


@harness.needs_userns("degraded, nothing is unmounted: the working directory stays "
                      "listable under Landlock (its files unreadable) and the command starts there")
class WorkingDirectory(PortaTestCase):
    """A working directory the sandbox does not show is refused (125) with
    the option that would show it, never silently swapped for /."""

    def test_under_the_private_tmp(self):
        d = self.mkdtemp(under="/tmp")
        res = run(["run", "--", SH, "-c", "pwd; echo RAN"], cwd=d)
        self.assertRc(res, 125, res.describe())
        self.assertNotIn("RAN", res.out)
        self.assertIn("enter the working directory %s: " % d, res.err)
        self.assertIn("mount it with -v %s" % d, res.err)
        self.assertIn("--share-tmp", res.err)
        # each option it names works
        for opt in (["-v", d], ["--share-tmp"]):
            res = run(["run"] + opt + ["--", SH, "-c", "pwd"], cwd=d)
            self.assertOk(res)
            self.assertEqual(res.out, d + "\n")

    def test_under_a_closed_directory(self):
        home = self.mkdtemp(prefix="porta-it-home-")
        d = os.path.join(home, ".ssh", "keys")
        os.makedirs(d)
        env = harness.clean_env({"HOME": home})
        res = run(["run", "--", SH, "-c", "pwd; echo RAN"], cwd=d, env=env)
        self.assertRc(res, 125, res.describe())
        self.assertNotIn("RAN", res.out)
        self.assertIn("it is not visible in the sandbox: mount it with -v %s" % d, res.err)
        self.assertNotIn("--share-tmp", res.err)


class PointAtWhy(PortaTestCase):
    """A failed command with stderr on a terminal: porta cannot know which
    files the kernel refused, so one line points at --why."""

    def run_on_a_tty(self, args):
        import pty
        master, slave = pty.openpty()
        try:
            p = subprocess.run(harness.porta_argv(args, True), env=harness.clean_env(),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave,
                               timeout=30)
            os.close(slave)
            slave = -1
            err = b""
            while True:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # EIO: every writer is gone
                    break
                if not chunk:
                    break
                err += chunk
            return p.returncode, err.decode(errors="replace")
        finally:
            if slave >= 0:
                os.close(slave)
            os.close(master)

    def test_a_failure_on_a_terminal_names_why(self):
        rc, err = self.run_on_a_tty(["run", "--", SH, "-c", "exit 4"])
        self.assertEqual(rc, 4, err)
        self.assertIn("porta: the command failed (4); if the sandbox refused it a file or a "
                      "connection, run it again with --why", err)
        for args in (["run", "--", SH, "-c", "exit 0"], ["run", "-q", "--", SH, "-c", "exit 4"]):
            rc, err = self.run_on_a_tty(args)
            self.assertNotIn("--why", err, args)

    def test_not_on_a_pipe(self):
        res = run(["run", "--", SH, "-c", "exit 4"])
        self.assertRc(res, 4)
        self.assertNotIn("--why", res.err)


@unittest.skipUnless(IS_ROOT, "porta refuses root only when run as root (euid != 0 here)")
class RootRefusal(PortaTestCase):

    def test_root_refused_without_allow_root(self):
        ws = self.mkdtemp()
        flag = os.path.join(ws, "ran")
        res = run(["run", "--", SH, "-c", "touch %s; echo RAN" % flag], allow_root=False)
        self.assertRc(res, 125)
        self.assertNotIn("RAN", res.out)
        self.assertFalse(os.path.exists(flag))
        self.assertTrue(res.err.startswith("porta: "), res.describe())
        self.assertIn("--allow-root", res.err, res.describe())

    def test_root_allowed_with_allow_root(self):
        res = run(["run", "--allow-root", "--", SH, "-c", "echo RAN"], allow_root=False)
        self.assertOk(res)
        self.assertIn("RAN", res.out)


class OptionsStop(PortaTestCase):

    def test_after_double_dash(self):
        res = run(["run", "--", "echo", "-v"])
        self.assertOk(res)
        self.assertEqual(res.out, "-v\n")

    def test_at_first_non_option_word(self):
        res = run(["run", "echo", "--no-net"])
        self.assertOk(res)
        self.assertEqual(res.out, "--no-net\n")
        res = run(["run", "echo", "-v", "x", "--timeout", "1"])
        self.assertOk(res)
        self.assertEqual(res.out, "-v x --timeout 1\n")

    def test_double_dash_belongs_to_command_after_first_word(self):
        res = run(["run", "echo", "--", "a"])
        self.assertOk(res)
        self.assertEqual(res.out, "-- a\n")

    @harness.needs_userns('it checks --no-net by the interfaces of a network namespace (tests/integration/test_degraded.py checks --no-net there)')
    def test_options_before_command_apply(self):
        # --no-net before the command is an option (control for the above)
        res = run(["run", "--no-net", "--", "cat", "/proc/net/dev"])
        self.assertOk(res)
        ifaces = [l.split(":")[0].strip() for l in res.out.splitlines()[2:]]
        self.assertEqual(ifaces, ["lo"], res.describe())


class HelpVersion(PortaTestCase):

    def help_text(self, args):
        res = run(args)
        self.assertOk(res)
        text = res.out + res.err
        self.assertTrue(res.out.strip(), "help goes to stdout\n" + res.describe())
        return text

    def test_help_mentions_every_option(self):
        for args in (["help"], ["--help"]):
            text = self.help_text(args)
            for opt in CLI_OPTIONS:
                self.assertRegex(text, r"(^|[\s,\[|(])%s\b" % re.escape(opt),
                                 "%s does not mention %s" % (args, opt))
            for sub in SUBCOMMANDS:
                self.assertIn(sub, text)

    def test_version(self):
        res = run(["--version"])
        self.assertOk(res)
        self.assertRegex(res.out, r"porta.*\d+\.\d+\.\d+")


if __name__ == "__main__":
    unittest.main()
