#!/usr/bin/env python3
"""tests/package/test_completions.py: the shell completions, as built.

  test_completions.py --shell bash|zsh|fish --porta BIN --gen GEN --dir DIR

DIR holds the files tools/gen_completions (GEN) wrote from the option table.
What they must offer is taken from the other side, never from a list kept
here: `porta help` names the long options and --read-policy's values, and
porta's own parser says which option each command takes (`porta CMD OPT`
answers "unknown option" or "is not an option of" for the others).

bash (always; bash is Debian's shell): the completion file is sourced in
`bash --norc` and _porta called with COMP_WORDS, COMP_CWORD, COMP_LINE and
COMP_POINT set as bash sets them:
  - `porta run --al` completes to exactly the long options of `porta help`
    that start with --al;
  - for run, learn, explain and check, `CMD -` offers exactly the long
    options the parser takes for CMD;
  - `porta run --read-policy ` (and `--read-policy=`) completes to the values
    `porta help` lists, each accepted by porta;
  - from COMMAND on (after "--" or the first other word) no option of
    porta's is offered;
  - `--profile ` offers the built-in profiles beside porta and the user's;
    `-v` completes files;
  - the first word offers porta's commands, each one porta knows.
zsh, fish: skipped with the reason when the shell is not installed (they are
no dependency of porta's).  zsh: the file parses (zsh -n) and defines the
completion for porta.  fish: the file parses (fish -n), and fish's own
`complete -C` gives the same answers as bash for the cases above.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pkgtest import check, fail, run, skip  # noqa: E402

OPT_CMDS = ("run", "learn", "explain", "check")


def help_options(porta):
    r = run([porta, "help"])
    if r.returncode != 0:
        fail("porta help: %s" % r.stderr)
    return r.stdout, sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", r.stdout)))


def parser_takes(porta, cmd, opt, env):
    """Does porta's parser take opt for cmd?  Without a value or a command
    nothing runs: the answer is a refusal either way, and which one says."""
    r = run([porta, cmd, opt], env=env, timeout=30)
    return not ("unknown option" in r.stderr or "is not an option of" in r.stderr)


def read_policy_values(help_text):
    m = re.search(r"--read-policy ([a-z|]+)", help_text)
    if not m:
        fail("porta help shows no '--read-policy A|B' line")
    return sorted(m.group(1).split("|"))


class Bash:
    def __init__(self, path, porta, env, cwd):
        self.path, self.porta, self.env, self.cwd = path, porta, env, cwd

    def complete(self, words):
        """COMPREPLY for the words (the last is the one being completed), as
        bash sets COMP_* for a line typed up to its end."""
        line = " ".join(words)
        script = (
            'source "$1"; shift\n'
            'COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))\n'
            'COMP_LINE="$LINE"; COMP_POINT=${#COMP_LINE}\n'
            '_porta "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"\n'
            'printf "%s\\n" "${COMPREPLY[@]}"\n')
        r = run(["bash", "--norc", "--noprofile", "-c", script, "bash", self.path, self.porta]
                + list(words[1:]), env=dict(self.env, LINE=line), cwd=self.cwd, timeout=60)
        if r.returncode != 0 or r.stderr:
            fail("bash completing %r: exit %d, %s" % (line, r.returncode, r.stderr))
        return [w for w in r.stdout.split("\n") if w]


class Fish:
    def __init__(self, path, porta, env, cwd):
        self.path, self.porta, self.env, self.cwd = path, porta, env, cwd

    def complete(self, words):
        line = " ".join([self.porta] + list(words[1:]))
        r = run(["fish", "--no-config", "-c", 'source $argv[1]; complete -C"$argv[2]"',
                 self.path, line], env=self.env, cwd=self.cwd, timeout=60)
        if r.returncode != 0 or r.stderr:
            fail("fish completing %r: exit %d, %s" % (line, r.returncode, r.stderr))
        return [w.split("\t")[0] for w in r.stdout.split("\n") if w]


def check_shell(sh, porta, help_text, longs, env, tmp):
    name = type(sh).__name__.lower()
    # porta run --al: exactly help's long options starting with --al
    got = sh.complete(["porta", "run", "--al"])
    want = [o for o in longs if o.startswith("--al")]
    check(len(want) >= 3 and sorted(got) == want,
          "%s: porta run --al completes to %s (got %s)" % (name, want, got))

    # each command's options: exactly those its parser takes
    takes = {}
    for cmd in OPT_CMDS:
        got = sorted(w for w in sh.complete(["porta", cmd, "--"]) if w.startswith("--"))
        want = takes[cmd] = [o for o in longs if parser_takes(porta, cmd, o, env)]
        check(got == want, "%s: porta %s -- offers the %d long options its parser takes "
              "(missing %s, extra %s)" % (name, cmd, len(want), sorted(set(want) - set(got)),
                                          sorted(set(got) - set(want))))

    # --read-policy's values: help's, each accepted
    values = read_policy_values(help_text)
    for v in values:
        r = run([porta, "explain", "--read-policy", v, "--", "true"], env=env, timeout=60)
        check(r.returncode == 0, "porta explain --read-policy %s is accepted: %s" % (v, r.stderr))
    got = sorted(sh.complete(["porta", "run", "--read-policy", ""]))
    check(got == values, "%s: porta run --read-policy completes to %s (got %s)"
          % (name, values, got))
    if name == "bash":  # bash splits --opt=value at '=' (COMP_WORDBREAKS)
        got = sorted(sh.complete(["porta", "run", "--read-policy", "=", ""]))
        check(got == values, "bash: porta run --read-policy= completes to %s (got %s)"
              % (values, got))
        got = sh.complete(["porta", "run", "-q", "--read-policy", "=", values[-1][:2]])
    else:
        got = sh.complete(["porta", "run", "-q", "--read-policy=" + values[-1][:2]])
        got = [w.split("=", 1)[-1] for w in got]
    check(got == [values[-1]], "%s: --read-policy=%s completes to %s (got %s)"
          % (name, values[-1][:2], values[-1], got))

    # from COMMAND on, nothing of porta's
    for words in (["porta", "run", "--", ""], ["porta", "run", "--", "--al"],
                  ["porta", "run", "--no-net", "--", "--"],
                  ["porta", "run", "-v", tmp, "sh", "--al"],
                  ["porta", "explain", "--json", "true", "--"]):
        got = sh.complete(words)
        porta_opts = sorted(set(got) & set(takes[words[1]]))
        check(not porta_opts, "%s: after %r no option of porta's is offered (got %s)"
              % (name, " ".join(words[1:]), porta_opts[:5]))
    got = sh.complete(["porta", "run", "--", "tru"])
    check("true" in got, "%s: porta run -- tru completes the command true (got %s)"
          % (name, got[:10]))

    # profiles: the built-in ones beside porta, and the user's
    builtin = sorted(os.listdir(os.path.join(os.path.dirname(os.path.realpath(porta)),
                                             "share", "porta", "profiles")))
    got = sh.complete(["porta", "run", "--profile", ""])
    check(builtin and all(p in got for p in builtin) and "mine" in got,
          "%s: --profile offers the built-in profiles %s and the user's 'mine' (got %s)"
          % (name, builtin, got))
    got = sh.complete(["porta", "explain", "--profile", "mi"])
    check(got == ["mine"], "%s: --profile mi completes to mine (got %s)" % (name, got))

    # -v completes files (the working directory is tmp)
    got = sh.complete(["porta", "run", "-v", "work"])
    check([w.rstrip("/") for w in got] == ["workdir"],
          "%s: -v work completes to the directory workdir (got %s)" % (name, got))

    # the first word: porta's commands, each one porta knows
    got = sh.complete(["porta", ""])
    cmds = [c for c in got if not c.startswith("-")]
    for c in ("run", "learn", "explain", "check", "profiles", "trust", "audit", "help"):
        check(c in cmds, "%s: the first word offers %s" % (name, c))
    for c in got:
        r = run([porta, c, "--porta-test-no-such-option"], env=env, timeout=30)
        check("unknown command" not in r.stderr, "%s: porta knows the command %s" % (name, c))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shell", required=True, choices=("bash", "zsh", "fish"))
    ap.add_argument("--porta", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--dir", required=True)
    a = ap.parse_args()

    if shutil.which(a.shell) is None:
        skip("%s is not installed: its completion file is not checked (no dependency of "
             "porta's; apt-get install %s to check it)" % (a.shell, a.shell))

    help_text, longs = help_options(a.porta)
    if len(longs) < 20:
        fail("porta help names only %d long options" % len(longs))
    tmp = tempfile.mkdtemp(prefix="porta-compl-")
    try:
        os.makedirs(os.path.join(tmp, "config", "porta", "profiles"))
        with open(os.path.join(tmp, "config", "porta", "profiles", "mine"), "w") as f:
            f.write("# mine\n--no-net\n")
        os.mkdir(os.path.join(tmp, "workdir"))
        env = dict(os.environ, HOME=tmp, XDG_CONFIG_HOME=os.path.join(tmp, "config"),
                   PATH=os.path.dirname(os.path.realpath(a.porta)) + ":" +
                   os.environ.get("PATH", "/usr/bin:/bin"))
        env.pop("BASH_COMPLETION_USER_DIR", None)

        if a.shell == "bash":
            path = os.path.join(a.dir, "porta.bash")
            r = run(["bash", "-n", path])
            check(r.returncode == 0, "bash -n %s: %s" % (path, r.stderr))
            check_shell(Bash(path, a.porta, env, tmp), a.porta, help_text, longs, env, tmp)
        elif a.shell == "fish":
            path = os.path.join(a.dir, "porta.fish")
            r = run(["fish", "--no-config", "-n", path])
            check(r.returncode == 0, "fish -n %s: %s" % (path, r.stderr))
            check_shell(Fish(path, a.porta, env, tmp), a.porta, help_text, longs, env, tmp)
        else:
            path = os.path.join(a.dir, "_porta")
            r = run(["zsh", "-n", path])
            check(r.returncode == 0, "zsh -n %s: %s" % (path, r.stderr))
            with open(path, encoding="utf-8") as f:
                text = f.read()
            check(text.startswith("#compdef porta\n"), "_porta is zsh's completion for porta")
            # every option the generator lists for run is a spec of _porta_opts_run
            gen = run([a.gen, "--options", "run"])
            block = re.search(r"_porta_opts_run=\((.*?)\n\)", text, re.S)
            check(gen.returncode == 0 and block is not None, "_porta has the options of run")
            specs = set(re.findall(r"'\*(--[a-z-]+)", block.group(1)))
            want = set(gen.stdout.split())
            check(want == specs, "_porta_opts_run holds every option of run (missing %s)"
                  % sorted(want - specs))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except subprocess.TimeoutExpired as e:
        fail("timed out: %s" % e)
