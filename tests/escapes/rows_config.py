"""Row 90 of the escape corpus: porta's own configuration written by the
command for its next run.

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
import shutil
import uuid

from corpus import *  # noqa: F401,F403  (the runner's vocabulary)
from corpus import (MARKER, Background, NotOffered, Policy, could_not_prepare, judge, read, row,
                    sh, wait_for)
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


# What else the next run reads, beside the configuration: porta itself and
# its built-in profiles (host/profiles.c looks in BIN/share/porta/profiles,
# then BIN/../share/porta/profiles), when porta is installed inside a
# writable mount (PREFIX=~/.local with the home mounted, a build tree inside
# the project).  Each check runs a copy of porta installed in the planted
# home: HOME/app/bin/porta, its profiles in HOME/app/share/porta/profiles
# (the second place), or none.  (label, set-up of the installation, shell
# line run in the home, the file judged relative to the home)
INSTALLED_90 = [
    ("porta installed in the home: a built-in profile rewritten (share/porta/profiles/npm)",
     "share", 'printf -- "--allow-net %s\\n" "$content" > app/share/porta/profiles/npm',
     "app/share/porta/profiles/npm"),
    ("porta installed in the home: the first place for built-in profiles made "
     "(bin/share/porta/profiles/npm)",
     "share", 'mkdir -p app/bin/share/porta/profiles && '
              'printf -- "--allow-net %s\\n" "$content" > app/bin/share/porta/profiles/npm',
     "app/bin/share/porta/profiles/npm"),
    # written in place it is busy (ETXTBSY: the supervisor runs it), so a
    # copy is changed and renamed over it
    ("porta installed in the home: its own executable replaced (bin/porta renamed over)",
     "share", 'cp app/bin/porta staged && printf "\\n%s\\n" "$content" >> staged && '
              'mv staged app/bin/porta', "app/bin/porta"),
]


def install_porta(home, binary):
    """A copy of porta in HOME/app/bin, its built-in profiles in
    HOME/app/share/porta/profiles, as `make install PREFIX=HOME/app` lays
    them out; returns the copy's path."""
    bindir = os.path.join(home, "app", "bin")
    os.makedirs(bindir)
    shutil.copy2(binary, os.path.join(bindir, "porta"))
    src = os.path.join(os.path.dirname(binary), "share", "porta", "profiles")
    shutil.copytree(src, os.path.join(home, "app", "share", "porta", "profiles"))
    return os.path.join(bindir, "porta")


def installed(ctx, label, _layout, make, judged) -> Check:
    binary = getattr(ctx.adapter, "binary", None)
    if not binary or not os.path.exists(os.path.join(os.path.dirname(binary), "share")):
        return could_not_prepare(label, "no porta binary with its built-in profiles to install "
                                        "(give --porta)")
    token = f"{MARKER}-r90-{uuid.uuid4().hex[:12]}"
    out = {}
    for mode in ("control", "sandbox"):
        home = os.path.join(ctx.fresh(f"r90i-{mode}"), "home")
        os.mkdir(home)
        copy = install_porta(home, os.path.abspath(binary))
        env = ctx.env(HOME=home)
        argv = sh('cd "$1"; content=$2; eval "$3"', home, token, make)
        if mode == "control":
            run = ctx.control(argv, env=env)
        else:
            adapter = ctx.adapter
            ctx.adapter = type(adapter)(copy)
            try:
                run = ctx.sandboxed(Policy(mounts=[(home, False)]), argv, env=env)
            finally:
                ctx.adapter = adapter
        out[mode] = (run, token in (read(os.path.join(home, judged), "") or ""))
    (sbx, s_esc), (_, c_esc) = out["sandbox"], out["control"]
    return judge(label, c_esc, s_esc, sbx,
                 f"{judged} holds the command's bytes after the run" if s_esc
                 else f"{judged} never held the command's bytes (rc {sbx.rc})",
                 refusal_is_na=("porta's configuration" if ctx.adapter.name == "porta-degraded"
                                else False))


@row(90, "porta's configuration, profiles and executable written for its next run",
     "-v HOME (HOME=planted home; --preset none where the check says)")
def row90(ctx):
    if ctx.adapter.name not in CONCERNED:
        raise NotOffered(f"the row writes porta's own configuration; {ctx.adapter.name} does not "
                         "read it, and its own files are not checked here")
    return [one(ctx, *c) for c in CHECKS_90] + [installed(ctx, *c) for c in INSTALLED_90]
