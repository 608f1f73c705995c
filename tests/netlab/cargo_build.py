#!/usr/bin/python3
"""netlab/cargo-build: the README's cargo example, as printed, in the lab.

The README promises that

    porta run --caches --allow-net index.crates.example,static.crates.example -v . -- cargo build

works once the placeholders are crates.io's real names (its sparse index and
its download host).  This builds the same situation with no real registry
anywhere: crates_registry.py serves a sparse index on index.crates.example
(203.0.113.100) and the crates on static.crates.example (203.0.113.101),
both over HTTPS with certificates of the lab's CA, in tests/netlab's
internet, and the lab's resolver answers both names.  What stands in for
"the real names" is configuration, not the command line: a fresh, empty
CARGO_HOME whose config.toml replaces crates.io with the lab's registry and
trusts the lab's CA.  Each run gets that CARGO_HOME and a fresh project (a
binary crate depending on the registry's top crates, no lockfile), and runs
in the lab's client namespace:

  bare     cargo build
  porta    porta run [--allow-root] --caches --allow-net
               index.crates.example,static.crates.example -v . -- cargo build
  control  the same with --allow-net index.crates.example only

bare and porta must exit 0, their binary must print what the crates compute
(crates_registry.expected_output(): the yanked 1.2.0 passed over), and the
registry's log must show config.json and every index file asked of the
index host and every crate downloaded from the download host, each once (a
cold cache).  The control must fail, having asked the index and downloaded
nothing, with porta's line refusing static.crates.example:443: the
download host is really used, and refused when not allowed.

Exit 77 (a skip) with the reason when no cargo 1.68 or later is found (on
PATH, then in ~/.cargo/bin of the invoking user: Debian 12's cargo 0.66
cannot use a sparse registry), when it has no rustc or C linker beside it,
or when this host cannot make a lab.  A rustup proxy is resolved to its
toolchain's own cargo and rustc (the lab's HOME has no ~/.rustup), whose
directory heads the commands' PATH.

Usage: tests/netlab/cargo_build.py [--porta PATH] [--cargo PATH]
Standard library only; traffic stays inside the lab's namespaces.
"""

import argparse
import json
import os
import pwd
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import crates_registry  # noqa: E402
import netlab  # noqa: E402

INDEX_NAME, INDEX_ADDR = "index.crates.example", "203.0.113.100"
STATIC_NAME, STATIC_ADDR = "static.crates.example", "203.0.113.101"
MIN_CARGO = (1, 68)
SKIP = 77
RUN_TIMEOUT = 300


def die(msg):
    print("netlab/cargo-build: FAILED: " + msg, file=sys.stderr)
    sys.exit(1)


def skip(msg):
    print("netlab/cargo-build: skipped: " + msg)
    sys.exit(SKIP)


def cargo_version(cargo, env):
    """(major, minor) of `cargo --version`, or None."""
    try:
        p = subprocess.run([cargo, "--version"], env=env, cwd="/", capture_output=True,
                           text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.match(r"cargo (\d+)\.(\d+)\.", p.stdout)
    return (int(m.group(1)), int(m.group(2))) if p.returncode == 0 and m else None


def find_toolchain(given):
    """(cargo, rustc) real binaries of the first cargo >= MIN_CARGO: given,
    else the one on PATH, else ~/.cargo/bin/cargo of the invoking user (the
    user sudo names, or ours); skips with what was found otherwise."""
    homes = []
    if os.environ.get("SUDO_USER"):
        try:
            homes.append(pwd.getpwnam(os.environ["SUDO_USER"]).pw_dir)
        except KeyError:
            pass
    homes += [os.path.expanduser("~"), pwd.getpwuid(os.getuid()).pw_dir]
    cands = [(given, None)] if given else \
        [(shutil.which("cargo"), None)] + [(os.path.join(h, ".cargo", "bin", "cargo"), h)
                                           for h in homes]
    seen, found = set(), []
    for cargo, home in cands:
        if not cargo or not os.access(cargo, os.X_OK) or os.path.realpath(cargo) in seen:
            continue
        seen.add(os.path.realpath(cargo))
        # a rustup proxy finds its toolchains through HOME; never install one
        env = dict(os.environ, RUSTUP_AUTO_INSTALL="0", **({"HOME": home} if home else {}))
        v = cargo_version(cargo, env)
        found.append("%s (%s)" % (cargo, "%d.%d" % v if v else "no version"))
        if v is None or v < MIN_CARGO:
            continue
        tools = {}
        real = os.path.realpath(cargo)
        for tool in ("cargo", "rustc"):
            if os.path.basename(real) == "rustup":
                p = subprocess.run([real, "which", tool], env=env, cwd="/",
                                   capture_output=True, text=True)
                tools[tool] = p.stdout.strip() if p.returncode == 0 else None
            else:
                beside = os.path.join(os.path.dirname(cargo), tool)
                tools[tool] = beside if os.access(beside, os.X_OK) else shutil.which(tool)
        if not all(tools.values()):
            skip("%s has no rustc beside it" % cargo)
        return tools["cargo"], tools["rustc"], found[-1]
    skip("no cargo %d.%d or later (it speaks the sparse registry protocol) on PATH or in "
         "~/.cargo/bin; found: %s" % (MIN_CARGO + (", ".join(found) or "none",)))


def start_lab(base):
    """The lab, the registry on both names, the resolver answering them;
    returns (lab, the registry's request log)."""
    why = netlab.unavailable_reason()
    if why:
        skip("the netlab cannot run here: %s" % why)
    lab = netlab.Lab()
    log = os.path.join(base, "registry.jsonl")
    index_cert, index_key = lab.make_cert([INDEX_NAME])
    static_cert, static_key = lab.make_cert([STATIC_NAME])
    server = lab.popen([sys.executable, "-B", os.path.join(HERE, "crates_registry.py"),
                        "--index-addr", INDEX_ADDR, "--static-addr", STATIC_ADDR,
                        "--index-name", INDEX_NAME, "--static-name", STATIC_NAME,
                        "--log", log, "--index-cert", index_cert, "--index-key", index_key,
                        "--static-cert", static_cert, "--static-key", static_key],
                       side="internet", cwd="/", stdout=subprocess.PIPE)
    line = server.stdout.readline()
    if line != b"listening\n":
        lab.close()
        die("the lab's cargo registry did not start (it printed %r)" % line)
    lab.dns({INDEX_NAME: INDEX_ADDR, STATIC_NAME: STATIC_ADDR})
    return lab, log


def fresh(base, name, ca_file):
    """A new project (no lockfile) and an empty CARGO_HOME whose config.toml
    puts the lab's registry in crates.io's place."""
    run_dir = os.path.join(base, name)
    project, cargo_home = os.path.join(run_dir, "project"), os.path.join(run_dir, "cargo-home")
    for rel, text in crates_registry.project_files().items():
        os.makedirs(os.path.dirname(os.path.join(project, rel)), exist_ok=True)
        with open(os.path.join(project, rel), "w") as f:
            f.write(text)
    os.makedirs(cargo_home)
    with open(os.path.join(cargo_home, "config.toml"), "w") as f:
        f.write('[source.crates-io]\nreplace-with = "lab"\n\n'
                '[source.lab]\nregistry = "sparse+https://%s/"\n\n'
                '[http]\ncainfo = %s\n' % (INDEX_NAME, json.dumps(ca_file)))
    return run_dir, project, cargo_home


def run(lab, name, argv, base, log, path):
    """Runs argv in a fresh project; returns (rc, output, project, the
    registry's requests during the run, seconds)."""
    run_dir, project, cargo_home = fresh(base, name, lab.ca_file)
    offset = os.path.getsize(log) if os.path.exists(log) else 0
    env = lab.env(PATH=path, CARGO_HOME=cargo_home)
    print("%s: CARGO_HOME=%s, in %s:\n  %s" % (name, cargo_home, project, shlex.join(argv)))
    sys.stdout.flush()
    t0 = time.monotonic()
    r = lab.run(argv, env=env, cwd=project, timeout=RUN_TIMEOUT)
    took = time.monotonic() - t0
    with open(log) as f:
        f.seek(offset)
        reqs = [json.loads(line) for line in f if line.strip()]
    return r.rc, r.out + r.err, project, reqs, took


def check_build(name, rc, output, project, reqs):
    """bare and porta: exit 0, the binary prints the crates' values, every
    index file and every crate fetched from its own host exactly once."""
    problems = []
    if rc != 0:
        problems.append("cargo build exited %s" % rc)
    binary = os.path.join(project, "target", "debug", crates_registry.PROJECT)
    want = crates_registry.expected_output()
    got = subprocess.run([binary], capture_output=True, text=True).stdout \
        if os.access(binary, os.X_OK) else None
    if got != want:
        problems.append("the binary printed %r, not %r" % (got, want))
    tree = crates_registry.crate_tree()
    expect = {("GET", INDEX_NAME, "/config.json", 200)}
    expect |= {("GET", INDEX_NAME, crates_registry.index_path(n), 200) for n, _, _ in tree}
    expect |= {("GET", STATIC_NAME, crates_registry.crate_path(n, crates_registry.PICKED), 200)
               for n, _, _ in tree}
    seen = [(r["method"], r["host"], r["path"], r["status"]) for r in reqs]
    if sorted(seen) != sorted(expect):
        problems.append("the registry's requests were %s, not each of %s once"
                        % (json.dumps(sorted(seen)), json.dumps(sorted(expect))))
    if problems:
        die("%s: %s\n--- output ---\n%s" % (name, "; ".join(problems), output[-4000:]))
    crates = sum(1 for r in reqs if r["kind"] == "crate")
    print("%s: exit 0; the binary printed %s; %d index files and %d crates fetched"
          % (name, json.dumps(got), len(reqs) - crates - 1, crates))


def main():
    ap = argparse.ArgumentParser(description="The README's cargo example in tests/netlab's lab.")
    ap.add_argument("--porta", default=os.path.join(REPO_ROOT, "build", "porta"))
    ap.add_argument("--cargo", help="the cargo to use (default: PATH, then ~/.cargo/bin)")
    args = ap.parse_args()
    porta = os.path.abspath(args.porta)
    if not os.access(porta, os.X_OK):
        die("--porta %s: not an executable porta" % args.porta)
    if args.cargo and not os.access(args.cargo, os.X_OK):
        die("--cargo %s: not an executable" % args.cargo)
    cargo, rustc, found = find_toolchain(args.cargo)
    if not shutil.which("cc", path=netlab.SYSTEM_PATH):
        skip("no C linker (cc) for rustc to link with")
    print("cargo: %s -> %s, rustc %s" % (found, cargo, rustc))
    path = os.pathsep.join(dict.fromkeys([os.path.dirname(cargo), os.path.dirname(rustc),
                                          netlab.SYSTEM_PATH]))
    porta_argv = [porta, "run"] + (["--allow-root"] if os.geteuid() == 0 else []) + ["--caches"]
    allowed = "%s,%s" % (INDEX_NAME, STATIC_NAME)
    base = tempfile.mkdtemp(prefix="cargo-build-", dir=netlab._lab_base())
    try:
        lab, log = start_lab(base)
        try:
            for name, argv in (("bare", ["cargo", "build"]),
                               ("porta", porta_argv + ["--allow-net", allowed, "-v", ".", "--",
                                                       "cargo", "build"])):
                rc, output, project, reqs, took = run(lab, name, argv, base, log, path)
                print("%s: %.1f s" % (name, took))
                check_build(name, rc, output, project, reqs)
            # the control: the download host not allowed
            argv = porta_argv + ["--allow-net", INDEX_NAME, "-v", ".", "--", "cargo", "build"]
            rc, output, project, reqs, took = run(lab, "control", argv, base, log, path)
            kinds = sorted({r["kind"] for r in reqs})
            if rc == 0 or "crate" in kinds or "index" not in kinds or \
                    "porta: refused %s:443" % STATIC_NAME not in output:
                die("control: without %s allowed, cargo build exited %s and the registry saw "
                    "%s (it must fail after asking the index only, porta refusing the "
                    "download host)\n--- output ---\n%s"
                    % (STATIC_NAME, rc, json.dumps(kinds), output[-4000:]))
            print("control: %.1f s, exit %d, the registry saw %s and no download; cargo said:\n%s"
                  % (took, rc, json.dumps(kinds), "\n".join(
                      "  " + l for l in output.splitlines() if STATIC_NAME in l)))
        finally:
            lab.close()
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print("netlab/cargo-build: the README's cargo example builds in the lab, and fails "
          "without %s" % STATIC_NAME)
    return 0


if __name__ == "__main__":
    sys.exit(main())
