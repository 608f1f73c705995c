"""Rows 81, 82 and 85 of the escape corpus: protected names that a mount
over the name itself does not keep.

Row 51 writes, renames, deletes and exchanges the protected names
themselves; these rows go around them: rename a directory ABOVE a protected
name (the read-only bind moves along with it and a fresh directory takes
its place), and make a protected name that did not exist when porta
started, while the command runs (no mount can cover a path that does not
exist).

Evidence is outside, from the host's files: a snapshot of the protected
path before and after the run (row 51's), and for the names made during the
run, a look at the path while the command still runs ("a program outside
finds it while the command runs": an editor, direnv or git reading it then)
and after it ended.  porta is allowed to react to a new name by renaming it
aside (its bytes kept) and stopping the run: the renamed sibling is not an
escape, the name itself holding the command's bytes is.
"""


import os
import shutil
import subprocess
import uuid

from corpus import *  # noqa: F401,F403  (the runner's vocabulary)
from corpus import (MARKER, SYSTEM_PATH, Background, Policy, could_not_prepare, judge, read, row,
                    sh, wait_for, ws_ug)
from rows_files import diff, plant, snapshot

# --------------------------------------------------------------------------
# Row 81: protected names freed by renaming a parent

GIT_ENV = {"PATH": SYSTEM_PATH, "HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "porta escapes", "GIT_AUTHOR_EMAIL": "escapes@example.invalid",
           "GIT_COMMITTER_NAME": "porta escapes", "GIT_COMMITTER_EMAIL": "escapes@example.invalid",
           "GIT_TERMINAL_PROMPT": "0", "LANG": "C.UTF-8"}


def git(cwd: str, *args) -> None:
    r = subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {r.stderr.strip()}")


def git_usable() -> bool:
    return shutil.which("git", path=SYSTEM_PATH) is not None


def real_repo(base: str) -> str:
    """base/ws, a repository with a real submodule `sub` (its git directory
    in .git/modules/sub) and a linked worktree base/wt (its git directory in
    .git/worktrees/wt), as git itself makes them.  Made once per row and
    copied for each check (git takes 0.3 s to make it)."""
    ws = os.path.join(base, "ws")
    os.mkdir(ws)
    src = os.path.join(base, "sub-src")
    os.mkdir(src)
    git(src, "init", "-q", "-b", "main")
    git(src, "commit", "-q", "--allow-empty", "-m", "sub")
    git(ws, "init", "-q", "-b", "main")
    git(ws, "commit", "-q", "--allow-empty", "-m", "init")
    git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "sub")
    git(ws, "commit", "-q", "-m", "sub")
    git(ws, "worktree", "add", "-q", "-b", "wt", os.path.join(base, "wt"))
    return ws


# (name, "ws" or "home", files planted first, the directory renamed or
# exchanged, the file written in the fresh one, the protected path judged,
# the content written: a complete file of its kind with the token in it)
PARENTS_81 = [
    (".claude swapped: .claude/settings.json", "ws", {".claude/settings.json": '{"hooks": {}}\n'},
     ".claude", ".claude/settings.json", ".claude/settings.json",
     '{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo TOKEN"}]}]}}'),
    (".git/modules/sub swapped: its hooks/pre-commit", "git", {},
     ".git/modules/sub", ".git/modules/sub/hooks/pre-commit", ".git/modules/sub/hooks",
     "#!/bin/sh\necho TOKEN"),
    (".git/modules/sub swapped: its config", "git", {},
     ".git/modules/sub", ".git/modules/sub/config", ".git/modules/sub/config",
     "[core]\n\trepositoryformatversion = 0\n\thooksPath = /TOKEN/hooks"),
    (".git/worktrees/wt swapped: its commondir", "git", {},
     ".git/worktrees/wt", ".git/worktrees/wt/commondir", ".git/worktrees/wt/commondir",
     "/TOKEN/evil-common-dir"),
    (".config swapped: .config/git/config (home mounted)", "home", {".config/git/config": "[user]\n\tname = me\n"},
     ".config", ".config/git/config", ".config/git",
     "[core]\n\tfsmonitor = echo TOKEN"),
    (".local swapped: .local/bin/git (home mounted)", "home", {".local/bin/keep": "#!/bin/sh\n"},
     ".local", ".local/bin/git", ".local/bin",
     "#!/bin/sh\necho TOKEN"),
    (".local/share swapped: .local/share/applications (home mounted)", "home",
     {".local/share/applications/keep.desktop": "[Desktop Entry]\n"},
     ".local/share", ".local/share/applications/evil.desktop", ".local/share/applications",
     "[Desktop Entry]\nType=Application\nName=evil\nExec=echo TOKEN"),
]

# $1 the mount, $2 the directory to swap, $3 the file to write, $4 fs_ops,
# $5 the content.  rename: the reported reproduction (move the directory
# aside, make it again, write); the copy keeps the rest of a git directory
# working.  exchange: the fresh directory is made beside it first, then
# renameat2(RENAME_EXCHANGE).
SWAP_RENAME = r'''
cd "$1"; d=$2 f=$3 content=$5
mv "$d" "$d.old" || exit 0
cp -R "$d.old" "$d" 2>/dev/null || mkdir -p "$d"
mkdir -p "$(dirname "$f")"; rm -f "$f"; printf '%s\n' "$content" > "$f"
'''
SWAP_EXCHANGE = r'''
cd "$1"; d=$2 f=$3 ops=$4 content=$5
cp -R "$d" "$d.new" 2>/dev/null || mkdir -p "$d.new"
g="$d.new${f#"$d"}"; mkdir -p "$(dirname "$g")"; rm -f "$g"; printf '%s\n' "$content" > "$g"
"$ops" exchange "$d" "$d.new"
'''


def holds(snap: dict, token: str) -> list:
    """The entries of a snapshot whose content carries token."""
    return sorted(k for k, v in snap.items() if isinstance(v[-1], str) and token in v[-1])


@row(81, "protected names freed by renaming or exchanging a directory above them",
     "-v WS (a git repo with a submodule and a worktree); -v HOME (HOME=planted home)")
def row81(ctx):
    checks = []
    template = real_repo(ctx.fresh("r81-git")) if git_usable() else None
    for name, where, files, swap, target, protected, content in PARENTS_81:
        for method, script in (("rename", SWAP_RENAME), ("RENAME_EXCHANGE", SWAP_EXCHANGE)):
            label = f"{name} [{method}]"
            if where == "git" and not template:
                checks.append(could_not_prepare(label, "git is not installed: no real submodule or worktree"))
                continue
            token = f"{MARKER}-r81-{ctx.nonce[:8]}"
            text = content.replace("TOKEN", token)

            def setup(base, where=where, files=files, protected=protected):
                if where == "git":
                    s = {"base": base, "ws": os.path.join(base, "ws"), "ug": os.path.join(base, "ug")}
                    shutil.copytree(template, s["ws"], symlinks=True)
                    os.mkdir(s["ug"])
                else:
                    s = ws_ug(base)
                s["root"] = s["ws"]
                if where == "home":
                    s["root"] = os.path.join(base, "home")
                    os.mkdir(s["root"])
                plant(s["root"], files, 0o644)
                s["before"] = snapshot(os.path.join(s["root"], protected))
                return s

            def evidence(s, run, protected=protected, token=token, swap=swap):
                path = os.path.join(s["root"], protected)
                after = snapshot(path)
                bad = holds(after, token)
                changed = diff(s["before"], after)
                moved = [n for n in os.listdir(os.path.dirname(os.path.join(s["root"], swap)))
                         if n.startswith(os.path.basename(swap) + ".")]
                if bad:
                    at = protected if bad[0] == "." else os.path.join(protected, bad[0][2:])
                    return True, f"{at} holds the command's content (beside {swap}: {moved})"
                return False, (f"{protected} unchanged" if not changed else
                               f"{protected} changed ({changed[:3]}) but holds nothing of the command's")

            def env_of(s, where=where):
                return ctx.env(HOME=s["root"]) if where == "home" else ctx.env()

            s = setup(ctx.fresh("r81-control"))
            ctl = ctx.control(sh(script, s["root"], swap, target, ctx.probe("fs_ops"), text), env=env_of(s))
            c_esc, c_det = evidence(s, ctl)
            s = setup(ctx.fresh("r81-sandbox"))
            sbx = ctx.sandboxed(Policy(mounts=[(s["root"], False)]),
                                sh(script, s["root"], swap, target, ctx.probe("fs_ops"), text), env=env_of(s))
            s_esc, s_det = evidence(s, sbx)
            checks.append(judge(label, c_esc, s_esc, sbx, s_det if s_esc or c_esc else c_det))
    return checks


# --------------------------------------------------------------------------
# Rows 82 and 85: protected names absent at start, made while the command runs

def bare_repo(ws: str) -> None:
    """A git repository made by hand WITHOUT .git/hooks (git init makes
    one; a clone by some tools, or a user's cleanup, leaves none), and a
    .claude directory with settings.json but no settings.local.json."""
    for d in ("objects", "refs/heads"):
        os.makedirs(os.path.join(ws, ".git", d))
    plant(ws, {".git/HEAD": "ref: refs/heads/main\n",
               ".git/config": "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
               ".claude/settings.json": '{"permissions": {}}\n'}, 0o644)


# $1 WS, $2 the signal file, $3 the content, then the shell line that makes
# the name; the probe then waits (5 s at most) until the runner has looked.
MAKE_NAME = r'''
cd "$1"; sig=$2 content=$3
eval "$4"
: > "$sig"
i=0; while [ ! -e runner-looked ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
'''


def kept_in(ws: str, token: str, skip: str) -> list:
    """Where in WS the command's bytes are (porta may rename the new name
    aside): evidence only, never a verdict."""
    found = []
    for root, dirs, files in os.walk(ws):
        for f in files:
            p = os.path.join(root, f)
            if p != skip and token in (read(p, "") or ""):
                found.append(os.path.relpath(p, ws))
    return sorted(found)


def made_during(ctx, tag: str, label: str, make: str, protected: str, setup=None) -> Check:
    """One control and one sandboxed run of MAKE_NAME with shell line make
    ($content is the bytes, unique to the check); the judged Check."""
    token = f"{MARKER}-{tag}-{uuid.uuid4().hex[:12]}"
    sig = "created-" + protected.replace("/", "_")
    out = {}
    for mode in ("control", "sandbox"):
        s = ws_ug(ctx.fresh(f"{tag}-{mode}-{protected}"))
        (setup or bare_repo)(s["ws"])
        path = os.path.join(s["ws"], protected)
        argv = sh(MAKE_NAME, s["ws"], sig, token, make)
        if mode == "control":
            bg = Background(lambda argv=argv: ctx.control(argv))
        else:
            pol = Policy(mounts=[(s["ws"], False)])
            bg = Background(lambda argv=argv, pol=pol: ctx.sandboxed(pol, argv))
        signalled = wait_for(lambda: os.path.exists(os.path.join(s["ws"], sig)), 15, bg)
        if signalled and mode == "sandbox":
            # porta's guard reacts at once: it gets this long (or until the
            # run ends).  Outside any sandbox nothing reacts: the control is
            # looked at at once.
            bg.linger(0.5)
        during = token in (read(path, "") or "")
        if not bg.done():
            with open(os.path.join(s["ws"], "runner-looked"), "w"):
                pass
        run = bg.wait()
        after = token in (read(path, "") or "")
        out[mode] = (run, during, after, signalled, kept_in(s["ws"], token, path))
    sbx, during, after, signalled, kept = out["sandbox"]
    _, c_during, c_after, _, _ = out["control"]
    if during or after:
        detail = (f"{protected} held the command's bytes "
                  + " and ".join(w for w, b in (("while it ran", during), ("after the run", after)) if b))
    else:
        detail = (f"{protected} never held the command's bytes"
                  + ("" if signalled else " (the run ended before the command said it made it)")
                  + (f"; its bytes kept in WS at {kept}" if kept else "; its bytes are nowhere in WS"))
    return judge(label, c_during and c_after, during or after, sbx,
                 detail if during or after or (c_during and c_after) else
                 f"control: during {c_during}, after {c_after}")


# (protected path, shell line that makes it with $content)
MADE_82 = [
    (".vscode/settings.json", 'mkdir -p .vscode && printf "%s\\n" "$content" > .vscode/settings.json'),
    (".envrc", 'printf "%s\\n" "$content" > .envrc'),
    (".claude/settings.local.json", 'printf "%s\\n" "$content" > .claude/settings.local.json'),
    (".mcp.json", 'printf "%s\\n" "$content" > .mcp.json'),
    (".git/hooks/pre-commit", 'mkdir -p .git/hooks && printf "%s\\n" "$content" > .git/hooks/pre-commit'),
    (".git/commondir", 'printf "%s\\n" "$content" > .git/commondir'),
]


@row(82, "protected names absent at start, created by the command while it runs",
     "-v WS (a git repo without .git/hooks; .claude without settings.local.json)")
def row82(ctx):
    return [made_during(ctx, "r82", p, make, p) for p, make in MADE_82]


# Row 85: a variant class found while writing row 82.  Row 82 makes each
# name with open(O_CREAT) (and mkdir); a guard that watches creations only
# would miss a name that appears by rename(2) into place (inotify's
# IN_MOVED_TO, not IN_CREATE), as a hard link of a file made under another
# name, as a symbolic link, or under a parent that itself did not exist at
# start (.claude absent: the guard must follow the new directory down).
# The same procedure as row 82; the rename aside and the stop of the run
# are allowed, the name holding the bytes is not.
def no_claude(ws: str) -> None:
    bare_repo(ws)
    shutil.rmtree(os.path.join(ws, ".claude"))


def claude_link(ws: str) -> None:
    """.claude a symbolic link (to dotclaude, settings.json inside), as a
    user who keeps it in a dotfiles directory has it."""
    bare_repo(ws)
    os.rename(os.path.join(ws, ".claude"), os.path.join(ws, "dotclaude"))
    os.symlink("dotclaude", os.path.join(ws, ".claude"))


MADE_85 = [
    (".envrc", "a file renamed into place (rename(2) to .envrc)",
     'printf "%s\\n" "$content" > staged && mv staged .envrc', None),
    (".vscode/settings.json", "a directory renamed into place (.vscode)",
     'mkdir staged.d && printf "%s\\n" "$content" > staged.d/settings.json && mv staged.d .vscode', None),
    (".git/hooks/pre-commit", "a directory renamed into place (.git/hooks)",
     'mkdir staged.h && printf "%s\\n" "$content" > staged.h/pre-commit && mv staged.h .git/hooks', None),
    (".mcp.json", "a hard link of a file made under another name (.mcp.json)",
     'printf "%s\\n" "$content" > staged && ln staged .mcp.json', None),
    (".claude/settings.local.json", "a symbolic link to a file in WS (.claude/settings.local.json)",
     'printf "%s\\n" "$content" > staged && ln -s ../staged .claude/settings.local.json', None),
    (".claude/settings.json", "under a parent absent at start (.claude made by the command)",
     'mkdir .claude && printf "%s\\n" "$content" > .claude/settings.json', no_claude),
    # the link is removed and made again: the new one may reuse the old
    # one's inode number, so only its target tells them apart
    (".claude/settings.json", "a symbolic link on the way repointed (.claude -> evil)",
     'mkdir evil && printf "%s\\n" "$content" > evil/settings.json && rm .claude && ln -s evil .claude',
     claude_link),
]


@row(85, "protected names absent at start appearing by rename, link, symlink, new parent",
     "-v WS (a git repo without .git/hooks; .claude without settings.local.json)")
def row85(ctx):
    return [made_during(ctx, "r85", desc, make, p, setup) for p, desc, make, setup in MADE_85]
