"""Rows 48-62 of the escape corpus: files, credentials, persistence and
devices.

Each row plants what it attacks under a fresh directory of the run (a
planted HOME, a workspace WS and a directory UG outside every mount) and
judges from the host afterwards: a secret's marker on stdout, a planted
file's content, mode, owner, times or extended attributes, a file that
appeared. Probes: fs_ops (a list of file operations), fs_devices,
fs_handle, fs_core.
"""


import errno
import os
import re
import socket
import stat
import subprocess
import threading
import time

from corpus import *  # noqa: F401,F403  (the runner's vocabulary)
from corpus import (BROKEN, ESCAPED, HELD, MARKER, NA, Check, Policy, host_settings_at_most,
                    host_settings_turn, judge, read, row, set_sysctl, sh, simple, sysctl,
                    wait_for, ws_ug)

HERE = os.path.dirname(os.path.abspath(__file__))

# docs/defaults.md, "Closed to reads in every mode".
CREDENTIALS = [
    ".ssh", ".gnupg", ".password-store", ".aws", ".azure", ".config/gcloud", ".oci",
    ".config/gh", ".config/hub", ".git-credentials", ".netrc", ".npmrc", ".yarnrc.yml",
    ".pypirc", ".gem/credentials", ".cargo/credentials", ".cargo/credentials.toml", ".docker",
    ".kube", ".terraform.d", ".vault-token", ".pgpass", ".my.cnf", ".local/share/keyrings",
    ".config/op", ".config/google-chrome", ".config/chromium", ".mozilla",
]
CREDENTIAL_FILES = {".git-credentials", ".netrc", ".npmrc", ".yarnrc.yml", ".pypirc",
                    ".gem/credentials", ".cargo/credentials", ".cargo/credentials.toml",
                    ".vault-token", ".pgpass", ".my.cnf"}

# docs/defaults.md, "Protected inside every writable mount" (.git is row 52's).
PROTECTED = [".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile", ".envrc",
             ".gitconfig", ".mcp.json", ".npmrc", "porta.toml", ".porta.toml", ".porta",
             ".claude/commands", ".claude/agents", ".claude/settings.json", ".vscode", ".idea"]
PROTECTED_DIRS = {".claude/commands", ".claude/agents", ".vscode", ".idea"}


def preset_list(name: str) -> list:
    """A list of porta's own policy/preset.c (beyond the floor of docs/defaults.md), when the
    corpus runs from porta's tree; empty elsewhere."""
    text = read(os.path.join(HERE, "..", "..", "policy", "preset.c"), "") or ""
    m = re.search(r"static const char \*const " + name + r"\[\] = \{(.*?)\n\};", text, re.S)
    if not m:
        return []
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    return re.findall(r'"([^"]+)"', body)


def credential_paths() -> list:
    extra = [p for p in preset_list("credentials") if p not in CREDENTIALS]
    return CREDENTIALS + extra


def plant(root: str, files: dict, mode: int = 0o600) -> None:
    for rel, content in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content)
        os.chmod(path, mode)


def snapshot(path: str) -> dict:
    """Everything a row may change about a tree: names, types, contents,
    modes, owners, times, extended attributes."""
    out = {}

    def one(p, rel):
        try:
            st = os.lstat(p)
        except OSError:
            return
        try:
            xattrs = sorted(os.listxattr(p, follow_symlinks=False))
        except OSError:
            xattrs = []
        entry = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid,
                 st.st_size, st.st_mtime_ns, st.st_nlink, tuple(xattrs))
        if stat.S_ISREG(st.st_mode):
            entry += (read(p, ""),)
        elif stat.S_ISLNK(st.st_mode):
            entry += (os.readlink(p),)
        out[rel] = entry
        if stat.S_ISDIR(st.st_mode):
            for name in sorted(os.listdir(p)):
                one(os.path.join(p, name), os.path.join(rel, name))
    one(path, ".")
    return out


def diff(before: dict, after: dict) -> list:
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


def ops(ctx, *args) -> list:
    return [ctx.probe("fs_ops")] + [str(a) for a in args]


def results_text(run, keys=None) -> str:
    res = run.results()
    keys = keys or list(res)
    return ", ".join(f"{k.split(':')[0]} {res[k][0]} {res[k][1]}".strip() for k in keys if k in res)


# --------------------------------------------------------------------------
# Rows 48-50: credential paths

def credential_home(base: str) -> tuple:
    """A planted home with every credential path; returns (home, {rel: file})."""
    home = os.path.join(base, "home")
    files = {}
    for rel in credential_paths():
        f = rel if rel in CREDENTIAL_FILES else os.path.join(rel, "secret")
        files[rel] = f
    plant(home, {f: f"{MARKER}/{rel} token\n" for rel, f in files.items()})
    return home, files


def credential_row(ctx, label: str, policy_of, extra_script: str = ""):
    script = 'for f; do cat "$HOME/$f"; done; ' + extra_script
    base = ctx.fresh(label + "-control")
    home, files = credential_home(base)
    ctl = ctx.control(sh(script, *files.values()), env=ctx.env(HOME=home))
    base = ctx.fresh(label + "-sandbox")
    home, files = credential_home(base)
    sbx = ctx.sandboxed(policy_of(home), sh(script, *files.values()), env=ctx.env(HOME=home))
    checks = []
    for rel in files:
        m = f"{MARKER}/{rel} "
        checks.append(judge(f"~/{rel}", m in ctl.stdout, m in sbx.stdout, sbx,
                            f"stdout carried ~/{rel}'s secret" if m in sbx.stdout else "not read"))
    return checks


@row(48, "every credential path unreadable under default reads", "(none; HOME=planted home)")
def row48(ctx):
    return credential_row(ctx, "r48", lambda home: Policy())


# With the home writable, a closed path could be moved, linked or copied
# to where no cover lies, then read.
MOVE_AND_READ = r'''
cd "$HOME"
for f; do
  d=${f%%/*}; ln "$f" "hl.$$" 2>/dev/null && cat "hl.$$"; rm -f "hl.$$"
  mv "$d" "moved.$d" 2>/dev/null && cat "moved.$f" && mv "moved.$d" "$d"
  cp -r "$d" "copy.$d" 2>/dev/null; cat "copy.$f" 2>/dev/null; rm -rf "copy.$d"
done
'''


@row(49, "every credential path unreadable with the home writable", "-v HOME (HOME=planted home)")
def row49(ctx):
    return credential_row(ctx, "r49", lambda home: Policy(mounts=[(home, False)]), MOVE_AND_READ)


@row(50, "every credential path unreadable under strict reads, home mounted read-only",
     "--read-policy strict -v HOME:ro (HOME=planted home)")
def row50(ctx):
    return credential_row(ctx, "r50", lambda home: Policy(mounts=[(home, True)], read_policy="strict"))


# --------------------------------------------------------------------------
# Row 51: protected names

def protected_setup(base: str) -> dict:
    s = ws_ug(base)
    for name in PROTECTED:
        p = os.path.join(s["ws"], name)
        if name in PROTECTED_DIRS:
            plant(p, {"keep.md": f"original {name}\n"}, 0o644)
        else:
            plant(s["ws"], {name: f"original {name}\n"}, 0o644)
        # A decoy of the same kind beside it, for RENAME_EXCHANGE.
        d = os.path.join(s["ws"], "decoy" + name.replace("/", "_"))
        if name in PROTECTED_DIRS:
            plant(d, {"evil.md": "evil\n"}, 0o644)
        else:
            plant(s["ws"], {os.path.basename(d): "evil\n"}, 0o644)
    s["before"] = {n: snapshot(os.path.join(s["ws"], n)) for n in PROTECTED}
    return s


PROTECTED_TAMPER = r'''
cd "$1"; ops=$2; shift 2
for n; do
  d="decoy$(echo "$n" | tr / _)"
  "$ops" exchange "$n" "$d"
  if [ -d "$n" ]; then echo pwn > "$n/new.md"; echo pwn >> "$n/keep.md"; chmod 777 "$n"
  else echo pwn >> "$n"; chmod 666 "$n"; fi
  touch -d 2001-01-01 "$n"
  mv "$n" "$n.moved"; rm -rf "$n"; mkdir -p "$n"; echo pwn > "$n/x" 2>/dev/null || echo pwn > "$n"
done
echo done
'''


@row(51, "protected names in a writable mount: write, rename, delete, exchange", "-v WS")
def row51(ctx):
    def run(mode):
        s = protected_setup(ctx.fresh(f"r51-{mode}"))
        argv = sh(PROTECTED_TAMPER, s["ws"], ctx.probe("fs_ops"), *PROTECTED)
        r = ctx.control(argv) if mode == "control" else \
            ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
        changed = {}
        for n in PROTECTED:
            d = diff(s["before"][n], snapshot(os.path.join(s["ws"], n)))
            moved = os.path.lexists(os.path.join(s["ws"], n + ".moved"))
            changed[n] = (d, moved)
        return r, changed
    ctl, c = run("control")
    sbx, s_ = run("sandbox")
    checks = []
    for n in PROTECTED:
        c_esc = bool(c[n][0] or c[n][1])
        s_esc = bool(s_[n][0] or s_[n][1])
        det = (f"changed: {s_[n][0][:4]}" + (", renamed away" if s_[n][1] else "")) if s_esc else "unchanged"
        checks.append(judge(n, c_esc, s_esc, sbx, det))
    return checks


# --------------------------------------------------------------------------
# Row 52: git's directory, beyond hooks and config

def git_available() -> bool:
    return subprocess.run(["git", "--version"], capture_output=True).returncode == 0


def git_config(repo: str, key: str) -> str:
    r = subprocess.run(["git", "-C", repo, "config", "--get", key], capture_output=True, text=True,
                       env={"PATH": SYSTEM_PATH, "HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1"})
    return r.stdout.strip()


def make_git_repo(path: str, gitdir_file: bool = False) -> str:
    """A repository made by hand; returns its git directory."""
    gitdir = os.path.join(path, ".gitstore" if gitdir_file else ".git")
    for d in ("hooks", "objects", "refs/heads", "modules/sub/hooks", "modules/sub/objects",
              "modules/sub/refs"):
        os.makedirs(os.path.join(gitdir, d))
    for g in (gitdir, os.path.join(gitdir, "modules/sub")):
        plant(g, {"HEAD": "ref: refs/heads/main\n",
                  "config": "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
                  "hooks/pre-commit.sample": "#!/bin/sh\n"}, 0o644)
    # A linked worktree's git directory (git worktree add ../wt).
    plant(os.path.join(gitdir, "worktrees", "wt"),
          {"HEAD": "ref: refs/heads/wt\n", "commondir": "../..\n", "gitdir": "/nonexistent/wt/.git\n"}, 0o644)
    if gitdir_file:
        plant(path, {".git": "gitdir: .gitstore\n"}, 0o644)
    # What an attacker would swap in: a git directory whose hooks run.
    evil = os.path.join(path, "evil")
    for d in ("hooks", "objects", "refs"):
        os.makedirs(os.path.join(evil, d))
    plant(evil, {"HEAD": "ref: refs/heads/main\n", "hooks/pre-commit": "#!/bin/sh\necho pwned\n",
                 "config": "[core]\n\trepositoryformatversion = 0\n\thooksPath = /evil/hooks\n"}, 0o755)
    return gitdir


GIT_VARIANTS = [
    # name, gitdir is a .git file, script ($1 repo, $2 fs_ops, $3 gitdir name)
    ("RENAME_EXCHANGE .git with a planted git directory", False,
     '"$2" exchange "$1/.git" "$1/evil"; echo x > "$1/.git/hooks/pre-commit"'),
    ("RENAME_EXCHANGE .git/hooks with a planted hooks directory", False,
     '"$2" exchange "$1/.git/hooks" "$1/evil/hooks"; "$2" exchange "$1/.git/config" "$1/evil/config"'),
    ("RENAME_EXCHANGE the gitdir: of a .git file", True,
     '"$2" exchange "$1/.gitstore" "$1/evil"; "$2" exchange "$1/.gitstore/hooks" "$1/evil/hooks"; '
     'printf "gitdir: evil\\n" > "$1/.git"'),
    ("rewrite a linked worktree's commondir under .git/worktrees/", False,
     'echo "$1/evil" > "$1/.git/worktrees/wt/commondir"'),
    ("submodule hooks and config under .git/modules/", False,
     'printf "#!/bin/sh\\necho pwned\\n" > "$1/.git/modules/sub/hooks/pre-commit"; '
     'printf "[core]\\n\\thooksPath = /evil/hooks\\n" >> "$1/.git/modules/sub/config"'),
]


# Not here: creating .git/commondir where there was none (git then reads
# config and hooks from the directory it names) escapes porta, as commit
# 6c2884e recorded. It is README's "protected names that do not exist when
# porta starts cannot be covered", which a mount cannot defend; porta
# explain lists .git/commondir among the absent names.


@row(52, "git's directory in a writable mount: exchange, gitdir, commondir, submodules",
     "-v WS/repo (a git repository)")
def row52(ctx):
    checks = []
    have_git = git_available()
    for name, gitdir_file, script in GIT_VARIANTS:
        def setup(base, gf=gitdir_file):
            s = ws_ug(base)
            s["repo"] = os.path.join(s["ws"], "repo")
            os.makedirs(s["repo"])
            s["gitdir"] = make_git_repo(s["repo"], gf)
            s["sub"] = os.path.join(s["gitdir"], "modules", "sub")
            s["before"] = {p: snapshot(p) for p in (s["gitdir"], os.path.join(s["repo"], ".git"))}
            s["before_sub"] = {p: snapshot(os.path.join(s["sub"], p)) for p in ("hooks", "config")}
            return s

        def evidence(s, run):
            found = []
            for g in (s["gitdir"], os.path.join(s["repo"], ".git")):
                after = snapshot(g)
                for what in ("hooks", "config", "commondir"):
                    rel = "./" + what
                    pick = lambda snap: {k: v for k, v in snap.items() if k == rel or k.startswith(rel + "/")}
                    if diff(pick(s["before"][g]), pick(after)):
                        found.append(f"{os.path.relpath(os.path.join(g, what), s['repo'])} changed")
            if os.path.isfile(os.path.join(s["repo"], ".git")) and \
                    read(os.path.join(s["repo"], ".git")) != "gitdir: .gitstore\n":
                found.append(".git file now points elsewhere")
            wt = os.path.join(s["gitdir"], "worktrees", "wt", "commondir")
            if read(wt) != "../..\n":
                found.append(f"worktree commondir now {read(wt)!r}")
            for p in ("hooks", "config"):
                if snapshot(os.path.join(s["sub"], p)) != s["before_sub"][p]:
                    found.append(f"submodule {p} changed")
            if have_git:
                hp = git_config(s["repo"], "core.hookspath")
                if hp:
                    found.append(f"git now reads core.hooksPath={hp}")
            return bool(found), "; ".join(sorted(set(found))) or "git directory intact"
        checks.append(simple(ctx, name, setup,
                             lambda s: Policy(mounts=[(s["repo"], False)]),
                             lambda s: sh(script, s["repo"], ctx.probe("fs_ops")), evidence))
    return checks


# --------------------------------------------------------------------------
# Row 53: persistence through a writable home

# (path, planted content or None for a directory that exists, what to write)
PERSISTENCE = [
    (".ssh/authorized_keys", "ssh-ed25519 AAAA original\n", ".ssh/authorized_keys"),
    (".ssh/config", "Host *\n", ".ssh/config"),
    (".ssh/rc", "#!/bin/sh\n", ".ssh/rc"),
    (".config/systemd/user/keep.service", "[Unit]\n", ".config/systemd/user/evil.service"),
    (".config/autostart/keep.desktop", "[Desktop Entry]\n", ".config/autostart/evil.desktop"),
    (".config/git/config", "[user]\n\tname = me\n", ".config/git/config"),
    (".config/environment.d/keep.conf", "A=1\n", ".config/environment.d/evil.conf"),
    (".config/fish/config.fish", "# fish\n", ".config/fish/config.fish"),
    (".zshenv", "# zshenv\n", ".zshenv"),
    (".zlogin", "# zlogin\n", ".zlogin"),
    (".bash_login", "# bash_login\n", ".bash_login"),
    (".bash_logout", "# bash_logout\n", ".bash_logout"),
    # Debian's and Ubuntu's default ~/.bashrc source it.
    (".bash_aliases", "# aliases\n", ".bash_aliases"),
    (".pam_environment", "A=1\n", ".pam_environment"),
    (".xprofile", "# xprofile\n", ".xprofile"),
    # Debian's Xsession sources it at every graphical login.
    (".xsessionrc", "# xsessionrc\n", ".xsessionrc"),
    (".xinitrc", "# xinitrc\n", ".xinitrc"),
    # Desktop entries: Exec= runs when the user opens a file or the menu entry.
    (".local/share/applications/keep.desktop", "[Desktop Entry]\n", ".local/share/applications/evil.desktop"),
    # Debian's ~/.profile puts it first in PATH: a `git` here shadows the real one.
    (".local/bin/keep", "#!/bin/sh\n", ".local/bin/git"),
]


def persistence_checks(ctx, tag, files, home_of, policy_of):
    """Each of files (PERSISTENCE's shape) planted in a fresh home
    (home_of(base)), then written by a script with HOME there, unsandboxed
    and under policy_of(base): one check per file, judged by whether it
    appeared or changed on the host."""
    targets = [t for _, _, t in files]
    script = ('cd "$HOME"; for f; do mkdir -p "$(dirname "$f")"; '
              'printf "#!/bin/sh\\necho pwned\\n" >> "$f" || '
              '{ mv "$f" "$f.old"; printf "pwned\\n" > "$f"; }; done')

    def run(mode):
        base = ctx.fresh(f"{tag}-{mode}")
        home = home_of(base)
        os.makedirs(home)
        plant(home, {p: c for p, c, _ in files}, 0o644)
        before = {t: snapshot(os.path.join(home, t)) for t in targets}
        env = ctx.env(HOME=home)
        r = ctx.control(sh(script, *targets), env=env) if mode == "control" else \
            ctx.sandboxed(policy_of(base), sh(script, *targets), env=env)
        return r, {t: diff(before[t], snapshot(os.path.join(home, t))) for t in targets}
    _, c = run("control")
    sbx, s_ = run("sandbox")
    return [judge(f"~/{t}", bool(c[t]), bool(s_[t]), sbx,
                  "appeared or changed on the host" if s_[t] else "untouched") for t in targets]


@row(53, "persistence through a writable home: files the host later runs", "-v HOME (HOME=planted home)")
def row53(ctx):
    return persistence_checks(ctx, "r53", PERSISTENCE, lambda base: os.path.join(base, "home"),
                              lambda base: Policy(mounts=[(os.path.join(base, "home"), False)]))


# The floor's start-up files, besides PERSISTENCE's: what a shell or git
# runs as the user.
HOME_FLOOR = [(".bashrc", "# bashrc\n", ".bashrc"), (".profile", "# profile\n", ".profile"),
              (".gitconfig", "[user]\n\tname = me\n", ".gitconfig")]


@row(91, "persistence through a writable mount that holds the home (-v /home, -v /)",
     "-v PARENT (HOME=PARENT/home)")
def row91(ctx):
    # Protected names are kept relative to each writable mount's root; a
    # mount of the directory above the home (or of /) has its root there,
    # not at the home, and nothing relative to it names ~/.bashrc.
    return persistence_checks(ctx, "r91", PERSISTENCE + HOME_FLOOR,
                              lambda base: os.path.join(base, "home"),
                              lambda base: Policy(mounts=[(base, False)]))


def hooks_or_config_changed(s) -> list:
    """Rows 93 and 103: the hooks and config of each of s["gitdirs"] that
    differ from s["before"], named relative to WS."""
    found = []
    for g in s["gitdirs"]:
        after = snapshot(g)
        for what in ("hooks", "config"):
            rel = "./" + what
            pick = lambda snap: {k: v for k, v in snap.items() if k == rel or k.startswith(rel + "/")}  # noqa: E731
            if diff(pick(s["before"][g]), pick(after)):
                found.append(f"{os.path.relpath(os.path.join(g, what), s['ws'])} changed")
    return found


@row(93, "repositories directly below a writable mount's root, there at start: hooks and config",
     "-v WS (WS/proj a git repository, WS/linked one whose .git is a gitdir: file)")
def row93(ctx):
    # `-v ~/code` holding ~/code/proj: only WS's own .git was protected, and
    # git runs proj's hooks and config when the user next commits there.
    def setup(base):
        s = ws_ug(base)
        s["gitdirs"] = [make_git_repo(os.path.join(s["ws"], name), gf)
                        for name, gf in (("proj", False), ("linked", True))]
        s["before"] = {g: snapshot(g) for g in s["gitdirs"]}
        return s

    def evidence(s, run):
        found = hooks_or_config_changed(s)
        return bool(found), "; ".join(found) or "both repositories' hooks and config intact"
    variants = [
        ("write a hook and git config of each", 'for g in "$1/proj/.git" "$1/linked/.gitstore"; do '
         'printf "#!/bin/sh\\necho pwned\\n" > "$g/hooks/pre-commit"; '
         'printf "[core]\\n\\thooksPath = /evil\\n" >> "$g/config"; done'),
        ("rename each hooks directory aside and make another", 'for g in "$1/proj/.git" "$1/linked/.gitstore"; do '
         'mv "$g/hooks" "$g/hooks.old" && mkdir "$g/hooks" && '
         'printf "#!/bin/sh\\necho pwned\\n" > "$g/hooks/pre-commit"; done'),
        ("rename the repository aside and put another in its place",
         'mv "$1/proj" "$1/proj.old" && mkdir -p "$1/proj/.git/hooks" && '
         'cp "$1/proj.old/.git/config" "$1/proj/.git/config" && '
         'printf "#!/bin/sh\\necho pwned\\n" > "$1/proj/.git/hooks/pre-commit"'),
    ]
    return [simple(ctx, name, setup, lambda s: Policy(mounts=[(s["ws"], False)]),
                   lambda s, sc=script: sh(sc, s["ws"]), evidence) for name, script in variants]


# --------------------------------------------------------------------------
# Rows 54-56: links, fds and metadata of files outside the mounts

def outside_setup(base: str) -> dict:
    s = ws_ug(base)
    plant(s["ug"], {"f": "original\n", "g": "original\n"}, 0o644)
    s["ro"] = os.path.join(s["base"], "ro")
    plant(s["ro"], {"f": "original\n"}, 0o644)
    s["before"] = {k: snapshot(s[k]) for k in ("ug", "ro")}
    return s


def outside_evidence(s, run, keys=("ug",)):
    found = []
    for k in keys:
        d = diff(s["before"][k], snapshot(s[k]))
        if d:
            found.append(f"{k.upper()}: {d[:4]}")
    return bool(found), "; ".join(found) or "nothing outside changed"


@row(54, "hard links, symlinks and renames across the mount boundary", "-v WS")
def row54(ctx):
    variants = [
        ("hard link of an outside file, write through it",
         lambda s: ops(ctx, "link", f"{s['ug']}/f", f"{s['ws']}/hl", "append", f"{s['ws']}/hl", "pwn\n")),
        ("linkat(/proc/self/fd/N of an O_PATH fd, AT_SYMLINK_FOLLOW), write",
         lambda s: ops(ctx, "procfdlink", f"{s['ug']}/f", f"{s['ws']}/pl", "append", f"{s['ws']}/pl", "pwn\n")),
        ("rename an outside file into the mount",
         lambda s: ops(ctx, "rename", f"{s['ug']}/f", f"{s['ws']}/moved")),
        ("rename a file of the mount out of it",
         lambda s: ops(ctx, "rename", f"{s['ws']}/README", f"{s['ug']}/README")),
        ("symlink in the mount to an outside file, then rename over the target",
         lambda s: ops(ctx, "symlink", f"{s['ug']}/f", f"{s['ws']}/sl", "write", f"{s['ws']}/new", "pwn\n",
                       "rename", f"{s['ws']}/new", f"{s['ws']}/sl", "exchange", f"{s['ws']}/README", f"{s['ug']}/g")),
    ]
    checks = []
    for name, argv_of in variants:
        checks.append(simple(ctx, name, outside_setup, lambda s: Policy(mounts=[(s["ws"], False)]),
                             argv_of, outside_evidence))
    # AT_EMPTY_PATH on an fd needs CAP_DAC_READ_SEARCH: a root control only.
    checks.append(simple(ctx, "linkat(fd, \"\", AT_EMPTY_PATH) of an outside file, write", outside_setup,
                         lambda s: Policy(mounts=[(s["ws"], False)]),
                         lambda s: ops(ctx, "emptylink", f"{s['ug']}/f", f"{s['ws']}/el",
                                       "append", f"{s['ws']}/el", "pwn\n"), outside_evidence,
                         control_na=None if ctx.is_root else
                         "linkat(AT_EMPTY_PATH) needs CAP_DAC_READ_SEARCH: the control escapes only as root"))
    return checks


@row(55, "reopen a read-only file for writing: /proc/self/fd, O_PATH, openat2", "-v WS -v RO:ro")
def row55(ctx):
    variants = [
        ("open O_RDONLY, reopen /proc/self/fd/N O_WRONLY (outside)", "ug",
         lambda s: ops(ctx, "reopen", f"{s['ug']}/f", "pwn\n")),
        ("open O_PATH, reopen /proc/self/fd/N O_WRONLY (outside)", "ug",
         lambda s: ops(ctx, "opath", f"{s['ug']}/f", "pwn\n")),
        ("openat2(O_PATH dirfd, RESOLVE_BENEATH, O_WRONLY) (outside)", "ug",
         lambda s: ops(ctx, "openat2", s["ug"], "f", "pwn\n")),
        ("open O_RDONLY, reopen /proc/self/fd/N O_WRONLY (:ro mount)", "ro",
         lambda s: ops(ctx, "reopen", f"{s['ro']}/f", "pwn\n", "opath", f"{s['ro']}/f", "pwn\n")),
        ("fchmod through a read-only fd (outside)", "ug",
         lambda s: ops(ctx, "fchmod", f"{s['ug']}/f", "777")),
    ]
    checks = []
    for name, key, argv_of in variants:
        checks.append(simple(ctx, name, outside_setup,
                             lambda s: Policy(mounts=[(s["ws"], False), (s["ro"], True)]),
                             argv_of, lambda s, r, k=key: outside_evidence(s, r, (k,))))
    return checks


def other_gid() -> int | None:
    """A group the runner may chown its files to other than their own."""
    if os.geteuid() == 0:
        return 65534
    mine = os.getgid()
    others = [g for g in os.getgroups() if g != mine]
    return others[0] if others else None


@row(56, "metadata of files outside the mounts and in a read-only mount", "-v WS -v RO:ro")
def row56(ctx):
    gid = other_gid()
    checks = []
    for where in ("ug", "ro"):
        label = "outside the mounts" if where == "ug" else "in a :ro mount"
        for op, extra in (("chmod", ["777"]), ("chown", [-1, gid if gid is not None else -1]),
                          ("utime", []), ("setxattr", []), ("truncate", [])):
            na = None
            if op == "chown" and gid is None:
                na = "the runner's user belongs to no second group, so chown cannot change a file"
            checks.append(simple(
                ctx, f"{op} ({label})", outside_setup,
                lambda s: Policy(mounts=[(s["ws"], False), (s["ro"], True)]),
                lambda s, op=op, extra=extra, w=where: ops(ctx, op, f"{s[w]}/f", *extra),
                lambda s, r, w=where: outside_evidence(s, r, (w,)), control_na=na))
    return checks


# --------------------------------------------------------------------------
# Rows 57-58: device nodes

@row(57, "make device nodes in a writable mount, a FIFO outside", "-v WS")
def row57(ctx):
    def ev(s, run):
        new = sorted(set(os.listdir(s["ws"])) - {"README"}) + sorted(os.listdir(s["ug"]))
        return bool(new), f"created on the host: {new}" if new else "nothing created"
    root_na = None if ctx.is_root else "mknod of a device needs CAP_MKNOD: the control escapes only as root"
    checks = [
        simple(ctx, "mknod c 1 1 (/dev/mem) in WS", ws_ug, lambda s: Policy(mounts=[(s["ws"], False)]),
               lambda s: ops(ctx, "mknod", f"{s['ws']}/mem", "c", 1, 1), ev, control_na=root_na),
        simple(ctx, "mknod b 7 0 (a loop disk) in WS", ws_ug, lambda s: Policy(mounts=[(s["ws"], False)]),
               lambda s: ops(ctx, "mknod", f"{s['ws']}/disk", "b", 7, 0), ev, control_na=root_na),
        simple(ctx, "mkfifo outside the mounts (UG)", ws_ug, lambda s: Policy(mounts=[(s["ws"], False)]),
               lambda s: ops(ctx, "mknod", f"{s['ug']}/fifo", "p", 0, 0), ev),
    ]
    return checks


def block_devices() -> list:
    try:
        names = sorted(os.listdir("/sys/block"))
    except OSError:
        return []
    return [f"/dev/{n}" for n in names if os.path.exists(f"/dev/{n}")][:3]


DEVICES = ["/dev/mem", "/dev/kmem", "/dev/port", "/dev/kmsg", "/dev/vcs", "/dev/vcsa", "/dev/console",
           "/dev/tty0", "/dev/tty1", "/dev/ttyS0", "/dev/kvm", "/dev/net/tun", "/dev/fuse",
           "/dev/loop-control", "/dev/hwrng", "/dev/cpu_dma_latency", "/dev/autofs",
           "/dev/btrfs-control", "/dev/vga_arbiter"]


@row(58, "open device files beyond /dev/null and friends", "-v WS (as root: --allow-root)")
def row58(ctx):
    devs = [d for d in DEVICES + block_devices() if os.path.exists(d)]
    s = ws_ug(ctx.fresh("r58"))
    argv = [ctx.probe("fs_devices")] + devs
    ctl = ctx.control(argv)
    sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
    cr, sr = ctl.results(), sbx.results()
    checks = []
    for d in devs:
        keys = [f"open-r:{d}", f"open-w:{d}"]
        c_ok = [k.split(":")[0] for k in keys if cr.get(k, ("", ""))[0] == "ok"]
        s_ok = [k.split(":")[0] for k in keys if sr.get(k, ("", ""))[0] == "ok"]
        rd = sr.get(f"read:{d}")
        na = None if c_ok else (f"uid {os.getuid()} cannot open it outside any sandbox either "
                                f"({', '.join(' '.join(cr.get(k, ('missing', ''))) for k in keys)})")
        det = (f"opened in the sandbox: {s_ok}" + (f", read {rd[0]} {rd[1]}" if rd else "")) if s_ok else \
            f"refused ({', '.join(' '.join(sr.get(k, ('missing', ''))) for k in keys)})"
        checks.append(judge(d, bool(c_ok), bool(s_ok), sbx, det, control_na=na, expect=keys))
    return checks


# --------------------------------------------------------------------------
# Row 59: kernel interfaces in /sys and /proc

def kmsg_tail() -> str:
    r = subprocess.run(["dmesg"], capture_output=True, text=True)
    return r.stdout


@row(59, "/sys and /proc: cgroups, release_agent, sysrq, kcore, kallsyms, /sys/kernel",
     "-v WS (as root: --allow-root)")
def row59(ctx):
    checks = []
    root_na = "only root can write it on the host; run the corpus as root for this check"

    # A cgroup of the runner's own (v2): a process moved into it leaves CPU time there.
    unified = next((p for p in ("/sys/fs/cgroup/unified", "/sys/fs/cgroup")
                    if os.path.exists(os.path.join(p, "cgroup.procs")) and
                    os.path.exists(os.path.join(p, "cgroup.controllers"))), None)
    if not ctx.is_root or unified is None:
        checks.append(Check("move into another cgroup (cgroup.procs)", NA, "-",
                            root_na if not ctx.is_root else "no cgroup v2 hierarchy on the host"))
    else:
        def cg_setup(base):
            path = os.path.join(unified, f"porta-esc-{ctx.nonce[:8]}-{os.path.basename(base)}")
            os.mkdir(path)
            ctx.cleanup.append(lambda p=path: os.rmdir(p) if os.path.isdir(p) else None)
            return {"cg": path}

        def cg_ev(s, run):
            usage = dict(l.split() for l in (read(os.path.join(s["cg"], "cpu.stat"), "") or "").splitlines()
                         if len(l.split()) == 2).get("usage_usec", "0")
            return int(usage) > 0, f"{usage} us of CPU ran in {s['cg']}"
        checks.append(simple(ctx, "move into another cgroup (cgroup.procs)", cg_setup,
                             lambda s: Policy(),
                             lambda s: sh('echo $$ > "$1/cgroup.procs"; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done',
                                          s["cg"]), cg_ev))

    # cgroup v1 release_agent: runs as root on the host when a cgroup empties.
    agents = sorted(f"/sys/fs/cgroup/{d}/release_agent" for d in os.listdir("/sys/fs/cgroup")
                    if os.path.exists(f"/sys/fs/cgroup/{d}/release_agent")) if os.path.isdir("/sys/fs/cgroup") else []
    if not agents:
        checks.append(Check("cgroup v1 release_agent", NA, "-", "no cgroup v1 hierarchy with a release_agent"))
    else:
        agent = agents[0]
        orig = read(agent, "")
        token = f"/porta-escape-{ctx.nonce[:8]}"

        def restore(p=agent, v=orig):
            if (read(p, "") or "") != v:
                try:
                    with open(p, "w") as f:
                        f.write(v.strip() or "\n")
                except OSError:
                    pass
        ctx.cleanup.append(restore)
        argv = sh(f'echo {token} > {agent}')
        ctx.control(argv)
        c_esc = token in (read(agent, "") or "")
        restore()
        s = ws_ug(ctx.fresh("r59-agent"))
        sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
        s_esc = token in (read(agent, "") or "")
        restore()
        checks.append(judge(f"cgroup v1 {agent}", c_esc, s_esc, sbx,
                            f"the host's release_agent became {token}" if s_esc else "unchanged",
                            control_na=None if ctx.is_root else root_na))

    # A /sys/kernel setting (restored afterwards).
    knob = next((p for p in ("/sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan",
                             "/sys/kernel/mm/ksm/pages_to_scan") if os.path.exists(p)), None)
    if knob is None:
        checks.append(Check("write a /sys/kernel setting", NA, "-", "no known writable /sys/kernel knob here"))
    else:
        orig = (read(knob, "") or "").strip()
        new = str(int(orig) + 1) if orig.isdigit() else "1"

        def restore_knob(p=knob, v=orig):
            if (read(p, "") or "").strip() != v:
                try:
                    with open(p, "w") as f:
                        f.write(v)
                except OSError:
                    pass
        ctx.cleanup.append(restore_knob)
        argv = sh(f'echo {new} > {knob}')
        ctx.control(argv)
        c_esc = (read(knob, "") or "").strip() == new
        restore_knob()
        s = ws_ug(ctx.fresh("r59-knob"))
        sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
        s_esc = (read(knob, "") or "").strip() == new
        restore_knob()
        checks.append(judge(f"write {knob}", c_esc, s_esc, sbx,
                            f"host value changed {orig} -> {new}" if s_esc else f"host value stayed {orig}",
                            control_na=None if ctx.is_root else root_na))

    # /proc/sysrq-trigger: 'h' only prints the help, to the kernel log.
    if not os.path.exists("/proc/sysrq-trigger"):
        checks.append(Check("/proc/sysrq-trigger", NA, "-", "no /proc/sysrq-trigger"))
    else:
        def helps():
            return kmsg_tail().count("sysrq: HELP")
        argv = sh("echo h > /proc/sysrq-trigger")
        n0 = helps()
        ctx.control(argv)
        n1 = helps()
        s = ws_ug(ctx.fresh("r59-sysrq"))
        sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
        n2 = helps()
        checks.append(judge("write /proc/sysrq-trigger (h)", n1 > n0, n2 > n1, sbx,
                            "the kernel log shows the sandbox's sysrq" if n2 > n1 else "no sysrq ran",
                            control_na=None if ctx.is_root else root_na))

    # /proc/kcore and kallsyms: kernel memory and addresses (KASLR).
    s = ws_ug(ctx.fresh("r59-kcore"))
    if not os.path.exists("/proc/kcore"):
        checks.append(Check("read /proc/kcore", NA, "-", "this kernel has no /proc/kcore (CONFIG_PROC_KCORE off)"))
    argv = [ctx.probe("fs_devices"), "/proc/kcore"]
    ctl = ctx.control(argv)
    sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
    c = ctl.results().get("read:/proc/kcore", ("", "0"))
    r = sbx.results().get("read:/proc/kcore", ("", "0"))
    if os.path.exists("/proc/kcore"):
        checks.append(judge("read /proc/kcore", c[0] == "ok" and c[1] != "0", r[0] == "ok" and r[1] != "0", sbx,
                            f"read {r[1]} bytes" if r[0] == "ok" else "refused", expect=["open-r:/proc/kcore"],
                            control_na=None if ctx.is_root else "reading /proc/kcore needs CAP_SYS_RAWIO"))

    # /proc/kallsyms shows real addresses to a reader without CAP_SYSLOG when
    # kernel.kptr_restrict is 0 and kernel.perf_event_paranoid is 1 or lower
    # (kernel/kallsyms.c, kallsyms_show_value()), as hosts set up for perf
    # often are; a namespace's root has no CAP_SYSLOG of the host, so only
    # those settings decide.  A root run puts the host in that state for this
    # check and restores it: the verdict is the sandbox's, not the host's.
    def addrs(run):
        return sum(1 for l in run.stdout.splitlines()
                   if re.match(r"^[0-9a-f]{16} ", l) and not l.startswith("0" * 16))
    with host_settings_at_most(ctx, {"kernel.kptr_restrict": 0,
                                     "kernel.perf_event_paranoid": 1}) as settings:
        argv = sh("head -n 50 /proc/kallsyms")
        ctl = ctx.control(argv)
        sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
    checks.append(judge("kernel addresses in /proc/kallsyms", addrs(ctl) > 0, addrs(sbx) > 0, sbx,
                        (f"{addrs(sbx)} real addresses" if addrs(sbx) else "addresses hidden") +
                        f" ({settings})",
                        control_na=f"{settings}: hidden from this user outside too"))
    return checks


# --------------------------------------------------------------------------
# Row 60: the host's /tmp and /dev/shm

@row(60, "the host's /tmp and /dev/shm: read a planted ticket cache, write", "-v WS")
def row60(ctx):
    tag = ctx.nonce[:12]
    planted = {"/tmp": f"/tmp/krb5cc_{os.getuid()}_{tag}", "/dev/shm": f"/dev/shm/porta-esc-{tag}"}
    for d, p in planted.items():
        if os.path.isdir(d):
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            os.write(fd, f"{MARKER}{d} ticket\n".encode())
            os.close(fd)
            ctx.cleanup.append(lambda p=p: os.path.exists(p) and os.unlink(p))
    checks = []
    for d, p in planted.items():
        if not os.path.isdir(d):
            checks.append(Check(f"read {d}", NA, "-", f"the host has no {d}"))
            continue
        m = f"{MARKER}{d} "
        argv = sh(f'cat {p}')
        ctl = ctx.control(argv)
        s = ws_ug(ctx.fresh("r60"))
        sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
        checks.append(judge(f"read {p.replace(tag, '<nonce>')}", m in ctl.stdout, m in sbx.stdout, sbx,
                            "stdout carried the planted ticket" if m in sbx.stdout else "not read"))
    for d in planted:
        if not os.path.isdir(d):
            continue
        res = {}
        sbx = None
        for mode in ("control", "sandbox"):
            target = f"{d}/porta-esc-w-{tag}-{mode}"
            ctx.cleanup.append(lambda p=target: os.path.exists(p) and os.unlink(p))
            argv = sh(f'echo pwn > {target}')
            if mode == "control":
                ctx.control(argv)
            else:
                s = ws_ug(ctx.fresh("r60w"))
                sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
            res[mode] = os.path.exists(target)
        checks.append(judge(f"write into the host's {d}", res["control"], res["sandbox"], sbx,
                            "a file appeared in the host's " + d if res["sandbox"] else "nothing appeared"))
    return checks


# --------------------------------------------------------------------------
# Row 61: open_by_handle_at

@row(61, "open_by_handle_at with a handle computed outside", "(none; HOME=planted home)")
def row61(ctx):
    checks = []
    for mode in ("control", "sandbox"):
        base = ctx.fresh(f"r61-{mode}")
        home, files = credential_home(base)
        secret = os.path.join(home, files[".ssh"])
        got = ctx.execute([ctx.probe("fs_handle"), "get", secret])
        m = re.search(r"^HANDLE (-?\d+) ([0-9a-f]+)$", got.stdout, re.M)
        if not m:
            return [Check("open_by_handle_at(~/.ssh/secret)", NA, "-",
                          f"the host gives no file handles here ({results_text(got) or got.stderr.strip()})")]
        argv = [ctx.probe("fs_handle"), "open", home, m.group(1), m.group(2)]
        env = ctx.env(HOME=home)
        run = ctx.control(argv, env=env) if mode == "control" else ctx.sandboxed(Policy(), argv, env=env)
        checks.append(run)
    ctl, sbx = checks
    mk = f"{MARKER}/.ssh "
    r = sbx.results().get("open_by_handle_at", ("missing", ""))
    return [judge("open_by_handle_at(~/.ssh/secret)", mk in ctl.stdout, mk in sbx.stdout, sbx,
                  "stdout carried the secret" if mk in sbx.stdout else f"refused ({r[0]} {r[1]})",
                  control_na=None if ctx.is_root else
                  "open_by_handle_at needs CAP_DAC_READ_SEARCH: the control escapes only as root")]


# --------------------------------------------------------------------------
# Row 62: a core dump outside the mounts

@row(62, "a core dump written outside the mounts or handed to a host program",
     "-v WS (the crash's cwd: UG)")
def row62(ctx):
    # kernel.core_pattern is host-wide, and the second check changes it:
    # the whole row takes its turn (tests/integration's CoreDumps does too).
    with host_settings_turn(ctx.is_root):
        return row62_locked(ctx)


def row62_locked(ctx):
    pattern = sysctl("kernel.core_pattern") or ""

    def ev(s, run):
        cores = [n for n in os.listdir(s["ug"]) if n.startswith("core")]
        return bool(cores), f"core file(s) on the host: {cores}" if cores else "no core file"
    na = None
    if pattern.startswith("|"):
        na = f"kernel.core_pattern={pattern!r}: cores go to a host helper, not the crash's directory"
    elif "/" in pattern:
        na = f"kernel.core_pattern={pattern!r} is an absolute path, not the crash's directory"
    checks = [simple(ctx, "crash with cwd outside the mounts, RLIMIT_CORE raised", ws_ug,
                     lambda s: Policy(mounts=[(s["ws"], False)]),
                     lambda s: [ctx.probe("fs_core"), s["ug"]], ev, control_na=na)]
    checks.append(core_helper_check(ctx))
    checks.append(core_socket_check(ctx))
    return checks


def crash_under_pattern(ctx, mode, s, pattern, arrived):
    """Runs fs_core (lowered: two crashes, the second after setting its
    limit to 0) as the control or under the sandbox, with
    kernel.core_pattern set to pattern, then puts the host's back.  The
    kernel hands a dump on while the crash ends, so this waits up to 3 s
    for arrived().  Returns (refused, the sandboxed run or None): refused
    when the kernel does not take the pattern.  row62() holds the
    host-wide turn."""
    orig = sysctl("kernel.core_pattern") or "core"
    ctx.cleanup.append(lambda v=orig: set_sysctl("kernel.core_pattern", v))
    if not set_sysctl("kernel.core_pattern", pattern):
        return True, None
    try:
        argv = [ctx.probe("fs_core"), s["ws"], "lowered"]
        run = ctx.control(argv) if mode == "control" else \
            ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
        wait_for(arrived, 3.0)
    finally:
        set_sysctl("kernel.core_pattern", orig)
    return False, (run if mode == "sandbox" else None)


def core_socket_check(ctx):
    """Since Linux 6.16 kernel.core_pattern "@PATH" has the kernel connect
    to a Unix socket as root in the host's
    mount namespace and write the dump there; it ignores RLIMIT_CORE
    altogether.  Evidence: the marker the probe holds in its heap arrived
    at a listener of the corpus's own (a dump of headers and notes alone,
    what coredump_filter 0 leaves, carries no memory)."""
    name = "crash's memory sent to the host's core socket (core_pattern '@...')"
    if not ctx.is_root:
        return Check(name, NA, "-", "only root can point kernel.core_pattern at the corpus's "
                     "socket; run the corpus as root for this check")
    results = {}
    sbx = None
    for mode in ("control", "sandbox"):
        s = ws_ug(ctx.fresh(f"r62-sock-{mode}"))
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(os.path.join(s["ug"], "core.sock"))
        srv.listen(8)
        got = []

        def serve(srv=srv, got=got):
            while True:
                try:
                    c, _ = srv.accept()
                except OSError:
                    return
                data = bytearray()
                c.settimeout(5)
                try:
                    while (b := c.recv(1 << 16)):
                        data += b
                except OSError:
                    pass
                c.close()
                got.append(bytes(data))
        threading.Thread(target=serve, daemon=True).start()
        try:
            refused, run = crash_under_pattern(ctx, mode, s, "@" + srv.getsockname(),
                                               lambda got=got: len(got) >= 2)
        finally:
            srv.shutdown(socket.SHUT_RDWR)
            srv.close()
        if refused:
            return Check(name, NA, "-", "this kernel refuses a '@' core_pattern (before Linux 6.16)")
        sbx = run or sbx
        results[mode] = got
    c_mem = [d for d in results["control"] if MARKER.encode() in d]
    s_got = results["sandbox"]
    s_mem = [d for d in s_got if MARKER.encode() in d]
    sizes = ", ".join(str(len(d)) for d in s_got) or "none"
    return judge(name, bool(c_mem), bool(s_mem), sbx,
                 f"{len(s_mem)} dump(s) of the sandbox carried its memory to the socket "
                 f"(bytes per connection: {sizes})" if s_mem else
                 f"no memory of the sandbox reached the socket (bytes per connection: {sizes})",
                 expect=["core-dumped", "core-dumped-lowered"])


def core_helper_check(ctx):
    """A kernel.core_pattern that pipes ("|/usr/lib/systemd/systemd-coredump
    ...", apport) makes the kernel run that program as root, outside every
    namespace, with the crash's memory on its stdin: it stores the dump
    outside the mounts and parses what the sandbox chose (helpers have had
    their holes).  A root run points the pattern at a helper of its own for
    this check (restored afterwards); evidence: the helper ran for the probe,
    and the dump it received, in UG."""
    name = "crash handed to the host's core helper (core_pattern '|...'), limit lowered to 0"
    if not ctx.is_root:
        return Check(name, NA, "-", "only root can point kernel.core_pattern at the corpus's "
                     "helper; run the corpus as root for this check")
    results = {}
    sbx = None
    for mode in ("control", "sandbox"):
        s = ws_ug(ctx.fresh(f"r62-helper-{mode}"))
        helper = os.path.join(s["ug"], "helper")
        log = os.path.join(s["ug"], "helper.log")
        with open(helper, "w") as f:
            f.write(f'#!/bin/sh\n[ "$2" = fs_core ] || exit 0\n'
                    f'cat > {s["ug"]}/dumped.$1\necho "$1 $2 limit=$3" >> {log}\n')
        os.chmod(helper, 0o755)
        _, run = crash_under_pattern(ctx, mode, s, f"|{helper} %P %e %c",
                                     lambda: len((read(log, "") or "").splitlines()) >= 2)
        sbx = run or sbx
        got = (read(log, "") or "").splitlines()
        dumped = sum(os.path.getsize(os.path.join(s["ug"], n)) for n in os.listdir(s["ug"])
                     if n.startswith("dumped."))
        results[mode] = (got, dumped)
    c_got, _ = results["control"]
    s_got, s_bytes = results["sandbox"]
    return judge(name, bool(c_got), bool(s_got), sbx,
                 f"the host's helper ran as root for {len(s_got)} crash(es) of the sandbox and "
                 f"stored {s_bytes} bytes of its memory outside the mounts ({'; '.join(s_got)})"
                 if s_got else "no crash of the sandbox reached the helper",
                 expect=["core-dumped", "core-dumped-lowered"])


@row(103, "repositories and projects below a writable mount's first level: hooks, config, "
          "editor and agent settings", "-v WS (WS/group/proj and WS/a/b/deep git repositories, "
                                       "WS/app a project with .vscode and .claude settings)")
def row103(ctx):
    # `-v ~/code` holding ~/code/group/proj: porta protected the
    # repositories directly below the root only (row 93), and in them only
    # .git; a project's .vscode/tasks.json or .claude/settings.json runs
    # commands when the user opens it in the editor or the agent.
    def setup(base):
        s = ws_ug(base)
        s["gitdirs"] = [make_git_repo(os.path.join(s["ws"], *rel))
                        for rel in (("group", "proj"), ("a", "b", "deep"))]
        app = os.path.join(s["ws"], "app")
        plant(app, {"package.json": "{}\n", ".vscode/tasks.json": "{}\n",
                    ".claude/settings.json": "{}\n"}, 0o644)
        s["settings"] = [os.path.join(app, ".vscode"), os.path.join(app, ".claude")]
        s["before"] = {p: snapshot(p) for p in s["gitdirs"] + s["settings"]}
        return s

    def evidence(s, run):
        found = hooks_or_config_changed(s)
        for p in s["settings"]:
            if diff(s["before"][p], snapshot(p)):
                found.append(f"{os.path.relpath(p, s['ws'])} changed")
        return bool(found), "; ".join(found) or "hooks, config and settings intact"
    script = ('for g in "$1/group/proj/.git" "$1/a/b/deep/.git"; do '
              'printf "#!/bin/sh\\necho pwned\\n" > "$g/hooks/pre-commit"; '
              'printf "[core]\\n\\thooksPath = /evil\\n" >> "$g/config"; done; '
              'echo \'{"tasks":[{"label":"x","command":"pwned","runOptions":{"runOn":"folderOpen"}}]}\' '
              '> "$1/app/.vscode/tasks.json"; '
              'echo \'{"hooks":{"SessionStart":[{"command":"pwned"}]}}\' > "$1/app/.claude/settings.json"')
    return [simple(ctx, "write hooks, config and settings two and three levels down", setup,
                   lambda s: Policy(mounts=[(s["ws"], False)]),
                   lambda s: sh(script, s["ws"]), evidence)]
