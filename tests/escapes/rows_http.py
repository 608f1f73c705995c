"""Row 47 of the escape corpus: a second request on a kept-alive plain-HTTP
connection naming another host (row 31's escape, in plain HTTP).

A sandbox that decides a plain-HTTP connection on its first request's Host
and then relays the rest of the client's bytes unread lets a later request
on the same connection name any host the allowed server's address serves:
on a shared virtual-host front that is another tenant.  The lab's server
here is such a front (tests/netlab: server_http(keepalive=True) answers and
records every request of a connection, whatever Host it names, and reads on
after "Connection: close"); both names resolve to its one address.

The names are a.vhost.test (allowed) and b.vhost.test, on an address of
their own: allowed.test:80 is row 25's canary (a port no rule opens), so
the shared front cannot live there.

Evidence is only what the lab's server logged: escape = it received a
request whose Host names b.vhost.test.  The lab, its helpers and the
runner's vocabulary are rows_net's (one lab per run).
"""

import json

from corpus import *  # noqa: F401,F403  (the runner's vocabulary)
from rows_net import NET, PY, NetCheck, allow, run_check, with_lab

VHOST = "203.0.113.80"
A, B = "a.vhost.test", "b.vhost.test"

# The client: one TCP connection (to the HTTP proxy when one is announced
# and the step asks for it, else to the name), each part sent once the
# answers to the earlier parts (if asked) arrived.
PROBE = r'''
import json, os, socket, sys, time, urllib.parse
print("PROBE-STARTED", flush=True)
spec = json.loads(sys.argv[1])
res = {"ok": False}
try:
    proxy = os.environ.get("http_proxy") or os.environ.get("HTTP_PROXY")
    auth = b""
    if spec.get("proxy") and proxy:
        u = urllib.parse.urlsplit(proxy)
        s = socket.create_connection((u.hostname, u.port or 80), timeout=5)
        if u.username is not None:  # srt announces http://USER:PASS@host:port
            import base64
            cred = urllib.parse.unquote(u.username) + ":" + urllib.parse.unquote(u.password or "")
            auth = b"Proxy-Authorization: Basic " + base64.b64encode(cred.encode()) + b"\r\n"
    else:
        s = socket.create_connection((spec["host"], spec["port"]), timeout=5)
    got = b""
    for part in spec["parts"]:
        data = bytes.fromhex(part["hex"])
        if auth and part.get("proxy_head"):
            data = b"\r\n\r\n".join(h.replace(b"\r\n", b"\r\n" + auth, 1) if h else h
                                    for h in data.split(b"\r\n\r\n"))
        s.sendall(data)
        want = part.get("answers", 0)
        deadline = time.monotonic() + 3
        while got.count(b"HTTP/1.") < want and time.monotonic() < deadline:
            s.settimeout(max(0.05, deadline - time.monotonic()))
            try:
                data = s.recv(65536)
            except socket.timeout:
                break
            if not data:
                break
            got += data
    s.settimeout(1.0)
    try:
        while True:
            data = s.recv(65536)
            if not data:
                break
            got += data
    except OSError:
        pass
    res = {"ok": True, "answers": got.count(b"HTTP/1.")}
except OSError as e:
    res = {"ok": False, "error": str(e)}
print(json.dumps({"pid": os.getpid(), "results": [res]}), flush=True)
'''


def head(host, path="/", extra="", target=None):
    return (f"GET {target or path} HTTP/1.1\r\nHost: {host}\r\n{extra}\r\n").encode()


def post(host, fields, body, path="/up"):
    return f"POST {path} HTTP/1.1\r\nHost: {host}\r\n{fields}\r\n".encode() + body


def chunked(*chunks, ext="", trailer=""):
    out = b""
    for c in chunks:
        out += b"%x%s\r\n" % (len(c), ext.encode()) + c + b"\r\n"
    return out + b"0" + ext.encode() + b"\r\n" + trailer.encode() + b"\r\n"


def specs():
    hidden = head(A, "/hidden")
    second = head(B, "/second")
    te = "Transfer-Encoding: chunked\r\n"
    return [
        ("pipelined: Host a.vhost.test, then Host b.vhost.test",
         [{"hex": (head(A) + second).hex(), "answers": 2}], False),
        ("after the first answer: Host b.vhost.test",
         [{"hex": head(A).hex(), "answers": 1}, {"hex": second.hex(), "answers": 2}], False),
        ("Content-Length body hiding a head, then Host b.vhost.test",
         [{"hex": (post(A, f"Content-Length: {len(hidden)}\r\n", hidden) + second).hex(),
           "answers": 2}], False),
        ("chunked body (extension, trailer, a head inside), then Host b.vhost.test",
         [{"hex": (post(A, te, chunked(hidden, b"x" * 300, ext=";a=b",
                                        trailer="X-Sum: 1\r\n")) + second).hex(),
           "answers": 2}], False),
        ("Content-Length and chunked at once (the server reads chunked), then Host b.vhost.test",
         [{"hex": (post(A, "Content-Length: 200\r\n" + te, chunked(b"abc")) + second).hex(),
           "answers": 2}], False),
        ("HTTP proxy CONNECT a.vhost.test:80, then two requests in the tunnel",
         [{"hex": f"CONNECT {A}:80 HTTP/1.1\r\nHost: {A}:80\r\n\r\n".encode().hex(), "answers": 1,
           "proxy_head": True},
          {"hex": (head(A) + second).hex(), "answers": 3}], True),
        ("HTTP proxy, kept alive: http://a.vhost.test/, then http://b.vhost.test/",
         [{"hex": (head(A, target=f"http://{A}/") + head(B, target=f"http://{B}/")).hex(),
           "answers": 2, "proxy_head": True}], True),
        # a framer that turns opaque after a request carrying Upgrade (as
        # it must where the server may switch protocols) lets the next
        # request through unread if the server never switched
        ("HTTP proxy: http://a.vhost.test/ with Upgrade, then http://b.vhost.test/",
         [{"hex": head(A, target=f"http://{A}/",
                       extra="Upgrade: websocket\r\nConnection: Upgrade\r\n").hex(),
           "answers": 1, "proxy_head": True},
          {"hex": head(B, target=f"http://{B}/").hex(), "answers": 2, "proxy_head": True}],
         True),
        # its neighbours: Upgrade on a later request rather than the first,
        # and a CONNECT on the same connection (after which the framer
        # would be opaque too)
        ("HTTP proxy: http://a.vhost.test/, then one with Upgrade, then http://b.vhost.test/",
         [{"hex": head(A, target=f"http://{A}/").hex(), "answers": 1, "proxy_head": True},
          {"hex": head(A, target=f"http://{A}/up",
                       extra="Upgrade: websocket\r\nConnection: Upgrade\r\n").hex(),
           "answers": 2, "proxy_head": True},
          {"hex": head(B, target=f"http://{B}/").hex(), "answers": 3, "proxy_head": True}],
         True),
        ("HTTP proxy: http://a.vhost.test/, then CONNECT a.vhost.test:80, then Host b.vhost.test",
         [{"hex": head(A, target=f"http://{A}/").hex(), "answers": 1, "proxy_head": True},
          {"hex": f"CONNECT {A}:80 HTTP/1.1\r\nHost: {A}:80\r\n\r\n".encode().hex(),
           "answers": 2, "proxy_head": True},
          {"hex": head(B).hex(), "answers": 3}],
         True),
    ]


@row(47, "a second request on a kept-alive plain-HTTP connection names another host",
     "--allow-net a.vhost.test:80")
def row47(ctx):
    cases = specs()

    def other_host(lab, mode, run):
        srv = NET.servers["vhost"]
        seen = [r for r in lab.requests(srv) if any(h.lower().rstrip(".") == B for h in r.get("host") or [])]
        return bool(seen), (f"the shared server got {len(seen)} request(s) for {B}" if seen
                            else f"no request for {B} arrived")

    def build(lab):
        S = NET.servers
        if "vhost" not in S:
            S["vhost"] = lab.server_http(VHOST, 80, label="vhost", keepalive=True)
            lab.dns({A: VHOST, B: VHOST}, ttl=30)
        out = []
        for name, parts, via_proxy in cases:
            spec = {"host": A, "port": 80, "parts": parts, "proxy": via_proxy}
            argv = [PY, "-c", PROBE, json.dumps(spec)]
            out.append(run_check(ctx, lab, NetCheck(name, allow(f"{A}:80"), argv=argv,
                                                    evidence=other_host)))
        return out
    return with_lab(ctx, [c[0] for c in cases], build)


# --------------------------------------------------------------------------
# Row 101: a method rule turned into another method by an override spelling

OVERRIDE_PROBE = r'''
import http.client, json, sys
print("PROBE-STARTED", flush=True)
out = []
for target in json.loads(sys.argv[1]):
    try:
        c = http.client.HTTPConnection("plain.example", 80, timeout=5)
        c.request("POST", target, body=b"x", headers={"Content-Type": "text/plain"})
        out.append((target, c.getresponse().status))
        c.close()
    except OSError as e:
        out.append((target, str(e)))
print(json.dumps({"results": out}), flush=True)
'''

OVERRIDES = ["/items/1?%5Fmethod=DELETE", "/items/1?%5fmethod=DELETE", "/items/1?_Method=DELETE",
             "/items/1?a=1;_method=DELETE", "/items/1?x-http-method-override=DELETE"]


def overrides_in(target: str) -> bool:
    """Whether a recorded request target carries a method override as a
    framework reads its query: keys percent-decoded, without case."""
    import urllib.parse
    _, _, query = target.partition("?")
    for part in query.replace(";", "&").split("&"):
        key = urllib.parse.unquote_plus(part.partition("=")[0]).lower()
        if key in ("_method", "x-http-method-override", "x-http-method", "x-method-override"):
            return True
    return False


@row(101, "a POST-only --allow-http rule turned into DELETE by a method-override spelling",
     "--allow-http 'POST http://plain.example/*'")
def row101(ctx):
    from rows_secrets import NET as SNET, setup
    name = "?%5Fmethod=, ?%5fmethod=, ?_Method=, ;_method=, ?x-http-method-override= on a POST"

    def build(lab):
        setup(lab)
        srv = SNET.servers["secret plain"]

        def evidence(lab_, mode, run):
            got = [r.get("path", "") for r in lab.requests(srv)]
            hits = [t for t in got if overrides_in(t)]
            if hits:
                return True, f"plain.example received {len(hits)} overriding request(s): {hits[0]}"
            return False, f"plain.example received no overriding request ({len(got)} in all)"
        pol = Policy(allow_http=["POST http://plain.example/*"])
        return [run_check(ctx, lab, NetCheck(name, pol, argv=[PY, "-c", OVERRIDE_PROBE,
                                                              json.dumps(OVERRIDES)],
                                             evidence=evidence))]
    return with_lab(ctx, [name], build)
