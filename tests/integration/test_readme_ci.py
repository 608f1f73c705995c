"""integration/readme_ci: the porta lines of the README's CI recipes.

The recipes (README.md, "porta in CI") are YAML for services this machine
cannot reach, each block marked `<!-- not run: REASON -->`.  Their porta lines
still run here, so a recipe cannot drift from what porta accepts:
`porta check`; each `porta run` line as `porta explain` with the same options
(GitLab's block under Docker's default seccomp profile, tests/hosts/hostsim.py,
as its Docker executor runs jobs); and `porta audit --against LOCK AUDIT` on a
lock made from an audit of the same kind.
"""

import os
import re
import shlex
import subprocess
import unittest

import harness
from harness import IS_ROOT, PY, PortaTestCase

README = os.path.join(harness.REPO, "README.md")
HOSTSIM = os.path.join(harness.REPO, "tests", "hosts", "hostsim.py")


def recipe_blocks():
    """(reason, yaml text) of every not-run YAML block of the README."""
    with open(README) as f:
        text = f.read()
    return re.findall(r"<!-- not run: ([^>]*) -->\n```yaml\n(.*?)```", text, re.S)


def porta_lines(yaml):
    out = []
    for line in yaml.splitlines():
        line = line.strip()
        for prefix in ("- run: ", "- "):
            if line.startswith(prefix):
                line = line[len(prefix):]
                break
        if line.startswith("porta "):
            out.append(line)
    return out


class ReadmeCiRecipes(PortaTestCase):

    def setUp(self):
        self.blocks = recipe_blocks()

    def test_recipes_are_there_and_marked(self):
        reasons = [r for r, _ in self.blocks]
        self.assertTrue(any("GitHub" in r for r in reasons), reasons)
        self.assertTrue(any("GitLab" in r for r in reasons), reasons)
        for _, yaml in self.blocks:
            self.assertTrue(porta_lines(yaml), yaml)

    def run_line(self, line, wrap, cwd, tmp):
        line = line.replace('"$RUNNER_TEMP', '"' + tmp).replace("/tmp/egress.jsonl",
                                                                 tmp + "/egress.jsonl")
        argv = shlex.split(line)
        self.assertEqual(argv[0], "porta")
        sub = argv[1]
        if sub == "run":
            args = ["explain"] + argv[2:]
            if IS_ROOT and "--allow-root" not in args:
                args.insert(1, "--allow-root")
            res = harness.run_host(wrap + [harness.PORTA] + args, cwd=cwd)
            self.assertEqual(res.rc, 0, res.describe())
            self.assertNotIn("run would refuse this", res.out, res.describe())
            return res
        if sub == "check":
            res = harness.run_host(wrap + [harness.PORTA, "check"], cwd=cwd)
            self.assertEqual(res.rc, 0, res.describe())
            return res
        if sub == "audit":
            # an audit of the recipe's kind, and the lock made from it
            audit = argv[-1]
            lock = os.path.join(cwd, argv[argv.index("--against") + 1])
            made = harness.run_host(wrap + harness.porta_argv(
                ["run", "--audit", audit, "--proxy-allow", "registry.example", "--", "true"]),
                cwd=cwd)
            self.assertEqual(made.rc, 0, made.describe())
            with open(lock, "w") as f:
                p = subprocess.run([harness.PORTA, "audit", "--lock", audit], cwd=cwd,
                                   stdout=f, stderr=subprocess.PIPE, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            res = harness.run_host(wrap + [harness.PORTA] + argv[1:], cwd=cwd)
            self.assertEqual(res.rc, 0, res.describe())
            return res
        self.fail("a porta line the test does not know: " + line)

    def check_block(self, name, wrap):
        block = [y for r, y in self.blocks if name in r]
        self.assertEqual(len(block), 1)
        proj, tmp = self.mkdtemp(), self.mkdtemp()
        self.write(os.path.join(proj, "package.json"), '{"name": "x", "version": "1.0.0"}\n')
        for line in porta_lines(block[0]):
            self.run_line(line, wrap, proj, tmp)

    def test_github_actions_lines(self):
        self.check_block("GitHub", [])

    def test_gitlab_docker_executor_lines(self):
        p = subprocess.run([PY, HOSTSIM, "docker", "--", "true"], capture_output=True, text=True)
        if p.returncode != 0:
            self.skipTest("cannot simulate Docker's profile here: " + p.stderr.strip())
        self.check_block("GitLab", [PY, HOSTSIM, "docker", "--"])


if __name__ == "__main__":
    unittest.main()
