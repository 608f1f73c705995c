"""Row 92 of the escape corpus: the command steers what `--why` tells the
user to run next.

`--why` ends a run with the options that would have allowed each refusal and
a whole command line to run again with them.  For a refused write it names
the directory above the file (`-v DIR`).  Every refusal it reports is the
command's own doing, so the command chooses those directories: one write at
the root, in the home, in `~/.config` or into a repository's hooks, and the
line to run again makes the whole filesystem, the home, the directory of the
start-up files or the hooks writable.  A user who runs that line (what the
line is for) gives the command what it then writes: files the host runs
later.

Each check runs one script twice: first under the row's policy with
`--why`, where its writes must be refused; then, as a user would, the exact
command line porta printed to run again, if it printed one.  The script
makes the steering write and, only once that succeeds (in the second run),
the one that matters: so the first run's refusals, and the line, come from
the steering write alone.  Evidence is on the
host: the file that matters, changed after either run.  The control runs
the script with no sandbox.  Only porta has `--why`; other sandboxes do not
offer it.
"""

import os
import shlex

from corpus import *  # noqa: F401,F403  (the runner's vocabulary)
from corpus import NotOffered, Policy, judge, row, sh, ws_ug
from rows_files import diff, plant, snapshot

CONCERNED = ("porta", "porta-degraded", "none")
RUN_AGAIN = "porta: --why: run again with: "


def run_again_line(stderr: str) -> list | None:
    """The command line porta printed to run again, as argv, or None."""
    for line in stderr.splitlines():
        if line.startswith(RUN_AGAIN):
            return shlex.split(line[len(RUN_AGAIN):])
    return None


def steered(ctx, name, setup, policy_of, script_of, target_of, control_na=None):
    """One check: the script under policy_of(s) with --why, then the line it
    printed; escaped when target_of(s) changed on the host."""
    def prepare(mode):
        s = setup(ctx.fresh(f"r92-{mode}"))
        s["before"] = snapshot(target_of(s))
        return s

    c = prepare("control")
    ctx.control(sh(script_of(c)), env=ctx.env(HOME=c["home"]))
    c_esc = bool(diff(c["before"], snapshot(target_of(c))))

    s = prepare("sandbox")
    env = ctx.env(HOME=s["home"])
    first = ctx.sandboxed(policy_of(s), sh(script_of(s)), env=env)
    after_first = diff(s["before"], snapshot(target_of(s)))
    again = run_again_line(first.stderr) if ctx.adapter.name != "none" else None
    followed = ""
    if again and not after_first:
        ctx.execute(again, env=env)
        mounts = [again[i + 1] for i, w in enumerate(again[:-1]) if w == "-v"]
        followed = f"ran the line --why printed (-v {', -v '.join(mounts)}); "
    changed = diff(s["before"], snapshot(target_of(s)))
    detail = (f"{followed}{os.path.relpath(target_of(s), s['base'])} changed on the host: {changed[:3]}"
              if changed else
              f"{followed or 'no line to run again; '}{os.path.relpath(target_of(s), s['base'])} untouched")
    return judge(name, c_esc, bool(changed), first, detail, control_na=control_na)


def base_setup(base):
    s = ws_ug(base)
    s["home"] = os.path.join(base, "home")
    plant(s["home"], {".vimrc": "\" vimrc\n", ".config/autostart/keep.desktop": "[Desktop Entry]\n",
                      ".config/nvim/keep.lua": "-- keep\n",
                      ".ipython/profile_default/startup/README": "startup\n"},
          0o644)
    plant(os.path.join(s["ws"], ".git"), {"config": "[core]\n", "hooks/keep.sample": "#!/bin/sh\n"},
          0o644)
    return s


@row(92, "--why's line to run again, steered by the command: the root, the home, ~/.config, "
         "a repository's hooks", "--why, then the line it printed")
def row92(ctx):
    if ctx.adapter.name not in CONCERNED:
        raise NotOffered(f"{ctx.adapter.name} suggests no options after a run (porta's --why)")
    ws = lambda s: Policy(mounts=[(s["ws"], False)], why=True)  # noqa: E731
    ws_ro = lambda s: Policy(mounts=[(s["ws"], True)], why=True)  # noqa: E731
    checks = [
        steered(ctx, "a write in the home, then ~/.vimrc (a file the host runs later)",
                base_setup, ws,
                lambda s: 'echo notes > "$HOME/notes" && echo "!echo pwned" >> "$HOME/.vimrc"',
                lambda s: os.path.join(s["home"], ".vimrc")),
        steered(ctx, "a write in ~/.config, then an autostart entry",
                base_setup, ws,
                lambda s: 'echo x > "$HOME/.config/porta-why-steer" && '
                          'printf "[Desktop Entry]\\nExec=pwned\\n" > "$HOME/.config/autostart/evil.desktop"',
                lambda s: os.path.join(s["home"], ".config/autostart")),
        # issue's item: a write inside the home's hidden tree named the
        # directory it landed in (~/.config/nvim, ~/.ipython/...), which
        # the host's programs run code from
        steered(ctx, "a write in ~/.config/nvim, then its init.lua",
                base_setup, ws,
                lambda s: 'mkdir -p "$HOME/.config/nvim" 2>/dev/null; '
                          'echo "-- x" > "$HOME/.config/nvim/scratch" && '
                          'echo "os.execute(\"pwned\")" >> "$HOME/.config/nvim/init.lua"',
                lambda s: os.path.join(s["home"], ".config/nvim")),
        steered(ctx, "a write in ~/.ipython/profile_default/startup, then a start-up script",
                base_setup, ws,
                lambda s: 'echo x > "$HOME/.ipython/profile_default/startup/scratch" && '
                          'echo "import os; os.system(\"pwned\")" > '
                          '"$HOME/.ipython/profile_default/startup/00.py"',
                lambda s: os.path.join(s["home"], ".ipython/profile_default/startup")),
        steered(ctx, "a project mounted read-only: a write into its hooks",
                base_setup, ws_ro,
                lambda s: f'printf "#!/bin/sh\\necho pwned\\n" > {shlex.quote(s["ws"])}/.git/hooks/pre-commit',
                lambda s: os.path.join(s["ws"], ".git/hooks")),
    ]
    # A write at the root: as another user the host's permissions refuse it
    # too, and --why lists only what the sandbox alone refused.
    root_na = None if os.geteuid() == 0 else "a write at / is refused by the host's permissions " \
                                              "too, so --why lists nothing: only root can be steered"
    steer = f"/porta-why-steer-{ctx.nonce}"
    try:
        checks.append(steered(
            ctx, "a write at the root, then outside every mount", base_setup, ws,
            lambda s: f'echo x > {steer} && echo pwned >> {shlex.quote(s["ug"])}/f',
            lambda s: s["ug"], control_na=root_na))
    finally:
        if os.path.lexists(steer):
            os.unlink(steer)
    return checks
