"""Rows 78-80 and 86 of the escape corpus: the host's Unix sockets beyond
the credential agents of row 11.

A pathname Unix socket is reached through the file system, so neither
--no-net (a network namespace holds only abstract sockets) nor Landlock
(which restricts making a socket, not connecting to one) keeps the command
from it: whatever answers on it answers the command.  Host programs that
run commands for whoever connects (GNU screen, tmux) are escapes by
themselves; any other service is reachable as well.

Evidence is outside: a file written on the host by the screen or tmux
server, a listener's count of accepted connections or received datagrams.
Everything planted lives under the run's directory in $HOME, except where
the row is about another place (the user's runtime directory, screen's
socket directory, the shared /tmp): there every name is unique to the run
and removed at the end, and no directory that existed before is removed.

Probes: unix_send (stream, seqpacket and datagram sockets), the screen and
tmux clients themselves.
"""


import glob
import os
import shutil
import socket
import stat
import subprocess

from corpus import *  # noqa: F401,F403  (the runner's vocabulary)
from corpus import (BROKEN, NA, SYSTEM_PATH, Background, Check, Policy, UnixDgramListener, UnixListener,
                    could_not_prepare, judge, read, row, sh, wait_for, ws_ug)
from rows_host import settle

# sockaddr_un.sun_path holds 108 bytes with the terminating NUL.
SUN_PATH_MAX = 107


def tool(name: str) -> str | None:
    return shutil.which(name, path=SYSTEM_PATH)


def make_dirs(ctx, path: str, mode: int = 0o700) -> None:
    """mkdir -p with mode; every directory made here (none that existed) is
    removed at the end, if empty."""
    missing = []
    p = path
    while p and p != "/" and not os.path.lexists(p):
        missing.append(p)
        p = os.path.dirname(p)
    for d in reversed(missing):
        os.mkdir(d, mode)
        os.chmod(d, mode)
        ctx.cleanup.append(lambda d=d: os.path.isdir(d) and not os.listdir(d) and os.rmdir(d))


def unlink_later(ctx, path: str) -> None:
    ctx.cleanup.append(lambda: os.path.lexists(path) and os.unlink(path))


def runtime_dir(ctx, label: str) -> tuple:
    """The user's runtime directory, as porta is told it ($XDG_RUNTIME_DIR in
    porta's environment): pam_systemd's /run/user/UID when it exists and is
    the user's, else a directory of the run's own (0700) under $HOME.
    Returns (path, owned by the run)."""
    real = f"/run/user/{os.getuid()}"
    try:
        st = os.lstat(real)
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and os.access(real, os.W_OK):
            return real, False
    except OSError:
        pass
    path = os.path.join(ctx.fresh(label), "run")
    os.mkdir(path, 0o700)
    return path, True


# Where screen builds put their socket directory (Debian and Ubuntu:
# /run/screen; others /var/run/screen or /tmp/screens).
SCREEN_DIRS = ("/run/screen", "/var/run/screen", "/tmp/screens")


class ScreenSession:
    """A detached GNU screen session of the user (`screen -dmS NAME sh -c
    'sleep 600'`), as one left running in a terminal.  `error` says why
    there is none (screen not installed, no socket directory)."""

    def __init__(self, ctx, label: str, env: dict):
        self.ctx, self.env = ctx, env
        self.name = f"pe-{ctx.nonce}-{label}"
        self.error = None
        self.dir = None
        self.started = False
        if not tool("screen"):
            self.error = "GNU screen is not installed (scripts/deps.txt lists it)"
            return
        # `screen -ls` makes S-USER in screen's socket directory on first
        # use (so does the session): if this run made it, it goes at the end.
        before = {d for d in (f"{b}/S-{ctx.user}" for b in SCREEN_DIRS) if os.path.lexists(d)}
        # "No Sockets found in /run/screen/S-user." or "N Sockets in DIR."
        out = subprocess.run(["screen", "-ls"], capture_output=True, text=True, env=env,
                             stdin=subprocess.DEVNULL).stdout
        for line in out.splitlines():
            if " in /" in line:
                self.dir = line.split(" in ", 1)[1].strip().rstrip(".")
        if not self.dir:
            self.error = f"`screen -ls` names no socket directory ({out.strip()[:80]!r})"
        self.made_dir = bool(self.dir) and os.path.dirname(self.dir) in SCREEN_DIRS and \
            self.dir not in before

    def start(self) -> bool:
        if self.error:
            return False
        self.ctx.cleanup.append(self.stop)
        r = subprocess.run(["screen", "-dmS", self.name, "sh", "-c", "sleep 600", self.ctx.nonce],
                           env=self.env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        self.started = True
        if not wait_for(self.alive, 5):
            said = (r.stdout + r.stderr).strip()[:120]
            self.error = (f"the screen session's socket never appeared in {self.dir}"
                          + (f" (screen: {said})" if said else ""))
            return False
        return True

    def alive(self) -> bool:
        return bool(glob.glob(os.path.join(glob.escape(self.dir), "*." + self.name)))

    def stop(self) -> None:
        if self.started:
            self.started = False
            subprocess.run(["screen", "-S", self.name, "-X", "quit"], env=self.env,
                           stdin=subprocess.DEVNULL, capture_output=True)
            if self.made_dir and wait_for(lambda: not self.alive(), 2):
                try:
                    os.rmdir(self.dir)
                except OSError:
                    pass  # another session of the user's since


class TmuxServer:
    """A tmux server with a session, its socket at sock (`tmux -S SOCK
    new-session -d`)."""

    def __init__(self, ctx, sock: str, env: dict):
        self.ctx, self.sock, self.env = ctx, sock, env
        self.error = None
        self.started = False
        if not tool("tmux"):
            self.error = "tmux is not installed (scripts/deps.txt lists it)"
        elif len(sock) > SUN_PATH_MAX:
            self.error = f"the socket path would be {len(sock)} bytes, beyond sun_path"

    def start(self) -> bool:
        if self.error:
            return False
        make_dirs(self.ctx, os.path.dirname(self.sock))
        self.ctx.cleanup.append(self.stop)
        unlink_later(self.ctx, self.sock)
        r = subprocess.run(["tmux", "-S", self.sock, "new-session", "-d", "sleep 600"],
                           env=self.env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        self.started = True
        if r.returncode != 0 or not wait_for(self.alive, 5):
            self.error = f"tmux did not start: {r.stderr.strip()[:100] or 'no socket'}"
            return False
        return True

    def alive(self) -> bool:
        return os.path.exists(self.sock)

    def stop(self) -> None:
        if self.started:
            self.started = False
            subprocess.run(["tmux", "-S", self.sock, "kill-server"], env=self.env,
                           stdin=subprocess.DEVNULL, capture_output=True)


def tmux_sock(ctx, rt: str, rt_owned: bool, label: str) -> str:
    """tmux's socket under the runtime directory: tmux-UID/default in one of
    the run's own, a unique name in the user's real one."""
    name = "default" if rt_owned else f"pe-{ctx.nonce}-{label}"
    return os.path.join(rt, f"tmux-{os.getuid()}", name)


# The probe's shell: waitfor polls (3 s at most) for the file a screen
# window writes a moment after `screen -X` has returned; tmux's run-shell
# returns when its command is done.  Both servers run outside: the file
# they write in UG is the escape.
WAITFOR = 'waitfor() { i=0; while [ ! -s "$1" ] && [ $i -lt 60 ]; do sleep 0.05; i=$((i+1)); done; }; '
BY_SCREEN = ('if [ -n "$name" ]; then screen -S "$name" -X exec sh -c "echo pwn > \'$ug/by-screen\'" '
             '&& waitfor "$ug/by-screen"; fi; ')
BY_TMUX = 'if [ -n "$tsock" ]; then tmux -S "$tsock" run-shell "echo pwn > \'$ug/by-tmux\'"; fi; '


def start_in_background(ctx, mode: str, argv: list, env: dict, ws: str) -> Background:
    """Starts argv unsandboxed (mode "control") or under -v WS, in the
    background, and waits until the command has written WS/started: what
    the runner binds after that is bound while the command runs."""
    if mode == "control":
        bg = Background(lambda: ctx.control(argv, env=env))
    else:
        pol = Policy(mounts=[(ws, False)])
        bg = Background(lambda: ctx.sandboxed(pol, argv, env=env))
    wait_for(lambda: os.path.exists(os.path.join(ws, "started")), 30, bg)
    return bg


def wrote(path: str) -> bool:
    return (read(path, "") or "").strip() == "pwn"


def server_check(name: str, error: str | None, ran: dict, key: str, sbx, where: str,
                 sbx_error: str | None = None) -> Check:
    """A check on a screen or tmux server: skipped without one (could not
    prepare: error says why), else did the file it writes for the command appear?  sbx_error:
    the sandboxed run's own server did not start (row 79 starts one per
    run): nothing was tried, so that is broken, never held."""
    if error and not ran["control"].get(key):
        return could_not_prepare(name, error)
    c, s_ = ran["control"].get(key, False), ran["sandbox"].get(key, False)
    if sbx_error and not s_:
        return Check(name, BROKEN, "escaped" if c else "no",
                     f"the server for the sandboxed run did not start: {sbx_error}")
    return judge(name, c, s_, sbx, (f"the server outside ({where}) ran the command's shell line "
                                    "(UG file written)" if s_ else f"the server ({where}) did not run it"))


# --------------------------------------------------------------------------
# Row 78: sockets bound before the run

# (key, check name, socket type, path under UG)
SOCKETS_78 = [
    ("stream", "a stream socket with an unremarkable name (UG/some/dir/service.sock)", "stream",
     "some/dir/service.sock"),
    ("link", "the same through a symbolic link the command makes in WS", "stream",
     "other/dir/service.sock"),
    ("dgram", "a SOCK_DGRAM socket outside the mounts (a datagram received)", "dgram",
     "dgram/dir/service.sock"),
    ("seqpacket", "a SOCK_SEQPACKET listener outside the mounts", "seqpacket",
     "seqpacket/dir/service.sock"),
]

SCRIPT_78 = WAITFOR + r'''
ws=$1 ug=$2 name=$3 tsock=$4 send=$5 stream=$6 link=$7 dgram=$8 seqpacket=$9
''' + BY_SCREEN + BY_TMUX + r'''
ln -s "$link" "$ws/svc.sock"
"$send" stream "$stream" stream "$ws/svc.sock" dgram "$dgram" seqpacket "$seqpacket"
'''


def listen(path: str, kind: str):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if kind == "dgram":
        return UnixDgramListener(path)
    return UnixListener(path, socket.SOCK_SEQPACKET if kind == "seqpacket" else socket.SOCK_STREAM)


@row(78, "host sockets bound before the run: screen, tmux, any name, datagram, seqpacket",
     "--no-net -v WS (XDG_RUNTIME_DIR=RUNTIME; servers started before the run)")
def row78(ctx):
    rt, owned = runtime_dir(ctx, "r78-runtime")
    env = ctx.env(XDG_RUNTIME_DIR=rt)
    screen = ScreenSession(ctx, "78", env)
    screen.start()
    tmux = TmuxServer(ctx, tmux_sock(ctx, rt, owned, "78"), env)
    tmux.start()
    ran, hits, runs = {}, {}, {}
    gone = {}
    for mode in ("control", "sandbox"):
        # Both runs talk to the same servers: they must still be there.
        gone[mode] = {k: f"{what} was gone before the {mode} run" for k, srv, what in
                      (("screen", screen, "the screen session"), ("tmux", tmux, "the tmux server"))
                      if not srv.error and not srv.alive()}
        s = ws_ug(ctx.fresh(f"r78-{mode}"))
        listeners, paths = {}, {}
        for key, _, kind, rel in SOCKETS_78:
            paths[key] = os.path.join(s["ug"], rel)
            listeners[key] = listen(paths[key], kind)
            ctx.cleanup.append(listeners[key].close)
        argv = sh(SCRIPT_78, s["ws"], s["ug"], "" if screen.error else screen.name,
                  "" if tmux.error else tmux.sock, ctx.probe("unix_send"),
                  *(paths[k] for k, _, _, _ in SOCKETS_78))
        if mode == "control":
            runs[mode] = ctx.control(argv, env=env)
        else:
            runs[mode] = ctx.sandboxed(Policy(mounts=[(s["ws"], False)], no_net=True), argv, env=env)
        hits[mode] = settle(lambda: {k: len(l.hits) for k, l in listeners.items()})
        ran[mode] = {"screen": wrote(os.path.join(s["ug"], "by-screen")),
                     "tmux": wrote(os.path.join(s["ug"], "by-tmux"))}
        for l in listeners.values():
            l.close()
    screen.stop()
    tmux.stop()
    sbx = runs["sandbox"]
    res = sbx.results()
    checks = [server_check("a GNU screen session of the user: screen -S NAME -X exec",
                           screen.error or gone["control"].get("screen"), ran, "screen", sbx,
                           f"socket in {screen.dir}", gone["sandbox"].get("screen")),
              server_check("a tmux server under the runtime directory: tmux -S SOCK run-shell",
                           tmux.error or gone["control"].get("tmux"), ran, "tmux", sbx,
                           f"socket {tmux.sock}", gone["sandbox"].get("tmux"))]
    for key, name, kind, _ in SOCKETS_78:
        c, s_ = hits["control"][key], hits["sandbox"][key]
        r = next((v for k, v in res.items() if k.startswith(kind + ":") and
                  (k.endswith("/svc.sock") == (key == "link"))), None)
        checks.append(judge(name, c > 0, s_ > 0, sbx,
                            f"the listener outside got {s_} arrival(s) from the sandbox" if s_ else
                            f"unreachable ({' '.join(r) if r else 'no result'})"))
    return checks


# --------------------------------------------------------------------------
# Row 79: sockets bound after the run started

SCRIPT_79 = WAITFOR + r'''
ws=$1 ug=$2 name=$3 tsock=$4 send=$5 app=$6
: > "$ws/started"
i=0; while [ ! -e "$ws/go" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i+1)); done
[ -e "$ws/go" ] || { echo "no go from the runner"; exit 3; }
"$send" stream "$app"
''' + BY_SCREEN + BY_TMUX


@row(79, "host sockets bound after the run started: runtime directory, screen, tmux",
     "-v WS (XDG_RUNTIME_DIR=RUNTIME; bound once the command runs)")
def row79(ctx):
    rt, owned = runtime_dir(ctx, "r79-runtime")
    env = ctx.env(XDG_RUNTIME_DIR=rt)
    ran, hits, runs, errors = {}, {}, {}, {}
    screens = {}
    for mode in ("control", "sandbox"):
        s = ws_ug(ctx.fresh(f"r79-{mode}"))
        app = os.path.join(rt, f"app-{ctx.nonce[:8]}-{mode[0]}", "ipc.sock")
        screen = screens[mode] = ScreenSession(ctx, f"79{mode[0]}", env)
        tmux = TmuxServer(ctx, tmux_sock(ctx, rt, owned, f"79{mode[0]}"), env)
        # The names are passed before the servers exist: they are bound
        # only once porta has started the command.
        argv = sh(SCRIPT_79, s["ws"], s["ug"], "" if screen.error else screen.name,
                  "" if tmux.error else tmux.sock, ctx.probe("unix_send"), app)
        bg = start_in_background(ctx, mode, argv, env, s["ws"])
        listener = None
        if not bg.done():
            make_dirs(ctx, os.path.dirname(app))
            unlink_later(ctx, app)
            listener = UnixListener(app)
            ctx.cleanup.append(listener.close)
            screen.start()
            tmux.start()
            with open(os.path.join(s["ws"], "go"), "w"):
                pass
        runs[mode] = bg.wait()
        hits[mode] = settle(lambda: len(listener.hits)) if listener else 0
        ran[mode] = {"screen": wrote(os.path.join(s["ug"], "by-screen")),
                     "tmux": wrote(os.path.join(s["ug"], "by-tmux"))}
        errors[mode] = (screen.error, tmux.error)
        if listener:
            listener.close()
        screen.stop()
        tmux.stop()
    sbx = runs["sandbox"]
    res = sbx.results()
    r = next(iter(res.values()), None)
    c, s_ = hits["control"], hits["sandbox"]
    checks = [judge("a socket in the runtime directory (RUNTIME/app-*/ipc.sock), bound later",
                    c > 0, s_ > 0, sbx,
                    f"the listener outside got {s_} connection(s) from the sandbox" if s_ else
                    f"unreachable ({' '.join(r) if r else 'no result'})")]
    checks.append(server_check("a GNU screen session started later: screen -S NAME -X exec",
                               errors["control"][0], ran, "screen", sbx,
                               f"socket in {screens['sandbox'].dir}", errors["sandbox"][0]))
    checks.append(server_check("a tmux server started later under the runtime directory: run-shell",
                               errors["control"][1], ran, "tmux", sbx, f"socket under {rt}",
                               errors["sandbox"][1]))
    return checks


# --------------------------------------------------------------------------
# Row 80: --share-tmp

@row(80, "--share-tmp: host sockets in the shared /tmp (tmux's directory, /tmp itself)",
     "--share-tmp -v WS (sockets bound before the run)")
def row80(ctx):
    uid = os.getuid()
    tdir = f"/tmp/tmux-{uid}"
    tmux_na = None
    if os.path.lexists(tdir):
        st = os.lstat(tdir)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid:
            tmux_na = f"{tdir} exists and is not this user's directory"
    else:
        make_dirs(ctx, tdir)
    names = {"tmux": "a socket in /tmp/tmux-UID/ (tmux's socket directory)",
             "tmp": "a socket directly in /tmp"}
    hits, runs = {}, {}
    for mode in ("control", "sandbox"):
        s = ws_ug(ctx.fresh(f"r80-{mode}"))
        paths = {"tmp": f"/tmp/porta-esc-{ctx.nonce[:12]}-{mode[0]}.sock"}
        if not tmux_na:
            paths["tmux"] = os.path.join(tdir, f"porta-esc-{ctx.nonce[:12]}-{mode[0]}")
        listeners = {}
        for key, path in paths.items():
            unlink_later(ctx, path)
            listeners[key] = UnixListener(path)
            ctx.cleanup.append(listeners[key].close)
        argv = [ctx.probe("unix_send")] + [a for p in paths.values() for a in ("stream", p)]
        if mode == "control":
            runs[mode] = ctx.control(argv)
        else:
            runs[mode] = ctx.sandboxed(Policy(mounts=[(s["ws"], False)], share_tmp=True), argv)
        hits[mode] = settle(lambda: {k: len(l.hits) for k, l in listeners.items()})
        for key, l in listeners.items():
            l.close()
            if os.path.lexists(paths[key]):
                os.unlink(paths[key])
    sbx = runs["sandbox"]
    res = sbx.results()
    checks = []
    for key, name in names.items():
        if key not in hits["control"]:
            checks.append(could_not_prepare(name, tmux_na))
            continue
        c, s_ = hits["control"][key], hits["sandbox"][key]
        r = next((v for k, v in res.items() if (key == "tmux") == ("/tmux-" in k)), None)
        checks.append(judge(name, c > 0, s_ > 0, sbx,
                            f"the listener outside got {s_} connection(s) from the sandbox" if s_ else
                            f"unreachable ({' '.join(r) if r else 'no result'})"))
    return checks


# --------------------------------------------------------------------------
# Row 86: a service that binds its socket again while the command runs

SCRIPT_86 = r'''
ws=$1 send=$2; shift 2
: > "$ws/started"
i=0; while [ ! -e "$ws/go" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i+1)); done
[ -e "$ws/go" ] || { echo "no go from the runner"; exit 3; }
for s; do "$send" stream "$s"; done
'''


@row(86, "services that bind their socket again while the command runs: /run, the runtime directory",
     "-v WS (XDG_RUNTIME_DIR=RUNTIME; sockets bound before the run, unlinked and bound again during it)")
def row86(ctx):
    """Found while writing rows 78-85: the kernel takes porta's /dev/null
    cover away from a socket's entry when the entry is unlinked outside (a
    daemon restarting, a socket unit started again), and the socket bound
    again at that path is a new entry.  Where services bind, porta closes
    the whole directory: a directory is not replaced when a socket in it
    is.  /run needs root to host a service directory (n/a otherwise)."""
    rt, _owned = runtime_dir(ctx, "r86-runtime")
    env = ctx.env(XDG_RUNTIME_DIR=rt)
    places = {"a socket in the runtime directory, bound again": rt}
    if os.geteuid() == 0:
        places["a service's socket in /run, bound again"] = "/run"
    hits, runs = {}, {}
    for mode in ("control", "sandbox"):
        s = ws_ug(ctx.fresh(f"r86-{mode}"))
        socks = {}
        for name, base in places.items():
            d = os.path.join(base, f"porta-r86-{ctx.nonce[:8]}-{mode[0]}-{len(socks)}")
            make_dirs(ctx, d, 0o755)
            path = os.path.join(d, "service.sock")
            unlink_later(ctx, path)
            lst = UnixListener(path)
            ctx.cleanup.append(lst.close)
            socks[name] = (path, lst)
        argv = sh(SCRIPT_86, s["ws"], ctx.probe("unix_send"), *[p for p, _ in socks.values()])
        bg = start_in_background(ctx, mode, argv, env, s["ws"])
        again = {}
        if not bg.done():
            # The service restarts: its old socket goes, a new one takes
            # the same path.
            for name, (path, lst) in socks.items():
                lst.close()
                if os.path.lexists(path):
                    os.unlink(path)
                again[name] = UnixListener(path)
                ctx.cleanup.append(again[name].close)
            with open(os.path.join(s["ws"], "go"), "w"):
                pass
        runs[mode] = bg.wait()
        hits[mode] = {name: settle(lambda l=l: len(l.hits)) for name, l in again.items()}
        for l in again.values():
            l.close()
    checks = []
    sbx = runs["sandbox"]
    for name in places:
        c, h = hits["control"].get(name, 0), hits["sandbox"].get(name, 0)
        checks.append(judge(name, c > 0, h > 0, sbx,
                            f"the service outside got {h} connection(s) from the sandbox" if h
                            else "unreachable"))
    if os.geteuid() != 0:
        checks.append(Check("a service's socket in /run, bound again", NA, "-",
                            "only root can make a service directory in /run"))
    return checks
