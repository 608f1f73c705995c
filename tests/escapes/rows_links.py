"""Rows 94-98 of the escape corpus: porta itself steered by a path the
command changed, in this run or an earlier one.

porta, the supervisor, runs outside the sandbox with the user's rights (as
root in CI).  Each row here plants what an earlier run with a writable mount
could have left (a symbolic link where the user's next options name a path),
or has the command make it during the run, then runs porta as the user would
and looks on the host for porta's own writes or grants having gone where the
user never named: a credential read or written, a file outside every mount
written by porta, porta's records rewritten.

The rule porta holds (docs/design.md, "Paths porta opens"): every path it
opens on the user's behalf is resolved once, before the command starts, and
used through what was resolved; a grant or read that passes through a link
into a place porta closes is refused (125) naming link and target; a write
never follows a link; a link at a cache path is not followed.  A refusal
that names the link is how these rows hold (refusal_holds).
"""

import os
import uuid

from corpus import *  # noqa: F401,F403  (the runner's vocabulary)
from corpus import (MARKER, NotOffered, Policy, could_not_prepare, judge, read, row, sh)
from rows_files import plant

# porta's own options (learn -o, --caches, --audit, --env-file): another
# sandbox has none of them.  porta-degraded runs the same resolution.
PORTA_ONLY = ("porta", "porta-degraded", "none")


def planted_home(base: str, token: str) -> str:
    """A home with a key, the keys ~/.ssh trusts, ~/.local/bin and a
    .bashrc, each holding or guarded by token."""
    home = os.path.join(base, "home")
    plant(home, {".ssh/id_ed25519": f"{token}-key\n",
                 ".ssh/authorized_keys": "ssh-ed25519 AAAA user@host\n",
                 ".aws/credentials": f"AWS_SECRET_ACCESS_KEY={token}-aws\n",
                 ".bashrc": "# the user's\n"})
    os.makedirs(os.path.join(home, ".local", "bin"), exist_ok=True)
    return home


def porta_argv(ctx, policy: Policy, argv: list, extra=(), sub="run") -> list:
    """The adapter's porta command line with porta's own options added
    after the subcommand (learn -o, --caches, --env-file)."""
    cmd = ctx.adapter.command(policy, argv)
    i = cmd.index("run")
    cmd[i] = sub
    return cmd[:i + 1] + list(extra) + cmd[i + 1:]


def run_porta(ctx, policy, argv, env, extra=(), sub="run"):
    if ctx.adapter.name == "none":
        return ctx.control(argv, env=env)
    return ctx.execute(porta_argv(ctx, dataclasses_replace_bin(ctx, policy), argv, extra, sub),
                       env=env)


def dataclasses_replace_bin(ctx, policy):
    import dataclasses
    return dataclasses.replace(policy, mounts=[(ctx.bin, True)] + list(policy.mounts))


def refusal(run) -> str:
    return "symbolic link" if run.rc == 125 and "symbolic link" in run.stderr else ""


@row(94, "porta learn -o written through a directory the command swapped for a link",
     "porta learn -v WS -o WS/out/npm.porta (the command: rm -rf WS/out; ln -s UG WS/out)")
def row94(ctx):
    if ctx.adapter.name not in PORTA_ONLY:
        raise NotOffered(f"{ctx.adapter.name} has no learn mode")
    base = ctx.fresh("r94")
    ws, ug = os.path.join(base, "ws"), os.path.join(base, "ug")
    os.makedirs(os.path.join(ws, "out"))
    os.makedirs(ug)
    swap = 'rm -rf "$1/out" && ln -s "$2" "$1/out"'
    # the control: what porta did, re-opening the output by its full path
    # after the command ran, lands in UG
    ctl = ctx.control(sh(swap + ' && echo "--allow-net x" > "$1/out/npm.porta"', ws, ug))
    c_esc = os.path.exists(os.path.join(ug, "npm.porta"))
    os.unlink(os.path.join(ug, "npm.porta")) if c_esc else None
    os.unlink(os.path.join(ws, "out"))
    os.makedirs(os.path.join(ws, "out"))
    run = run_porta(ctx, Policy(mounts=[(ws, False)]), sh(swap, ws, ug), ctx.env(),
                    extra=["-o", os.path.join(ws, "out", "npm.porta")], sub="learn")
    s_esc = os.path.exists(os.path.join(ug, "npm.porta"))
    return [judge("the output directory swapped for a link to UG", c_esc and ctl.rc == 0, s_esc,
                  run, "porta wrote UG/npm.porta" if s_esc else
                  f"nothing written in UG (rc {run.rc})")]


@row(95, "--caches follows links an earlier run planted at cache paths",
     "--caches -v WS (HOME planted: ~/.cache/pip -> ~/.ssh, ~/.cache/uv -> ~/.local/bin)")
def row95(ctx):
    if ctx.adapter.name not in PORTA_ONLY:
        raise NotOffered(f"{ctx.adapter.name} has no --caches")
    token = f"{MARKER}-r95-{uuid.uuid4().hex[:10]}"
    script = ('cat "$1/.cache/pip/id_ed25519"; echo "ssh-ed25519 EVIL" >> '
              '"$1/.cache/pip/authorized_keys"; printf "#!/bin/sh\\n" > "$1/.cache/uv/git"')
    out = {}
    for mode in ("control", "sandbox"):
        base = ctx.fresh(f"r95-{mode}")
        home = planted_home(base, token)
        ws = os.path.join(base, "ws")
        os.makedirs(ws)
        os.makedirs(os.path.join(home, ".cache"))
        os.symlink(os.path.join(home, ".ssh"), os.path.join(home, ".cache", "pip"))
        os.symlink(os.path.join(home, ".local", "bin"), os.path.join(home, ".cache", "uv"))
        env = ctx.env(HOME=home)
        if mode == "control":
            run = ctx.control(sh(script, home), env=env)
        else:
            run = run_porta(ctx, Policy(mounts=[(ws, False)]), sh(script, home), env,
                            extra=["--caches"])
        found = []
        if f"{token}-key" in run.stdout:
            found.append("read ~/.ssh/id_ed25519")
        if "EVIL" in (read(os.path.join(home, ".ssh", "authorized_keys"), "") or ""):
            found.append("appended to ~/.ssh/authorized_keys")
        if os.path.exists(os.path.join(home, ".local", "bin", "git")):
            found.append("wrote ~/.local/bin/git")
        out[mode] = (run, found)
    (sbx, found), (_, c_found) = out["sandbox"], out["control"]
    return [judge("cache paths that are links into ~/.ssh and ~/.local/bin", len(c_found) == 3,
                  bool(found), sbx, "; ".join(found) or f"neither followed (rc {sbx.rc})")]


# (label, link made in WS relative to WS, its target relative to the home,
# the -v path relative to WS, the script: $1 the -v path)
CHECKS_96 = [
    ("-v WS/build, WS/build a link to ~/.ssh", "build", ".ssh", "build",
     'cat "$1/id_ed25519"; echo "ssh-ed25519 EVIL" >> "$1/authorized_keys"'),
    ("-v WS/out/.ssh, WS/out a link to the home (a link at a middle component)", "out", "",
     "out/.ssh", 'cat "$1/id_ed25519"; echo "ssh-ed25519 EVIL" >> "$1/authorized_keys"'),
    ("-v WS/cfg, WS/cfg a link to porta's configuration (~/.config/porta)", "cfg",
     ".config/porta", "cfg", 'mkdir -p "$1/profiles" && echo "--allow-net evil.test" > '
     '"$1/profiles/npm"'),
]


@row(96, "-v PATH where an earlier run replaced PATH (or a directory on the way) with a link",
     "-v WS/PATH (HOME planted; WS/PATH a link an earlier -v WS run made)")
def row96(ctx):
    checks = []
    for label, link, target, vpath, script in CHECKS_96:
        token = f"{MARKER}-r96-{uuid.uuid4().hex[:10]}"
        out = {}
        for mode in ("control", "sandbox"):
            base = ctx.fresh(f"r96-{mode}")
            home = planted_home(base, token)
            os.makedirs(os.path.join(home, ".config", "porta"), exist_ok=True)
            ws = os.path.join(base, "ws")
            os.makedirs(ws)
            os.symlink(os.path.join(home, target) if target else home, os.path.join(ws, link))
            granted = os.path.join(ws, vpath)
            env = ctx.env(HOME=home)
            if mode == "control":
                run = ctx.control(sh(script, granted), env=env)
            else:
                run = ctx.sandboxed(Policy(mounts=[(granted, False)]), sh(script, granted),
                                    env=env)
            found = []
            if f"{token}-key" in run.stdout:
                found.append("read ~/.ssh/id_ed25519")
            if "EVIL" in (read(os.path.join(home, ".ssh", "authorized_keys"), "") or ""):
                found.append("appended to ~/.ssh/authorized_keys")
            if os.path.exists(os.path.join(home, ".config", "porta", "profiles", "npm")):
                found.append("wrote porta's profiles/npm")
            out[mode] = (run, found)
        (sbx, found), (_, c_found) = out["sandbox"], out["control"]
        checks.append(judge(label, bool(c_found), bool(found), sbx,
                            "; ".join(found) or f"nothing read or written (rc {sbx.rc})",
                            refusal_holds="symbolic link" if ctx.adapter.name.startswith("porta")
                            else False))
    return checks


@row(97, "--audit FILE written through a link, or rewritten by the command",
     "--audit UG/audit.jsonl --proxy-allow allowed.test (the name a link)")
def row97(ctx):
    if ctx.adapter.name not in PORTA_ONLY:
        raise NotOffered(f"{ctx.adapter.name} has no audit file of porta's kind")
    checks = []
    # (a) a link an earlier run planted where the audit is named: porta's
    # appends land in an unrelated file (the user's .bashrc)
    base = ctx.fresh("r97a")
    home = planted_home(base, "r97")
    ug, ws = os.path.join(base, "ug"), os.path.join(base, "ws")
    os.makedirs(ug)
    os.makedirs(ws)
    audit = os.path.join(ug, "audit.jsonl")
    os.symlink(os.path.join(home, ".bashrc"), audit)
    ctl = ctx.control(sh('echo \'{"kind":"x"}\' >> "$1"', audit))
    c_esc = '"kind"' in (read(os.path.join(home, ".bashrc"), "") or "")
    plant(home, {".bashrc": "# the user's\n"})
    probe = ('python3 -c "import socket\ntry: socket.getaddrinfo(\'refused.test\', 443)\n'
             'except OSError: pass"')
    run = run_porta(ctx, Policy(mounts=[(ws, False)], proxy_allow=["allowed.test"]),
                    sh(probe), ctx.env(HOME=home), extra=["--audit", audit])
    s_esc = '"kind"' in (read(os.path.join(home, ".bashrc"), "") or "")
    checks.append(judge("UG/audit.jsonl a link to ~/.bashrc", c_esc and ctl.rc == 0, s_esc, run,
                        "porta appended its records to ~/.bashrc" if s_esc
                        else f"~/.bashrc untouched (rc {run.rc})", refusal_holds="symbolic link"))
    # (b) within one run: the audit's name links into the run's own
    # writable mount, and the command rewrites it
    base = ctx.fresh("r97b")
    ug, ws = os.path.join(base, "ug"), os.path.join(base, "ws")
    os.makedirs(ug)
    os.makedirs(ws)
    audit = os.path.join(ug, "audit.jsonl")
    os.symlink(os.path.join(ws, "audit.jsonl"), audit)
    forge = 'echo \'{"forged":1}\' > "$1/audit.jsonl"'
    ctx.control(sh(forge, ws))
    c_esc = "forged" in (read(audit, "") or "")
    os.unlink(os.path.join(ws, "audit.jsonl"))
    run = run_porta(ctx, Policy(mounts=[(ws, False)], proxy_allow=["allowed.test"]),
                    sh(forge, ws), ctx.env(), extra=["--audit", audit])
    s_esc = "forged" in (read(audit, "") or "")
    checks.append(judge("UG/audit.jsonl a link into WS, which the command rewrites", c_esc, s_esc,
                        run, "the command rewrote porta's audit" if s_esc else
                        f"the audit was not the command's to write (rc {run.rc})",
                        refusal_holds="symbolic link"))
    return checks


@row(98, "--env-file read through a link into a credential",
     "--env-file WS/app.env (a link an earlier run made to ~/.aws/credentials)")
def row98(ctx):
    if ctx.adapter.name not in PORTA_ONLY:
        raise NotOffered(f"{ctx.adapter.name} has no --env-file")
    token = f"{MARKER}-r98-{uuid.uuid4().hex[:10]}"
    base = ctx.fresh("r98")
    home = planted_home(base, token)
    ws = os.path.join(base, "ws")
    os.makedirs(ws)
    envfile = os.path.join(ws, "app.env")
    os.symlink(os.path.join(home, ".aws", "credentials"), envfile)
    env = ctx.env(HOME=home)
    # the control: what reading the env file by its name gives the command
    ctl = ctx.control(sh('set -a; . "$1"; env', envfile), env=env)
    run = run_porta(ctx, Policy(mounts=[(ws, False)]), sh("env"), env,
                    extra=["--env-file", envfile])
    s_esc = f"{token}-aws" in run.stdout
    return [judge("WS/app.env a link to ~/.aws/credentials", f"{token}-aws" in ctl.stdout, s_esc,
                  run, "the secret reached the command's environment" if s_esc
                  else f"not in the command's environment (rc {run.rc})",
                  refusal_holds="symbolic link")]
