"""Sandbox adapters: each turns a corpus Policy into one tool's command
line, or raises NotOffered where the tool has no setting for it."""

from __future__ import annotations

import os

from corpus import Policy


class PortaAdapter:
    name = "porta"

    def __init__(self, binary: str):
        self.binary = binary

    def command(self, policy: Policy, argv: list) -> list:
        cmd = [self.binary, "run"]
        if os.geteuid() == 0:
            cmd.append("--allow-root")  # porta refuses root without it
        for path, ro in policy.mounts:
            cmd += ["-v", path + (":ro" if ro else "")]
        if policy.read_policy != "open":
            cmd += ["--read-policy", policy.read_policy]
        if policy.no_net:
            cmd.append("--no-net")
        if policy.audit:
            cmd += ["--audit", policy.audit]
        for rule in policy.allow_net:
            cmd += ["--allow-net", rule]
        for rule in policy.proxy_allow:
            cmd += ["--proxy-allow", rule]
        for flag, val in (("--max-procs", policy.max_procs),
                          ("--max-file-size", policy.max_file_size_mib),
                          ("--max-cpu", policy.max_cpu_s),
                          ("--max-memory-mb", policy.max_memory_mib),
                          ("--timeout", policy.timeout_s)):
            if val is not None:
                cmd += [flag, str(val)]
        return cmd + ["--"] + list(argv)


class NoSandbox:
    """Self-test of the runner: runs everything unconfined, so every row that
    the host can host must come out ESCAPED (none may be held)."""
    name = "none"

    def __init__(self, binary: str | None = None):
        self.binary = binary

    def command(self, policy: Policy, argv: list) -> list:
        if policy.timeout_s is not None:
            return ["timeout", "-s", "KILL", str(policy.timeout_s)] + list(argv)
        return list(argv)


# Later milestones add "bwrap", "firejail", "srt" and "codex" here: each maps
# a Policy to the closest flags of that tool, or raises NotOffered.
ADAPTERS = {
    "porta": PortaAdapter,
    "none": NoSandbox,
}

