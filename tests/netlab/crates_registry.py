"""crates_registry: a cargo sparse registry for the lab, with a fixed tree of crates.

Python 3 standard library only.  tests/netlab/cargo_build.py starts it in
tests/netlab's internet (lab.popen(side="internet")) and runs `cargo build`
against it, bare and under porta, with no real registry anywhere.  It stands
in for crates.io as cargo 1.68 and later reach it over the sparse protocol
(the default since 1.70): two names at two addresses, both over HTTPS,

  the index, on --index-name (index.crates.example):
    GET /config.json              {"dl": "https://STATIC/crates/{crate}/{crate}-{version}.crate",
                                   "api": "https://INDEX"}
    GET /1/x, /2/xy, /3/l/lab,    the crate's index file, named by the
        /la/b-/lab-base           length of its (lowercase) name: 1/N, 2/N,
                                  3/FIRST/N, else N[0:2]/N[2:4]/N; one JSON
                                  line per published version with name,
                                  vers, deps (name, req, features, optional,
                                  default_features, target, kind), cksum
                                  (sha256 of the .crate, hex), features, yanked
  the downloads, on --static-name (static.crates.example):
    GET /crates/NAME/NAME-V.crate the crate: NAME-V/Cargo.toml and
                                  NAME-V/src/lib.rs, gzip'd tar

Each name's server answers only its own paths: an index path asked of the
download host, or a .crate of the index host, is a 404 like anything else.
Every request is logged (one JSON line per request: method, path, kind
"config" / "index" / "crate" / "other", status, host) to the --log file, so
a caller can check that a build downloaded every crate (a cold cache) and
from which host.

The tree (crate_tree()) is the same on every run: COUNT crates, their names
of every length class of the index's path scheme, each published as 1.0.0,
1.1.0 and 1.2.0, the last yanked, so cargo resolves "^1.0" to 1.1.0
(PICKED).  Each crate's value() is its own number, plus 100 per minor
version, plus the value() of each of its dependencies; a project
(project_files()) depending on the TOP crates prints them, and
expected_output() is what it must print.  Crates are built at start-up, byte
for byte the same each time (fixed mtimes, gzip without a timestamp).

Usage: python3 crates_registry.py --index-addr ADDR --static-addr ADDR
           --index-name NAME --static-name NAME [--port 443] [--log FILE]
           --index-cert PEM --index-key PEM --static-cert PEM --static-key PEM
serves the index on --index-addr and the downloads on --static-addr, each
over HTTPS with its own certificate and key (e.g. lab.make_cert()); prints
"listening" on stdout once both accept connections.  The HTTP front end is
npm_registry.make_server(), shared with the lab's npm registry.
"""

import argparse
import gzip
import hashlib
import io
import json
import ssl
import sys
import tarfile
import threading
import urllib.parse

import npm_registry

# (name, own number, dependencies), bottom up: a crate's dependencies come
# before it.  Names of every length class of the index's paths (1, 2, 3, 4+).
TREE = (
    ("x", 2, ()),
    ("xy", 3, ("x",)),
    ("lab", 5, ("x",)),
    ("lab-base", 7, ()),
    ("lab-math", 11, ("lab-base", "x")),
    ("lab-text", 13, ("lab-base", "xy")),
    ("lab-util", 17, ("lab-math", "lab")),
    ("lab-top", 19, ("lab-util", "lab-text")),
    ("lab-extra", 23, ("lab-math",)),
)
COUNT = len(TREE)
TOP = ("lab-top", "lab-extra")
VERSIONS = ("1.0.0", "1.1.0", "1.2.0")
YANKED = ("1.2.0",)
PICKED = "1.1.0"
REQ = "^1.0"
PROJECT = "lab-app"
# A fixed date for the files in the crates (2020-01-01T00:00:00Z).
TAR_MTIME = 1577836800


def crate_tree():
    """[(name, number, [dependency names])], dependencies before the
    crates that use them."""
    return [(name, number, list(deps)) for name, number, deps in TREE]


def index_path(name):
    """The path of name's index file (cargo's sparse scheme)."""
    n = name.lower()
    if len(n) <= 2:
        return "/%d/%s" % (len(n), n)
    if len(n) == 3:
        return "/3/%s/%s" % (n[0], n)
    return "/%s/%s/%s" % (n[:2], n[2:4], n)


def crate_path(name, version):
    return "/crates/%s/%s-%s.crate" % (name, name, version)


def rust_name(name):
    return name.replace("-", "_")


def _minor(version):
    return int(version.split(".")[1])


def values(tree=None, version=PICKED):
    """{name: value()} with every crate at version, as the crates compute it."""
    out = {}
    for name, number, deps in tree or crate_tree():
        out[name] = number + 100 * _minor(version) + sum(out[d] for d in deps)
    return out


def _tar_member(tar, path, data):
    info = tarfile.TarInfo(path)
    info.size, info.mtime, info.mode = len(data), TAR_MTIME, 0o644
    info.uname = info.gname = ""
    tar.addfile(info, io.BytesIO(data))


def manifest(name, version, deps):
    """NAME-V/Cargo.toml, as `cargo publish` normalizes it."""
    text = ('[package]\nedition = "2021"\nname = "%s"\nversion = "%s"\n'
            'description = "lab crate %s"\nlicense = "MIT"\n' % (name, version, name))
    for d in deps:
        text += '\n[dependencies.%s]\nversion = "%s"\n' % (d, REQ)
    return text


def lib_rs(name, number, version, deps):
    """NAME-V/src/lib.rs: VERSION and value()."""
    terms = ["%d" % (number + 100 * _minor(version))]
    terms += ["%s::value()" % rust_name(d) for d in deps]
    return ("//! %s %s, a crate of the porta netlab's cargo registry.\n\n"
            "pub const VERSION: &str = \"%s\";\n\n"
            "/// %d, plus 100 per minor version, plus each dependency's value.\n"
            "pub fn value() -> u64 {\n    %s\n}\n"
            % (name, version, version, number, " + ".join(terms)))


def make_crate(name, number, version, deps):
    """The .crate of one version: a gzip'd tar, the same bytes every time."""
    top = "%s-%s/" % (name, version)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        _tar_member(tar, top + "Cargo.toml", manifest(name, version, deps).encode())
        _tar_member(tar, top + "src/lib.rs", lib_rs(name, number, version, deps).encode())
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def project_files(tree=None, top=TOP):
    """{relative path: text} of a binary crate depending on the top crates,
    printing "NAME VERSION VALUE" for each."""
    deps = "".join('%s = "%s"\n' % (t, REQ) for t in top)
    main = "fn main() {\n"
    for t in top:
        main += '    println!("%s {} {}", %s::VERSION, %s::value());\n' % (t, rust_name(t),
                                                                          rust_name(t))
    main += "}\n"
    return {"Cargo.toml": '[package]\nname = "%s"\nversion = "0.1.0"\nedition = "2021"\n'
                          'publish = false\n\n[dependencies]\n%s' % (PROJECT, deps),
            "src/main.rs": main}


def expected_output(tree=None, top=TOP):
    """What the project's binary prints when cargo picked PICKED everywhere."""
    vals = values(tree)
    return "".join("%s %s %d\n" % (t, PICKED, vals[t]) for t in top)


class Site:
    """One host's responses, built once: path -> (kind, content type, bytes).
    lookup() is what npm_registry.make_server() asks."""

    def __init__(self, routes):
        self.routes = routes

    def lookup(self, target):
        return self.routes.get(urllib.parse.urlsplit(target).path)


def make_sites(index_name, static_name, tree=None):
    """(the index's Site, the downloads' Site) for the tree."""
    index, static = {}, {}
    config = {"dl": "https://%s/crates/{crate}/{crate}-{version}.crate" % static_name,
              "api": "https://%s" % index_name}
    index["/config.json"] = ("config", "application/json", json.dumps(config).encode())
    for name, number, deps in tree or crate_tree():
        lines = []
        for v in VERSIONS:
            crate = make_crate(name, number, v, deps)
            static[crate_path(name, v)] = ("crate", "application/x-tar", crate)
            lines.append(json.dumps({
                "name": name, "vers": v,
                "deps": [{"name": d, "req": REQ, "features": [], "optional": False,
                          "default_features": True, "target": None, "kind": "normal"}
                         for d in deps],
                "cksum": hashlib.sha256(crate).hexdigest(), "features": {},
                "yanked": v in YANKED}))
        index[index_path(name)] = ("index", "text/plain", ("\n".join(lines) + "\n").encode())
    return Site(index), Site(static)


def serve(index_addr, static_addr, index_name, static_name, port, certs, log_path=None):
    """Serves the index on index_addr:port and the downloads on
    static_addr:port, over HTTPS with certs {"index": (cert, key), "static":
    (cert, key)}, until killed; prints "listening" once both are bound."""
    log_lock = threading.Lock()
    log = open(log_path, "a", buffering=1) if log_path else None
    index, static = make_sites(index_name, static_name)
    servers = []
    for site, addr, which in ((index, index_addr, "index"), (static, static_addr, "static")):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(*certs[which])
        servers.append(npm_registry.make_server(site, addr, port, log, log_lock, ctx))
    threading.Thread(target=servers[1].serve_forever, daemon=True).start()
    print("listening", flush=True)
    servers[0].serve_forever()


def main():
    ap = argparse.ArgumentParser(description="A cargo sparse registry for tests/netlab's lab.")
    ap.add_argument("--index-addr", required=True)
    ap.add_argument("--static-addr", required=True)
    ap.add_argument("--index-name", required=True, help="the index's host name")
    ap.add_argument("--static-name", required=True, help="the downloads' host name")
    ap.add_argument("--port", type=int, default=443)
    ap.add_argument("--log", help="append one JSON line per request here")
    for which in ("index", "static"):
        ap.add_argument("--%s-cert" % which, required=True, help="its certificate (PEM)")
        ap.add_argument("--%s-key" % which, required=True, help="its key (PEM)")
    args = ap.parse_args()
    certs = {"index": (args.index_cert, args.index_key),
             "static": (args.static_cert, args.static_key)}
    serve(args.index_addr, args.static_addr, args.index_name, args.static_name, args.port,
          certs, args.log)


if __name__ == "__main__":
    sys.exit(main())
