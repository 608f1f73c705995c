#!/usr/bin/python3
"""netlab/pip-install: the README's pip example, run as printed, in the lab.

README.md promises that

    porta run --caches --allow-net pypi.example,files.pypi.example -v . -- \\
        .venv/bin/pip install -r requirements.txt

works once the placeholder names are the real ones.  This script takes that
line from README.md itself, and runs it in tests/netlab's small internet
against pypi_registry.py: the index on pypi.example (203.0.113.110), the
wheels on files.pypi.example (203.0.113.111), both over HTTPS with a
certificate of the lab's CA, both names answered by the lab's resolver.
What stands in for "the real names" is the project's virtual environment:
.venv/pip.conf (pip reads it as its site configuration) says

    index-url = https://pypi.example/simple/
    cert = LAB_CA

so the command line is the README's, with only porta's path for "porta" and,
as root, --allow-root after "run".  Each run gets a fresh project directory
(requirements.txt naming pypi_registry.REQUIREMENTS, and a .venv made by
`python3 -m venv`, with venv's own pip) and a fresh, empty HOME, so pip's
cache (HOME/.cache/pip, writable through --caches) is cold.  Runs, in the
lab's client namespace:

  bare     .venv/bin/pip install -r requirements.txt, without porta: the
           lab and the index work (if not, exit 77 with the reason)
  porta    the README's line
  control  the README's line without files.pypi.example in --allow-net

bare and porta must exit 0, leave every package of the tree importable from
.venv (.venv/bin/python, outside porta and the lab) at the version
pypi_registry.expected_versions() names, with no other lab package
installed, and the registry's log must show every one of those wheels
fetched from files.pypi.example in that run; pip must have written its
cache (HOME/.cache/pip: the index's answers carry Cache-Control).  The control must fail: pip
exits non-zero, its output names files.pypi.example (porta's refusal), the
index was asked and not one wheel was fetched.

Exit 0: every check passed; 1: a check failed (with the run's output); 77
(a skip, with the reason): this host cannot make a lab, python3 -m venv
cannot make an environment with pip (Debian: apt-get install python3-venv),
or pip cannot install from the lab without porta.

Usage: tests/netlab/pip_install.py [--porta PATH] [--python PATH] [--keep]
Standard library only; traffic stays inside the lab's namespaces.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import netlab  # noqa: E402
import pypi_registry  # noqa: E402

INDEX_HOST, INDEX_ADDR = "pypi.example", "203.0.113.110"
FILES_HOST, FILES_ADDR = "files.pypi.example", "203.0.113.111"
SKIP = 77
VENV_TIMEOUT = 180
RUN_TIMEOUT = 300

# What the environment's python reports: every lab package imported by its
# module name, and every installed distribution's name and version.
REPORT = r"""
import importlib, importlib.metadata, json, re, sys
mods = {}
for m in sys.argv[1:]:
    try:
        mods[m] = importlib.import_module(m).__version__
    except Exception as e:
        mods[m] = "%s: %s" % (type(e).__name__, e)
dists = {re.sub(r"[-_.]+", "-", d.metadata["Name"]).lower(): d.version
         for d in importlib.metadata.distributions()}
print(json.dumps({"modules": mods, "dists": dists}))
"""


def say(msg):
    print("netlab/pip-install: " + msg, flush=True)


def die(msg):
    say(msg)
    sys.exit(1)


def skip(msg):
    say("skipped: " + msg)
    sys.exit(SKIP)


def readme_command():
    """The README's pip example as argv (from its code block of examples:
    "$ porta run ... .venv/bin/pip install ...", a trailing comment dropped)."""
    with open(os.path.join(REPO_ROOT, "README.md")) as f:
        lines = [l for l in f.read().splitlines()
                 if re.match(r"\$ porta run .*\.venv/bin/pip install", l)]
    if len(lines) != 1:
        die("README.md has %d lines with the pip example, not 1" % len(lines))
    argv = shlex.split(lines[0][2:], comments=True)
    if "--allow-net" not in argv or argv.index("--allow-net") + 1 >= len(argv):
        die("the README's pip example has no --allow-net: %s" % lines[0])
    hosts = argv[argv.index("--allow-net") + 1].split(",")
    if sorted(hosts) != sorted([INDEX_HOST, FILES_HOST]):
        die("the README's pip example allows %s, not %s and %s"
            % (",".join(hosts), INDEX_HOST, FILES_HOST))
    return argv


def porta_argv(readme, porta, allow_net=None):
    """readme's argv with porta's path, --allow-root as root, and
    allow_net in place of its --allow-net value when given."""
    argv = list(readme)
    if allow_net is not None:
        argv[argv.index("--allow-net") + 1] = allow_net
    argv[0:2] = [porta, "run"] + (["--allow-root"] if os.geteuid() == 0 else [])
    return argv


def bare_argv(readme):
    """The command porta runs in the README's line (after "--")."""
    return readme[readme.index("--") + 1:]


def make_venv(python, venv, env):
    """python -m venv venv; None or why not (a skip)."""
    try:
        p = subprocess.run([python, "-m", "venv", venv], env=env, cwd="/", capture_output=True,
                           text=True, timeout=VENV_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "%s -m venv: %s" % (python, e)
    if p.returncode != 0:
        out = " ".join((p.stdout + p.stderr).split()[:60]) or "no output"
        return "%s -m venv failed (exit %d: %s); Debian: apt-get install python3-venv" % (
            python, p.returncode, out)
    if not os.access(os.path.join(venv, "bin", "pip"), os.X_OK):
        return "%s -m venv made no .venv/bin/pip (Debian: apt-get install python3-venv)" % python
    return None


class Runs:
    """The lab, its index, and one fresh project per run."""

    def __init__(self, lab, base, python, log):
        self.lab, self.base, self.python, self.log = lab, base, python, log
        self.expected = pypi_registry.expected_versions()
        self.wheels = {pypi_registry.wheel_filename(n, v) for n, v in self.expected.items()}
        self.modules = sorted(pypi_registry.module_name(n) for n in self.expected)

    def fresh(self, variant):
        """run_dir/project (requirements.txt, .venv with pip.conf) and an
        empty run_dir/home."""
        run_dir = os.path.join(self.base, variant)
        project, home = os.path.join(run_dir, "project"), os.path.join(run_dir, "home")
        os.makedirs(project)
        os.makedirs(home)
        with open(os.path.join(project, "requirements.txt"), "w") as f:
            f.write(pypi_registry.REQUIREMENTS)
        t0 = time.monotonic()
        why = make_venv(self.python, os.path.join(project, ".venv"),
                        {"PATH": netlab.SYSTEM_PATH, "HOME": home, "LANG": "C.UTF-8"})
        if why:
            skip(why)
        with open(os.path.join(project, ".venv", "pip.conf"), "w") as f:
            f.write("[global]\nindex-url = https://%s/simple/\ncert = %s\n"
                    % (INDEX_HOST, self.lab.ca_file))
        return project, home, time.monotonic() - t0

    def log_size(self):
        try:
            return os.path.getsize(self.log)
        except FileNotFoundError:
            return 0

    def requests_since(self, offset):
        with open(self.log) as f:
            f.seek(offset)
            return [json.loads(line) for line in f if line.strip()]

    def report(self, project):
        """What .venv's python imports and lists (outside porta and the lab)."""
        p = subprocess.run([os.path.join(project, ".venv", "bin", "python"), "-I", "-c", REPORT]
                           + self.modules, cwd="/", capture_output=True, text=True, timeout=60,
                           env={"PATH": netlab.SYSTEM_PATH, "LANG": "C.UTF-8"})
        if p.returncode != 0:
            die("the environment's python failed: %s" % p.stderr.strip())
        return json.loads(p.stdout)

    def once(self, variant, argv):
        """Runs argv in a fresh project in the lab; returns what happened:
        rc, text (its output), output (the same, for a failure message),
        requests (to the index, this run's), report (the project's), cached
        (files in HOME/.cache/pip afterwards), seconds, venv_seconds."""
        project, home, venv_s = self.fresh(variant)
        offset = self.log_size()
        t0 = time.monotonic()
        res = self.lab.run(argv, env=self.lab.env(HOME=home), cwd=project, timeout=RUN_TIMEOUT)
        elapsed = time.monotonic() - t0
        self.lab.wait_for(lambda: self.log_size() > offset, timeout=2)
        reqs = self.requests_since(offset)
        output = "  command: %s (in %s)\n  --- stdout ---\n%s\n  --- stderr ---\n%s" % (
            shlex.join(argv), project, res.out[-4000:], res.err[-4000:])
        cached = sum(len(files) for _, _, files in os.walk(os.path.join(home, ".cache", "pip")))
        return {"rc": res.rc, "text": res.out + res.err, "output": output, "requests": reqs,
                "report": self.report(project), "cached": cached, "seconds": elapsed,
                "venv_seconds": venv_s}

    def installed(self, variant, argv):
        """One run that must install the tree; returns the problems found
        (empty: it did) and a line saying what happened."""
        run = self.once(variant, argv)
        rc, reqs, rep = run["rc"], run["requests"], run["report"]
        problems = []
        if rc != 0:
            problems.append("pip exited %s" % ("after a timeout of %ds" % RUN_TIMEOUT
                                                if rc is None else rc))
        want = {pypi_registry.module_name(n): v for n, v in self.expected.items()}
        wrong = {m: v for m, v in rep["modules"].items() if want[m] != v}
        if wrong:
            problems.append("%d of %d packages not importable at their version: %s"
                            % (len(wrong), len(want), json.dumps(wrong)))
        lab_dists = {n: v for n, v in rep["dists"].items() if n.startswith("lab-")}
        if lab_dists != self.expected:
            problems.append("installed lab packages %s, not %s"
                            % (json.dumps(lab_dists, sort_keys=True),
                               json.dumps(self.expected, sort_keys=True)))
        fetched = {os.path.basename(r["path"]) for r in reqs
                   if r["kind"] == "wheel" and r["status"] == 200 and r["host"] == FILES_HOST}
        if not self.wheels <= fetched:
            problems.append("the registry served %d of the %d wheels from %s (a warm cache?); "
                            "missing: %s" % (len(self.wheels & fetched), len(self.wheels),
                                             FILES_HOST, ", ".join(sorted(self.wheels - fetched))))
        if not run["cached"]:
            problems.append("pip left nothing in HOME/.cache/pip")
        kinds = {}
        for r in reqs:
            key = "%s %s %d" % (r["host"], r["kind"], r["status"])
            kinds[key] = kinds.get(key, 0) + 1
        line = ("%s: pip exited %s in %.1f s (venv %.1f s); %d packages importable at their "
                "versions; %d files in its cache; registry requests %s"
                % (variant, rc, run["seconds"], run["venv_seconds"], len(want) - len(wrong),
                   run["cached"], json.dumps(kinds, sort_keys=True)))
        return problems, line, run["output"]


def start_lab(base):
    """The lab, its resolver answering both names, and the index serving
    both over HTTPS on 443; returns (lab, the registry's request log)."""
    why = netlab.unavailable_reason()
    if why:
        skip("the netlab cannot run here: %s" % why)
    lab = netlab.Lab()
    log = os.path.join(base, "registry.jsonl")
    cert, key = lab.make_cert([INDEX_HOST, FILES_HOST])
    server = lab.popen([sys.executable, "-B", os.path.join(HERE, "pypi_registry.py"),
                        "--index-addr", INDEX_ADDR, "--files-addr", FILES_ADDR,
                        "--files-host", FILES_HOST, "--port", "443", "--cert", cert,
                        "--key", key, "--log", log],
                       side="internet", cwd="/", stdout=subprocess.PIPE)
    line = server.stdout.readline()
    if line != b"listening\n":
        lab.close()
        die("the lab's package index did not start (it printed %r)" % line)
    lab.dns({INDEX_HOST: INDEX_ADDR, FILES_HOST: FILES_ADDR}, ttl=60)
    return lab, log


def check(porta, python, keep):
    readme = readme_command()
    base = tempfile.mkdtemp(prefix="pip-install-", dir=netlab._lab_base())
    try:
        lab, log = start_lab(base)
        try:
            runs = Runs(lab, base, python, log)
            say("README: %s" % shlex.join(readme))

            problems, line, output = runs.installed("bare", bare_argv(readme))
            if problems:
                print(output)
                skip("pip failed without porta, so the lab says nothing about porta: %s"
                     % "; ".join(problems))
            say(line)

            problems, line, output = runs.installed("porta", porta_argv(readme, porta))
            if problems:
                die("the README's command failed its checks: %s\n%s"
                    % ("; ".join(problems), output))
            say(line)

            allow = ",".join(h for h in readme[readme.index("--allow-net") + 1].split(",")
                             if h != FILES_HOST)
            argv = porta_argv(readme, porta, allow_net=allow)
            run = runs.once("control", argv)
            rc, text = run["rc"], run["text"]
            wheels = [r for r in run["requests"] if r["kind"] == "wheel" and r["status"] == 200]
            pages = [r for r in run["requests"]
                     if r["kind"] == "project" and r["host"] == INDEX_HOST]
            problems = []
            if rc is None or rc == 0:
                problems.append("pip exited %s" % ("after a timeout" if rc is None else 0))
            if FILES_HOST not in text:
                problems.append("its output does not name %s" % FILES_HOST)
            if wheels:
                problems.append("%d wheels were fetched" % len(wheels))
            if not pages:
                problems.append("the index was never asked (the failure is elsewhere)")
            if problems:
                die("the control (--allow-net %s) should fail at %s, but: %s\n%s"
                    % (allow, FILES_HOST, "; ".join(problems), run["output"]))
            refusal = [l for l in text.splitlines() if l.startswith("porta:")
                       and FILES_HOST in l]
            say("control (--allow-net %s): pip exited %d in %.1f s, %d index pages and no "
                "wheel fetched; %s" % (allow, rc, run["seconds"], len(pages),
                                       refusal[0] if refusal else "output names " + FILES_HOST))
        finally:
            lab.close()
    finally:
        if keep:
            say("kept %s" % base)
        else:
            shutil.rmtree(base, ignore_errors=True)
    say("the README's pip example installed all %d packages; without %s it failed"
        % (len(runs.expected), FILES_HOST))
    return 0


def main():
    ap = argparse.ArgumentParser(
        prog="tests/netlab/pip_install.py",
        description="The README's pip install example, run as printed in tests/netlab's lab.")
    ap.add_argument("--porta", default=os.path.join(REPO_ROOT, "build", "porta"))
    ap.add_argument("--python", default=None,
                    help="the python3 that makes .venv (default: /usr/bin/python3)")
    ap.add_argument("--keep", action="store_true", help="keep the run directories")
    args = ap.parse_args()
    porta = os.path.abspath(args.porta)
    if not os.access(porta, os.X_OK):
        die("--porta %s: not an executable porta" % args.porta)
    python = args.python or shutil.which("python3", path="/usr/bin") or \
        shutil.which("python3", path=netlab.SYSTEM_PATH)
    if not python:
        skip("python3 is not installed")
    return check(porta, python, args.keep)


if __name__ == "__main__":
    sys.exit(main())
