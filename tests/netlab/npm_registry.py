"""npm_registry: an npm registry for the lab, with a fixed tree of packages.

Python 3 standard library only.  bench/npm starts it in tests/netlab's
internet (lab.popen(side="internet")) and runs `npm install` against it, bare
and under porta, with no real registry anywhere.  Serves what `npm install`
asks for, as npm's registry answers it:

  GET /NAME, /@SCOPE%2fNAME        the package document (the "packument"):
                                   name, dist-tags.latest, and per version
                                   name, version, dependencies and dist
                                   (tarball URL, integrity sha512-BASE64, shasum)
  GET /NAME/-/NAME-V.tgz           the tarball: package/package.json and
  GET /@SCOPE/NAME/-/NAME-V.tgz    package/index.js, gzip'd tar

Anything else is a 404.  Every request is logged (one JSON line per
request: method, path, kind "packument" / "tarball" / "other", status,
host, tls, and authorization: every Authorization header value received)
to the --log file, so a caller can check that an install fetched every
tarball (a cold cache), what else it asked, and with what credentials.

With --token-file, the registry is a private one: every request must carry
exactly one "Authorization: Bearer TOKEN" header (TOKEN: the file's
content, without its final newline), as npm sends it for a registry whose
.npmrc line is `//registry.example/:_authToken=${NPM_TOKEN}`; any other
request is answered 401 with `WWW-Authenticate: Bearer realm="lab"` (and
logged, status 401) before anything is looked up.  The token is read from a
file, not taken as an argument, so that it is not in the registry's
command line (/proc/PID/cmdline) for every process of the lab to read.

The tree (package_tree()) is the same on every run: COUNT packages, SCOPED
of them under @lab/, each published as 1.0.0, 1.1.0 and 1.2.0 with the same
dependencies on later packages ("^1.0.0", so 1.2.0 is installed and npm
dedupes them all into node_modules/), four levels deep with shared
dependencies, and a project (project_json()) that depends on the
first TOP of them.  Tarballs are built at start-up, byte for byte the same
each time (fixed mtimes, gzip without a timestamp).

Usage: python3 npm_registry.py --addr ADDR --port PORT --host NAME [--log FILE]
                               [--tls-port PORT --cert PEM --key PEM] [--token-file FILE]
serves plain HTTP on --port and, with --tls-port, HTTPS (the certificate
and key given, e.g. lab.make_cert()) on that port too; prints "listening"
on stdout once both accept connections.  Tarball URLs name the scheme, the
name and the port the package document was asked on
(http://NAME:PORT/..., https://NAME:TLS_PORT/...), as npm is told to use.
"""

import argparse
import base64
import gzip
import hashlib
import io
import json
import random
import socket
import ssl
import sys
import tarfile
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COUNT, SCOPED, TOP = 70, 6, 8
VERSIONS = ("1.0.0", "1.1.0", "1.2.0")
LATEST = VERSIONS[-1]
SEED = 13
# npm's own fixed date for files in published tarballs (1985-10-26T08:15:00Z).
TAR_MTIME = 499162500


def package_tree(count=COUNT, scoped=SCOPED, top=TOP, seed=SEED):
    """[(name, [dependency names])] in a fixed order; the first top are the
    project's dependencies.  Package i depends only on packages after it (no
    cycles): every package after the first top has a parent between a third
    and a half of its index (so all are reachable, four levels deep with
    the defaults), and a package may take up to two more dependencies from
    twice its index on, which other packages share."""
    rng = random.Random(seed)
    names = ["lab-dep-%02d" % i for i in range(count - scoped)]
    # scoped packages spread through the tree, not all at its bottom
    for k in range(scoped):
        names.insert(top + 1 + k * (count - top) // scoped, "@lab/scoped-%d" % k)
    deps = [set() for _ in names]
    for i in range(top, count):
        deps[rng.randrange(i // 3, i // 2 + 1)].add(i)
    for i in range(count - 1):
        lo = max(i + 1, 2 * i)
        for _ in range(rng.randrange(0, 3)):
            if lo < count:
                deps[i].add(rng.randrange(lo, count))
    return [(names[i], [names[j] for j in sorted(deps[i])]) for i in range(count)]


def tree_depth(tree, top=TOP):
    """The longest chain from a project dependency down (1: a top package)."""
    index = {name: i for i, (name, _) in enumerate(tree)}
    depth = [0] * len(tree)
    for i in range(len(tree) - 1, -1, -1):
        depth[i] = 1 + max((depth[index[d]] for d in tree[i][1]), default=0)
    return max(depth[:top])


def project_json(tree, top=TOP):
    """The package.json of a project depending on the first top packages."""
    return {"name": "npm-bench-project", "version": "1.0.0", "private": True,
            "description": "the project bench/npm installs",
            "dependencies": {name: "^1.0.0" for name, _ in tree[:top]}}


def _tar_member(tar, path, data):
    info = tarfile.TarInfo(path)
    info.size, info.mtime, info.mode = len(data), TAR_MTIME, 0o644
    info.uname = info.gname = ""
    tar.addfile(info, io.BytesIO(data))


def make_tarball(name, version, deps):
    """The .tgz of one version: package/package.json and package/index.js."""
    manifest = {"name": name, "version": version, "main": "index.js",
                "description": "lab package %s" % name, "license": "MIT",
                "dependencies": {d: "^1.0.0" for d in deps}}
    index = "// %s@%s, a package of the porta netlab's npm registry.\n" % (name, version)
    index += "".join("require(%s);\n" % json.dumps(d) for d in deps)
    index += "module.exports = { name: %s, version: %s };\n" % (json.dumps(name),
                                                               json.dumps(version))
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        _tar_member(tar, "package/package.json", (json.dumps(manifest, indent=2) + "\n").encode())
        _tar_member(tar, "package/index.js", index.encode())
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def tarball_path(name, version):
    """/NAME/-/BASE-V.tgz, where BASE is the name without its scope."""
    return "/%s/-/%s-%s.tgz" % (name, name.rsplit("/", 1)[-1], version)


class Registry:
    """Every response body, built once: path -> (content type, bytes)."""

    def __init__(self, base_url, tree=None):
        self.base_url = base_url.rstrip("/")
        self.tree = tree or package_tree()
        self.routes = {}
        for name, deps in self.tree:
            versions = {}
            for v in VERSIONS:
                tgz = make_tarball(name, v, deps)
                path = tarball_path(name, v)
                self.routes[path] = ("application/octet-stream", tgz)
                versions[v] = {
                    "name": name, "version": v,
                    "dependencies": {d: "^1.0.0" for d in deps},
                    "dist": {"tarball": self.base_url + path,
                             "shasum": hashlib.sha1(tgz).hexdigest(),
                             "integrity": "sha512-" + base64.b64encode(
                                 hashlib.sha512(tgz).digest()).decode()},
                }
            doc = {"name": name, "dist-tags": {"latest": LATEST}, "versions": versions,
                   "modified": "2020-01-01T00:00:00.000Z"}
            self.routes["/" + name] = ("application/json", json.dumps(doc).encode())

    def lookup(self, target):
        """(kind, content type, body) for a request target, or None."""
        path = urllib.parse.urlsplit(target).path
        # A scoped name is asked as /@scope%2fname (npm escapes the slash).
        path = urllib.parse.unquote(path)
        hit = self.routes.get(path)
        if hit is None:
            return None
        return ("tarball" if path.endswith(".tgz") else "packument",) + hit


def make_server(registry, addr, port, log, log_lock, tls=None, token=None):
    """An HTTP server for registry on addr:port (one thread per connection,
    HTTP/1.1 keep-alive), over TLS with the ssl.SSLContext tls.
    registry.lookup(target) answers each request: None (a 404) or (kind,
    content type, body), optionally with a fourth item, a list of (header,
    value) pairs sent too (pypi_registry.py's Cache-Control).  With token
    (a str), a request without exactly one "Authorization: Bearer TOKEN"
    is answered 401 instead."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Head and body leave in one write (a buffered wfile, flushed after
        # each request), with TCP_NODELAY, as a registry's front end sends
        # them.  http.server's default writes them apart, and on a reused
        # connection Nagle's algorithm then holds the body until the
        # client's delayed ACK: about 40 ms per response, which would be
        # measured instead of the install.
        wbufsize = 1 << 16
        disable_nagle_algorithm = True

        def setup(self):
            if tls is not None:
                # The handshake in the connection's thread, not in the
                # accepting one (a slow client must not stall the others).
                self.request.do_handshake()
            super().setup()

        def _answer(self, with_body):
            hit = registry.lookup(self.path)
            if hit is None:
                kind, ctype, body, status = "other", "text/plain", b"not found\n", 404
            else:
                (kind, ctype, body), status = hit[:3], 200
            extra = hit[3] if hit is not None and len(hit) > 3 else ()
            authorization = self.headers.get_all("Authorization") or []
            if token is not None and authorization != ["Bearer " + token]:
                # RFC 6750, section 3: the challenge of a bearer-token
                # resource; npm reports it as E401
                ctype, body, status = "application/json", b'{"error":"unauthorized"}\n', 401
                extra = [("WWW-Authenticate", 'Bearer realm="lab"')]
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for name, value in extra:
                self.send_header(name, value)
            # A server that will close says so (RFC 9112, section 9.6), as
            # real registries do; http.server closes without a word, and a
            # client that pools the connection then finds it reset.
            if "close" in self.headers.get("Connection", "").lower():
                self.send_header("Connection", "close")
            self.end_headers()
            if with_body:
                self.wfile.write(body)
            if log:
                line = json.dumps({"method": self.command, "path": self.path, "kind": kind,
                                   "status": status, "host": self.headers.get("Host"),
                                   "tls": tls is not None, "authorization": authorization})
                with log_lock:
                    log.write(line + "\n")

        def do_GET(self):
            self._answer(True)

        def do_HEAD(self):
            self._answer(False)

        def log_message(self, fmt, *args):
            pass                       # the --log file has every request

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        address_family = socket.AF_INET6 if ":" in addr else socket.AF_INET
        request_queue_size = 128

        def handle_error(self, request, client_address):
            pass                       # a client that hung up mid-handshake

    httpd = Server((addr, port), Handler)
    if tls is not None:
        httpd.socket = tls.wrap_socket(httpd.socket, server_side=True,
                                       do_handshake_on_connect=False)
    return httpd


def serve(addr, host, port, log_path=None, tls_port=None, cert=None, key=None, token=None):
    """Serves the registry on addr:port (HTTP) and addr:tls_port (HTTPS)
    until killed, to requests bearing token only if one is given; prints
    "listening" once both are bound."""
    log_lock = threading.Lock()
    log = open(log_path, "a", buffering=1) if log_path else None
    tree = package_tree()
    servers = [make_server(Registry("http://%s:%d/" % (host, port), tree), addr, port,
                           log, log_lock, token=token)]
    if tls_port:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        servers.append(make_server(Registry("https://%s:%d/" % (host, tls_port), tree), addr,
                                   tls_port, log, log_lock, ctx, token=token))
    for httpd in servers[1:]:
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
    print("listening", flush=True)
    servers[0].serve_forever()


def main():
    ap = argparse.ArgumentParser(description="An npm registry for tests/netlab's lab.")
    ap.add_argument("--addr", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--host", required=True, help="the name tarball URLs carry")
    ap.add_argument("--log", help="append one JSON line per request here")
    ap.add_argument("--tls-port", type=int, help="serve HTTPS on this port too")
    ap.add_argument("--cert", help="the HTTPS certificate (PEM)")
    ap.add_argument("--key", help="its key (PEM)")
    ap.add_argument("--token-file", help="require Authorization: Bearer (this file's content)")
    args = ap.parse_args()
    if args.tls_port and not (args.cert and args.key):
        ap.error("--tls-port needs --cert and --key")
    token = None
    if args.token_file:
        with open(args.token_file) as f:
            token = f.read()
        token = token[:-1] if token.endswith("\n") else token
        if not token or any(c in token for c in "\r\n"):
            ap.error("--token-file must hold one line, not empty")
    serve(args.addr, args.host, args.port, args.log, args.tls_port, args.cert, args.key, token)


if __name__ == "__main__":
    sys.exit(main())
