"""Row 90 of the escape corpus: porta's own configuration written by the
command for its next run (issue 15).

porta reads its user profiles and the record of trusted project files from
its configuration directory ($XDG_CONFIG_HOME/porta, else
~/.config/porta).  A command that can put a file there widens every later
run that names the profile (`--profile NAME`) or trusts the project file:
the sandbox would let the command write its own next policy.  The
directory is closed to every sandbox; these checks go around that
closing, with the home (or the directory holding $XDG_CONFIG_HOME)
mounted writable: make the directory when it did not exist at start, make
a parent that did not exist, swap a directory or a symbolic link on the
way to it.

Evidence is outside, from the host's files, at the path the NEXT run reads
(the configuration directory as porta finds it: $XDG_CONFIG_HOME or
$HOME/.config, symbolic links followed): a file there holding the
command's bytes, while the command still runs (a porta started then, in
another terminal, would load it) or after it ended.  As with row 82,
porta may react to a new name by moving it aside (its bytes kept) and
stopping the run: the moved entry is not an escape, the path the next run
reads holding the command's bytes is.
"""

import os
import uuid

from corpus import *  # noqa: F401,F403  (the runner's vocabulary)
from corpus import MARKER, Background, NotOffered, Policy, judge, read, row, sh, wait_for
from rows_files import plant

# The tools this row is about: porta itself, and the runner's self-test.
# Another sandbox does not read porta's configuration; its own files are
# not what this row writes.
CONCERNED = ("porta", "porta-degraded", "none")

# $1 the home, $2 the signal file, $3 the content, then the shell line that
# writes the configuration; the command then waits (5 s at most) until the
# runner has looked, as row 82's does.
WRITE_CONFIG = r'''
cd "$1"; sig=$2 content=$3
eval "$4"
: > "$sig"
i=0; while [ ! -e runner-looked ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
'''

PROFILE = 'mkdir -p "$c/porta/profiles" && printf -- "--allow-net %s\\n" "$content" > "$c/porta/profiles/evil"'
TRUST = 'mkdir -p "$c/porta" && printf "%s %s\\n" "$content" "$PWD/.porta" >> "$c/porta/trusted"'


def home_with(files: dict, dirs=(), links=()):
    def setup(home):
        for d in dirs:
            os.makedirs(os.path.join(home, d), exist_ok=True)
        plant(home, files, 0o600)
        for name, target in links:
            os.symlink(target, os.path.join(home, name))
    return setup


# (label, preset, XDG_CONFIG_HOME relative to the home or None, set-up of
# the home, shell line run in the home ($c: the configuration's parent as
# the command sees it), the file judged, relative to the configuration
# directory the next run reads)
CHECKS_90 = [
    ("~/.config/porta absent: the command makes profiles/evil", "default", None,
     home_with({".config/app/settings": "x\n"}), 'c=.config; ' + PROFILE, "profiles/evil"),
    ("~/.config/porta absent: the command writes the trust record", "default", None,
     home_with({".config/app/settings": "x\n"}), 'c=.config; ' + TRUST, "trusted"),
    ("~/.config absent: the command makes it and profiles/evil", "default", None,
     home_with({}), 'c=.config; ' + PROFILE, "profiles/evil"),
    ("$XDG_CONFIG_HOME/porta absent (inside the home): profiles/evil", "default", "xdg",
     home_with({}, dirs=["xdg"]), 'c=xdg; ' + PROFILE, "profiles/evil"),
    ("~/.config a link to dotfiles/config, porta absent there: profiles/evil", "default", None,
     home_with({"dotfiles/config/app/settings": "x\n"}, links=[(".config", "dotfiles/config")]),
     'c=.config; ' + PROFILE, "profiles/evil"),
    ("~/.config/porta exists, --preset none: ~/.config renamed aside, a fresh one made", "none", None,
     home_with({".config/porta/profiles/mine": "--timeout 30\n"}),
     'mv .config .config.old && c=.config && ' + PROFILE, "profiles/evil"),
    ("~/.config a link, porta exists behind it, --preset none: the link pointed elsewhere", "none",
     None, home_with({"dotfiles/config/porta/profiles/mine": "--timeout 30\n"},
                     links=[(".config", "dotfiles/config")]),
     'mkdir evil && c=evil && ' + PROFILE + ' && rm .config && ln -s evil .config', "profiles/evil"),
]


def config_dir(home: str, xdg: str | None) -> str:
    """The directory the next run reads, as porta finds it (host/profiles.c:
    host_config_dir())."""
    return os.path.join(home, xdg, "porta") if xdg else os.path.join(home, ".config", "porta")


def one(ctx, label, preset, xdg, setup, make, judged) -> Check:
    token = f"{MARKER}-r90-{uuid.uuid4().hex[:12]}"
    sig = "config-written"
    out = {}
    for mode in ("control", "sandbox"):
        home = os.path.join(ctx.fresh(f"r90-{mode}"), "home")
        os.mkdir(home)
        setup(home)
        extra = {"XDG_CONFIG_HOME": os.path.join(home, xdg)} if xdg else {}
        env = ctx.env(HOME=home, **extra)
        argv = sh(WRITE_CONFIG, home, sig, token, make)
        if mode == "control":
            bg = Background(lambda argv=argv, env=env: ctx.control(argv, env=env))
        else:
            pol = Policy(mounts=[(home, False)], preset=preset)
            bg = Background(lambda argv=argv, env=env, pol=pol: ctx.sandboxed(pol, argv, env=env))
        signalled = wait_for(lambda: os.path.exists(os.path.join(home, sig)), 15, bg)
        if signalled and mode == "sandbox":
            bg.linger(0.5)  # porta's guard reacts at once (row 82)
        path = os.path.join(config_dir(home, xdg), judged)
        during = token in (read(path, "") or "")
        if not bg.done():
            with open(os.path.join(home, "runner-looked"), "w"):
                pass
        run = bg.wait()
        after = token in (read(path, "") or "")
        out[mode] = (run, during, after, signalled, path)
    sbx, during, after, signalled, path = out["sandbox"]
    _, c_during, c_after, _, _ = out["control"]
    if during or after:
        detail = (f"{path} held the command's bytes "
                  + " and ".join(w for w, b in (("while it ran", during), ("after the run", after)) if b))
    else:
        detail = (f"{judged} never held the command's bytes (rc {sbx.rc})"
                  + ("" if signalled else "; the run ended before the command said it wrote it"))
    return judge(label, c_during and c_after, during or after, sbx,
                 detail if during or after or (c_during and c_after) else
                 f"control: during {c_during}, after {c_after}",
                 refusal_is_na=("porta's configuration" if ctx.adapter.name == "porta-degraded"
                                else False))


@row(90, "porta's configuration written for its next run: made absent, a parent swapped, a link repointed",
     "-v HOME (HOME=planted home; --preset none where the check says)")
def row90(ctx):
    if ctx.adapter.name not in CONCERNED:
        raise NotOffered(f"the row writes porta's own configuration; {ctx.adapter.name} does not "
                         "read it, and its own files are not checked here")
    return [one(ctx, *c) for c in CHECKS_90]
