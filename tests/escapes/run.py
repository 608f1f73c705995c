#!/usr/bin/env python3
"""The escape corpus runner (see docs in tests/escapes/README.md).

Each row attempts one way out of the sandbox with a hostile probe
(probes/*.c, or a shell line), and decides from evidence outside the
sandbox: a file on the host, a listener's log, a decoy's state, a secret
marker on the probe's stdout. Nothing porta prints is ever evidence. Every
check also runs as an UNSANDBOXED CONTROL that must escape first; a check
whose control does not escape is `broken` (or `n/a` when the host itself
cannot host it, with the reason), never `held`.

    python3 run.py --porta build/porta --probes-dir build/tests/escapes/probes \\
        [--rows 1,2,5-9] [--json FILE] [--sandbox porta] [--keep] [-v]

Verdicts: held, ESCAPED, broken, skipped (the runner could not prepare a
check: "could not prepare: REASON"; such a row is not counted as held), n/a,
not offered. The exit status is 1 when any row is ESCAPED or broken, else 0.
Standard library only (Python 3.11).

Adding a sandbox: write an adapter (see PortaAdapter) whose command() turns
a Policy into that tool's command line, raising NotOffered where the tool
cannot express the policy, and add it to ADAPTERS. Adding a row: write a
function decorated with @row(N, title, policy-text) returning a list of
Check; the network policy rows (rows_net.py) run in tests/netlab's small
internet.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import shutil
import signal
import sys
import time



from adapters import ADAPTERS, PortaAdapter
from corpus import (BROKEN, ESCAPED, HELD, NA, NOT_OFFERED, ROWS, SKIPPED, Check, Context,
                    NotOffered, not_offered, serve_tcp)

# Every rows_*.py module registers its rows on import (rows_host: 1-24,
# rows_net: the network policy rows, rows_*: the rows beyond the reference
# list).
HERE = os.path.dirname(os.path.abspath(__file__))
for _mod in sorted(f[:-3] for f in os.listdir(HERE) if f.startswith("rows_") and f.endswith(".py")):
    importlib.import_module(_mod)


# --------------------------------------------------------------------------
# Main

def aggregate(checks: list) -> tuple:
    """A row's verdict from its checks': the first of ESCAPED, broken,
    skipped (a check could not be prepared: the row is not shown held),
    held, not offered, n/a that any check has."""
    verdicts = [c.verdict for c in checks]
    for v in (ESCAPED, BROKEN, SKIPPED, HELD, NOT_OFFERED, NA):
        if v in verdicts:
            verdict = v
            break
    else:
        verdict = NA
    ctls = [c.control for c in checks if c.control != "-"]
    control = "-" if not ctls else ("escaped" if all(c == "escaped" for c in ctls)
                                    else "no" if not any(c == "escaped" for c in ctls) else "partial")
    if verdict in (ESCAPED, BROKEN):
        detail = "; ".join(f"{c.name}: {c.verdict}: {c.detail}" for c in checks if c.verdict == verdict)
    elif verdict == SKIPPED:
        why = {}
        for c in checks:
            if c.verdict == SKIPPED:
                why.setdefault(c.detail, []).append(c.name)
        held = sum(c.verdict == HELD for c in checks)
        detail = "; ".join(f"{names[0]}: {d}" if len(names) == 1 else f"{d} ({len(names)} checks)"
                           for d, names in why.items()) + (f"; {held} other(s) held" if held else "")
    elif verdict == HELD:
        na = [c for c in checks if c.verdict in (NA, NOT_OFFERED)]
        detail = f"{sum(c.verdict == HELD for c in checks)} held" + (
            "; " + "; ".join(f"{c.name}: {c.verdict} ({c.detail})" for c in na) if na else "")
    else:
        detail = "; ".join(f"{c.name}: {c.detail}" for c in checks)
    return verdict, control, detail


def parse_rows(spec: str | None) -> list:
    if not spec:
        return sorted(ROWS)
    rows = []
    for part in spec.split(","):
        part = part.strip()
        if "-" in part:
            a, b = part.split("-", 1)
            rows += list(range(int(a), int(b) + 1))
        elif part:
            rows.append(int(part))
    missing = [r for r in rows if r not in ROWS]
    if missing:
        raise SystemExit(f"run.py: row(s) {missing} are not in this corpus yet "
                         f"(available: {min(ROWS)}-{max(ROWS)})")
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--porta", help="the porta binary under test")
    ap.add_argument("--probes-dir", help="directory of the built probes")
    ap.add_argument("--sandbox", default="porta", choices=sorted(ADAPTERS))
    ap.add_argument("--rows", help="e.g. 1,2,5-9 (default: all)")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--keep", action="store_true", help="keep the planted tree for inspection")
    ap.add_argument("-v", "--verbose", action="store_true", help="show every command and its output")
    ap.add_argument("--serve-tcp", nargs=3, metavar=("ADDR", "PORT", "LOG"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve_tcp:
        serve_tcp(args.serve_tcp[0], int(args.serve_tcp[1]), args.serve_tcp[2])
        return 0
    if not args.probes_dir:
        ap.error("--probes-dir is required")
    if args.sandbox in ("porta", "porta-degraded"):
        if not args.porta:
            ap.error(f"--porta is required with --sandbox {args.sandbox}")
        if not os.access(args.porta, os.X_OK):
            ap.error(f"--porta {args.porta}: not an executable")
        adapter = ADAPTERS[args.sandbox](os.path.abspath(args.porta))
    else:
        adapter = ADAPTERS[args.sandbox](args.porta)
    rows = parse_rows(args.rows)

    ctx = Context(adapter, os.path.abspath(args.probes_dir), args.verbose)

    def on_signal(sig, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_signal)
    report = []
    try:
        for n in rows:
            title, policy, fn = ROWS[n]
            print(f"row {n}: {title} ...", file=sys.stderr, flush=True)
            try:
                checks = fn(ctx)
            except NotOffered as e:
                checks = [not_offered(title, str(e))]
            except Exception as e:  # a runner bug must not read as held
                import traceback
                traceback.print_exc()
                checks = [Check(title, BROKEN, "-", f"runner error: {type(e).__name__}: {e}")]
            verdict, control, detail = aggregate(checks)
            report.append({"row": n, "title": title, "policy": policy, "verdict": verdict,
                           "control": control, "detail": detail,
                           "checks": [dataclasses.asdict(c) for c in checks]})
    finally:
        for fn in reversed(ctx.cleanup):
            try:
                fn()
            except Exception:
                pass
        ctx.sweep()
        if args.keep:
            print(f"run.py: kept {ctx.root}", file=sys.stderr)
        else:
            shutil.rmtree(ctx.root, ignore_errors=True)

    w_title = max(len(r["title"]) for r in report) if report else 5
    w_title = min(w_title, 58)
    print(f"\n{'row':>3}  {'title':<{w_title}}  {'control':<8} {'verdict':<8} detail")
    for r in report:
        print(f"{r['row']:>3}  {r['title'][:w_title]:<{w_title}}  {r['control']:<8} {r['verdict']:<8} {r['detail']}")
    counts = {v: sum(r["verdict"] == v for r in report)
              for v in (HELD, ESCAPED, BROKEN, SKIPPED, NA, NOT_OFFERED)}
    print("\n" + ", ".join(f"{v}: {n}" for v, n in counts.items()))
    if args.json:
        doc = {"sandbox": adapter.name, "binary": getattr(adapter, "binary", None),
               "uid": os.getuid(), "kernel": os.uname().release,
               "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "summary": counts, "rows": report}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
    return 1 if counts[ESCAPED] or counts[BROKEN] else 0


if __name__ == "__main__":
    sys.exit(main())
