"""netlab: a small internet on one machine, for porta's network tests.

Python 3 standard library only.  The whole lab lives inside ONE throwaway
tree of namespaces that the lab creates itself, so it works the same as root
and as an unprivileged user, and nothing it does can reach a real network:

    test process (host)
     └─ controller, outer        unshare(USER|NET|NS|PID); the test writes its id maps
         └─ reaper, pid 1         lab PID namespace: when it dies, every lab process dies
             └─ controller, pid 2 "client" network namespace, private mounts, event loop
                 └─ holder         keeps the "internet" network namespace alive

  client netns:   lo (127.0.0.1, ::1), eth0 192.0.2.2/24 + 2001:db8:ffff::2/64,
                  default routes to the internet side.  Commands (later: porta)
                  run here, through `nsenter` into the lab's namespaces.
  internet netns: eth0 192.0.2.1/24 + 2001:db8:ffff::1/64, and every other
                  address is local to it (AnyIP: `local 0.0.0.0/0` and
                  `local ::/0` in the local table, the link's own subnets
                  carved out), so servers bind any "public" address they like,
                  ping gets an answer from anywhere, and a connection to an
                  address nothing serves is refused at once instead of
                  hanging.  Every port may be bound without privilege
                  (ip_unprivileged_port_start 0), so a server of the test's
                  own listens on 443 as any user.  Nothing routes onwards
                  from here.

The lab's user namespace maps exactly the caller's identity (uid -> same uid;
as root, every id to itself), so a command run in the lab sees the same uid as
the test process, with no extra privilege when the test is unprivileged.  The
mount namespace covers /etc/resolv.conf (the fake resolver), /etc/hosts
(localhost only) and /etc/nsswitch.conf (hosts: files dns), and hides the host's
nscd and systemd-resolved sockets, so name lookups cannot leave the lab.

Usage:

    with Lab() as lab:
        web = lab.server_http("203.0.113.10", 80)
        tls = lab.server_tls("203.0.113.11", 443, names=["allowed.test", "other.test"])
        lab.dns({"allowed.test": ["203.0.113.11", "2001:db8::11"]}, ttl=60,
                rebind={"rebind.test": ["203.0.113.20", "127.0.0.1"]})
        can = lab.canary("127.0.0.1", 8080)
        rc, out, err = lab.run(["curl", "-sS", "--cacert", lab.ca_file,
                                "https://allowed.test/"])
        assert lab.hits(tls) == 1 and lab.hits(can) == 0
        assert not lab.queries("evil.test")

The API (each server call returns a Server handle; addresses may be IPv6):

    lab.server_http(addr, port=80, label=None, keepalive=False, echo_header=None)
                                                          200 + label for any request
    lab.server_tls(addr, port=443, names=[...], keepalive=False, echo_header=None, flaw=None)
                                                          HTTPS, cert from lab.ca_file, SNI logged;
                                                          echo_header="Authorization": its values
                                                          sent back as X-Echo: and in the body;
                                                          flaw="unknown-ca"|"expired"|"wrong-name":
                                                          a certificate clients must refuse
    lab.server_git(addr, port=None, names=None, token=None, keepalive=False)
                                                          git smart HTTP(S), repo.git (.repo: its
                                                          path); token: Basic auth with that
                                                          password, else 401; push allowed
                                                          (HTTPS handles: .cert, the PEM served)
    lab.server_echo(addr, port, proto="tcp"|"udp")
    lab.canary(addr, port, proto="tcp", side=None)        must-stay-unreached listener
    lab.dns(records, ttl=60, rebind=None, addr=DNS_ADDR)  fake upstream, UDP+TCP, logs queries
    lab.stop(server)
    lab.run(argv, env=None, timeout=30, input=None, cwd=None) -> Completed(rc, out, err)
    lab.popen(argv, ...) / lab.command(argv)              the same, for longer-lived commands
    lab.popen(argv, side="internet", ...)                 a server of the test's own, in the internet
                                                          (any address, any port, even unprivileged)
    lab.env(**extra) / lab.ca_env(**extra)                clean environments for commands
    lab.hits(server), lab.bytes_received(server), lab.requests(server)
                                                          requests: per request method, path as
                                                          sent, headers [(name, value)...], sni,
                                                          status, index on a keep-alive connection
    lab.header_values(server, name)                       every value of one header it received
    lab.make_cert(names, untrusted=False, expired=False)  (cert, key) for a server of the test's own
    lab.canary_hits() -> {"addr:port/proto": n}, lab.queries(name=None), lab.stats()
    lab.reset(), lab.wait_for(predicate, timeout), lab.processes(), lab.close()
    lab.ca_file, lab.other_ca_file (a CA nothing trusts), lab.dns_addr, lab.client_v4,
    lab.client_v6, lab.client_addrs,
    lab.ipv6, lab.home, lab.workdir;  netlab.unavailable_reason()

Counters are exact at the moment of asking: before answering, the controller
accepts every pending connection and reads every pending datagram, and counts
bytes still unread in the kernel.  (A veth delivers synchronously, so what a
client has sent, up to one TCP receive window, is there when its send()
returns; for bulk data still in flight, poll with lab.wait_for().)  The
request log is written by the thread serving a connection when it is done
with it, so lab.requests() polls (the same wait_for) until no connection of
that server is still being served.  Teardown (close(), the context manager, or
atexit) kills the lab's PID 1, and the kernel then kills every process left in
the lab; if the test process itself dies, PR_SET_PDEATHSIG does the same.

Tests share a lab through one fixture (see SharedLab and LabCase below):

    SHARED = netlab.SharedLab(setup)    # setup(lab) -> {name: Server}, once
    class T(netlab.LabCase):            # cls.lab, cls.servers; reset per test
        shared_lab = SHARED             # or: no shared_lab, a lab_setup(cls, lab)
                                        # classmethod and a lab of the class's own
"""

import atexit
import base64
import collections
import contextlib
import ctypes
import fcntl
import ipaddress
import json
import os
import pwd
import select
import selectors
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

# ---------------------------------------------------------------------------
# Addresses

CLIENT_V4, GATEWAY_V4 = "192.0.2.2", "192.0.2.1"              # TEST-NET-1 link
CLIENT_V6, GATEWAY_V6 = "2001:db8:ffff::2", "2001:db8:ffff::1"
DNS_ADDR = "198.51.100.53"                                       # the fake upstream
CLIENT_ADDRS = ("127.0.0.1", "::1", CLIENT_V4, CLIENT_V6)

SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
START_TIMEOUT = 20      # seconds for the lab to come up
RPC_TIMEOUT = 30        # seconds for one controller request

# ---------------------------------------------------------------------------
# Kernel interfaces the standard library lacks (Python 3.11 has no os.unshare)

CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 1 << 18
PR_SET_PDEATHSIG, PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE = 1, 47, 2
IP_FREEBIND, IPV6_FREEBIND = 15, 78
FIONREAD = 0x541B

_libc = ctypes.CDLL(None, use_errno=True)


def _check(ret, what):
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, "%s: %s" % (what, os.strerror(err)))


def _unshare(flags):
    _check(_libc.unshare(ctypes.c_int(flags)), "unshare")


def _setns(fd, nstype):
    _check(_libc.setns(ctypes.c_int(fd), ctypes.c_int(nstype)), "setns")


def _mount(src, target, fstype, flags, data=None):
    enc = lambda s: s.encode() if s is not None else None
    _check(_libc.mount(enc(src), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
           "mount %s" % target)


def _prctl(option, arg2, arg3=0):
    _check(_libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg2), ctypes.c_ulong(arg3),
                       ctypes.c_ulong(0), ctypes.c_ulong(0)), "prctl %d" % option)


def _die_with_parent():
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _raise_ambient_caps():
    """Make every capability this process holds in the lab's user namespace
    survive execve of a non-root uid (so the controller can run `ip`)."""
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)           # _LINUX_CAPABILITY_VERSION_3
    data = (ctypes.c_uint32 * 6)()                          # {effective, permitted, inheritable} x 2
    _check(_libc.capget(header, data), "capget")
    data[2], data[5] = data[1], data[4]                     # inheritable = permitted
    _check(_libc.capset(header, data), "capset")
    with open("/proc/sys/kernel/cap_last_cap") as f:
        last = int(f.read())
    for cap in range(last + 1):
        _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap)


class LabError(Exception):
    pass


# ===========================================================================
# Inside the lab: the controller
# ===========================================================================

def _is_v6(addr):
    return ":" in addr


def _family(addr):
    return socket.AF_INET6 if _is_v6(addr) else socket.AF_INET


def _log(*args):
    print("netlab:", *args, file=sys.stderr, flush=True)


class Service:
    """One listening socket (TCP or UDP) and what reached it.  Counters are
    touched by the loop thread and by connection threads under self.lock."""

    def __init__(self, sid, spec, sock):
        self.id = sid
        self.spec = spec
        self.kind = spec["kind"]
        self.proto = spec.get("proto", "tcp")
        self.sock = sock
        self.lock = threading.Lock()
        self.label = spec.get("label") or "%s %s" % (self.kind, _hostport(spec["addr"], spec["port"]))
        self.live = set()          # open Conns
        self.connections = self.datagrams = self.bytes_in = 0
        self.events = []

    def clear(self):
        """Zero the counters; bytes already queued on open connections are
        not counted again when they are read."""
        with self.lock:
            self.connections = self.datagrams = 0
            self.bytes_in = -sum(conn.unread() for conn in self.live)
            self.events = []

    def snapshot(self):
        with self.lock:
            pending = 0
            for conn in self.live:
                pending += conn.unread()
            return {"id": self.id, "kind": self.kind, "proto": self.proto,
                    "addr": self.spec["addr"], "port": self.spec["port"],
                    "side": self.spec["side"], "label": self.label,
                    "connections": self.connections, "datagrams": self.datagrams,
                    "bytes": self.bytes_in + pending, "events": list(self.events),
                    "open": len(self.live)}


def _hostport(addr, port):
    return "[%s]:%d" % (addr, port) if _is_v6(addr) else "%s:%d" % (addr, port)


class Conn:
    """An accepted TCP connection whose received bytes are counted exactly:
    reads are non-blocking under the service lock, so a snapshot (same lock)
    sees counted bytes plus those still queued in the kernel (FIONREAD)."""

    def __init__(self, service, sock, peer):
        self.service = service
        self.sock = sock
        self.peer = peer
        self.closed = False
        sock.setblocking(False)

    def unread(self):                       # caller holds service.lock
        if self.closed:
            return 0
        buf = bytearray(4)
        try:
            fcntl.ioctl(self.sock.fileno(), FIONREAD, buf)
        except OSError:
            return 0
        return struct.unpack("i", buf)[0]

    def recv(self, n=65536, timeout=10.0):
        """Up to n bytes; b"" on EOF, reset or timeout."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return b""
            try:
                r, _, _ = select.select([self.sock], [], [], left)
            except (OSError, ValueError):
                return b""
            if not r:
                return b""
            with self.service.lock:
                try:
                    data = self.sock.recv(n)
                except BlockingIOError:
                    continue
                except OSError:
                    return b""
                self.service.bytes_in += len(data)
                return data

    def sendall(self, data, timeout=10.0):
        view = memoryview(data)
        deadline = time.monotonic() + timeout
        while view:
            try:
                sent = self.sock.send(view)
                view = view[sent:]
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise OSError("send timed out")
                select.select([], [self.sock], [], left)

    def close(self):
        with self.service.lock:
            if self.closed:
                return
            self.service.bytes_in += self.unread()
            self.closed = True
            self.service.live.discard(self)
        with contextlib.suppress(OSError):
            self.sock.close()


class TLSStream:
    """Server-side TLS over a Conn through memory BIOs, so that the raw bytes
    are what Conn counts."""

    def __init__(self, conn, ctx):
        self.conn = conn
        self.inc, self.out = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.obj = ctx.wrap_bio(self.inc, self.out, server_side=True)

    def _flush(self):
        data = self.out.read()
        if data:
            self.conn.sendall(data)

    def _fill(self):
        data = self.conn.recv()
        if data:
            self.inc.write(data)
        else:
            self.inc.write_eof()
        return bool(data)

    def handshake(self):
        while True:
            try:
                self.obj.do_handshake()
                self._flush()
                return
            except ssl.SSLWantReadError:
                self._flush()
                if not self._fill():
                    raise OSError("EOF during the TLS handshake")

    def recv(self, n=65536, timeout=None):
        while True:
            try:
                return self.obj.read(n)
            except ssl.SSLWantReadError:
                self._flush()
                if not self._fill():
                    return b""
            except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
                return b""

    def sendall(self, data):
        self.obj.write(data)
        self._flush()

    def close(self):
        """Send close_notify (without waiting for the peer's)."""
        with contextlib.suppress(ssl.SSLError, OSError):
            self.obj.unwrap()
        with contextlib.suppress(OSError):
            self._flush()


_tls_local = threading.local()


class HTTPRequest:
    def __init__(self, method, target, version, headers, body):
        self.method, self.target, self.version = method, target, version
        self.headers, self.body = headers, body

    def header(self, name):
        return [v for k, v in self.headers if k.lower() == name.lower()]


def _read_http_request(stream):
    """Reads one request head (and body) from stream; None when the peer
    sent no complete head."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        if len(buf) > 65536:
            return None
        data = stream.recv(65536)
        if not data:
            return None
        buf += data
    head, rest = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        return None
    headers = []
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers.append((name.strip(), value.strip()))
    req = HTTPRequest(parts[0], parts[1], parts[2], headers, b"")
    if any(v.lower() == "chunked" for v in req.header("Transfer-Encoding")):
        body = b""
        while True:
            while b"\r\n" not in rest:
                data = stream.recv(65536)
                if not data:
                    return None
                rest += data
            size_line, rest = rest.split(b"\r\n", 1)
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                # the trailer section: field lines up to an empty line
                while True:
                    while b"\r\n" not in rest:
                        data = stream.recv(65536)
                        if not data:
                            return None
                        rest += data
                    line, rest = rest.split(b"\r\n", 1)
                    if not line:
                        break
                break
            while len(rest) < size + 2:
                data = stream.recv(65536)
                if not data:
                    return None
                rest += data
            body, rest = body + rest[:size], rest[size + 2:]
        req.body = body
        req.rest = rest
    else:
        length = int((req.header("Content-Length") or ["0"])[0])
        while len(rest) < length:
            data = stream.recv(65536)
            if not data:
                return None
            rest += data
        req.body, req.rest = rest[:length], rest[length:]
    return req


class _Pushback:
    """A stream with bytes already read put back in front (the bytes a
    request read past its end: the next pipelined request).  received
    counts the bytes read from the stream itself (after TLS: the HTTP
    bytes)."""

    def __init__(self, stream):
        self.stream, self.rest = stream, b""
        self.received = 0

    def recv(self, n=65536, timeout=None):
        if self.rest:
            data, self.rest = self.rest[:n], self.rest[n:]
            return data
        data = self.stream.recv(n)
        self.received += len(data)
        return data

    def sendall(self, data):
        self.stream.sendall(data)


def _http_response(status, headers, body, close=True, head=False):
    """The response bytes; head (the answer to HEAD): the head alone, with
    the Content-Length the body would have had (RFC 9110, 9.3.2)."""
    out = ["HTTP/1.1 %s" % status] + ["%s: %s" % kv for kv in headers]
    out += ["Content-Length: %d" % len(body)] + (["Connection: close"] if close else []) + ["", ""]
    return "\r\n".join(out).encode("latin-1") + (b"" if head else body)


def _request_record(req):
    """What a request record holds of the request itself (lab.requests())."""
    return {"method": req.method, "path": req.target, "version": req.version,
            "host": req.header("Host"), "headers": [[k, v] for k, v in req.headers],
            "body_length": len(req.body),
            "body": req.body[:REQUEST_BODY_KEPT].decode("latin-1")}


REQUEST_BODY_KEPT = 4096     # bytes of each request body kept in its record


def _basic_auth_user(req, token):
    """The user name of req's one Authorization: Basic header if its
    password is token (any user name: GitHub takes x-access-token:TOKEN),
    else None (no header, several, another scheme, bad base64, another
    password).  RFC 7617, section 2."""
    values = req.header("Authorization")
    if len(values) != 1:
        return None
    scheme, _, credentials = values[0].partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(credentials.strip(), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    user, sep, password = decoded.partition(":")
    if not sep or password != token:
        return None
    return user


# --- DNS wire format --------------------------------------------------------

QTYPES = {1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 12: "PTR", 15: "MX", 16: "TXT",
          28: "AAAA", 33: "SRV", 65: "HTTPS", 255: "ANY"}


def _dns_name_text(labels):
    """Presentation form, case kept: bytes outside printable ASCII, and '.'
    or '\\' inside a label, as \\DDD."""
    out = []
    for label in labels:
        s = ""
        for b in label:
            s += chr(b) if 0x21 <= b <= 0x7e and b not in (0x2e, 0x5c) else "\\%03d" % b
        out.append(s)
    return ".".join(out)


def _dns_parse_query(msg):
    """(id, flags, name_text, qtype, question_bytes) or None."""
    if len(msg) < 12:
        return None
    qid, flags, qd = struct.unpack(">HHH", msg[:6])
    if flags & 0x8000 or qd < 1:
        return None
    pos, labels = 12, []
    while True:
        if pos >= len(msg):
            return None
        n = msg[pos]
        pos += 1
        if n == 0:
            break
        if n & 0xC0 or pos + n > len(msg):
            return None
        labels.append(msg[pos:pos + n])
        pos += n
    if pos + 4 > len(msg):
        return None
    qtype, _qclass = struct.unpack(">HH", msg[pos:pos + 4])
    return qid, flags, _dns_name_text(labels), qtype, msg[12:pos + 4]


class Zone:
    """The fake upstream's records: name -> addresses, '*.name' wildcards, and
    rebinding names whose answers take turns (TTL 0)."""

    def __init__(self):
        self.records, self.rebind, self.ttl = {}, {}, 60
        self.turn = collections.Counter()

    def configure(self, records, rebind, ttl):
        def norm(d):
            return {k.lower().rstrip("."): ([v] if isinstance(v, str) else list(v))
                    for k, v in (d or {}).items()}
        self.records.update(norm(records))
        self.rebind.update(norm(rebind))
        if ttl is not None:
            self.ttl = ttl

    def lookup(self, name, qtype):
        """(rcode, [(type, ttl, rdata)])"""
        key = name.lower().rstrip(".")
        if key in self.rebind:
            values = self.rebind[key]
            fam = 6 if qtype == 28 else 4
            cands = [v for v in values if (ipaddress.ip_address(v).version == fam)]
            if qtype in (1, 28) and cands:
                i = self.turn[(key, qtype)]
                self.turn[(key, qtype)] += 1
                return 0, [(qtype, 0, ipaddress.ip_address(cands[i % len(cands)]).packed)]
            return 0, []
        values = self.records.get(key)
        if values is None:
            labels = key.split(".")
            for i in range(1, len(labels)):
                values = self.records.get("*." + ".".join(labels[i:]))
                if values is not None:
                    break
        if values is None:
            return 3, []                                   # NXDOMAIN
        answers = []
        for v in values:
            ip = ipaddress.ip_address(v)
            t = 1 if ip.version == 4 else 28
            if qtype == t or qtype == 255:
                answers.append((t, self.ttl, ip.packed))
        return 0, answers


def _dns_answer(parsed, zone):
    qid, flags, name, qtype, question = parsed
    rcode, answers = zone.lookup(name, qtype)
    out = struct.pack(">HHHHHH", qid, 0x8400 | (flags & 0x0100) | rcode, 1, len(answers), 0, 0)
    out += question
    for t, ttl, rdata in answers:
        out += struct.pack(">HHHIH", 0xC00C, t, 1, ttl, len(rdata)) + rdata
    return out


# --- the controller ---------------------------------------------------------

class Controller:

    def __init__(self, cfg):
        self.cfg = cfg
        self.sel = selectors.DefaultSelector()
        self.services = {}
        self.next_id = 1
        self.zone = Zone()
        self.queries = []
        self.dns_tcp = {}          # socket -> [service, Conn, unparsed bytes]
        self.canary_conns = {}     # socket -> Conn
        self.rpc_buf = b""
        self.running = True
        self.ipv6 = os.path.isdir("/proc/sys/net/ipv6")

    # --- set-up ---

    def setup_mounts(self):
        _mount(None, "/", None, MS_REC | MS_PRIVATE)
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        etc = self.cfg["etc"]
        for name in ("resolv.conf", "hosts", "nsswitch.conf"):
            target = "/etc/" + name
            if name != "resolv.conf" and not os.path.exists(target):
                continue
            try:
                _mount(os.path.join(etc, name), target, None, MS_BIND)
            except OSError as e:
                raise LabError("cannot cover %s (a dangling symlink?): %s" % (target, e))
        # Name-service daemons reachable through the file system would
        # resolve in the host's network: hide their sockets.
        for d in ("/run/nscd", "/var/run/nscd", "/run/systemd/resolve", "/var/lib/sss/pipes"):
            if os.path.isdir(d) and not os.path.islink(d):
                _mount("tmpfs", d, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=755")

    def _ip_batch(self, lines):
        r = subprocess.run(["ip", "-b", "-"], input="\n".join(lines) + "\n", text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            raise LabError("ip -b failed: %s\n%s" % (r.stdout.strip(), "\n".join(lines)))

    def _sysctl(self, path, value):
        with open("/proc/sys/" + path, "w") as f:
            f.write(value)

    @contextlib.contextmanager
    def in_internet(self):
        _setns(self.inet_fd, CLONE_NEWNET)
        try:
            yield
        finally:
            _setns(self.home_fd, CLONE_NEWNET)

    def setup_network(self):
        self.home_fd = os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        # The internet: a network namespace held by a child that waits for
        # its pipe to close (or for the lab's PID namespace to go).
        r, w = os.pipe()
        hold_r, hold_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                os.close(hold_w)
                _die_with_parent()
                _unshare(CLONE_NEWNET)
                os.write(w, b"k")
                os.read(hold_r, 1)
            finally:
                os._exit(0)
        os.close(w)
        os.close(hold_r)
        self.holder_pipe = hold_w
        self.holder_pid = pid
        if os.read(r, 1) != b"k":
            raise LabError("the internet namespace holder died")
        os.close(r)
        self.inet_fd = os.open("/proc/%d/ns/net" % pid, os.O_RDONLY | os.O_CLOEXEC)

        if self.ipv6:
            for fd in (self.home_fd, self.inet_fd):
                _setns(fd, CLONE_NEWNET)
                self._sysctl("net/ipv6/conf/default/accept_dad", "0")
                self._sysctl("net/ipv6/conf/all/accept_dad", "0")
            _setns(self.home_fd, CLONE_NEWNET)

        # Addresses first; then the internet side up, with its routes; then
        # the client side up, with its default routes (a route through a
        # link needs the link up).
        client = ["link set lo up",
                  "link add name eth0 type veth peer name eth0 netns %d" % pid,
                  "addr add %s/24 dev eth0" % CLIENT_V4]
        # AnyIP: every address is local to the internet, except the link's
        # own subnet (more specific, so the client stays reachable).
        inet = ["link set lo up",
                "addr add %s/24 dev eth0" % GATEWAY_V4,
                "link set eth0 up",
                "route add local 0.0.0.0/0 dev lo table local",
                "route add 192.0.2.0/24 dev eth0 table local"]
        client_up = ["link set eth0 up", "route add default via %s" % GATEWAY_V4]
        if self.ipv6:
            client += ["addr add %s/64 dev eth0 nodad" % CLIENT_V6]
            inet[2:2] = ["addr add %s/64 dev eth0 nodad" % GATEWAY_V6]
            inet += ["route add local ::/0 dev lo table local",
                     "route add 2001:db8:ffff::/64 dev eth0 table local",
                     "route add fe80::/64 dev eth0 table local"]
            client_up += ["route add default via %s" % GATEWAY_V6]
        self._ip_batch(client)
        with self.in_internet():
            self._ip_batch(inet)
            # A server of the test's own (lab.popen(side="internet")) runs
            # as the caller's uid, without capabilities when the caller is
            # unprivileged: every port of the internet is open to it, so it
            # can serve HTTPS on 443 as a real registry does (the kernel's
            # Documentation/networking/ip-sysctl.rst,
            # ip_unprivileged_port_start: it covers IPv6 too).
            self._sysctl("net/ipv4/ip_unprivileged_port_start", "0")
        self._ip_batch(client_up)

    # --- services ---

    def side_for(self, addr, side):
        if side:
            if side not in ("client", "internet"):
                raise LabError("side must be 'client' or 'internet'")
            return side
        ip = ipaddress.ip_address(addr)
        if getattr(ip, "ipv4_mapped", None):
            ip = ip.ipv4_mapped
        if ip.is_loopback or str(ip) in CLIENT_ADDRS:
            return "client"
        return "internet"

    def _socket(self, addr, port, proto, side):
        def make():
            fam = _family(addr)
            s = socket.socket(fam, socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if fam == socket.AF_INET6:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                s.setsockopt(socket.IPPROTO_IPV6, IPV6_FREEBIND, 1)
            else:
                s.setsockopt(socket.IPPROTO_IP, IP_FREEBIND, 1)
            s.bind((addr, port))
            if proto == "tcp":
                s.listen(128)
            s.setblocking(False)
            return s
        if side == "internet":
            with self.in_internet():
                return make()
        return make()

    def op_listen(self, spec):
        if _is_v6(spec["addr"]) and not self.ipv6:
            raise LabError("IPv6 is not available on this host")
        spec["side"] = self.side_for(spec["addr"], spec.get("side"))
        sock = self._socket(spec["addr"], spec["port"], spec.get("proto", "tcp"), spec["side"])
        svc = Service(self.next_id, spec, sock)
        self.next_id += 1
        if svc.kind == "tls":
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(spec["cert"], spec["key"])
            ctx.set_alpn_protocols(["http/1.1"])
            ctx.sni_callback = self._sni_seen
            svc.ctx = ctx
        self.services[svc.id] = svc
        self.sel.register(sock, selectors.EVENT_READ, ("listen", svc))
        return {"id": svc.id, "side": spec["side"], "label": svc.label}

    @staticmethod
    def _sni_seen(sslobj, server_name, ctx):
        rec = getattr(_tls_local, "record", None)
        if rec is not None:
            rec["sni"] = server_name
        return None

    def accept_all(self, svc):
        while True:
            try:
                s, peer = svc.sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as e:
                _log("accept on %s: %s" % (svc.label, e))
                return
            conn = Conn(svc, s, peer)
            with svc.lock:
                svc.connections += 1
                svc.live.add(conn)
            if svc.kind == "canary":
                greeting = "porta-netlab canary %s\n" % _hostport(svc.spec["addr"], svc.spec["port"])
                with contextlib.suppress(OSError):
                    s.send(greeting.encode())
                self.canary_conns[s] = conn
                self.sel.register(s, selectors.EVENT_READ, ("canary-conn", conn))
            elif svc.kind == "dns":
                self.dns_tcp[s] = [svc, conn, b""]
                self.sel.register(s, selectors.EVENT_READ, ("dns-conn", s))
            else:
                threading.Thread(target=self.serve_conn, args=(svc, conn), daemon=True).start()

    def read_canary(self, conn):
        while True:
            with conn.service.lock:
                try:
                    data = conn.sock.recv(65536)
                except BlockingIOError:
                    return
                except OSError:
                    data = b""
                conn.service.bytes_in += len(data)
            if not data:
                self.sel.unregister(conn.sock)
                del self.canary_conns[conn.sock]
                conn.close()
                return

    def read_datagrams(self, svc):
        while True:
            try:
                data, peer = svc.sock.recvfrom(65536)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            with svc.lock:
                svc.datagrams += 1
                svc.bytes_in += len(data)
            if svc.kind == "dns":
                self.dns_message(svc, data, peer, "udp", lambda m, p=peer: svc.sock.sendto(m, p))
            elif svc.kind == "echo":
                with contextlib.suppress(OSError):
                    svc.sock.sendto(data, peer)
            elif svc.kind == "canary":
                with contextlib.suppress(OSError):
                    svc.sock.sendto(b"porta-netlab canary\n", peer)

    def read_dns_tcp(self, s):
        svc, conn, buf = self.dns_tcp[s]
        eof = False
        while True:
            with svc.lock:
                try:
                    data = s.recv(65536)
                except BlockingIOError:
                    break
                except OSError:
                    data = b""
                svc.bytes_in += len(data)
            if not data:
                eof = True
                break
            buf += data
        while len(buf) >= 2:
            n = struct.unpack(">H", buf[:2])[0]
            if len(buf) < 2 + n:
                break
            msg, buf = buf[2:2 + n], buf[2 + n:]
            self.dns_message(svc, msg, conn.peer, "tcp",
                             lambda m: conn.sendall(struct.pack(">H", len(m)) + m))
        self.dns_tcp[s][2] = buf
        if eof:
            self.sel.unregister(s)
            del self.dns_tcp[s]
            conn.close()

    def dns_message(self, svc, msg, peer, transport, reply):
        parsed = _dns_parse_query(msg)
        if parsed is None:
            self.queries.append({"name": None, "type": None, "transport": transport,
                                 "src": peer[0], "server": svc.label, "malformed": True})
            return
        qtype = parsed[3]
        self.queries.append({"name": parsed[2], "type": QTYPES.get(qtype, "TYPE%d" % qtype),
                             "transport": transport, "src": peer[0], "server": svc.label})
        with contextlib.suppress(OSError):
            reply(_dns_answer(parsed, self.zone))

    def serve_conn(self, svc, conn):
        record = {"peer": conn.peer[0]}
        try:
            stream = conn
            if svc.kind == "tls":
                stream = TLSStream(conn, svc.ctx)
                record["sni"] = None
                _tls_local.record = record
                try:
                    stream.handshake()
                except (ssl.SSLError, OSError) as e:
                    record["tls_error"] = str(e)
                    return
                finally:
                    _tls_local.record = None
            if svc.kind == "echo":
                while True:
                    data = stream.recv()
                    if not data:
                        break
                    stream.sendall(data)
                return
            if svc.spec.get("keepalive"):
                self.serve_keepalive(svc, conn, stream, record)
                record = None       # one event per request, none per connection
                if svc.kind == "tls":
                    stream.close()
                return
            req = _read_http_request(stream)
            if req is None:
                record["http_error"] = "no complete request"
                return
            status, reply = self.http_reply(svc, req)
            record.update(_request_record(req), status=status)
            stream.sendall(reply)
            if svc.kind == "tls":
                stream.close()
        except Exception as e:  # one connection's trouble never stops the lab
            record["error"] = "%s: %s" % (type(e).__name__, e)
        finally:
            if record is not None:
                with svc.lock:
                    svc.events.append(record)
            conn.close()

    def serve_keepalive(self, svc, conn, stream, first):
        """Every request of the connection, one event each (with its index
        on the connection), until the client closes: a lenient shared
        virtual-host server that answers each request for whatever Host it
        names and reads on even after "Connection: close"."""
        stream = _Pushback(stream)
        index = 0
        whole = 0           # bytes of the complete requests so far
        while True:
            req = _read_http_request(stream)
            if req is None:
                # a part of a request is bytes that reached the server all
                # the same: a test that counts "nothing arrived" must see it
                partial = stream.received - whole
                if partial:
                    with svc.lock:
                        svc.events.append(dict(first, index=index, partial_bytes=partial,
                                               http_error="incomplete request"))
                return
            stream.rest = req.rest
            whole = stream.received - len(req.rest)
            status, reply = self.http_reply(svc, req, keepalive=True)
            record = dict(first, index=index, status=status, **_request_record(req))
            with svc.lock:
                svc.events.append(record)
            index += 1
            stream.sendall(reply)

    def http_reply(self, svc, req, keepalive=False):
        """(status code, response bytes) for req: git's CGI under a .git/
        path of a git server (after its token check), else 200 with the
        label (and on a keep-alive server the Host) and, with echo_header,
        that request header's values sent back (X-Echo, and the body)."""
        git_root = svc.spec.get("git_root")
        path, _, query = req.target.partition("?")
        if git_root and ".git/" in path + "/":
            user = None
            token = svc.spec.get("token")
            if token is not None:
                user = _basic_auth_user(req, token)
                if user is None:
                    # RFC 9110, section 11.6.1: the challenge that makes git
                    # ask its credential helper and try again
                    return 401, _http_response(
                        "401 Unauthorized", [("Content-Type", "text/plain"),
                                             ("WWW-Authenticate", 'Basic realm="lab"')],
                        b"401: this repository needs a token\n", close=not keepalive,
                        head=req.method == "HEAD")
            return self.git_cgi(git_root, req, path, query, user, close=not keepalive)
        if keepalive:
            body = "%s %s\n" % (svc.label, ",".join(req.header("Host")))
        else:
            body = svc.label + "\n"
        headers = [("Content-Type", "text/plain"), ("X-Netlab-Server", svc.label)]
        echo = svc.spec.get("echo_header")
        if echo:
            values = req.header(echo)
            headers += [("X-Echo", v) for v in values]
            body += "".join("%s: %s\n" % (echo, v) for v in values)
        return 200, _http_response("200 OK", headers, body.encode("latin-1"), close=not keepalive,
                                   head=req.method == "HEAD")

    def git_cgi(self, root, req, path, query, user=None, close=True):
        env = {"PATH": SYSTEM_PATH, "HOME": self.cfg["home"], "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_PROJECT_ROOT": root, "GIT_HTTP_EXPORT_ALL": "1",
               "GATEWAY_INTERFACE": "CGI/1.1", "SERVER_PROTOCOL": "HTTP/1.1",
               "REQUEST_METHOD": req.method, "PATH_INFO": path, "QUERY_STRING": query,
               "REMOTE_ADDR": "192.0.2.2", "CONTENT_LENGTH": str(len(req.body))}
        if user is not None:
            env["REMOTE_USER"] = user
        for name, value in req.headers:
            key = name.upper().replace("-", "_")
            if key in ("CONTENT_TYPE",):
                env[key] = value
            elif key not in ("CONTENT_LENGTH", "TRANSFER_ENCODING"):
                env["HTTP_" + key] = value
        r = subprocess.run(["git", "http-backend"], input=req.body, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        head, _, body = r.stdout.partition(b"\r\n\r\n")
        if not _:
            head, _, body = r.stdout.partition(b"\n\n")
        status, headers = "200 OK", []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = value.strip()
            elif name:
                headers.append((name, value.strip()))
        if r.returncode != 0 and not r.stdout:
            status, body = "500 Internal Server Error", r.stderr
        return int(status.split()[0]), _http_response(status, headers, body, close=close,
                                                      head=req.method == "HEAD")

    # --- snapshot ---

    def sweep(self):
        """Take in everything the kernel holds for the lab's sockets."""
        for svc in list(self.services.values()):
            if svc.proto == "tcp":
                self.accept_all(svc)
            else:
                self.read_datagrams(svc)
        for conn in list(self.canary_conns.values()):
            self.read_canary(conn)
        for s in list(self.dns_tcp):
            self.read_dns_tcp(s)

    def op_stats(self, req):
        self.sweep()
        return {"services": [svc.snapshot() for svc in self.services.values()],
                "queries": list(self.queries)}

    def op_reset(self, req):
        self.sweep()
        for svc in self.services.values():
            svc.clear()
        self.queries = []
        return True

    def op_dns(self, req):
        self.zone.configure(req.get("records"), req.get("rebind"), req.get("ttl"))
        return True

    def op_close(self, req):
        svc = self.services.pop(req["id"])
        self.sel.unregister(svc.sock)
        svc.sock.close()
        return True

    def op_shutdown(self, req):
        self.running = False
        return True

    # --- RPC over stdin/stdout ---

    def emit(self, obj):
        os.write(1, (json.dumps(obj) + "\n").encode())

    def handle_rpc(self):
        try:
            data = os.read(0, 65536)
        except BlockingIOError:
            return
        if not data:
            self.running = False
            return
        self.rpc_buf += data
        while b"\n" in self.rpc_buf:
            line, self.rpc_buf = self.rpc_buf.split(b"\n", 1)
            req = json.loads(line)
            try:
                fn = getattr(self, "op_" + req["op"])
                self.emit({"ok": True, "result": fn(req)})
            except Exception as e:
                self.emit({"ok": False, "error": "%s: %s" % (type(e).__name__, e)})

    def run(self):
        self.setup_mounts()
        self.setup_network()
        os.set_blocking(0, False)
        self.sel.register(0, selectors.EVENT_READ, ("rpc", None))
        # The holder's pid as the lab sees it: the test side finds the same
        # process among its own pids (NSpid in /proc/PID/status) to enter
        # the internet namespace (Lab.command(side="internet")).
        self.emit({"stage": "ready", "ipv6": self.ipv6, "internet_pid": self.holder_pid})
        while self.running:
            for key, _ in self.sel.select(timeout=1.0):
                what, obj = key.data
                if what == "rpc":
                    self.handle_rpc()
                elif what == "listen":
                    (self.accept_all if obj.proto == "tcp" else self.read_datagrams)(obj)
                elif what == "canary-conn":
                    if key.fileobj in self.canary_conns:
                        self.read_canary(obj)
                elif what == "dns-conn":
                    if obj in self.dns_tcp:
                        self.read_dns_tcp(obj)


def _controller_main(cfg):
    """The process the test starts: unshare, wait for the id maps, fork the
    lab's PID 1, and wait for it."""
    _die_with_parent()
    if os.getppid() != cfg["parent"]:
        os._exit(1)
    try:
        _unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWPID)
    except OSError as e:
        os.write(1, (json.dumps({"stage": "failed", "error": "cannot create the lab's namespaces "
                                 "(are unprivileged user namespaces allowed?): %s" % e}) + "\n").encode())
        os._exit(1)
    os.write(1, b'{"stage": "unshared"}\n')
    line = b""
    while not line.endswith(b"\n"):
        chunk = os.read(0, 1)
        if not chunk:
            os._exit(1)
        line += chunk
    if os.geteuid() != 0:
        _raise_ambient_caps()
    pid1 = os.fork()
    if pid1 == 0:
        _die_with_parent()
        worker = os.fork()
        if worker == 0:
            _die_with_parent()
            code = 0
            try:
                Controller(cfg).run()
            except BaseException as e:
                _log("controller failed: %s: %s" % (type(e).__name__, e))
                with contextlib.suppress(OSError):
                    os.write(1, (json.dumps({"stage": "failed", "error": str(e)}) + "\n").encode())
                code = 1
            os._exit(code)
        # PID 1: reap orphans until the controller is gone; the kernel then
        # kills whatever else remains in the lab.
        devnull = os.open("/dev/null", os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        while True:
            try:
                pid, status = os.wait()
            except ChildProcessError:
                os._exit(0)
            if pid == worker:
                os._exit(os.waitstatus_to_exitcode(status) & 0xff)
    os.write(1, (json.dumps({"stage": "forked", "pid1": pid1}) + "\n").encode())
    devnull = os.open("/dev/null", os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    _, status = os.waitpid(pid1, 0)
    os._exit(os.waitstatus_to_exitcode(status) & 0xff)


# ===========================================================================
# Outside the lab: the test's side
# ===========================================================================

class Server:
    """A handle on one lab listener (what lab.server_*() and lab.canary()
    return); pass it to lab.hits(), lab.bytes_received(), lab.requests()."""

    def __init__(self, lab, sid, kind, addr, port, proto, side, label):
        self.lab, self.id, self.kind = lab, sid, kind
        self.addr, self.port, self.proto, self.side, self.label = addr, port, proto, side, label
        self.repo = None        # server_git(): the served bare repository's path
        self.cert = None        # HTTPS servers: the certificate's PEM file

    @property
    def hostport(self):
        return _hostport(self.addr, self.port)

    def __repr__(self):
        return "<netlab %s %s/%s on the %s side>" % (self.kind, self.hostport, self.proto, self.side)


Completed = collections.namedtuple("Completed", "rc out err")

REQUESTS_WAIT = 10      # seconds requests() waits for connections still being served
WRONG_NAME = "elsewhere.example"    # the only name on server_tls(flaw="wrong-name")'s certificate


def wait_for(predicate, timeout=5.0, interval=0.02):
    """Polls predicate() until it is true (returns True) or timeout seconds
    pass (returns False); predicate() is asked at least once.  The one wait
    of the lab's users: for data still in flight to a canary or server
    (lab.wait_for) and for the request log (lab.requests)."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


_LIVE = set()        # labs not closed yet: atexit closes them


@atexit.register
def _close_all():
    for lab in list(_LIVE):
        lab.close()


def _lab_base():
    home = os.environ.get("HOME") or ""
    if not home or not os.path.isdir(home) or not os.access(home, os.W_OK) \
            or os.path.realpath(home) == "/tmp" or os.path.realpath(home).startswith("/tmp/"):
        home = pwd.getpwuid(os.getuid()).pw_dir
    base = os.path.join(home, ".cache", "porta-netlab")
    os.makedirs(base, exist_ok=True)
    return os.path.realpath(base)


def _process_start(pid):
    """A token for process pid (its start time), None if it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _remove_stale(base):
    """Remove lab directories under base whose owner process is gone (a test
    killed before it could clean up)."""
    for name in os.listdir(base):
        path = os.path.join(base, name)
        try:
            with open(os.path.join(path, "owner")) as f:
                pid, start = f.read().split()
        except (OSError, ValueError):
            continue
        if _process_start(int(pid)) != start:
            shutil.rmtree(path, ignore_errors=True)


class Lab:
    """The small internet.  Starts in the constructor; close() (or leaving
    the `with` block, or interpreter exit) tears it all down.

    The lab's files (CA, certificates, repositories, its /etc files, the
    controller's log, a HOME for commands) go in lab.workdir, a fresh
    directory under parent (default ~/.cache/porta-netlab: not /tmp, so that
    a sandbox with a private /tmp still sees lab.ca_file).  keep=True (or
    NETLAB_KEEP=1 in the environment) leaves it behind for debugging."""

    def __init__(self, parent=None, keep=None):
        self.keep = bool(os.environ.get("NETLAB_KEEP")) if keep is None else keep
        parent = parent or _lab_base()
        _remove_stale(parent)
        self.workdir = os.path.realpath(tempfile.mkdtemp(prefix="lab-", dir=parent))
        with open(os.path.join(self.workdir, "owner"), "w") as f:
            f.write("%d %s\n" % (os.getpid(), _process_start(os.getpid())))
        self.home = os.path.join(self.workdir, "home")
        self.etc = os.path.join(self.workdir, "etc")
        self.resolv_conf = os.path.join(self.etc, "resolv.conf")
        self.log_file = os.path.join(self.workdir, "controller.log")
        self.dns_addr = DNS_ADDR
        self.client_v4, self.client_v6 = CLIENT_V4, CLIENT_V6
        self.client_addrs = CLIENT_ADDRS
        self.ca_file = os.path.join(self.workdir, "ca.pem")
        self._lock = threading.Lock()
        self._procs = []
        self._dns_servers = {}
        self._repos = 0
        self.proc = None
        self.pid1 = None
        self.internet_pid = None
        self.userns = None
        self.closed = False
        _LIVE.add(self)
        try:
            os.makedirs(self.home)
            os.makedirs(self.etc)
            self._write_etc()
            self._make_ca()
            self._start()
        except BaseException:
            self.close()
            raise

    # --- lifecycle ---

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _write_etc(self):
        with open(self.resolv_conf, "w") as f:
            f.write("nameserver %s\noptions timeout:2 attempts:2\n" % DNS_ADDR)
        with open(os.path.join(self.etc, "hosts"), "w") as f:
            f.write("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
        lines = []
        with contextlib.suppress(OSError), open("/etc/nsswitch.conf") as f:
            lines = [l for l in f.read().splitlines() if not l.startswith("hosts:")]
        with open(os.path.join(self.etc, "nsswitch.conf"), "w") as f:
            f.write("\n".join(lines + ["hosts: files dns", ""]))

    def _start(self):
        cfg = {"parent": os.getpid(), "etc": self.etc, "home": self.home}
        log = open(self.log_file, "ab")
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-B", os.path.abspath(__file__), "--controller", json.dumps(cfg)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, close_fds=True,
                env={"PATH": SYSTEM_PATH, "LANG": "C.UTF-8", "HOME": self.home,
                     "PYTHONDONTWRITEBYTECODE": "1"})
        finally:
            log.close()
        self._rbuf = b""
        deadline = time.monotonic() + START_TIMEOUT
        self._expect("unshared", deadline)
        self._write_id_maps(self.proc.pid)
        self.proc.stdin.write(b"mapped\n")
        self.proc.stdin.flush()
        got = {}
        while "forked" not in got or "ready" not in got:
            msg = self._read_msg(deadline)
            if msg.get("stage") == "failed":
                raise LabError("the lab did not start: %s\n%s" % (msg.get("error"), self.controller_log()))
            got[msg.get("stage")] = msg
        self.pid1 = got["forked"]["pid1"]
        self.ipv6 = got["ready"]["ipv6"]
        self.userns = os.readlink("/proc/%d/ns/user" % self.pid1)
        self.internet_pid = self._host_pid(got["ready"]["internet_pid"])

    def _host_pid(self, lab_pid):
        """The host pid of the lab process whose pid in the lab's PID
        namespace is lab_pid (the last NSpid field, proc(5))."""
        for pid in self.processes():
            with contextlib.suppress(OSError, ValueError):
                with open("/proc/%d/status" % pid) as f:
                    for line in f:
                        if line.startswith("NSpid:"):
                            if int(line.split()[-1]) == lab_pid:
                                return pid
                            break
        raise LabError("cannot find the internet namespace's holder (lab pid %d)" % lab_pid)

    def _write_id_maps(self, pid):
        uid, gid = os.geteuid(), os.getegid()
        if uid == 0:
            umap, gmap = "0 0 4294967295\n", "0 0 4294967295\n"
        else:
            with open("/proc/%d/setgroups" % pid, "w") as f:
                f.write("deny")
            umap, gmap = "%d %d 1\n" % (uid, uid), "%d %d 1\n" % (gid, gid)
        with open("/proc/%d/uid_map" % pid, "w") as f:
            f.write(umap)
        with open("/proc/%d/gid_map" % pid, "w") as f:
            f.write(gmap)

    def _read_msg(self, deadline):
        while b"\n" not in self._rbuf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise LabError("the lab controller did not answer in time\n" + self.controller_log())
            r, _, _ = select.select([self.proc.stdout], [], [], left)
            if r:
                data = os.read(self.proc.stdout.fileno(), 65536)
                if not data:
                    raise LabError("the lab controller exited (status %r)\n%s"
                                   % (self.proc.poll(), self.controller_log()))
                self._rbuf += data
        line, self._rbuf = self._rbuf.split(b"\n", 1)
        return json.loads(line)

    def _expect(self, stage, deadline):
        msg = self._read_msg(deadline)
        if msg.get("stage") == "failed":
            raise LabError("the lab did not start: %s\n%s" % (msg.get("error"), self.controller_log()))
        if msg.get("stage") != stage:
            raise LabError("lab start: expected %s, got %r\n%s" % (stage, msg, self.controller_log()))

    def controller_log(self):
        with contextlib.suppress(OSError), open(self.log_file, errors="replace") as f:
            return f.read()[-4000:]
        return ""

    def _rpc(self, op, **args):
        if self.closed:
            raise LabError("the lab is closed")
        with self._lock:
            args["op"] = op
            self.proc.stdin.write((json.dumps(args) + "\n").encode())
            self.proc.stdin.flush()
            msg = self._read_msg(time.monotonic() + RPC_TIMEOUT)
        if not msg.get("ok"):
            raise LabError("%s: %s" % (op, msg.get("error")))
        return msg["result"]

    def close(self):
        """Tear everything down; safe to call twice."""
        if self.closed:
            return
        self.closed = True
        _LIVE.discard(self)
        # The lab goes first: its PID 1 takes every lab process with it, and
        # each `nsenter` of popen()/run() then reaps its child and exits.
        # (Killing an nsenter first would leave its child's zombie to the
        # host's init, and the lab's PID 1 waits for that reaping.)
        if self.proc is not None:
            if self.proc.poll() is None:
                with contextlib.suppress(OSError, ValueError):
                    self.proc.stdin.write(b'{"op": "shutdown"}\n')
                    self.proc.stdin.flush()
                try:
                    self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            for f in (self.proc.stdin, self.proc.stdout):
                with contextlib.suppress(OSError):
                    f.close()
        for p in self._procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        if self.pid1 is not None:
            # PID 1 dies with the outer controller (PR_SET_PDEATHSIG), and the
            # kernel kills the rest of the lab's PID namespace with it: wait
            # until no process of the lab's user namespace is left.
            deadline = time.monotonic() + 5
            while self.processes() and time.monotonic() < deadline:
                time.sleep(0.01)
        if self.keep:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(self.workdir, "owner"))   # not stale: kept on purpose
        else:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def processes(self):
        """Host pids of live (not zombie) processes inside the lab's user
        namespace: every process the lab started, and anything they started."""
        found = []
        if not self.userns:
            return found
        for name in os.listdir("/proc"):
            if name.isdigit():
                with contextlib.suppress(OSError, IndexError):
                    if os.readlink("/proc/%s/ns/user" % name) == self.userns:
                        with open("/proc/%s/stat" % name) as f:
                            if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                                found.append(int(name))
        return found

    # --- certificates and repositories (made on the host side) ---

    def _openssl(self, *args):
        r = subprocess.run(["openssl"] + list(args), capture_output=True, text=True,
                           cwd=self.workdir)
        if r.returncode != 0:
            raise LabError("openssl %s: %s" % (" ".join(args[:2]), r.stderr.strip()))

    def _make_ca(self):
        self.ca_key = os.path.join(self.workdir, "ca.key")
        self._openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                      "-nodes", "-days", "2", "-subj", "/CN=porta netlab test CA",
                      "-addext", "basicConstraints=critical,CA:TRUE",
                      "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                      "-keyout", self.ca_key, "-out", self.ca_file)
        self._certs = 0
        self._other = None

    def make_cert(self, names, untrusted=False, expired=False):
        """A leaf certificate for names (DNS names or IP addresses), valid
        from now for two days, signed by the lab CA; returns (cert_path,
        key_path).  untrusted: signed by a second CA instead
        (lab.other_ca_file), one no client is told to trust.  expired:
        valid from three days ago until yesterday (notAfter in the past;
        see _sign_dated for how)."""
        self._certs += 1
        base = os.path.join(self.workdir, "leaf%d" % self._certs)
        ca_file, ca_key = self._other_ca() if untrusted else (self.ca_file, self.ca_key)
        san = ",".join(("IP:" if _looks_ip(n) else "DNS:") + n for n in names)
        self._openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                      "-nodes", "-subj", "/CN=%s" % names[0], "-addext", "subjectAltName=" + san,
                      "-keyout", base + ".key", "-out", base + ".csr")
        if expired:
            now = time.time()
            self._sign_dated(base + ".csr", base + ".pem", ca_file, ca_key,
                             now - 3 * 86400, now - 86400)
        else:
            self._openssl("x509", "-req", "-in", base + ".csr", "-CA", ca_file, "-CAkey", ca_key,
                          "-CAcreateserial", "-days", "2", "-copy_extensions", "copy",
                          "-out", base + ".pem")
        return base + ".pem", base + ".key"

    def _sign_dated(self, csr, out, ca_file, ca_key, not_before, not_after):
        """Signs csr with explicit notBefore/notAfter (Unix times), which
        may lie in the past.  OpenSSL 3.0 (Debian 12's) cannot do that with
        `x509 -req` (-days must be positive; -not_before/-not_after came
        in 3.4), but `openssl ca` takes -startdate/-enddate: it needs a
        configuration and a database, made here once per lab (openssl-ca(1))."""
        db = os.path.join(self.workdir, "ca-db")
        conf = os.path.join(db, "ca.cnf")
        if not os.path.exists(conf):
            os.makedirs(db)
            open(os.path.join(db, "index.txt"), "w").close()
            with open(os.path.join(db, "serial"), "w") as f:
                f.write("1000\n")
            with open(conf, "w") as f:
                f.write("[ca]\ndefault_ca = lab\n"
                        "[lab]\ndatabase = %s/index.txt\nnew_certs_dir = %s\n"
                        "serial = %s/serial\ndefault_md = sha256\npolicy = any\n"
                        "copy_extensions = copy\nunique_subject = no\n"
                        "[any]\ncommonName = supplied\n" % (db, db, db))
        stamp = lambda t: time.strftime("%Y%m%d%H%M%SZ", time.gmtime(t))
        self._openssl("ca", "-batch", "-notext", "-config", conf, "-cert", ca_file,
                      "-keyfile", ca_key, "-in", csr, "-out", out,
                      "-startdate", stamp(not_before), "-enddate", stamp(not_after))

    @property
    def other_ca_file(self):
        """A second CA's certificate (made on first use): what signs
        make_cert(untrusted=True) and server_tls(flaw="unknown-ca"); no
        client is given it unless a test does so on purpose."""
        return self._other_ca()[0]

    def _other_ca(self):
        if self._other is None:
            cert = os.path.join(self.workdir, "other-ca.pem")
            key = os.path.join(self.workdir, "other-ca.key")
            self._openssl("req", "-x509", "-newkey", "ec", "-pkeyopt",
                          "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                          "-subj", "/CN=porta netlab untrusted CA",
                          "-addext", "basicConstraints=critical,CA:TRUE",
                          "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                          "-keyout", key, "-out", cert)
            self._other = (cert, key)
        return self._other

    def git_repo(self, name="repo.git", files=None, root=None):
        """A bare repository root/name with one commit on main holding files
        (default: a README); returns root (the GIT_PROJECT_ROOT)."""
        root = root or os.path.join(self.workdir, "git")
        path = os.path.join(root, name)
        files = files or {"README": "hello from the porta netlab\n"}
        env = {"PATH": SYSTEM_PATH, "HOME": self.home, "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_AUTHOR_NAME": "netlab", "GIT_AUTHOR_EMAIL": "netlab@example.test",
               "GIT_COMMITTER_NAME": "netlab", "GIT_COMMITTER_EMAIL": "netlab@example.test",
               "GIT_AUTHOR_DATE": "2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z"}

        def git(*args, input=None):
            r = subprocess.run(["git", "--git-dir", path] + list(args), input=input, env=env,
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise LabError("git %s: %s" % (args[0], r.stderr.strip()))
            return r.stdout.strip()
        os.makedirs(root, exist_ok=True)
        subprocess.run(["git", "init", "-q", "--bare", path], env=env, check=True)
        entries = ""
        for fname, text in sorted(files.items()):
            blob = git("hash-object", "-w", "--stdin", input=text)
            entries += "100644 blob %s\t%s\n" % (blob, fname)
        tree = git("mktree", input=entries)
        commit = git("commit-tree", tree, "-m", "netlab fixture")
        git("update-ref", "refs/heads/main", commit)
        git("symbolic-ref", "HEAD", "refs/heads/main")
        return root

    # --- servers ---

    def _listen(self, kind, addr, port, proto="tcp", side=None, label=None, **extra):
        addr = str(ipaddress.ip_address(addr))
        res = self._rpc("listen", kind=kind, addr=addr, port=int(port), proto=proto, side=side,
                        label=label, **extra)
        return Server(self, res["id"], kind, addr, int(port), proto, res["side"], res["label"])

    def server_http(self, addr, port=80, label=None, keepalive=False, echo_header=None):
        """A plain HTTP server answering every request with 200 and its label
        (default "http ADDR:PORT") as the body; requests are recorded.
        keepalive: every request of a connection is answered and recorded
        (one event per request, with "index" on its connection, whatever
        Host it names, "Connection: close" or not), until the client
        closes, and the body is "LABEL HOST"; otherwise one request per
        connection.  echo_header: see server_tls()."""
        return self._listen("http", addr, port, label=label, keepalive=bool(keepalive),
                            echo_header=echo_header)

    def server_tls(self, addr, port=443, names=("allowed.test",), label=None, keepalive=False,
                   echo_header=None, flaw=None):
        """An HTTPS server with one certificate (signed by lab.ca_file) for
        all names; records each connection's SNI (None without one), and
        each request as server_http() does (keepalive the same too).

        echo_header="Authorization": each value of that request header
        (duplicates kept, in order) is sent back as a response header
        "X-Echo: VALUE" and as a body line "Authorization: VALUE" after the
        label line.  Both carry the value exactly as the server received
        it: through a proxy that swaps a placeholder for a real secret on
        the way out and back in response headers only (as porta does), X-Echo
        shows the placeholder again while the body shows the real value.

        flaw: a certificate a verifying client must refuse, each for one
        reason only: "unknown-ca" (for names, valid, but signed by
        lab.other_ca_file), "expired" (for names, signed by the lab CA,
        notAfter yesterday), "wrong-name" (signed by the lab CA, valid, but
        for WRONG_NAME only, not for names)."""
        names = list(names)
        if flaw is None:
            cert, key = self.make_cert(names)
        elif flaw == "unknown-ca":
            cert, key = self.make_cert(names, untrusted=True)
        elif flaw == "expired":
            cert, key = self.make_cert(names, expired=True)
        elif flaw == "wrong-name":
            cert, key = self.make_cert([WRONG_NAME])
        else:
            raise LabError("flaw must be None, 'unknown-ca', 'expired' or 'wrong-name'")
        srv = self._listen("tls", addr, port, label=label, cert=cert, key=key,
                           keepalive=bool(keepalive), echo_header=echo_header)
        srv.cert = cert
        return srv

    def server_echo(self, addr, port, proto="tcp", label=None):
        """Echoes what it receives (TCP stream or UDP datagrams)."""
        return self._listen("echo", addr, port, proto=proto, label=label)

    def server_git(self, addr, port=None, repo="repo.git", files=None, names=None, label=None,
                   token=None, keepalive=False):
        """Git smart HTTP (`git http-backend`) for a fresh bare repository:
        `git clone http://NAME/repo.git`; with names (certificate names),
        over HTTPS instead (port 443 by default; clients need
        GIT_SSL_CAINFO=lab.ca_file, see ca_env()).  Other paths answer like
        server_http().  Every request is recorded (see requests()); with
        keepalive, every request of a connection (see server_http()).

        token: every path under the repository needs an Authorization:
        Basic header whose password is token (any user name, as GitHub
        takes x-access-token:TOKEN), else 401 with WWW-Authenticate: Basic
        realm="lab" (so git asks its credential helper and tries again);
        push is on (http.receivepack), as the authenticated user.  The
        handle's .repo is the bare repository's path (to check a push)."""
        root = os.path.join(self.workdir, "git%d" % self._next_repo())
        self.git_repo(repo, files, root=root)
        path = os.path.join(root, repo)
        if token is not None:
            subprocess.run(["git", "--git-dir", path, "config", "http.receivepack", "true"],
                           env={"PATH": SYSTEM_PATH, "HOME": self.home,
                                "GIT_CONFIG_NOSYSTEM": "1"}, check=True)
        extra = dict(git_root=root, token=token, keepalive=bool(keepalive))
        if names:
            cert, key = self.make_cert(list(names))
            srv = self._listen("tls", addr, port or 443, label=label, cert=cert, key=key, **extra)
            srv.cert = cert
        else:
            srv = self._listen("http", addr, port or 80, label=label, **extra)
        srv.repo = path
        return srv

    def _next_repo(self):
        self._repos += 1
        return self._repos

    def canary(self, addr, port, proto="tcp", side=None, label=None):
        """A listener that must never be reached: counts connections (or
        datagrams) and bytes, and greets a connection with one line
        "porta-netlab canary ADDR:PORT".  Loopback and the client's own
        addresses are on the client side (where porta runs), every other
        address in the internet; side= overrides ("client" or "internet").
        0.0.0.0 / :: in the internet catch every address on that port."""
        return self._listen("canary", addr, port, proto=proto, side=side, label=label)

    def dns(self, records=None, ttl=60, rebind=None, addr=DNS_ADDR, port=53):
        """The fake authoritative upstream on addr:port, UDP and TCP.
        records: {"name": "ip" or [ips]} (IPv4 -> A, IPv6 -> AAAA; "*.x"
        matches below x); rebind: {"name": [ips]} answered with TTL 0, the
        answers taking turns per query type.  Other names get NXDOMAIN, other
        types an empty answer.  Every query is logged (lab.queries()).  The
        zone is shared by every DNS server of the lab; calling dns() again
        adds to it (and starts a server on a new addr)."""
        self._rpc("dns", records=records or {}, rebind=rebind or {}, ttl=ttl)
        key = (str(ipaddress.ip_address(addr)), int(port))
        if key not in self._dns_servers:
            self._dns_servers[key] = (self._listen("dns", addr, port, proto="udp"),
                                      self._listen("dns", addr, port, proto="tcp"))
        return self._dns_servers[key][0]

    def stop(self, server):
        """Close one listener (later connections are refused)."""
        self._rpc("close", id=server.id)

    # --- observations ---

    def stats(self):
        """Everything at this instant: {"services": [...], "queries": [...]}."""
        return self._rpc("stats")

    def _one(self, server):
        for s in self.stats()["services"]:
            if s["id"] == server.id:
                return s
        raise LabError("no such server: %r" % (server,))

    def hits(self, server):
        """Connections accepted (TCP) or datagrams received (UDP) by server."""
        s = self._one(server)
        return s["connections"] + s["datagrams"]

    def bytes_received(self, server):
        """Bytes server received (read or still queued), over all connections."""
        return self._one(server)["bytes"]

    def requests(self, server, wait=REQUESTS_WAIT):
        """One record per finished connection (on a keepalive server, one
        per request instead, with its "index" on the connection): peer, and
        for TLS sni (None without one); for HTTP(S) the request head as
        received: method, path (the request target as sent, query
        included), version, host (every Host header), headers (every
        header line as (name, value) in order, duplicates kept, names as
        sent, values without surrounding whitespace), body_length and body
        (its first REQUEST_BODY_KEPT bytes, as latin-1 text), and the
        status code answered; errors as *_error keys (tls_error,
        http_error, error).  On a keepalive server, bytes after the last
        complete request (a head or body cut short) are one more record:
        http_error "incomplete request", partial_bytes their count.

        A connection's record is written when the lab has finished serving
        it, which can be a moment after the client has exited (a TLS
        handshake the client gave up on, a reply the client read before the
        server thread got to the log): so this polls (wait_for) until the
        server has no connection still being served, for at most wait
        seconds, and the log then holds every connection made so far.
        wait=0 reads the log as it is at this instant."""
        last = {}

        def served():
            last["s"] = self._one(server)
            return last["s"]["open"] == 0
        wait_for(served, wait)
        records = last["s"]["events"]
        for r in records:
            if "headers" in r:
                r["headers"] = [tuple(h) for h in r["headers"]]
        return records

    def header_values(self, server, name):
        """Every value of header name (case-insensitive) that server
        received, over all its requests so far, in order."""
        return [v for r in self.requests(server) for k, v in r.get("headers", ())
                if k.lower() == name.lower()]

    def canary_hits(self):
        """{"ADDR:PORT/proto": hits} for every canary that was reached."""
        out = {}
        for s in self.stats()["services"]:
            n = s["connections"] + s["datagrams"]
            if s["kind"] == "canary" and (n or s["bytes"]):
                out["%s/%s" % (_hostport(s["addr"], s["port"]), s["proto"])] = n
        return out

    def queries(self, name=None, below=True):
        """Queries the fake upstream saw, oldest first: dicts with name (as
        sent, case kept), type, transport ("udp"/"tcp"), src, server.  With
        name: only those for name (case-insensitive) or, with below=True,
        any name under it."""
        qs = self.stats()["queries"]
        if name is None:
            return qs
        want = name.lower().rstrip(".")

        def match(q):
            n = (q["name"] or "").lower().rstrip(".")
            return n == want or (below and n.endswith("." + want))
        return [q for q in qs if match(q)]

    def wait_for(self, predicate, timeout=5.0, interval=0.02):
        """Polls predicate() until it is true (returns True) or timeout
        seconds pass (returns False): netlab.wait_for().  For positive checks
        of data still in flight; a count that must stay zero needs no
        waiting: a refused connection never gets as far as the lab's kernel."""
        return wait_for(predicate, timeout, interval)

    def reset(self):
        """Forget every count, request and query so far (the servers stay)."""
        self._rpc("reset")

    # --- running commands in the lab ---

    def env(self, **extra):
        """A minimal environment for a command in the lab (no proxy
        variables); values of None remove a variable."""
        user = pwd.getpwuid(os.getuid()).pw_name
        env = {"PATH": SYSTEM_PATH, "HOME": self.home, "USER": user, "LOGNAME": user,
               "LANG": "C.UTF-8", "TERM": "dumb", "GIT_CONFIG_NOSYSTEM": "1"}
        for k, v in extra.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        return env

    def ca_env(self, **extra):
        """env() plus the variables that make common clients trust the lab CA."""
        return self.env(SSL_CERT_FILE=self.ca_file, CURL_CA_BUNDLE=self.ca_file,
                        GIT_SSL_CAINFO=self.ca_file, REQUESTS_CA_BUNDLE=self.ca_file, **extra)

    def command(self, argv, cwd=None, side="client"):
        """argv wrapped to run in the lab's client namespaces, as our own uid.
        side="internet": in the internet's network namespace instead (same
        user, mount and PID namespaces), where a server of the test's own
        binds any public address (AnyIP) and any port, and answers the
        client side."""
        if side not in ("client", "internet"):
            raise LabError("side must be 'client' or 'internet'")
        target = self.pid1 if side == "client" else self.internet_pid
        return ["nsenter", "--target", str(target), "--user", "--net", "--mount", "--pid",
                "--preserve-credentials", "--wd=%s" % (cwd or os.getcwd()), "--"] + list(argv)

    def popen(self, argv, env=None, cwd=None, side="client", **kw):
        """subprocess.Popen of argv in the lab (on side, see command()), in
        its own process group; killed at close() if still running."""
        kw.setdefault("stdin", subprocess.DEVNULL)
        p = subprocess.Popen(self.command(argv, cwd, side),
                             env=env if env is not None else self.env(),
                             start_new_session=True, close_fds=True, **kw)
        self._procs.append(p)
        return p

    def _kill(self, p):
        """Kill what p (an nsenter) runs, in its process group, and then p:
        nsenter reaps its child itself, so no zombie of the lab is left to
        the host's init."""
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) != p.pid:
                with contextlib.suppress(OSError, IndexError, ValueError):
                    with open("/proc/%s/stat" % name) as f:
                        if int(f.read().rsplit(")", 1)[1].split()[2]) == p.pid:   # pgrp
                            os.kill(int(name), signal.SIGKILL)
        try:
            p.wait(timeout=2)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()

    def run(self, argv, env=None, timeout=30, input=None, cwd=None):
        """Runs argv in the lab to completion: Completed(rc, out, err), which
        unpacks as (rc, stdout, stderr), text.  On timeout the process group
        is killed and rc is None."""
        if self.closed:
            raise LabError("the lab is closed")
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            p = self.popen(argv, env=env, cwd=cwd, stdout=out, stderr=err,
                           stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL)
            if input is not None:
                with contextlib.suppress(BrokenPipeError):
                    p.stdin.write(input.encode() if isinstance(input, str) else input)
                p.stdin.close()
            rc = None
            try:
                rc = p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self._kill(p)
            self._procs.remove(p)
            out.seek(0)
            err.seek(0)
            o, e = out.read().decode(errors="replace"), err.read().decode(errors="replace")
        if rc is None:
            e += "\n[netlab: killed after %ss]" % timeout
        return Completed(rc, o, e)


def unavailable_reason():
    """None if this host can run a Lab, else why not (for a skip message on
    hosts that refuse unprivileged user namespaces)."""
    for tool in ("ip", "nsenter", "unshare", "openssl"):
        if not shutil.which(tool, path=SYSTEM_PATH):
            return "%s is not installed" % tool
    r = subprocess.run(["unshare", "--user", "--map-root-user", "--net", "--mount", "--pid",
                        "--fork", "true"], capture_output=True, text=True)
    if r.returncode != 0:
        return "cannot create user, network, mount and PID namespaces: %s" % r.stderr.strip()
    return None


class LabUnavailable(LabError):
    """This host cannot make a lab at all (unavailable_reason() said why)."""


class LabDidNotStart(LabError):
    """Making the lab failed on a host that should be able to."""


class SharedLab:
    """One lab for several tests: made on first get(), populated once by
    setup(lab) (servers, canaries, DNS records; it returns {name: Server}
    or None), kept until close().  A test module, a test class or the escape
    corpus's whole run holds one.

    get() returns the lab, or raises: LabUnavailable ("the netlab cannot
    run here: WHY") when this host cannot make one, LabDidNotStart ("the
    netlab did not start: ...") when making it failed, or whatever setup()
    raised.  Each happens at most once: later calls raise the same again
    rather than trying anew."""

    def __init__(self, setup=None):
        self.setup = setup
        self.lab = None
        self.servers = {}
        self.error = None

    def get(self):
        if self.lab is None and self.error is None:
            self.error = self._make()
        if self.error is not None:
            raise self.error
        return self.lab

    def _make(self):
        why = unavailable_reason()
        if why:
            return LabUnavailable("the netlab cannot run here: %s" % why)
        try:
            lab = Lab()
        except Exception as e:
            return LabDidNotStart("the netlab did not start: %s" % e)
        try:
            self.servers = dict(self.setup(lab) or {}) if self.setup else {}
        except BaseException as e:
            lab.close()
            if not isinstance(e, Exception):
                raise
            return e
        self.lab = lab
        return None

    def close(self):
        """Tear the lab down (if it was made); safe to call twice."""
        if self.lab is not None:
            self.lab.close()
            self.lab = None


class LabCase(unittest.TestCase):
    """A test class run in a lab: cls.lab and cls.servers (the {name:
    Server} its set-up returned) are there for every test, and every count,
    request and query is reset before each test.

    The lab is the shared_lab (a SharedLab that several classes name) or,
    without one, a lab of the class's own, populated by its lab_setup(lab)
    classmethod and closed when the class is done.

    On a host that cannot make a lab the class is skipped with the reason;
    with lab_required = True (a test of the lab itself) that is an error
    instead.  A lab that fails to start or to be populated is always an
    error."""

    shared_lab = None
    lab_required = False
    lab = None
    servers = {}

    @classmethod
    def lab_setup(cls, lab):
        """The servers of a lab of the class's own: {name: Server} or None."""
        return None

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        shared = cls.shared_lab
        if shared is None:
            shared = SharedLab(cls.lab_setup)
            cls.addClassCleanup(shared.close)
        try:
            cls.lab = shared.get()
        except LabUnavailable as e:
            if cls.lab_required:
                raise
            raise unittest.SkipTest(str(e)) from None
        cls.servers = shared.servers

    def setUp(self):
        super().setUp()
        self.lab.reset()


def _looks_ip(s):
    try:
        ipaddress.ip_address(s)
        return True
    except ValueError:
        return False


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--controller":
        _controller_main(json.loads(sys.argv[2]))
    else:
        sys.exit("usage: netlab.py --controller CONFIG (started by netlab.Lab)")
