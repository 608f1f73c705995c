"""Rows 105-108 of the escape corpus: host Unix sockets bound after the
command started, anywhere it can see, and the races on the connect watch
that decides them.

Until 641427a porta closed the host's sockets at start: it covered every
socket /proc/net/unix listed and closed whole directories where host
programs bind (/run, the runtime directory, screen's and tmux's).  A socket
a host program binds once the command runs, anywhere else the command can
see (a cache in the home under `--read-policy open`, a fresh directory in
/var/tmp, any place visible read-only), was not on that list: `git
credential-cache` started on the host while the command sleeps hands the
command the user's password.  Now every connect(2), sendto(2) with a
destination, sendmsg(2) and sendmmsg(2) stops in the connect watch, and for
a Unix socket porta resolves the name in the sandbox's root, decides it
(a writable mount of the sandbox, --allow-unix, the kept journald sockets)
and makes the call itself.  Rows 105 and 106 are the sockets bound later
(stream, then datagrams by every call that names a destination); row 107
races the decision by rewriting what the call names (the address buffer,
a symbolic link in the writable mount) while porta looks at it; row 108
races it by swapping the descriptor the call is made on.

Every check binds the host's socket only after the command has said it
started (WS/started) and lets it go on afterwards (WS/go), so the control
(the same command with no sandbox) shows the socket reachable from a
process that started before it existed.  Evidence is outside: a listener's
count of accepted connections or received datagrams, and the marker a
listener (or git's credential daemon) hands out on stdout.  Everything
planted lives under the run's directory in $HOME, except the checks about
another place (a fresh directory in /var/tmp, an abstract name): those
names carry the run's id and are removed at the end.

Probes: Python (/usr/bin/python3 -c, standard library and ctypes for
sendmmsg(2) and the raw connect(2) the races need), git's own client.
"""

import os
import shutil
import socket
import subprocess
import uuid

from corpus import *  # noqa: F401,F403  (the runner's vocabulary)
from corpus import (BROKEN, MARKER, SYSTEM_PATH, Background, Check, Listener, Policy, UnixDgramListener,
                    UnixListener, could_not_prepare, judge, row, wait_for, ws_ug)
from rows_host import settle

PY = "/usr/bin/python3"
STARTED_PY = "print('PROBE-STARTED', flush=True)\n"

# The command's side of the handshake: WS/started once it runs, then it
# waits (15 s at most) for WS/go, which the runner writes once it has bound
# what the check is about.
WAIT_GO = r'''
import os, sys, time
def wait_go(ws):
    open(os.path.join(ws, "started"), "w").close()
    for _ in range(300):
        if os.path.exists(os.path.join(ws, "go")):
            return
        time.sleep(0.05)
    print("no go from the runner", flush=True)
    sys.exit(3)
'''


def py(script: str, *args) -> list:
    return [PY, "-c", STARTED_PY + WAIT_GO + script, *args]


class SecretListener(Listener):
    """A listening Unix stream socket that hands every client a secret (a
    line carrying the marker), as a credential helper would: each accepted
    connection is a hit."""

    def __init__(self, path: str, secret: str):
        self.secret = secret.encode()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(path)  # "\0name" is abstract
        sock.listen(64)
        self._start(sock)

    def _serve_one(self):
        conn, _ = self.sock.accept()
        self.hits.append(1)
        try:
            conn.sendall(self.secret)
        except OSError:
            pass
        conn.close()


def go(ws: str) -> None:
    with open(os.path.join(ws, "go"), "w"):
        pass


def started(ws: str, bg: Background) -> bool:
    return wait_for(lambda: os.path.exists(os.path.join(ws, "started")), 30, bg)


def make_dir_later(ctx, path: str, mode: int = 0o700) -> None:
    """mkdir -p, each directory made here removed at the end (with what is
    left in it: only the run's sockets)."""
    missing = []
    p = path
    while p and p != "/" and not os.path.lexists(p):
        missing.append(p)
        p = os.path.dirname(p)
    for d in reversed(missing):
        os.mkdir(d, mode)
    if missing:
        ctx.cleanup.append(lambda d=missing[-1]: shutil.rmtree(d, True))


def in_mode(ctx, mode: str, policy: Policy, argv: list, **kw) -> Background:
    if mode == "control":
        return Background(lambda: ctx.control(argv, **kw))
    return Background(lambda: ctx.sandboxed(policy, argv, **kw))


def result_of(run, name: str) -> str:
    r = run.results().get(name) if run else None
    return " ".join(r) if r else "no result"


# --------------------------------------------------------------------------
# Row 105: stream sockets bound later where the command can see

CONNECT_105 = r'''
import errno, socket, subprocess
ws, git = sys.argv[1], sys.argv[2]
targets = sys.argv[3:]
wait_go(ws)
for t in targets:
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError as e:  # a sandbox that refuses every Unix socket
        print("RESULT", t, "fail", errno.errorcode.get(e.errno, str(e.errno)), flush=True)
        continue
    s.settimeout(5)
    try:
        s.connect("\0" + t[1:] if t.startswith("@") else t)
        data = s.recv(200).decode(errors="replace").strip()
        print("RESULT", t, "ok", data, flush=True)
    except OSError as e:
        print("RESULT", t, "fail", errno.errorcode.get(e.errno, str(e.errno)), flush=True)
    s.close()
if git:
    # what any git asks its credential helper before a push
    r = subprocess.run([git, "credential-cache", "get"], capture_output=True, text=True,
                       input="protocol=https\nhost=registry.example\n\n")
    print("RESULT git-credential-cache", "ok" if "password=" in r.stdout else "fail",
          r.stdout.replace("\n", " ").strip() or r.stderr.strip()[:80] or "nothing", flush=True)
'''


class GitCredentialCache:
    """git's credential cache of the planted home, started on the host by
    `git credential-cache store` (which spawns `git credential-cache--daemon`
    on ~/.cache/git/credential/socket) with a password for registry.example."""

    def __init__(self, ctx, home: str, secret: str):
        self.ctx, self.home, self.secret = ctx, home, secret
        self.git = shutil.which("git", path=SYSTEM_PATH)
        self.error = None
        self.socket = os.path.join(home, ".cache", "git", "credential", "socket")
        if not self.git:
            self.error = "git is not installed"
        elif subprocess.run([self.git, "credential-cache", "--help"], capture_output=True,
                            stdin=subprocess.DEVNULL).returncode not in (0, 129):
            self.error = "git has no credential-cache helper"

    def env(self) -> dict:
        return self.ctx.env(HOME=self.home)

    def start(self) -> bool:
        if self.error:
            return False
        self.ctx.cleanup.append(self.stop)
        subprocess.run([self.git, "credential-cache", "store"], env=self.env(),
                       input=(f"protocol=https\nhost=registry.example\nusername=ci\n"
                              f"password={self.secret}\n\n").encode(),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
        if not wait_for(lambda: os.path.exists(self.socket), 5):
            self.error = f"git's credential daemon never bound {self.socket}"
            return False
        return True

    def stop(self) -> None:
        if self.git and os.path.exists(self.socket):
            subprocess.run([self.git, "credential-cache", "exit"], env=self.env(),
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=30)


def planted_home(base: str) -> tuple:
    """A home with its ~/.cache (there at start, as in every home) and a
    project (a git repository) inside it."""
    home = os.path.join(base, "home")
    os.makedirs(os.path.join(home, ".cache"))
    proj = os.path.join(home, "code", "proj")
    os.makedirs(os.path.join(proj, ".git"))
    with open(os.path.join(proj, "README"), "w") as f:
        f.write("the project\n")
    return home, proj


@row(105, "host stream sockets bound after the command started, where it can see: the home's cache, "
          "git's credential cache, /var/tmp, an abstract name",
     "--read-policy open -v PROJECT, run from the project (HOME=planted home; network open)")
def row105(ctx):
    token = uuid.uuid4().hex[:10]
    secret = f"{MARKER}-{token}"
    names = {
        "cache": "a socket in the home's cache (~/.cache/app-N/ipc.sock), bound later",
        "vartmp": "a socket in a fresh directory in /var/tmp, bound later",
        "abstract": "an abstract name (@porta-r105-N) bound later by a host process",
    }
    git_name = ("git's credential cache started later on the host (~/.cache/git/credential/socket): "
                "`git credential-cache get` reads the password")
    runs, hits, git_err, got, named = {}, {}, {}, {}, {}
    for mode in ("control", "sandbox"):
        base = ctx.fresh(f"r105-{mode}")
        home, proj = planted_home(base)
        ws = proj  # the project is the command's writable mount: the handshake goes there
        tag = f"{ctx.nonce[:10]}-{mode[0]}"
        paths = {"cache": os.path.join(home, ".cache", f"app-{tag}", "ipc.sock"),
                 "vartmp": f"/var/tmp/porta-r105-{tag}/s.sock",
                 "abstract": f"@porta-r105-{tag}"}
        named[mode] = paths
        cache = GitCredentialCache(ctx, home, secret)
        argv = py(CONNECT_105, ws, "" if cache.error else cache.git, *paths.values())
        bg = in_mode(ctx, mode, Policy(mounts=[(proj, False)]), argv,
                     env=ctx.env(HOME=home), cwd=proj)
        listeners = {}
        if started(ws, bg) and not bg.done():
            for key, path in paths.items():
                if key != "abstract":
                    make_dir_later(ctx, os.path.dirname(path))
                listeners[key] = SecretListener("\0" + path[1:] if key == "abstract" else path,
                                                f"secret={secret}\n")
                ctx.cleanup.append(listeners[key].close)
            cache.start()
            go(ws)
        runs[mode] = bg.wait()
        hits[mode] = settle(lambda: {k: len(l.hits) for k, l in listeners.items()})
        for l in listeners.values():
            l.close()
        cache.stop()
        git_err[mode] = cache.error
        got[mode] = runs[mode] is not None and secret in result_of(runs[mode], "git-credential-cache")
    sbx = runs["sandbox"]
    checks = []
    for key, name in names.items():
        c, s_ = hits["control"].get(key, 0), hits["sandbox"].get(key, 0)
        t = named["sandbox"][key]
        checks.append(judge(name, c > 0, s_ > 0, sbx,
                            f"the host's listener got {s_} connection(s) from the sandbox" if s_ else
                            f"unreachable ({result_of(sbx, t)})", expect=[t]))
    if git_err["control"]:
        checks.append(could_not_prepare(git_name, git_err["control"]))
    elif git_err["sandbox"] and not got["sandbox"]:
        checks.append(Check(git_name, BROKEN, "escaped" if got["control"] else "no",
                            f"the daemon for the sandboxed run did not start: {git_err['sandbox']}"))
    else:
        checks.append(judge(git_name, got["control"], got["sandbox"], sbx,
                            "stdout carried the cached password" if got["sandbox"] else
                            f"not read ({result_of(sbx, 'git-credential-cache')})",
                            expect=["git-credential-cache"]))
    return checks


# --------------------------------------------------------------------------
# Row 106: datagrams to a host socket bound later

SEND_106 = r'''
import ctypes, errno, socket, struct
ws = sys.argv[1]
dest = dict(zip(("sendto", "sendmsg", "sendmmsg", "connect"), sys.argv[2:6]))
wait_go(ws)

def report(name, fn):
    s = None
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        print("RESULT", name, "ok", fn(s), flush=True)
    except OSError as e:  # the call, or a sandbox that refuses every Unix socket
        print("RESULT", name, "fail", errno.errorcode.get(e.errno, str(e.errno)), flush=True)
    if s:
        s.close()

report("sendto", lambda s: s.sendto(b"sendto from the command", dest["sendto"]))
report("sendmsg", lambda s: s.sendmsg([b"sendmsg from the command"], [], 0, dest["sendmsg"]))

class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
class msghdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32),
                ("iov", ctypes.POINTER(iovec)), ("iovlen", ctypes.c_size_t),
                ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                ("flags", ctypes.c_int)]
class mmsghdr(ctypes.Structure):
    _fields_ = [("hdr", msghdr), ("len", ctypes.c_uint)]
libc = ctypes.CDLL(None, use_errno=True)

def sendmmsg(s):
    # two datagrams in one call, each naming the host's socket
    sun = struct.pack("H", socket.AF_UNIX) + dest["sendmmsg"].encode() + b"\0"
    name = ctypes.create_string_buffer(sun, len(sun))
    data = ctypes.create_string_buffer(b"sendmmsg from the command")
    iov = iovec(ctypes.cast(data, ctypes.c_void_p), len(data.raw) - 1)
    vec = (mmsghdr * 2)()
    for m in vec:
        m.hdr.name = ctypes.cast(name, ctypes.c_void_p)
        m.hdr.namelen = len(sun)
        m.hdr.iov = ctypes.pointer(iov)
        m.hdr.iovlen = 1
    n = libc.sendmmsg(s.fileno(), vec, 2, 0)
    if n < 0:
        raise OSError(ctypes.get_errno(), "sendmmsg")
    return n

report("sendmmsg", sendmmsg)

def connected(s):
    s.connect(dest["connect"])
    return s.send(b"send after connect from the command")

report("connect", connected)
'''

CALLS_106 = [
    ("sendto", "sendto(2) naming the host's socket"),
    ("sendmsg", "sendmsg(2) with msg_name naming it"),
    ("sendmmsg", "sendmmsg(2), two messages naming it"),
    ("connect", "connect(2) a datagram socket to it, then send(2)"),
]


@row(106, "datagrams to a host socket bound after the command started: sendto, sendmsg, sendmmsg, connect",
     "-v WS (the sockets bound in UG, visible read-only, once the command runs)")
def row106(ctx):
    runs, hits = {}, {}
    for mode in ("control", "sandbox"):
        s = ws_ug(ctx.fresh(f"r106-{mode}"))
        paths = {k: os.path.join(s["ug"], "later", f"{k}.sock") for k, _ in CALLS_106}
        argv = py(SEND_106, s["ws"], *paths.values())
        bg = in_mode(ctx, mode, Policy(mounts=[(s["ws"], False)]), argv)
        listeners = {}
        if started(s["ws"], bg) and not bg.done():
            os.mkdir(os.path.join(s["ug"], "later"))
            for k, p in paths.items():
                listeners[k] = UnixDgramListener(p)
                ctx.cleanup.append(listeners[k].close)
            go(s["ws"])
        runs[mode] = bg.wait()
        hits[mode] = settle(lambda: {k: len(l.hits) for k, l in listeners.items()})
        for l in listeners.values():
            l.close()
    sbx = runs["sandbox"]
    checks = []
    for key, name in CALLS_106:
        c, s_ = hits["control"].get(key, 0), hits["sandbox"].get(key, 0)
        checks.append(judge(name, c > 0, s_ > 0, sbx,
                            f"the host's socket received {s_} datagram(s) from the sandbox" if s_ else
                            f"not delivered ({result_of(sbx, key)})", expect=[key]))
    return checks


# --------------------------------------------------------------------------
# Row 107: the name rewritten while porta looks at it

# Two processes share one page (MAP_SHARED): the address buffer.  The
# parent connect(2)s through ctypes with that buffer for RACE_S seconds, a
# fresh socket each time; a child rewrites the buffer as fast as it can,
# between the path of the command's own socket (in WS, which it may reach)
# and the host's.  A third process accepts on the command's own socket.
# "link": the buffer stays WS/link, and the child swaps the link itself
# (rename(2) of a new symbolic link over it) between the two sockets.
RACE_107 = r'''
import ctypes, errno, mmap, signal, socket, struct, time
ws, how, host, secs = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
own = os.path.join(ws, "own.sock")
try:
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
except OSError as e:  # a sandbox that refuses every Unix socket: nothing to race
    print("RESULT race ok connected=0 failed=0 {'socket-%s': 1}" % errno.errorcode.get(e.errno, e.errno),
          flush=True)
    sys.exit(0)
srv.bind(own)
srv.listen(128)
wait_go(ws)

def sun(p):
    b = struct.pack("H", socket.AF_UNIX) + p.encode() + b"\0"
    return b + b"\0" * (110 - len(b))

kids = []
acceptor = os.fork()
if acceptor == 0:
    while True:
        c, _ = srv.accept()
        c.close()
kids.append(acceptor)
page = mmap.mmap(-1, 4096, flags=mmap.MAP_SHARED)
buf = (ctypes.c_char * 110).from_buffer(page)
link = os.path.join(ws, "link")
if how == "addr":
    A, B = sun(own), sun(host)
    page[0:110] = A
else:
    os.symlink(own, link)
    page[0:110] = sun(link)
flipper = os.fork()
if flipper == 0:
    end = time.monotonic() + secs + 1
    tmp = os.path.join(ws, "link.new")
    while time.monotonic() < end:
        if how == "addr":
            page[0:110] = B
            page[0:110] = A
        else:
            for t in (host, own):
                try:
                    os.symlink(t, tmp)
                    os.rename(tmp, link)
                except OSError:
                    pass
    os._exit(0)
kids.append(flipper)
libc = ctypes.CDLL(None, use_errno=True)
ok = fail = 0
errs = {}
end = time.monotonic() + secs
while time.monotonic() < end:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if libc.connect(s.fileno(), ctypes.c_void_p(ctypes.addressof(buf)), 110) == 0:
        ok += 1
    else:
        fail += 1
        e = errno.errorcode.get(ctypes.get_errno(), "?")
        errs[e] = errs.get(e, 0) + 1
    s.close()
for k in kids:
    os.kill(k, signal.SIGKILL)
    os.waitpid(k, 0)
print("RESULT race ok connected=%d failed=%d %s" % (ok, fail, errs), flush=True)
'''

RACE_S = "2.5"

CHECKS_107 = [
    ("addr", "connect(2) while another process flips the address between the command's own socket "
             "and the host's (bound later)"),
    ("link", "connect(2) to a symbolic link in WS swapped between the command's own socket and the "
             "host's (bound later)"),
]


def race_check(ctx, label: str, script: str, args_of, name: str, dgram: bool = False,
               policy_of=None) -> Check:
    """One race, control then sandboxed: the command starts, the runner binds
    the host's socket in UG (visible read-only), the command races for
    RACE_S seconds.  Evidence: the host listener's count."""
    runs, hits = {}, {}
    for mode in ("control", "sandbox"):
        s = ws_ug(ctx.fresh(f"{label}-{mode}"))
        host = os.path.join(s["ug"], "later", "host.sock")
        argv = py(script, *args_of(s, host))
        pol = policy_of(s) if policy_of else Policy(mounts=[(s["ws"], False)])
        bg = in_mode(ctx, mode, pol, argv)
        lst = None
        if started(s["ws"], bg) and not bg.done():
            os.mkdir(os.path.join(s["ug"], "later"))
            lst = UnixDgramListener(host) if dgram else UnixListener(host)
            ctx.cleanup.append(lst.close)
            go(s["ws"])
        runs[mode] = bg.wait()
        hits[mode] = settle(lambda: len(lst.hits)) if lst else 0
        if lst:
            lst.close()
    sbx = runs["sandbox"]
    c, s_ = hits["control"], hits["sandbox"]
    r = next(iter(sbx.results().values()), None)
    return judge(name, c > 0, s_ > 0, sbx,
                 (f"the host's socket got {s_} arrival(s) from the sandbox" if s_ else "never reached")
                 + f" ({' '.join(r) if r else 'no result'}; control: {c})",
                 expect=[next(iter(sbx.results()), "race")])


@row(107, "race the Unix-socket decision: the address rewritten, a link in WS swapped, after porta read it",
     "-v WS (the host's socket bound in UG, visible read-only, once the command runs)")
def row107(ctx):
    return [race_check(ctx, f"r107-{how}", RACE_107,
                       lambda s, host, how=how: (s["ws"], how, host, RACE_S), name)
            for how, name in CHECKS_107]


# --------------------------------------------------------------------------
# Row 108: the descriptor swapped under the call

# One process, two threads: the main one calls connect(2) (or sendmsg(2) of
# a datagram naming the host's socket) on descriptor N through ctypes, the
# other dup2(2)s over N, as fast as it can, a Unix socket and one porta
# does not decide as a Unix one (an AF_INET socket of the same type, or
# /dev/null where no IP socket may be made), or a Unix stream socket, whose
# sendmsg(2) porta lets go on since it names no destination the kernel uses.  The
# supervisor reads the socket's domain through a copy of N; if the kernel
# then runs the call on what N is by the time it goes on, the domain it
# decided on is not the one the call is made on.
RACE_108 = r'''
import ctypes, errno, socket, struct, threading, time
ws, kind, host, secs = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
wait_go(ws)
typ = socket.SOCK_DGRAM if kind != "stream" else socket.SOCK_STREAM
try:
    ux = socket.socket(socket.AF_UNIX, typ)
except OSError as e:  # a sandbox that refuses every Unix socket: nothing to swap
    print("RESULT race ok succeeded=0 failed=0 {'socket-%s': 1} (no Unix socket)"
          % errno.errorcode.get(e.errno, e.errno), flush=True)
    sys.exit(0)
try:
    if kind == "unix-stream":
        # a Unix socket too, of a type whose send names no destination
        keep = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        other, what = keep.fileno(), "a Unix stream socket"
    else:
        inet = socket.socket(socket.AF_INET, typ)
        other, what = inet.fileno(), "AF_INET"
except OSError:
    # no IP socket may exist (a degraded host's closed network): any
    # descriptor that is no Unix socket does
    other, what = os.open("/dev/null", os.O_RDONLY), "/dev/null"
N = os.dup(other)
sun = struct.pack("H", socket.AF_UNIX) + host.encode() + b"\0"
addr = ctypes.create_string_buffer(sun, len(sun))
libc = ctypes.CDLL(None, use_errno=True)

class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
class msghdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32),
                ("iov", ctypes.POINTER(iovec)), ("iovlen", ctypes.c_size_t),
                ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                ("flags", ctypes.c_int)]
data = ctypes.create_string_buffer(b"datagram from the command")
iov = iovec(ctypes.cast(data, ctypes.c_void_p), 10)
msg = msghdr(ctypes.cast(addr, ctypes.c_void_p), len(sun), ctypes.pointer(iov), 1, None, 0, 0)

stop = False
def flip():
    u, i = ux.fileno(), other
    while not stop:
        os.dup2(u, N)
        os.dup2(i, N)
t = threading.Thread(target=flip, daemon=True)
t.start()
ok = fail = 0
errs = {}
end = time.monotonic() + secs
while time.monotonic() < end:
    if kind != "stream":
        r = libc.sendmsg(N, ctypes.byref(msg), 0x40)  # MSG_DONTWAIT
    else:
        r = libc.connect(N, addr, len(sun))
        if r == 0:
            # connected: a fresh Unix socket for the next round
            nu = socket.socket(socket.AF_UNIX, typ)
            os.dup2(nu.fileno(), ux.fileno())
            nu.close()
    if r >= 0:
        ok += 1
    else:
        fail += 1
        e = errno.errorcode.get(ctypes.get_errno(), "?")
        errs[e] = errs.get(e, 0) + 1
stop = True
t.join()
print("RESULT race ok succeeded=%d failed=%d %s (swapped with %s)" % (ok, fail, errs, what),
      flush=True)
'''

CHECKS_108 = [
    ("stream", "connect(2) on a descriptor another thread dup2()s between an AF_INET and an AF_UNIX "
               "socket (host's socket bound later)", False),
    ("dgram", "sendmsg(2) naming the host's datagram socket on a descriptor swapped the same way",
     True),
    ("unix-stream", "sendmsg(2) naming the host's datagram socket on a descriptor swapped between "
                    "a Unix datagram and a Unix stream socket (whose sends porta lets go on)", True),
]


@row(108, "race the Unix-socket decision: the descriptor swapped by dup2(2) between the check and the call",
     "-v WS (network open; the host's socket bound in UG, visible read-only, once the command runs)")
def row108(ctx):
    checks = []
    for kind, name, dgram in CHECKS_108:
        checks.append(race_check(ctx, f"r108-{kind}", RACE_108,
                                 lambda s, host, kind=kind: (s["ws"], kind, host, RACE_S), name,
                                 dgram=dgram))
    # the same under --no-net (the kernel's checks of the IP calls differ)
    checks.append(race_check(ctx, "r108-nonet", RACE_108,
                             lambda s, host: (s["ws"], "dgram", host, RACE_S),
                             "the datagram race again under --no-net", dgram=True,
                             policy_of=lambda s: Policy(mounts=[(s["ws"], False)], no_net=True)))
    return checks
