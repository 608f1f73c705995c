"""Rows 99-100 of the escape corpus: the next run's policy switched off
through the project file.

A trusted `.porta` holds the project's policy (here `-v .`, `--no-net` and
`--deny-read ./secret`).  porta used to skip, with one line on stderr, a
project file it could not use: a nearer one nobody trusted, or the trusted
one changed since.  Skipping it ran the command with no project policy at
all, the host's network open and the secret readable.  Row 99: the command
of one run writes `src/.porta` (only the mount root's `.porta` was
protected); the user's next `porta run` from `src` found the nearer file
and ignored it.  Row 100: the trusted file changes (a pull request that
edits `.porta`), and CI's next run went on open.  Evidence: the next run's
command reads the secret.  Held: the next run stops (125) naming the file
and how to review and trust it (refusal_holds).
"""

import os
import uuid

from corpus import *  # noqa: F401,F403  (the runner's vocabulary)
from corpus import MARKER, NotOffered, Policy, judge, row, sh
from rows_files import plant

PORTA_ONLY = ("porta", "porta-degraded", "none")
PROJECT = "-v .\n--no-net\n--deny-read ./secret\n"


def project(ctx, label, token):
    base = ctx.fresh(label)
    proj = os.path.join(base, "proj")
    plant(proj, {".porta": PROJECT, "secret": f"{token}\n", "src/main.c": "int main;\n"}, 0o644)
    cfg = os.path.join(base, "xdg")
    os.makedirs(cfg)
    return proj, cfg


def trust(ctx, proj, env):
    binary = getattr(ctx.adapter, "binary", None)
    if binary:
        ctx.execute([binary, "trust", os.path.join(proj, ".porta")], env=env)


def next_run(ctx, env, cwd):
    """The user's next `porta run` from cwd, with no option of its own."""
    argv = sh('cat ../secret ../../secret 2>/dev/null')
    if ctx.adapter.name == "none":
        return ctx.control(argv, env=env, cwd=cwd)
    cmd = ctx.adapter.command(Policy(), argv)
    # the adapter's read-only grant of the probes is not needed: sh and cat
    return ctx.execute(cmd, env=env, cwd=cwd)


@row(99, "a nearer .porta the command wrote switches the trusted one off",
     "trusted proj/.porta (-v ., --no-net, --deny-read ./secret); the command writes "
     "src/.porta; then porta run from src")
def row99(ctx):
    if ctx.adapter.name not in PORTA_ONLY:
        raise NotOffered(f"{ctx.adapter.name} has no project file")
    token = f"{MARKER}-r99-{uuid.uuid4().hex[:10]}"
    proj, cfg = project(ctx, "r99", token)
    env = ctx.env(XDG_CONFIG_HOME=cfg)
    trust(ctx, proj, env)
    # the command of an earlier run under the project's policy (-v .) made
    # the nearer file; the runner makes it the same way
    with open(os.path.join(proj, "src", ".porta"), "w") as f:
        f.write("-v .\n")
    ctl = ctx.control(sh("cat ../secret"), env=env, cwd=os.path.join(proj, "src"))
    run = next_run(ctx, env, os.path.join(proj, "src"))
    esc = token in run.stdout
    return [judge("src/.porta written by a command, next run from src", token in ctl.stdout,
                  esc, run, "the next run read the secret" if esc
                  else f"the secret stayed closed (rc {run.rc})", refusal_holds="not trusted")]


@row(100, "the trusted .porta changed, and the next run goes on without it",
     "trusted proj/.porta (-v ., --no-net, --deny-read ./secret), then edited; porta run")
def row100(ctx):
    if ctx.adapter.name not in PORTA_ONLY:
        raise NotOffered(f"{ctx.adapter.name} has no project file")
    token = f"{MARKER}-r100-{uuid.uuid4().hex[:10]}"
    proj, cfg = project(ctx, "r100", token)
    env = ctx.env(XDG_CONFIG_HOME=cfg)
    trust(ctx, proj, env)
    with open(os.path.join(proj, ".porta"), "w") as f:
        f.write("-v .\n")  # a pull request drops the closing lines
    cwd = os.path.join(proj, "src")
    ctl = ctx.control(sh("cat ../secret"), env=env, cwd=cwd)
    run = next_run(ctx, env, cwd)
    esc = token in run.stdout
    return [judge("the trusted .porta edited, next run", token in ctl.stdout, esc, run,
                  "the next run read the secret" if esc
                  else f"the secret stayed closed (rc {run.rc})",
                  refusal_holds="changed since it was trusted")]
