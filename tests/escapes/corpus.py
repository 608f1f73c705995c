"""Core of the escape corpus runner (run.py): policies, runs, verdicts,
the run context, host-side listeners and the row registry.

Every row module (rows_*.py) registers its rows with @row(N, title, policy)
and returns a list of Check; adapters.py turns a Policy into one sandbox's
command line. Standard library only (Python 3.11).
"""


import contextlib
import dataclasses
import fcntl
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

MARKER = "MUST-NOT-LEAK"
STARTED = "PROBE-STARTED"

HELD, ESCAPED, BROKEN, NA, NOT_OFFERED = "held", "ESCAPED", "broken", "n/a", "not offered"
# n/a: the check does not apply here (the host has no such thing to escape
# through, or only a root run can show it).  skipped: it does apply, but the
# runner could not prepare it (a helper program missing, the lab or a
# namespace of the runner's own not made): nothing was tried, so it is no
# evidence either way, and a row with such a check is not counted as held.
SKIPPED = "skipped"

# A call that the sandbox answered with one of these (or a kill) was refused.
REFUSED_ERRNOS = {"EPERM", "EACCES", "ENOSYS"}

SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


# --------------------------------------------------------------------------
# Policies and sandbox adapters

@dataclasses.dataclass
class Policy:
    """What a row asks of the sandbox, independent of any tool's flags."""
    mounts: list = dataclasses.field(default_factory=list)  # [(path, read_only)]
    # open | strict | home; porta is given it by name (its default is home,
    # the peers' defaults read the home: they map home to open)
    read_policy: str = "open"
    share_tmp: bool = False              # the host's /tmp instead of a private one
    no_net: bool = False
    audit: str | None = None
    proxy_allow: list = dataclasses.field(default_factory=list)   # --proxy-allow RULE
    allow_net: list = dataclasses.field(default_factory=list)     # --allow-net RULE (transparent)
    # --secret NAME@HOST[,HOST...]: the program is to use $NAME only with
    # these hosts (port 443 unless given); the hosts are allowed too
    secrets: list = dataclasses.field(default_factory=list)
    allow_http: list = dataclasses.field(default_factory=list)    # --allow-http 'METHODS URL'
    max_procs: int | None = None
    max_file_size_mib: int | None = None
    max_cpu_s: int | None = None
    max_memory_mib: int | None = None
    timeout_s: int | None = None
    # porta's built-in lists (credential paths, protected names): "none"
    # drops them; other sandboxes have no such lists, so for them the
    # policy is the same either way
    preset: str = "default"
    # porta's --why: list the refusals after the run, with a line to run again
    why: bool = False

    def describe(self) -> str:
        parts = [f"-v {p}{':ro' if ro else ''}" for p, ro in self.mounts]
        if self.read_policy != "open":
            parts.append(f"--read-policy {self.read_policy}")
        if self.share_tmp:
            parts.append("--share-tmp")
        if self.preset != "default":
            parts.append(f"--preset {self.preset}")
        if self.why:
            parts.append("--why")
        for flag, val in (("--no-net", self.no_net or None), ("--audit", self.audit),
                          ("--max-procs", self.max_procs),
                          ("--max-file-size", self.max_file_size_mib),
                          ("--max-cpu", self.max_cpu_s),
                          ("--max-memory-mb", self.max_memory_mib),
                          ("--timeout", self.timeout_s)):
            if val is True:
                parts.append(flag)
            elif val is not None:
                parts.append(f"{flag} {val}")
        parts += [f"--allow-net {r}" for r in self.allow_net]
        parts += [f"--proxy-allow {r}" for r in self.proxy_allow]
        parts += [f"--secret {r}" for r in self.secrets]
        parts += [f"--allow-http '{r}'" for r in self.allow_http]
        return " ".join(parts)


class NotOffered(Exception):
    """The sandbox under test has no setting that expresses this policy."""




# --------------------------------------------------------------------------
# Results

@dataclasses.dataclass
class Run:
    argv: list
    rc: int | None
    stdout: str
    stderr: str
    duration: float
    timed_out: bool

    @property
    def started(self) -> bool:
        return STARTED in self.stdout

    def results(self) -> dict:
        """RESULT lines of the probe: name -> (status, value)."""
        out = {}
        for line in self.stdout.splitlines():
            parts = line.split(" ", 3)
            if len(parts) >= 3 and parts[0] == "RESULT":
                out[parts[1]] = (parts[2], parts[3] if len(parts) > 3 else "")
        return out

    def why_not_started(self) -> str:
        err = " | ".join(l for l in self.stderr.strip().splitlines()[-3:])
        what = "timed out" if self.timed_out else f"exit {self.rc}"
        return f"probe never started ({what}; stderr: {err or '-'})"


@dataclasses.dataclass
class Check:
    name: str
    verdict: str
    control: str   # escaped | no | -
    detail: str = ""


def judge(name: str, control_escaped: bool | None, sandbox_escaped: bool,
          sbx: Run | None, detail: str = "", control_na: str | None = None,
          refusal_is_na: bool | str = False, expect: list = (),
          refusal_holds: bool | str = False) -> Check:
    """One sub-check's verdict. Evidence of an escape always wins; otherwise
    a held verdict needs a control that escaped, a probe that started and,
    where the evidence is the probe's RESULT lines, every expected attempt
    reported (an attempt that never happened proves nothing).
    refusal_is_na: a refusal (125) is n/a rather than broken; when it is a
    string, only a refusal whose message contains it (any other refusal of
    the policy is broken).
    refusal_holds: a refusal (125) whose message contains it is the defence
    itself, held (rows_links.py: porta refusing a path a command changed),
    once the control escaped."""
    ctl = "-" if control_escaped is None else ("escaped" if control_escaped else "no")
    if sandbox_escaped:
        return Check(name, ESCAPED, ctl, detail)
    if sbx is not None and not sbx.started:
        if (refusal_holds and control_escaped and sbx.rc == 125 and
                (refusal_holds is True or refusal_holds in sbx.stderr)):
            first = (sbx.stderr.strip().splitlines() or ["(no message)"])[0]
            return Check(name, HELD, ctl, f"porta refused: {first}")
        if refusal_is_na and sbx.rc == 125 and (
                refusal_is_na is True or refusal_is_na in sbx.stderr):
            first = (sbx.stderr.strip().splitlines() or ["(no message)"])[0]
            return Check(name, NA, ctl, f"porta refused the policy: {first}")
        return Check(name, BROKEN, ctl, sbx.why_not_started())
    missing = [e for e in expect if sbx is not None and e not in sbx.results()]
    if missing:
        return Check(name, BROKEN, ctl, f"the probe never reported {missing} (rc {sbx.rc})")
    if not control_escaped:
        if control_na:
            return Check(name, NA, ctl, control_na)
        return Check(name, BROKEN, ctl, "control did not escape" + (f": {detail}" if detail else ""))
    return Check(name, HELD, ctl, detail)


def not_offered(name: str, why: str) -> Check:
    return Check(name, NOT_OFFERED, "-", why)


def could_not_prepare(name: str, why: str) -> Check:
    """A check the runner could not set up: skipped, with the reason."""
    return Check(name, SKIPPED, "-", f"could not prepare: {why}")


# --------------------------------------------------------------------------
# Host helpers

def read(path: str, default: str | None = None) -> str | None:
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return default


def sysctl(name: str) -> str | None:
    v = read("/proc/sys/" + name.replace(".", "/"))
    return v.strip() if v is not None else None


@contextlib.contextmanager
def host_settings_turn(is_root: bool):
    """Host-wide settings (sysctls): concurrent corpus runs on one host take
    turns, so that a root run's change is never read as another run's
    escape.  A root run makes the lock file; without one, no root run has
    ever made it and none is to be waited for."""
    path = ("/run/lock" if os.path.isdir("/run/lock") else tempfile.gettempdir()) + \
        "/porta-escapes-sysctl.lock"
    try:
        fd = os.open(path, os.O_RDONLY | (os.O_CREAT if is_root else 0), 0o644)
    except OSError:
        fd = None
    try:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        if fd is not None:
            os.close(fd)


def set_sysctl(name: str, value: str) -> bool:
    try:
        with open("/proc/sys/" + name.replace(".", "/"), "w") as f:
            f.write(value)
        return True
    except OSError:
        return False


@contextlib.contextmanager
def host_settings_at_most(ctx, limits: dict):
    """For one check, each sysctl in limits is lowered to the given value
    when the host's is above it, and put back afterwards (also by the run's
    cleanup, should the check be interrupted).  Only root can: other runners
    keep the host's values.  Yields the values in force, in words, for the
    check's evidence."""
    with host_settings_turn(ctx.is_root):
        changed = {}
        try:
            for name, limit in limits.items():
                orig = sysctl(name)
                if orig is None or int(orig) <= int(limit) or not ctx.is_root:
                    continue
                ctx.cleanup.append(lambda n=name, v=orig: set_sysctl(n, v))
                if set_sysctl(name, str(limit)):
                    changed[name] = orig
            yield ", ".join(f"{n}={sysctl(n)}" + (f" (host: {changed[n]})" if n in changed else "")
                            for n in limits)
        finally:
            for name, orig in changed.items():
                set_sysctl(name, orig)


def processes_with(needle: str) -> list:
    """Host pids whose command line contains needle (never our own)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if needle in cmd:
            found.append((int(entry), cmd.strip()))
    return found


def kill_all(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def icmp_in_echos(snmp_text: str | None) -> int | None:
    if not snmp_text:
        return None
    lines = [l.split() for l in snmp_text.splitlines() if l.startswith("Icmp:")]
    if len(lines) < 2:
        return None
    try:
        return int(lines[1][lines[0].index("InEchos")])
    except (ValueError, IndexError):
        return None


class Listener:
    """Logs every arrival, from a thread of the runner. The socket polls with
    a short timeout and is closed only after its thread has stopped: a thread
    blocked in accept() on a closed fd would otherwise steal connections from
    the next socket that reuses the number."""

    def _start(self, sock):
        self.sock = sock
        self.sock.settimeout(0.1)
        self.hits: list = []
        self.closed = False
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        while not self.closed:
            try:
                self._serve_one()
            except socket.timeout:
                continue
            except OSError:
                return

    def close(self):
        if not self.closed:
            self.closed = True
            self.thread.join(2)
            self.sock.close()


class TcpListener(Listener):
    def __init__(self, family: int, addr: str, port: int = 0):
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((addr, port))
        sock.listen(16)
        self.port = sock.getsockname()[1]
        self._start(sock)

    def _serve_one(self):
        conn, peer = self.sock.accept()
        self.hits.append(peer)
        conn.close()


class UnixListener(TcpListener):
    """kind: SOCK_STREAM, or SOCK_SEQPACKET (accepted the same way)."""

    def __init__(self, path: str, kind: int = socket.SOCK_STREAM):
        sock = socket.socket(socket.AF_UNIX, kind)
        sock.bind(path)  # "\0name" is abstract
        sock.listen(16)
        self._start(sock)


class UnixDgramListener(Listener):
    """A bound SOCK_DGRAM Unix socket: every datagram received is a hit."""

    def __init__(self, path: str):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        self._start(sock)

    def _serve_one(self):
        self.hits.append(self.sock.recv(2048))


class UdpResolver(Listener):
    """A 'DNS resolver' on loopback that logs every datagram and answers."""

    def __init__(self, addr: str = "127.0.0.1"):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind((addr, 0))
        self.port = sock.getsockname()[1]
        self._start(sock)

    def _serve_one(self):
        data, peer = self.sock.recvfrom(2048)
        self.hits.append(peer)
        if len(data) >= 12:  # same id, QR set, rcode REFUSED
            try:
                self.sock.sendto(data[:2] + b"\x81\x85" + data[4:], peer)
            except OSError:
                pass


class IcmpWatcher(Listener):
    """Root only: counts ICMP echo requests carrying this run's token, as the
    host's network stack receives them (a raw socket sees every ICMP packet
    of its namespace), so a concurrent run's pings are not counted."""

    def __init__(self, token: str):
        self.token = token.encode()
        self._start(socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))

    def _serve_one(self):
        data = self.sock.recv(65536)
        ihl = (data[0] & 0x0F) * 4 if data else 0
        if len(data) > ihl and data[ihl] == 8 and self.token in data[ihl:]:  # echo request
            self.hits.append(len(data))


class NetLab:
    """A network namespace of the runner's own behind a veth pair, holding a
    public-looking (TEST-NET) address, so that a control can reach "the
    internet" without a packet leaving the machine. Needs root (it routes the
    address from the host's namespace); row 24's public-address checks use
    it (the network policy rows use tests/netlab instead)."""

    def __init__(self, ctx: "Context"):
        # Addresses from TEST-NET-3 (the "public" one) and TEST-NET-2 (the
        # veth /30), varied per run so that concurrent runs do not collide.
        n = int(ctx.nonce[:6], 16)
        self.PUBLIC = f"203.0.113.{10 + n % 200}"
        quad = (n >> 8) % 63 * 4
        self.HOST_SIDE, self.PEER_SIDE = f"198.51.100.{quad + 1}", f"198.51.100.{quad + 2}"
        self.ctx = ctx
        self.ns = f"porta-esc-{ctx.nonce[:8]}"
        self.veth = f"pe{ctx.nonce[:8]}"
        self.error = None
        self.server = None
        self.log = os.path.join(ctx.root, "netlab-tcp.log")

    def _ip(self, *args, ns: bool = False):
        cmd = ["ip"] + (["-n", self.ns] if ns else []) + list(args)
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise OSError(f"{' '.join(cmd)}: {r.stderr.strip()}")

    def up(self) -> bool:
        if os.geteuid() != 0:
            self.error = "needs root to route a TEST-NET address into a namespace of the runner's own"
            return False
        if not shutil.which("ip"):
            self.error = "iproute2 (ip) is not installed"
            return False
        try:
            self._ip("netns", "add", self.ns)
            self.ctx.cleanup.append(lambda: subprocess.run(["ip", "netns", "del", self.ns], capture_output=True))
            self._ip("link", "add", self.veth + "a", "type", "veth", "peer", "name", self.veth + "b")
            self.ctx.cleanup.append(lambda: subprocess.run(["ip", "link", "del", self.veth + "a"], capture_output=True))
            self._ip("link", "set", self.veth + "b", "netns", self.ns)
            self._ip("addr", "add", self.HOST_SIDE + "/30", "dev", self.veth + "a")
            self._ip("link", "set", self.veth + "a", "up")
            self._ip("addr", "add", self.PEER_SIDE + "/30", "dev", self.veth + "b", ns=True)
            self._ip("addr", "add", self.PUBLIC + "/32", "dev", self.veth + "b", ns=True)
            self._ip("link", "set", self.veth + "b", "up", ns=True)
            self._ip("link", "set", "lo", "up", ns=True)
            self._ip("route", "add", "default", "via", self.HOST_SIDE, ns=True)
            self._ip("route", "add", self.PUBLIC + "/32", "via", self.PEER_SIDE)
        except OSError as e:
            self.error = str(e)
            return False
        self.server = subprocess.Popen(
            ["ip", "netns", "exec", self.ns, sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "run.py"),
             "--serve-tcp", self.PUBLIC, "80", self.log],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.ctx.cleanup.append(self.server.kill)
        for _ in range(50):
            if os.path.exists(self.log):
                break
            time.sleep(0.05)
        else:
            self.error = "listener in the namespace did not come up"
            return False
        return self._reachable()

    def _reachable(self, limit: float = 30.0) -> bool:
        """Prove the path before any row counts on it: the runner itself
        connects to PUBLIC:80 until its connection is logged.  One CI run
        (the ASan phase, a loaded host) saw neither the control's TCP nor
        its ICMP arrive with the listener ready; a veth that is up carries
        nothing until the kernel's link watch has activated it, which may
        wait behind other network work.  Proven first, a slow path only
        delays the row, and a dead one reads as "could not prepare" with
        its reason, never as a broken row.  The warm-up connection is
        logged before any check takes its first reading."""
        end = time.monotonic() + limit
        last = "no attempt"
        while time.monotonic() < end:
            try:
                with socket.create_connection((self.PUBLIC, 80), timeout=1.0):
                    pass
            except OSError as e:
                last = f"{type(e).__name__}: {e}"
                time.sleep(0.2)
                continue
            while time.monotonic() < end:
                if self.tcp_hits() > 0:
                    return True
                time.sleep(0.05)
            last = "connected, but the listener never logged it"
        route = subprocess.run(["ip", "route", "get", self.PUBLIC], capture_output=True, text=True)
        self.error = (f"the runner itself could not reach {self.PUBLIC}:80 within {limit:.0f} s "
                      f"({last}; route: {' '.join((route.stdout or route.stderr).split())})")
        return False

    def tcp_hits(self) -> int:
        return max(0, len((read(self.log, "") or "").splitlines()) - 1)  # first line: ready

    def in_echos(self) -> int | None:
        r = subprocess.run(["ip", "netns", "exec", self.ns, "cat", "/proc/net/snmp"],
                           capture_output=True, text=True)
        return icmp_in_echos(r.stdout)


def serve_tcp(addr: str, port: int, log: str) -> None:
    """--serve-tcp: a listener started inside a NetLab namespace."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(16)
    with open(log, "a", buffering=1) as f:
        f.write("ready\n")
        while True:
            conn, peer = s.accept()
            f.write(f"connection from {peer[0]}:{peer[1]}\n")
            conn.close()


# --------------------------------------------------------------------------
# The run context

class Context:
    def __init__(self, adapter, probes_dir: str, verbose: bool):
        self.adapter = adapter
        self.verbose = verbose
        self.nonce = uuid.uuid4().hex
        self.is_root = os.geteuid() == 0
        self.user = pwd.getpwuid(os.getuid()).pw_name
        home = os.environ.get("HOME") or pwd.getpwuid(os.getuid()).pw_dir
        # Secrets live under $HOME, never /tmp: a private /tmp would hide them
        # for the wrong reason.
        self.root = tempfile.mkdtemp(prefix="porta-escapes-", dir=home)
        self.home = home
        self.cleanup: list = []
        self.bin = os.path.join(self.root, "bin")
        os.mkdir(self.bin)
        for name in os.listdir(probes_dir):
            src = os.path.join(probes_dir, name)
            if os.path.isfile(src) and os.access(src, os.X_OK):
                shutil.copy2(src, os.path.join(self.bin, name))
                os.chmod(os.path.join(self.bin, name), 0o755)
        self.counter = 0

    def probe(self, name: str) -> str:
        path = os.path.join(self.bin, name)
        if not os.path.exists(path):
            raise SystemExit(f"run.py: probe {name} not found in --probes-dir")
        return path

    def fresh(self, label: str) -> str:
        """A new empty directory under the run's root in $HOME."""
        self.counter += 1
        label = re.sub(r"[^A-Za-z0-9_.-]+", "_", label)[:40]
        path = os.path.join(self.root, f"{self.counter:03d}-{label}")
        os.mkdir(path)
        return path

    def env(self, **extra) -> dict:
        env = {"PATH": SYSTEM_PATH, "HOME": self.home, "USER": self.user,
               "LOGNAME": self.user, "LANG": "C.UTF-8", "TERM": "dumb"}
        env.update(extra)
        return env

    def execute(self, argv: list, env: dict | None = None, cwd: str | None = None,
                timeout: float = 60, kill_after: float | None = None,
                stdin=subprocess.DEVNULL, pass_fds=()) -> Run:
        """Run argv with stdout/stderr in files (a leftover daemon holding a
        pipe must not hang the runner), in its own process group."""
        out = tempfile.TemporaryFile(dir=self.root)
        err = tempfile.TemporaryFile(dir=self.root)
        start = time.monotonic()
        proc = subprocess.Popen(argv, stdin=stdin, stdout=out, stderr=err,
                                env=env or self.env(), cwd=cwd or self.root,
                                start_new_session=True, close_fds=True, pass_fds=pass_fds)
        timed_out = False
        try:
            proc.wait(timeout=kill_after if kill_after is not None else timeout)
        except subprocess.TimeoutExpired:
            # kill_after: what a naive `timeout` does to the control: the
            # process group goes, a setsid'd grandchild does not.
            timed_out = kill_after is None
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait()
        duration = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        run = Run(argv, proc.returncode, out.read().decode(errors="replace"),
                  err.read().decode(errors="replace"), duration, timed_out)
        out.close()
        err.close()
        if self.verbose:
            print(f"  $ {' '.join(argv)}\n    rc={run.rc} {duration:.2f}s\n"
                  + "".join(f"    | {l}\n" for l in (run.stdout + run.stderr).splitlines()[:40]),
                  file=sys.stderr)
        return run

    def control(self, argv: list, policy: Policy | None = None, **kw) -> Run:
        if policy is not None and policy.timeout_s is not None:
            kw.setdefault("kill_after", policy.timeout_s)
        return self.execute(argv, **kw)

    def sandboxed(self, policy: Policy, argv: list, wrap: list = (), **kw) -> Run:
        """argv under the sandbox; NotOffered propagates. The probe binaries
        are always granted read-only (strict reads close the home)."""
        policy = dataclasses.replace(policy, mounts=[(self.bin, True)] + list(policy.mounts))
        if getattr(self.adapter, "follows_home", False):
            # A tool that takes the home from the password database, not
            # $HOME, is told which home the row planted (see FirejailAdapter).
            home = (kw.get("env") or self.env()).get("HOME")
            return self.execute(list(wrap) + self.adapter.command(policy, argv, home=home), **kw)
        return self.execute(list(wrap) + self.adapter.command(policy, argv), **kw)

    def sweep(self) -> None:
        """Last resort: nothing started by this run may outlive it."""
        kill_all(pid for pid, _ in processes_with(self.root))
        kill_all(pid for pid, _ in processes_with(self.nonce))


# --------------------------------------------------------------------------
# Rows

ROWS: dict = {}


def row(number: int, title: str, policy: str):
    def register(fn):
        ROWS[number] = (title, policy, fn)
        return fn
    return register


def sh(script: str, *args) -> list:
    return ["/bin/sh", "-c", f"echo {STARTED}; " + script, "sh", *args]


class Background:
    """A run (a ctx.control or ctx.sandboxed call) in a thread of the
    runner, for rows that act on the host while the command runs (bind a
    socket after it started, look at a file while it sleeps).  wait()
    returns the Run, or raises what the call raised (NotOffered)."""

    def __init__(self, call):
        self.run = None
        self.error = None
        self.thread = threading.Thread(target=self._go, args=(call,), daemon=True)
        self.thread.start()

    def _go(self, call):
        try:
            self.run = call()
        except BaseException as e:  # re-raised in the runner's thread
            self.error = e

    def done(self) -> bool:
        return not self.thread.is_alive()

    def linger(self, limit: float) -> None:
        """Sleep limit seconds, or less if the run ends first."""
        self.thread.join(limit)

    def wait(self, limit: float = 120):
        self.thread.join(limit)
        if self.error is not None:
            raise self.error
        return self.run


def wait_for(cond, limit: float, bg: Background | None = None, step: float = 0.02) -> bool:
    """Poll cond() until it holds (True), limit seconds pass or, with bg,
    the background run ends (then cond() is asked once more)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if cond():
            return True
        if bg is not None and bg.done():
            return bool(cond())
        time.sleep(step)
    return bool(cond())


def new_entries(path: str, before: set) -> list:
    try:
        return sorted(set(os.listdir(path)) - before)
    except OSError:
        return ["(directory gone)"]


def pair(ctx: Context, label: str, setup, policy_of, argv_of, evidence, **kw):
    """Run a probe once as the control and once sandboxed, each with a fresh
    set-up. evidence(state, run) -> (escaped, detail). Returns
    (control_escaped, control_detail, sandbox_escaped, sandbox_detail, sbx)."""
    s = setup(ctx.fresh(label + "-control"))
    ctl = ctx.control(argv_of(s), policy_of(s), **kw)
    c_esc, c_det = evidence(s, ctl)
    s = setup(ctx.fresh(label + "-sandbox"))
    sbx = ctx.sandboxed(policy_of(s), argv_of(s), **kw)
    s_esc, s_det = evidence(s, sbx)
    return c_esc, c_det, s_esc, s_det, sbx


def simple(ctx, name, setup, policy_of, argv_of, evidence, control_na=None,
           refusal_is_na=False, **kw) -> Check:
    c_esc, c_det, s_esc, s_det, sbx = pair(ctx, name, setup, policy_of, argv_of, evidence, **kw)
    detail = s_det if s_esc else (c_det if not c_esc else s_det)
    return judge(name, c_esc, s_esc, sbx, detail, control_na=control_na,
                 refusal_is_na=refusal_is_na)


def ws_ug(base: str) -> dict:
    s = {"base": base, "ws": os.path.join(base, "ws"), "ug": os.path.join(base, "ug")}
    os.mkdir(s["ws"])
    os.mkdir(s["ug"])
    with open(os.path.join(s["ws"], "README"), "w") as f:
        f.write("workspace\n")
    return s


