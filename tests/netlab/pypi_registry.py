"""pypi_registry: a Python package index for the lab, with a fixed tree of packages.

Python 3 standard library only.  tests/netlab/pip_install.py starts it in
tests/netlab's internet (lab.popen(side="internet")) and runs the README's
`pip install -r requirements.txt` against it, bare and under porta, with no
real index anywhere.  Like PyPI, it answers on two names, each on its own
address, over HTTPS:

  the index (on --index-addr, named e.g. pypi.example by the lab's
  resolver), the "simple" repository API of PEP 503:
    GET /simple/             every project, one link each
    GET /simple/NAME/        one project's files: a link per wheel, its
                             URL on the files host with a #sha256=HEX
                             fragment (NAME normalised as PEP 503 says)
  the files (on --files-addr, named --files-host, e.g. files.pypi.example):
    GET /packages/NAME/FILE.whl   the wheel

Pages and wheels carry Cache-Control, as a public index sends it, so pip
keeps them in its HTTP cache (under porta, the cache --caches opens).
Anything else, on either name, is a 404.  Every request is logged (one JSON
line per request: method, path, kind "simple" / "project" / "wheel" /
"other", status, the Host header) to the --log file, so a caller can check
that an install fetched every wheel (a cold cache) and from which name.

The tree (PACKAGES) is the same on every run: 13 pure-Python projects, each
published as 1.0.0 and 1.1.0 with the same Requires-Dist, five levels deep
with shared dependencies, one of them (lab-markup) held below 1.1 by its
dependant, and a project (REQUIREMENTS, requirements.txt) that pins one of
its three direct dependencies to 1.0.0.  expected_versions() says what pip
must install.  Each version is a real wheel (py3-none-any): NAME/__init__.py
(which imports its dependencies and sets __version__), and in
NAME-VER.dist-info the METADATA, WHEEL and a RECORD with the sha256 of every
other file.  Wheels are built at start-up, byte for byte the same each time
(fixed order, times and modes; deflate at a fixed level).

Usage: python3 pypi_registry.py --index-addr ADDR --files-addr ADDR --files-host NAME
                                --cert PEM --key PEM [--port 443] [--log FILE]
serves HTTPS (the certificate and key given, e.g. lab.make_cert() for both
names) on --port of both addresses; prints "listening" on stdout once both
accept connections.
"""

import argparse
import base64
import hashlib
import html
import io
import os
import re
import ssl
import sys
import threading
import urllib.parse
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_registry  # noqa: E402  (its HTTP server: keep-alive, one write per response)

VERSIONS = ("1.0.0", "1.1.0")
LATEST = VERSIONS[-1]

# (name as published, [Requires-Dist]): a project depends only on projects
# below it, so the tree has no cycles.  Lab_Text's name is spelt as PEP 503
# must normalise (lab-text), and its dependants ask for it in other spellings.
PACKAGES = [
    ("lab-app", ["lab-web>=1.0", "lab-cli>=1.0"]),
    ("lab-report", ["lab-templates>=1.0", "lab-log>=1.0"]),
    ("lab-cli", ["lab-config>=1.0", "lab-log>=1.0"]),
    ("lab-web", ["lab-http>=1.0", "lab-templates>=1.0"]),
    ("lab-http", ["lab-url>=1.0", "lab-codec>=1.0", "lab-log>=1.0"]),
    ("lab-templates", ["lab-markup>=1.0,<1.1", "lab-codec>=1.0"]),
    ("lab-config", ["lab-schema>=1.0", "lab-url>=1.0"]),
    ("lab-schema", ["lab-codec>=1.0"]),
    ("lab-markup", ["lab.text>=1.0"]),
    ("lab-url", ["LAB_TEXT>=1.0"]),
    ("lab-log", ["lab-text>=1.0"]),
    ("lab-codec", []),
    ("Lab_Text", []),
]

# The project's requirements.txt: its direct dependencies.
REQUIREMENTS = "lab-app\nlab-report==1.0.0\nlab-cli>=1.0\n"

# How long a client may keep what it got, as a public index says (pip's HTTP
# cache stores only responses that carry such a header): pages for minutes,
# files, which never change under their name, for good.
PAGE_CACHE = "max-age=600, public"
FILE_CACHE = "max-age=365000000, immutable, public"

# 1980-01-01, the earliest time a zip entry can carry.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
ZIP_LEVEL = 9


def normalize(name):
    """A project's name as the index spells it (PEP 503, "Normalized Names")."""
    return re.sub(r"[-_.]+", "-", name).lower()


def module_name(name):
    """The importable package a project ships: lab-web -> lab_web."""
    return normalize(name).replace("-", "_")


def requirement_name(req):
    """The project a Requires-Dist line names (the text before its specifier)."""
    return re.match(r"[A-Za-z0-9._-]+", req).group(0)


def expected_versions():
    """{normalised name: version} of every project that
    `pip install -r requirements.txt` must install: all of them, at 1.1.0,
    except lab-report (pinned in REQUIREMENTS) and lab-markup (held below
    1.1 by lab-templates), at 1.0.0."""
    out = {normalize(n): LATEST for n, _ in PACKAGES}
    out["lab-report"] = out["lab-markup"] = "1.0.0"
    return out


def wheel_filename(name, version):
    """NAME-VER-py3-none-any.whl, NAME with runs of -_. as one underscore,
    lower case (the binary distribution format's escaping)."""
    return "%s-%s-py3-none-any.whl" % (module_name(name), version)


def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def make_wheel(name, version, requires):
    """The bytes of one wheel: the package, then METADATA, WHEEL and RECORD."""
    mod = module_name(name)
    dist_info = "%s-%s.dist-info" % (mod, version)
    init = '"""%s %s, a package of the porta netlab\'s Python package index."""\n' % (name, version)
    init += "".join("import %s  # noqa: F401\n" % module_name(requirement_name(r))
                    for r in requires)
    init += "\n__version__ = %r\n" % version
    metadata = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version)
    metadata += "Summary: lab package %s\nLicense: MIT\n" % name
    metadata += "".join("Requires-Dist: %s\n" % r for r in requires)
    wheel = ("Wheel-Version: 1.0\nGenerator: porta-netlab pypi_registry\n"
             "Root-Is-Purelib: true\nTag: py3-none-any\n")
    files = [("%s/__init__.py" % mod, init.encode()),
             (dist_info + "/METADATA", metadata.encode()),
             (dist_info + "/WHEEL", wheel.encode())]
    record = "".join("%s,%s,%d\n" % (path, _record_hash(data), len(data)) for path, data in files)
    record += "%s/RECORD,,\n" % dist_info
    files.append((dist_info + "/RECORD", record.encode()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for path, data in files:
            info = zipfile.ZipInfo(path, date_time=ZIP_TIME)
            info.create_system = 3                       # Unix: the mode below is read
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data, compresslevel=ZIP_LEVEL)
    return out.getvalue()


def build_wheels():
    """[(normalised name, version, file name, bytes)] for every version of
    every project, in PACKAGES' order."""
    return [(normalize(name), v, wheel_filename(name, v), make_wheel(name, v, requires))
            for name, requires in PACKAGES for v in VERSIONS]


def _page(title, links):
    body = "".join('    <a href="%s">%s</a><br/>\n' % (html.escape(href), html.escape(text))
                   for href, text in links)
    return ('<!DOCTYPE html>\n<html>\n  <head>\n'
            '    <meta name="pypi:repository-version" content="1.0">\n'
            '    <title>%s</title>\n  </head>\n  <body>\n    <h1>%s</h1>\n%s  </body>\n</html>\n'
            % (html.escape(title), html.escape(title), body)).encode()


class Routes:
    """One name's responses, built once: path -> (kind, content type, bytes),
    looked up as npm_registry.make_server() asks."""

    def __init__(self):
        self.routes = {}

    def add(self, path, kind, ctype, body, cache_control):
        self.routes[path] = (kind, ctype, body, [("Cache-Control", cache_control)])

    def lookup(self, target):
        """(kind, content type, body, headers) for a request target, or None."""
        return self.routes.get(urllib.parse.unquote(urllib.parse.urlsplit(target).path))


def build_routes(files_url, wheels=None):
    """(index routes, files routes) for the tree, wheel links pointing at
    files_url (https://FILES_HOST[:PORT])."""
    wheels = wheels if wheels is not None else build_wheels()
    index, files = Routes(), Routes()
    projects = {}
    for name, _, filename, data in wheels:
        path = "/packages/%s/%s" % (name, filename)
        files.add(path, "wheel", "application/octet-stream", data, FILE_CACHE)
        href = "%s%s#sha256=%s" % (files_url.rstrip("/"), path, hashlib.sha256(data).hexdigest())
        projects.setdefault(name, []).append((href, filename))
    for name, links in projects.items():
        index.add("/simple/%s/" % name, "project", "text/html; charset=utf-8",
                  _page("Links for %s" % name, links), PAGE_CACHE)
    index.add("/simple/", "simple", "text/html; charset=utf-8",
              _page("Simple index", [("/simple/%s/" % n, n) for n in sorted(projects)]),
              PAGE_CACHE)
    return index, files


def serve(index_addr, files_addr, files_host, port, cert, key, log_path=None):
    """Serves the index on index_addr:port and the wheels on
    files_addr:port, both over HTTPS, until killed; prints "listening" once
    both are bound."""
    log_lock = threading.Lock()
    log = open(log_path, "a", buffering=1) if log_path else None
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    files_url = "https://%s%s" % (files_host, "" if port == 443 else ":%d" % port)
    index, files = build_routes(files_url)
    servers = [npm_registry.make_server(routes, addr, port, log, log_lock, ctx)
               for routes, addr in ((index, index_addr), (files, files_addr))]
    threading.Thread(target=servers[1].serve_forever, daemon=True).start()
    print("listening", flush=True)
    servers[0].serve_forever()


def main():
    ap = argparse.ArgumentParser(description="A Python package index for tests/netlab's lab.")
    ap.add_argument("--index-addr", required=True)
    ap.add_argument("--files-addr", required=True)
    ap.add_argument("--files-host", required=True, help="the name wheel links carry")
    ap.add_argument("--port", type=int, default=443)
    ap.add_argument("--cert", required=True, help="the HTTPS certificate (PEM), for both names")
    ap.add_argument("--key", required=True, help="its key (PEM)")
    ap.add_argument("--log", help="append one JSON line per request here")
    args = ap.parse_args()
    serve(args.index_addr, args.files_addr, args.files_host, args.port, args.cert, args.key,
          args.log)


if __name__ == "__main__":
    sys.exit(main())
