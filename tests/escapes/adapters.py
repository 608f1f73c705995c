"""Sandbox adapters: each turns a corpus Policy into one tool's command
line, or raises NotOffered where the tool has no setting for it.

Every adapter has `name`, a `version()` classmethod (the tool's own version
string, or None when it is not installed), `installed()`, and a docstring
saying what each Policy field becomes and what is not offered.  The rule for
the peers (bwrap, firejail, srt, codex): express the CLOSEST policy the tool
offers, as a careful user of that tool would write it, and nothing the tool
cannot say.  Where a tool's setting is STRICTER than the policy (srt cannot
open the whole network; codex's /tmp stays read-only) the adapter says so;
where it would be WIDER on the very thing a row tests, the adapter raises
NotOffered rather than let the row call it an escape.

What the Policy does not name, every tool keeps at its own defaults: porta
its built-in closure lists (credential paths, protected names, credential
sockets), firejail its default profile, srt and codex their built-in
protections, bwrap only the hardening flags its docstring names.  The
Policy has no field for a list of closed credential paths, so no adapter
invents one.  porta's own version() is its binary's `porta --version`.
"""

from __future__ import annotations

import atexit
import json
import os
import pwd
import re
import shutil
import subprocess
import tempfile

from corpus import SYSTEM_PATH, NotOffered, Policy


# --------------------------------------------------------------------------
# Shared pieces

# Strict reads, as docs/defaults.md defines them: the mounts, these
# system directories, and from /etc only what programs need to start.
STRICT_SYSTEM_DIRS = ["/usr", "/lib", "/lib64", "/bin", "/sbin"]
STRICT_ETC = ["ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "resolv.conf", "hosts",
              "nsswitch.conf", "passwd", "group", "services", "protocols", "ssl", "pki",
              "alternatives", "profile.d"]
# Top-level entries strict reads keep besides the above (kernel and runtime
# file systems every sandbox here provides itself, and /etc, /tmp).
STRICT_KEEP_TOP = {"usr", "lib", "lib32", "lib64", "libx32", "bin", "sbin", "etc", "dev", "proc",
                   "sys", "tmp", "run"}

MIB = 1 << 20


def which(tool: str) -> str | None:
    """The tool on the runner's PATH, or on the system PATH (rows run with
    SYSTEM_PATH only, so that is where the command must be found)."""
    return shutil.which(tool) or shutil.which(tool, path=SYSTEM_PATH)


def first_line(argv: list) -> str | None:
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    out = (r.stdout.strip() or r.stderr.strip()).splitlines()
    return out[0].strip() if out else None


def real_home() -> str:
    """The caller's home from the password database: the tools that look up
    a home (firejail) use this one, not $HOME (rows point $HOME elsewhere)."""
    return pwd.getpwuid(os.getuid()).pw_dir


def under(path: str, root: str) -> bool:
    path, root = os.path.normpath(path), os.path.normpath(root)
    return path == root or path.startswith(root.rstrip("/") + "/")


def by_depth(mounts: list) -> list:
    """Parents before children, so that a child's own mode is applied last."""
    return sorted(mounts, key=lambda m: (os.path.normpath(m[0]).count("/"), m[0]))


class ScratchDir:
    """A directory for one adapter's per-run files (settings files,
    profiles), removed when the runner exits.  Readable by every user: a
    row may run the command it got from the adapter as another user (row
    68 drops to an unprivileged one), and nothing written here is secret."""

    def __init__(self, prefix: str, parent: str | None = None, mode: int = 0o755):
        self.path = tempfile.mkdtemp(prefix=prefix, dir=parent)
        os.chmod(self.path, mode)
        atexit.register(shutil.rmtree, self.path, True)
        self.count = 0

    def file(self, name: str, text: str) -> str:
        self.count += 1
        path = os.path.join(self.path, f"{self.count:04d}-{name}")
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o644)
        return path


class RuleError(Exception):
    pass


def parse_rule(rule: str) -> tuple:
    """A porta --allow-net/--proxy-allow rule: (host, [ports]) with host a
    name, '*.suffix', '*', an IPv4 literal, '[IPv6]' or a CIDR; PORT
    defaults to 443 and may be a range a-b (docs/porta.1)."""
    rule = rule.strip()
    if rule.startswith("["):
        end = rule.find("]")
        if end < 0:
            raise RuleError(f"unbalanced bracket in {rule!r}")
        host, rest = rule[:end + 1], rule[end + 1:]
        port = rest[1:] if rest.startswith(":") else ("" if not rest else None)
        if port is None:
            raise RuleError(f"cannot read {rule!r}")
    elif rule.count(":") == 1:
        host, port = rule.split(":")
    else:
        host, port = rule, ""
    port = port or "443"
    if re.fullmatch(r"\d+", port):
        ports = [int(port)]
    elif re.fullmatch(r"\d+-\d+", port):
        a, b = (int(x) for x in port.split("-"))
        ports = list(range(a, b + 1))
    else:
        raise RuleError(f"cannot read the port of {rule!r}")
    return host, ports


def secret_parts(spec: str) -> tuple:
    """A porta --secret NAME@HOST[,HOST...]: (NAME, [HOST:PORT rules]), each
    host in --allow-net's grammar or the URL form https://HOST[:PORT][/],
    port 443 when none is given (policy/secret.h)."""
    name, sep, hosts = spec.partition("@")
    if not sep or not name or not hosts:
        raise RuleError(f"cannot read the secret {spec!r}")
    rules = []
    for h in hosts.split(","):
        h = h.strip()
        for scheme, port in (("https://", "443"), ("http://", "80")):
            if h.startswith(scheme):
                h = h[len(scheme):].rstrip("/")
                if ":" not in h.rsplit("]", 1)[-1]:
                    h = f"{h}:{port}"
        rules.append(h)
    return name, rules


def http_rule_parts(rule: str) -> tuple:
    """A porta --allow-http 'METHODS URL': (methods, scheme, HOST:PORT rule,
    path pattern), the port the scheme's when none is given."""
    methods, _, url = rule.strip().partition(" ")
    m = re.fullmatch(r"(https?)://([^/]+)(/.*)?", url.strip())
    if not methods or not m:
        raise RuleError(f"cannot read the --allow-http rule {rule!r}")
    scheme, hostport, path = m.group(1), m.group(2), m.group(3) or "/"
    if ":" not in hostport.rsplit("]", 1)[-1]:
        hostport += ":443" if scheme == "https" else ":80"
    return methods, scheme, hostport, path


# --------------------------------------------------------------------------
# porta itself, and no sandbox at all

class PortaAdapter:
    name = "porta"

    def __init__(self, binary: str):
        self.binary = binary

    @classmethod
    def installed(cls) -> bool:
        return True

    def version(self) -> str | None:
        return first_line([self.binary, "--version"])

    def command(self, policy: Policy, argv: list) -> list:
        cmd = [self.binary, "run"]
        if os.geteuid() == 0:
            cmd.append("--allow-root")  # porta refuses root without it
        for path, ro in policy.mounts:
            cmd += ["-v", path + (":ro" if ro else "")]
        # Always named: the rows were written for open reads, the default
        # until --read-policy home became it; a row about the closed home
        # asks for it (rows_home.py)
        cmd += ["--read-policy", policy.read_policy]
        if policy.share_tmp:
            cmd.append("--share-tmp")
        if policy.preset != "default":
            cmd += ["--preset", policy.preset]
        if policy.why:
            cmd.append("--why")
        if policy.no_net:
            cmd.append("--no-net")
        if policy.audit:
            cmd += ["--audit", policy.audit]
        for rule in policy.allow_net:
            cmd += ["--allow-net", rule]
        for rule in policy.proxy_allow:
            cmd += ["--proxy-allow", rule]
        for spec in policy.secrets:
            cmd += ["--secret", spec]
        for rule in policy.allow_http:
            cmd += ["--allow-http", rule]
        for flag, val in (("--max-procs", policy.max_procs),
                          ("--max-file-size", policy.max_file_size_mib),
                          ("--max-cpu", policy.max_cpu_s),
                          ("--max-memory-mb", policy.max_memory_mib),
                          ("--timeout", policy.timeout_s)):
            if val is not None:
                cmd += [flag, str(val)]
        return cmd + ["--"] + list(argv)


class PortaDegradedAdapter(PortaAdapter):
    """porta on a simulated host without user namespaces: each run
    inside a throwaway `unshare -r` whose limit of user namespaces is 0, so
    porta confines with Landlock and seccomp only.  Not a peer: this shows
    which rows the degraded mode holds and which it gives up (and says so)."""
    name = "porta-degraded"

    WRAP = ["unshare", "-r", "sh", "-c",
            'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"', "sh"]

    def command(self, policy: Policy, argv: list) -> list:
        return self.WRAP + super().command(policy, argv)


class NoSandbox:
    """Self-test of the runner: runs everything unconfined, so every row that
    the host can host must come out ESCAPED (none may be held)."""
    name = "none"

    def __init__(self, binary: str | None = None):
        self.binary = binary

    @classmethod
    def installed(cls) -> bool:
        return True

    @classmethod
    def version(cls) -> str | None:
        return None

    def command(self, policy: Policy, argv: list) -> list:
        if policy.timeout_s is not None:
            return ["timeout", "-s", "KILL", str(policy.timeout_s)] + list(argv)
        return list(argv)


# --------------------------------------------------------------------------
# bubblewrap

class BwrapAdapter:
    """bubblewrap (bwrap), run directly: namespaces and bind mounts, no policy
    language of its own.

    Policy field -> bwrap:
      mounts            `--bind P P` (writable) / `--ro-bind P P` (:ro), parents
                        before children, after the base layout below
      read_policy open  `--ro-bind / /`: the whole host read-only
      read_policy strict  no `/` at all: `--ro-bind` (or `--symlink` where the
                        host has a usr-merge link) of /usr /lib /lib64 /bin /sbin,
                        `--ro-bind-try` of each /etc file of the strict list
                        (docs/defaults.md), then the mounts
      always            `--dev /dev --proc /proc`, `--unshare-all`,
                        `--die-with-parent`, `--new-session` (setsid: no TIOCSTI
                        into the caller's terminal); and, as a careful user
                        writes them, `--unshare-user --disable-userns` (no
                        nested user namespaces; bwrap >= 0.8) and `--cap-drop ALL`
                        (as root bwrap otherwise keeps every capability)
      /tmp              `--tmpfs /tmp` (private); share_tmp: `--bind /tmp /tmp`,
                        the host's /tmp, writable
      no_net            no `--share-net` (empty network namespace); otherwise
                        `--share-net`, the host's network as it is
    Not offered: audit, proxy_allow, allow_net, secrets, allow_http (no
    proxy, no name rules), max_procs, max_file_size_mib, max_cpu_s, max_memory_mib, timeout_s (bwrap
    sets no rlimits, cgroups or deadlines; a wrapper such as prlimit or
    timeout would be another tool).
    Not hidden: credential files (bwrap has no preset; `--ro-bind / /` shows
    the home as it is), abstract Unix sockets unless no_net, /proc/sys (the
    fresh /proc is writable: as root, uid 0 may write host sysctls; kernel
    sysctl permission is by uid, not capability). No seccomp filter: bwrap
    takes one only as a compiled BPF program on a file descriptor
    (`--seccomp FD`), which is not a setting but a program of one's own.
    Root and unprivileged: both work (unprivileged user namespaces are on).
    """
    name = "bwrap"
    tool = "bwrap"

    def __init__(self, binary: str | None = None):
        self.exe = which(self.tool)
        if not self.exe:
            raise SystemExit("run.py: bwrap is not installed")

    @classmethod
    def installed(cls) -> bool:
        return which(cls.tool) is not None

    @classmethod
    def version(cls) -> str | None:
        exe = which(cls.tool)
        return first_line([exe, "--version"]) if exe else None

    def command(self, policy: Policy, argv: list) -> list:
        not_offered_common(policy, "bwrap", ceilings=True, timeout=True)
        cmd = [self.exe, "--die-with-parent", "--new-session", "--unshare-all",
               "--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
        if not policy.no_net:
            cmd.append("--share-net")
        if policy.read_policy == "strict":
            for d in STRICT_SYSTEM_DIRS:
                if os.path.islink(d):
                    cmd += ["--symlink", os.readlink(d), d]
                elif os.path.isdir(d):
                    cmd += ["--ro-bind", d, d]
            for name in STRICT_ETC:
                cmd += ["--ro-bind-try", "/etc/" + name, "/etc/" + name]
        else:
            cmd += ["--ro-bind", "/", "/"]
        cmd += ["--dev", "/dev", "--proc", "/proc"]
        cmd += ["--bind", "/tmp", "/tmp"] if policy.share_tmp else ["--tmpfs", "/tmp"]
        for path, ro in by_depth(policy.mounts):
            cmd += ["--ro-bind" if ro else "--bind", path, path]
        return cmd + ["--"] + list(argv)


def not_offered_common(policy: Policy, tool: str, audit: bool = True, net_rules: bool = True,
                       ceilings: bool = False, timeout: bool = False) -> None:
    """Raise NotOffered for the Policy fields this tool has no setting for."""
    if policy.why:
        raise NotOffered(f"{tool} suggests no options after a run (porta's --why)")
    if audit and policy.audit:
        raise NotOffered(f"{tool} writes no audit file of network decisions (--audit)")
    if net_rules and (policy.proxy_allow or policy.allow_net or policy.secrets or policy.allow_http):
        rules = ", ".join(policy.allow_net + policy.proxy_allow + [s.partition("@")[2] for s in policy.secrets]
                          + policy.allow_http)
        raise NotOffered(f"{tool} has no per-host network rule ({rules}): its network is all or nothing")
    if ceilings:
        for what, val in (("--max-procs", policy.max_procs),
                          ("--max-file-size", policy.max_file_size_mib),
                          ("--max-cpu", policy.max_cpu_s),
                          ("--max-memory-mb", policy.max_memory_mib)):
            if val is not None:
                raise NotOffered(f"{tool} has no resource ceilings ({what} {val})")
    if timeout and policy.timeout_s is not None:
        raise NotOffered(f"{tool} has no deadline of its own (--timeout {policy.timeout_s})")


# --------------------------------------------------------------------------
# firejail

class FirejailAdapter:
    """firejail (setuid root), with its DEFAULT profile.

    Profile: `--profile=default`, i.e. /etc/firejail/default.profile, which is
    what `firejail CMD` gives an ordinary user: the disable-common and
    disable-programs blacklists (~/.ssh, ~/.gnupg, ~/.aws, ~/.netrc,
    /var/run/docker.sock, /tmp/ssh-* ...), caps.drop all, nonewprivs,
    noroot, seccomp, protocol unix,inet,inet6, restrict-namespaces.  As root,
    firejail's own default is server.profile instead, whose `private` gives
    an empty home and so hides the run's mounts (they live in $HOME): the
    adapter names the default profile in both modes, so root and
    unprivileged runs apply the same policy (as root `noroot` is skipped,
    with a warning from firejail).  `--noprofile` would drop all of that and
    is not what a user of firejail runs.

    The home: firejail takes ~ from the password database, never from $HOME,
    so rows that plant a home and point $HOME at it (7, 8) would test a home
    firejail does not know and call its ~/.ssh, ~/.aws, ~/.netrc blacklists
    failures.  The adapter is told the row's $HOME (`follows_home`, see
    corpus.Context.sandboxed) and, when it is not the real home, passes
    `--profile=FILE`: default.profile with its includes inlined and every
    line naming ${HOME} repeated for the planted home, i.e. firejail's own
    rules applied where the row put the home.  Checked by hand against the
    real home of an unprivileged user: the same files hidden (~/.ssh,
    ~/.aws, ~/.netrc; ~/.ssh/authorized_keys unwritable) and the same ones
    read (~/.config/gh/hosts.yml, ~/.docker/config.json).

    Policy field -> firejail:
      mounts            `--read-only=/` and `--read-only=~` (firejail
                        remounts the home itself, so / alone leaves it
                        writable; firejail expands ~ for the user it runs as),
                        then `--read-write=P` per writable mount
                        (firejail allows it only on the caller's own files);
                        `:ro` mounts are covered by `--read-only=/`
      /tmp              `--private-tmp`; a mount under /tmp is kept with
                        `--whitelist=P` instead (a private /tmp holding it);
                        share_tmp: neither, and `--read-write=/tmp` (the
                        host's /tmp; firejail warns and keeps it read-only
                        for a user who does not own /tmp)
      read_policy open  firejail's default reads, minus its blacklists
      read_policy strict  `--private-etc=` the strict /etc list, `--whitelist=P`
                        for each mount under the home (the home then holds only
                        those), `--blacklist=` every other top-level entry of /
                        that is not a system directory and holds no mount
      no_net            `--net=none` (an empty network namespace)
      max_procs         `--rlimit-nproc=N` (RLIMIT_NPROC: counts every process
                        of the uid, and the kernel exempts uid 0 from it)
      max_file_size_mib `--rlimit-fsize=N MiB in bytes` (RLIMIT_FSIZE)
      max_cpu_s         `--rlimit-cpu=N` (RLIMIT_CPU: SIGXCPU at N s, SIGKILL
                        at the hard limit, which firejail sets equal)
      max_memory_mib    `--rlimit-as=N MiB in bytes`: RLIMIT_AS limits ADDRESS
                        SPACE, not memory; the closest firejail 0.9.72 offers
                        (its --cgroup only joins an existing cgroup)
      timeout_s         `--timeout=hh:mm:ss`
    Not offered: audit, proxy_allow, allow_net, secrets, allow_http
    (firejail's --netfilter takes iptables rules over addresses, not names
    through a proxy).
    Where it cannot run: inside a user namespace (the network rows' lab is
    one): tried with `unshare -U`, firejail 0.9.72 stops with "Error seteuid:
    EUID_USER: Invalid argument" as root and aborts on an assertion in
    create_empty_dir_as_root as an unprivileged user.  The lab's rows all
    carry --allow-net, so they come out not offered before firejail runs.
    """
    name = "firejail"
    tool = "firejail"
    follows_home = True  # corpus.Context.sandboxed passes the row's $HOME

    def __init__(self, binary: str | None = None):
        self.exe = which(self.tool)
        if not self.exe:
            raise SystemExit("run.py: firejail is not installed")
        self.scratch = ScratchDir("porta-escapes-firejail-")
        self.profiles: dict = {}

    @classmethod
    def installed(cls) -> bool:
        return which(cls.tool) is not None

    @classmethod
    def version(cls) -> str | None:
        exe = which(cls.tool)
        return first_line([exe, "--version"]) if exe else None

    PROFILE_DIRS = ["~/.config/firejail", "/etc/firejail"]

    def profile_lines(self, name: str, depth: int = 0) -> list:
        """The profile NAME with its includes inlined, as firejail reads it
        (the user's directory first; a missing include, such as the .local
        files, is skipped as firejail skips it)."""
        for d in self.PROFILE_DIRS:
            path = os.path.join(os.path.expanduser(d) if d.startswith("~") else d, name)
            if os.path.isfile(path):
                break
        else:
            return []
        out = []
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                m = re.match(r"\s*include\s+(\S+)\s*$", line)
                if m and depth < 8:
                    out += self.profile_lines(m.group(1), depth + 1)
                else:
                    out.append(line)
        return out

    def profile_for(self, planted: str) -> str:
        """firejail's default profile, every ${HOME} rule also applied to the
        home the row planted (see the class docstring); one file per home."""
        if planted not in self.profiles:
            lines = ["# firejail's default.profile, includes inlined; every line naming",
                     f"# ${{HOME}} repeated for the home the corpus planted: {planted}"]
            for line in self.profile_lines("default.profile"):
                lines.append(line)
                if "${HOME}" in line and not line.lstrip().startswith("#"):
                    lines.append(line.replace("${HOME}", planted))
            self.profiles[planted] = self.scratch.file("default-planted-home.profile",
                                                       "\n".join(lines) + "\n")
        return self.profiles[planted]

    def command(self, policy: Policy, argv: list, home: str | None = None) -> list:
        not_offered_common(policy, "firejail")
        real = real_home()
        profile = "default"
        if home and os.path.normpath(home) != os.path.normpath(real) and os.path.isdir(home):
            profile = self.profile_for(os.path.normpath(home))
        home = real
        mounts = by_depth(policy.mounts)
        # "~" is expanded by firejail itself, to the home of the user it runs
        # as (the command may run as another user than the runner: row 68)
        cmd = [self.exe, "--quiet", f"--profile={profile}", "--read-only=/", "--read-only=~"]
        tmp_mounts = [p for p, _ in mounts if under(p, "/tmp")]
        if policy.share_tmp:
            cmd.append("--read-write=/tmp")
        elif tmp_mounts:
            cmd += [f"--whitelist={p}" for p in tmp_mounts]
        else:
            cmd.append("--private-tmp")
        for path, ro in mounts:
            if not ro:
                cmd.append(f"--read-write={path}")
        if policy.read_policy == "strict":
            cmd.append("--private-etc=" + ",".join(STRICT_ETC))
            cmd += [f"--whitelist={p}" for p, _ in mounts if under(p, home) and p not in tmp_mounts]
            keep = set(STRICT_KEEP_TOP)
            for p in [home] + [p for p, _ in mounts]:
                parts = os.path.normpath(p).split("/")
                if len(parts) > 1 and parts[1]:
                    keep.add(parts[1])
            for entry in sorted(os.listdir("/")):
                if entry not in keep and not os.path.islink("/" + entry):
                    cmd.append(f"--blacklist=/{entry}")
            # the home's own parent (e.g. /home) shows other users' homes
            parent = os.path.dirname(home)
            if parent != "/":
                for entry in sorted(os.listdir(parent)) if os.access(parent, os.R_OK) else []:
                    p = os.path.join(parent, entry)
                    if p != home and not any(under(m, p) for m, _ in mounts):
                        cmd.append(f"--blacklist={p}")
        if policy.no_net:
            cmd.append("--net=none")
        if policy.max_procs is not None:
            cmd.append(f"--rlimit-nproc={policy.max_procs}")
        if policy.max_file_size_mib is not None:
            cmd.append(f"--rlimit-fsize={policy.max_file_size_mib * MIB}")
        if policy.max_cpu_s is not None:
            cmd.append(f"--rlimit-cpu={policy.max_cpu_s}")
        if policy.max_memory_mib is not None:
            cmd.append(f"--rlimit-as={policy.max_memory_mib * MIB}")
        if policy.timeout_s is not None:
            t = policy.timeout_s
            cmd.append(f"--timeout={t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}")
        return cmd + ["--"] + list(argv)


# --------------------------------------------------------------------------
# Anthropic's sandbox-runtime (srt)

class SrtAdapter:
    """srt (@anthropic-ai/sandbox-runtime): on Linux, bubblewrap with no
    network namespace of the host (the command's network is removed; HTTP
    and SOCKS5 proxies running outside, reached over Unix sockets bridged by
    socat, enforce the domain lists) plus a seccomp filter that refuses new
    AF_UNIX sockets and io_uring.  Needs bubblewrap, socat and ripgrep.

    One settings file per command (`srt --settings FILE -- ARGV`), written in
    a directory of the adapter's own and removed when the runner exits.
    srt's proxies take only clients that present the per-run credential srt
    puts in the userinfo of HTTP_PROXY / HTTPS_PROXY / ALL_PROXY
    (http://srt...:TOKEN@localhost:3128); a client that drops the userinfo
    gets "407 Proxy Authentication Required" (HTTP) or reply 2 (SOCKS5) for
    every destination, allowed ones included.

    Policy field -> settings:
      mounts            writable -> filesystem.allowWrite; `:ro` mounts need
                        nothing under open reads (reads are open, writes denied
                        by default) and are re-allowed under strict reads
      share_tmp         "/tmp" added to allowWrite: the host's /tmp, writable
      read_policy open  denyRead [] (srt's default: everything readable)
      read_policy strict  denyRead ["/"] (srt then denies each top-level
                        directory but /proc, /dev and /sys) with allowRead =
                        /usr /lib /lib64 /bin /sbin, the strict /etc list,
                        /tmp, and every mount
      no_net            allowedDomains [] (srt's default: no network)
      (no network field) srt CANNOT open the whole network: allowedDomains
                        refuses "*" and a direct route out, so the command runs
                        with srt's default of no network, STRICTER than the
                        policy (no row but the network ones depends on it)
      proxy_allow, allow_net  each HOST:PORT rule -> allowedDomains "HOST:PORT";
                        porta's "*.suffix" (the suffix and every name under it)
                        -> "suffix:PORT" and "*.suffix:PORT"; a port range
                        -> one entry per port (up to 64); IPv4 and [IPv6]
                        literals as they are.  srt has one mechanism for both:
                        proxies the program reaches through HTTP_PROXY /
                        HTTPS_PROXY / ALL_PROXY (srt sets them); a program that
                        ignores them has no network at all, which is stricter
                        than porta's transparent --allow-net
      secrets           NAME@HOSTS -> credentials.envVars {name: NAME, mode:
                        "mask", injectHosts: the hosts}: srt's own stand-in
                        feature (the command sees fake_value_<uuid>, srt's
                        proxy swaps in the real value for those hosts only);
                        the hosts join allowedDomains (port 443 unless given),
                        and network.tlsTerminate is set, with every other
                        allowed host in its excludeDomains (tunnelled
                        untouched, as porta splices the hosts it does not
                        terminate).  srt's proxy verifies the upstream with
                        Node's roots and NODE_EXTRA_CA_CERTS in srt's own
                        environment, which the row sets (tests/escapes/
                        rows_secrets.py)
      allow_http        only "* https://HOST[:PORT]/*" (every method and
                        path): the host joins allowedDomains and is terminated
                        as above; "* http://HOST/*" joins allowedDomains
    Not offered: audit (srt keeps violations in memory and debug logs, not in
    a file of decisions); allow_http rules narrower than every method and
    path (srt decides requests only through filterRequest, a callback of its
    library, not a setting); rules srt refuses: "*" and "*:PORT" (any name),
    CIDR ranges, wildcards over a single label ("*.test"); max_procs,
    max_file_size_mib, max_cpu_s, max_memory_mib, timeout_s (no ceilings, no
    deadline).
    Working directory: the first writable mount (`env -C P srt ...`).  srt's
    mandatory write denies (.bashrc, .gitconfig, .gitmodules, .mcp.json,
    .git/hooks, .git/config, .vscode, .idea, .claude/commands|agents) are
    computed from srt's working directory (those names in it, and a ripgrep
    scan of it 3 levels deep), not from allowWrite: started from the runner's
    directory they would miss a repository several levels down, so srt is
    started where its user starts it, in the workspace.  Only one directory
    can be the working directory: a second writable mount gets no scan.
    TMPDIR: a directory of the adapter's own (srt leaves its proxy's socket,
    $TMPDIR/srt-mux-PID-N.sock, behind after every run, and a later srt with
    the same pid run by another user then cannot start); the command sees
    that TMPDIR too.
    Kept at srt's defaults: `enableWeakerNestedSandbox` off,
    allowLocalBinding off, mandatoryDenySearchDepth 3.
    Root and unprivileged: both run (as root the command keeps a full
    capability set inside srt's nested user namespace, which srt documents).
    """
    name = "srt"
    tool = "srt"

    def __init__(self, binary: str | None = None):
        self.exe = which(self.tool)
        if not self.exe:
            raise SystemExit("run.py: srt (@anthropic-ai/sandbox-runtime) is not installed")
        self.scratch = ScratchDir("porta-escapes-srt-")
        # srt's proxy listens on $TMPDIR/srt-mux-PID-N.sock and srt 0.0.78
        # leaves it behind; a later srt with the same pid (pids are small in
        # the network rows' PID namespace) run by another user then fails
        # with EADDRINUSE.  A TMPDIR of the adapter's own keeps them apart
        # and goes with the adapter (sticky: a row may run srt as another
        # user, row 68).
        self.tmpdir = os.path.join(self.scratch.path, "tmp")
        os.mkdir(self.tmpdir)
        os.chmod(self.tmpdir, 0o1777)

    @classmethod
    def installed(cls) -> bool:
        return which(cls.tool) is not None

    @classmethod
    def version(cls) -> str | None:
        exe = which(cls.tool)
        v = first_line([exe, "--version"]) if exe else None
        return f"@anthropic-ai/sandbox-runtime {v}" if v else None

    @staticmethod
    def domains(rules: list) -> list:
        out = []
        for rule in rules:
            try:
                host, ports = parse_rule(rule)
            except RuleError as e:
                raise NotOffered(f"srt: {e}")
            if len(ports) > 64:
                raise NotOffered(f"srt takes one port per allowedDomains entry; {rule} opens {len(ports)}")
            if host == "*":
                raise NotOffered(f"srt's allowedDomains refuses '*' (any name): {rule}")
            if "/" in host:
                raise NotOffered(f"srt's allowedDomains takes no CIDR range: {rule}")
            if host.startswith("*."):
                suffix = host[2:]
                if "." not in suffix:
                    raise NotOffered(f"srt refuses a wildcard over one label ({host}): {rule}")
                hosts = [suffix, host]
            else:
                hosts = [host]
            for h in hosts:
                for p in ports:
                    entry = f"{h}:{p}"
                    if entry not in out:
                        out.append(entry)
        return out

    def settings(self, policy: Policy) -> dict:
        not_offered_common(policy, "srt", net_rules=False, ceilings=True, timeout=True)
        writable = [p for p, ro in policy.mounts if not ro]
        if policy.share_tmp:
            writable.append("/tmp")
        fs = {"denyRead": [], "allowRead": [], "allowWrite": writable, "denyWrite": []}
        if policy.read_policy == "strict":
            fs["denyRead"] = ["/"]
            fs["allowRead"] = ([d for d in STRICT_SYSTEM_DIRS if os.path.exists(d)]
                               + ["/etc/" + n for n in STRICT_ETC if os.path.exists("/etc/" + n)]
                               + ["/tmp"] + [p for p, _ in policy.mounts])
        net = {"allowedDomains": self.domains(policy.allow_net + policy.proxy_allow),
               "deniedDomains": []}
        out = {"network": net, "filesystem": fs}
        self.credentials(policy, out)
        return out

    def credentials(self, policy: Policy, out: dict) -> None:
        """secrets and allow_http (see the class docstring) into the settings."""
        terminated, plain, env_vars = [], [], []
        try:
            for spec in policy.secrets:
                name, rules = secret_parts(spec)
                terminated += rules
                env_vars.append({"name": name, "mode": "mask",
                                 "injectHosts": sorted({parse_rule(r)[0] for r in rules})})
            for rule in policy.allow_http:
                methods, scheme, hostport, path = http_rule_parts(rule)
                if methods != "*" or path != "/*":
                    raise NotOffered(f"srt decides requests only through filterRequest, a callback "
                                     f"of its library, not a setting: --allow-http '{rule}'")
                (terminated if scheme == "https" else plain).append(hostport)
            spliced = ({parse_rule(r)[0] for r in policy.allow_net + policy.proxy_allow}
                       - {parse_rule(r)[0] for r in terminated})
        except RuleError as e:
            raise NotOffered(f"srt: {e}")
        net = out["network"]
        net["allowedDomains"] = self.domains(policy.allow_net + policy.proxy_allow + plain + terminated)
        if terminated:
            # porta terminates only the hosts a secret or a request rule
            # names and splices the others; srt's nearest is termination
            # for all but excludeDomains (host patterns, without a port;
            # porta's "*.x" is x and every name under it)
            spliced |= {h[2:] for h in spliced if h.startswith("*.")}
            net["tlsTerminate"] = {"excludeDomains": sorted(spliced)} if spliced else {}
        if env_vars:
            out["credentials"] = {"envVars": env_vars}

    def command(self, policy: Policy, argv: list) -> list:
        path = self.scratch.file("srt-settings.json", json.dumps(self.settings(policy), indent=1))
        writable = [p for p, ro in policy.mounts if not ro]
        # srt's protections inside writable paths are found from its working
        # directory (the project it is started in), not from allowWrite:
        # start it where a user would, in the workspace.
        chdir = ["-C", writable[0]] if writable else []
        return (["env"] + chdir + [f"TMPDIR={self.tmpdir}", self.exe, "--settings", path, "--"]
                + list(argv))


# --------------------------------------------------------------------------
# OpenAI's codex CLI (`codex sandbox`)

class CodexAdapter:
    """`codex sandbox` of the codex CLI (npm @openai/codex): on Linux the
    codex-linux-sandbox helper, i.e. codex's bundled bubblewrap (user, mount,
    PID and network namespaces, read-only bind of what the profile allows)
    plus a seccomp filter and no_new_privs.

    Configured with a permission profile of its own (codex's current,
    documented config: `default_permissions` + `[permissions.<name>]`),
    passed as `-c` overrides, under a CODEX_HOME private to the runner (so no
    ~/.codex/config.toml of the caller changes the policy; codex refuses a
    CODEX_HOME under /tmp, so it lives in /var/tmp, one per uid, made by a
    `sh -c` in front of codex).

    Policy field -> permissions.porta_escapes:
      mounts            filesystem "P" = "write" (writable) / "read" (`:ro`)
      read_policy open  filesystem ":root" = "read"
      read_policy strict  filesystem ":minimal" = "read" (codex's "what
                        programs need" set) plus the mounts.  codex's minimal
                        set holds ALL of /etc: a "none" on /etc wins over
                        "read" on its files (tried), and without ":minimal"
                        the usr-merge links /bin, /lib are not made, so
                        nothing starts; so /etc is wider than porta's list
      /tmp              read-only (":tmpdir"/":slash_tmp" are not granted):
                        stricter than porta's private writable /tmp;
                        share_tmp: filesystem "/tmp" = "write"
      no_net            no network table (codex's default: its own empty
                        network namespace)
      (no network field) network = {enabled = true}: the host's network
    Not offered: proxy_allow, allow_net, and secrets and allow_http (each
    allows hosts by name, which the same allowlist would have to say).
    codex 0.171 has a beta domain
    allowlist (`features.network_proxy` + network.domains, a proxy it starts
    itself), but it matches host names only, on every port, so it cannot say
    HOST:PORT (every porta rule has a port), and it refuses every
    non-public address, TEST-NET included, which is what the network rows'
    lab is made of; audit (no decision file); max_procs,
    max_file_size_mib, max_cpu_s, max_memory_mib, timeout_s (no ceilings,
    no deadline in `codex sandbox`).
    Kept at codex's defaults: its seccomp filter, its protections inside
    writable roots (.git, .codex, .agents read-only where they exist).
    Root and unprivileged: both run (unprivileged user namespaces are on).
    """
    name = "codex"
    tool = "codex"
    profile = "porta_escapes"
    HOME_SH = ('h="$0/$(id -u)"; [ -d "$h" ] || mkdir -m 700 "$h"; '
               '[ -O "$h" ] && [ ! -L "$h" ] || { echo "codex adapter: $h is not ours" >&2; exit 125; }; '
               'CODEX_HOME="$h" exec "$@"')

    def __init__(self, binary: str | None = None):
        self.exe = which(self.tool)
        if not self.exe:
            raise SystemExit("run.py: codex (@openai/codex) is not installed")
        # One CODEX_HOME per uid, made at run time under a sticky directory:
        # codex writes helper links into it, and a row may run the command as
        # another user than the runner (row 68).
        self.codex_homes = ScratchDir("porta-escapes-codex-", "/var/tmp", mode=0o1777).path

    @classmethod
    def installed(cls) -> bool:
        return which(cls.tool) is not None

    @classmethod
    def version(cls) -> str | None:
        exe = which(cls.tool)
        return first_line([exe, "--version"]) if exe else None

    @staticmethod
    def toml_table(entries: dict) -> str:
        return "{" + ",".join(f"{json.dumps(k)}={json.dumps(v)}" for k, v in entries.items()) + "}"

    def command(self, policy: Policy, argv: list) -> list:
        if policy.audit:
            raise NotOffered("codex writes no audit file of network decisions (--audit)")
        if policy.proxy_allow or policy.allow_net or policy.secrets or policy.allow_http:
            rules = ", ".join(policy.allow_net + policy.proxy_allow
                              + [s.partition("@")[2] for s in policy.secrets] + policy.allow_http)
            raise NotOffered(f"codex cannot say HOST:PORT ({rules}): its beta domain allowlist "
                             "(features.network_proxy) matches names on every port and refuses "
                             "non-public addresses")
        not_offered_common(policy, "codex", audit=False, net_rules=False, ceilings=True, timeout=True)
        fs = {":minimal" if policy.read_policy == "strict" else ":root": "read"}
        if policy.share_tmp:
            fs["/tmp"] = "write"
        for path, ro in by_depth(policy.mounts):
            fs[path] = "read" if ro else "write"
        p = f"permissions.{self.profile}"
        cmd = ["/bin/sh", "-c", self.HOME_SH, self.codex_homes, self.exe, "sandbox",
               "-c", f'default_permissions="{self.profile}"',
               "-c", f"{p}.filesystem={self.toml_table(fs)}"]
        if not policy.no_net:
            cmd += ["-c", f"{p}.network={{enabled=true}}"]
        return cmd + ["--"] + list(argv)


# "porta" and "none", and the peers: each maps a Policy to the closest flags
# of that tool, or raises NotOffered.
ADAPTERS = {
    "porta": PortaAdapter,
    "porta-degraded": PortaDegradedAdapter,
    "none": NoSandbox,
    "bwrap": BwrapAdapter,
    "firejail": FirejailAdapter,
    "srt": SrtAdapter,
    "codex": CodexAdapter,
}
