"""Rows 1-24 of the escape corpus: files, processes, syscalls, ceilings,
and --no-net."""


import errno
import os
import re
import select
import signal
import socket
import subprocess
import time
import tty
import uuid



from corpus import *  # noqa: F401,F403  (the runner's vocabulary)


@row(1, "write outside every mount", "-v WS")
def row1(ctx):
    def evidence(s, run):
        new = new_entries(s["ug"], set()) + [n for n in new_entries(s["base"], {"ws", "ug"})]
        return bool(new), f"created outside the mount: {new}" if new else "nothing created outside"
    # UG is a sibling of WS under the run's directory in $HOME.
    script = ('echo x > "$1/escape"; mkdir "$1/escape.d"; ln -s x "$1/escape.lnk"; '
              'cp /bin/sh "$1/escape.cp"; touch "$2/../escape-beside-ws"')
    return [simple(ctx, "sh -c 'echo x > UG/escape'", ws_ug,
                   lambda s: Policy(mounts=[(s["ws"], False)]),
                   lambda s: sh(script, s["ug"], s["ws"]), evidence)]


@row(2, "rename the mount root away", "-v WS -v UG")
def row2(ctx):
    def evidence(s, run):
        moved = [p for p in (s["ws"], s["ug"]) if not os.path.isdir(p)]
        extra = new_entries(s["base"], {"ws", "ug"})
        esc = bool(moved or extra)
        return esc, f"moved away: {moved}, new in parent: {extra}" if esc else "mount roots in place"
    script = 'mv "$1" "$1.moved"; mv "$2" "$2.moved"; mv "$1" "$2/inside"; mv "$2" "$1/inside"'
    return [simple(ctx, "mv WS WS.moved", ws_ug,
                   lambda s: Policy(mounts=[(s["ws"], False), (s["ug"], False)]),
                   lambda s: sh(script, s["ws"], s["ug"]), evidence)]


def make_repo(path: str, gitdir_file: bool = False) -> dict:
    """A git repository made by hand (no git needed): .git/hooks, .git/config.
    With gitdir_file, .git is a file naming a gitdir inside the same tree."""
    os.makedirs(path)
    gitdir = os.path.join(path, ".gitstore" if gitdir_file else ".git")
    for d in ("hooks", "objects", "refs/heads"):
        os.makedirs(os.path.join(gitdir, d))
    with open(os.path.join(gitdir, "HEAD"), "w") as f:
        f.write("ref: refs/heads/main\n")
    with open(os.path.join(gitdir, "config"), "w") as f:
        f.write("[core]\n\trepositoryformatversion = 0\n\tbare = false\n")
    with open(os.path.join(gitdir, "hooks", "pre-commit.sample"), "w") as f:
        f.write("#!/bin/sh\n")
    if gitdir_file:
        with open(os.path.join(path, ".git"), "w") as f:
            f.write("gitdir: .gitstore\n")
    return {"repo": path, "gitdir": gitdir,
            "config": read(os.path.join(gitdir, "config")),
            "hooks": sorted(os.listdir(os.path.join(gitdir, "hooks")))}


def git_tamper_evidence(s, run):
    g = s["git"]
    found = []
    for gitdir in (g["gitdir"], os.path.join(g["repo"], ".git")):
        hooks = os.path.join(gitdir, "hooks")
        if os.path.isdir(hooks) and sorted(os.listdir(hooks)) != g["hooks"]:
            found.append(f"{hooks} now holds {sorted(os.listdir(hooks))}")
        cfg = read(os.path.join(gitdir, "config"))
        if os.path.isdir(gitdir) and cfg != g["config"]:
            found.append(f"{gitdir}/config changed: {cfg!r}")
    return bool(found), "; ".join(found) or "hooks and config untouched"


GIT_TAMPER = r'''
cd "$1"; g=$2
printf '#!/bin/sh\necho pwned\n' > $g/hooks/pre-commit; chmod +x $g/hooks/pre-commit
printf '[core]\n\thooksPath = /tmp/evil\n' >> $g/config
mv $g/hooks $g/hooks.old && mkdir $g/hooks && echo x > $g/hooks/pre-commit
mv $g/config $g/config.old && printf '[core]\n\thooksPath = /tmp/evil\n' > $g/config
rm -f $g/config; ln -s /tmp/evil $g/config
mv $g $g.moved && mkdir -p $g/hooks && echo x > $g/hooks/pre-commit && printf '[core]\n\tfsmonitor = evil\n' > $g/config
echo done
'''


@row(3, "write a git hook inside a mount", "-v WS/repo (a git repo)")
def row3(ctx):
    checks = []
    for name, gitdir_file in (("hooks+config of .git/", False), ("hooks+config via .git file gitdir:", True)):
        def setup(base, gf=gitdir_file):
            s = ws_ug(base)
            s["git"] = make_repo(os.path.join(s["ws"], "repo"), gf)
            return s
        checks.append(simple(
            ctx, name, setup,
            lambda s: Policy(mounts=[(s["git"]["repo"], False)]),
            lambda s: sh(GIT_TAMPER, s["git"]["repo"], os.path.basename(s["git"]["gitdir"])),
            git_tamper_evidence))
    return checks


@row(4, "write through a symlink that points outside the mount", "-v WS")
def row4(ctx):
    def setup(base):
        s = ws_ug(base)
        with open(os.path.join(s["ug"], "target.txt"), "w") as f:
            f.write("original\n")
        os.symlink(s["ug"], os.path.join(s["ws"], "dirlink"))
        os.symlink(os.path.join(s["ug"], "target.txt"), os.path.join(s["ws"], "filelink"))
        os.symlink(os.path.join(s["ug"], "created.txt"), os.path.join(s["ws"], "dangling"))
        return s

    def evidence(s, run):
        new = new_entries(s["ug"], {"target.txt"})
        changed = read(os.path.join(s["ug"], "target.txt")) != "original\n"
        esc = bool(new) or changed
        return esc, (f"new outside: {new}, target changed: {changed}" if esc else "nothing written outside")
    script = ('cd "$1"; echo x > dirlink/escape; echo x > filelink; echo x > dangling; '
              'ln -s "$2" newlink; echo x > newlink/escape2; cp /bin/sh dirlink/escape3')
    return [simple(ctx, "echo x > WS/link", setup,
                   lambda s: Policy(mounts=[(s["ws"], False)]),
                   lambda s: sh(script, s["ws"], s["ug"]), evidence)]


def marker_evidence(run, marker=MARKER):
    lines = [l for l in run.stdout.splitlines() if marker in l]
    return bool(lines), (f"stdout carried the secret: {lines[0][:160]!r}" if lines else "secret not read")


@row(5, "read a secret through a symlink under strict reads", "--read-policy strict -v WS")
def row5(ctx):
    def setup(base):
        s = ws_ug(base)
        secret = os.path.join(s["ug"], "secret")
        os.mkdir(secret)
        with open(os.path.join(secret, "token.txt"), "w") as f:
            f.write(f"{MARKER} row5 token\n")
        s["secret"] = secret
        os.symlink(os.path.join(secret, "token.txt"), os.path.join(s["ws"], "link"))
        os.symlink(secret, os.path.join(s["ws"], "dlink"))
        return s
    script = ('cd "$1"; cat link; cat dlink/token.txt; ln -s "$2/token.txt" new; cat new; '
              'cat "$2/token.txt"')
    return [simple(ctx, "cat WS/link -> secret", setup,
                   lambda s: Policy(mounts=[(s["ws"], False)], read_policy="strict"),
                   lambda s: sh(script, s["ws"], s["secret"]),
                   lambda s, r: marker_evidence(r))]


@row(6, "inherit an open fd from porta", "-v WS --audit FILE (and proxy rules)")
def row6(ctx):
    tag = f"FD-LEAK-{ctx.nonce[:8]}"
    checks = []
    # Control: the runner itself leaves a file and a socket open for the probe.
    base = ctx.fresh("r6-control")
    held_file = open(os.path.join(base, "held.txt"), "w")
    a, b = socket.socketpair()
    ctl = ctx.control([ctx.probe("fdleak"), tag],
                      pass_fds=(held_file.fileno(), a.fileno()))
    held_file.close()
    a.close()
    b.close()
    c_fds = [l for l in ctl.stdout.splitlines() if l.startswith("OPENFD")]
    # The corpus asks for --audit and proxy rules (porta then holds files and
    # sockets: the audit file, listeners, the notification fd); a tool that
    # cannot express them reports that variant as not offered, and the plain
    # run still checks the control channel and everything else.
    for name, audit_on, proxy in (("plain -v WS", False, []),
                                  ("--audit + --proxy-allow", True, ["allowed.test:443"])):
        s = ws_ug(ctx.fresh("r6-sandbox"))
        audit = os.path.join(s["base"], "audit.jsonl") if audit_on else None
        try:
            sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)], audit=audit, proxy_allow=proxy),
                                [ctx.probe("fdleak"), tag])
        except NotOffered as e:
            checks.append(not_offered(name, str(e)))
            continue
        fds = [l for l in sbx.stdout.splitlines() if l.startswith("OPENFD")]
        in_audit = bool(audit) and tag in (read(audit, "") or "")
        esc = bool(fds) or in_audit
        detail = (f"open in the command: {fds}" + ("; the probe's tag reached the audit file" if in_audit else "")
                  if esc else f"no fd 3..1023 open (control saw {len(c_fds)})")
        checks.append(judge(name, len(c_fds) >= 2, esc, sbx, detail))
    return checks


def planted_home(base: str, files: dict) -> str:
    home = os.path.join(base, "home")
    for rel, content in files.items():
        path = os.path.join(home, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content)
        os.chmod(path, 0o600)
    return home


@row(7, "read ~/.ssh/id_ed25519 with the home mounted writable", "-v HOME (HOME=planted home)")
def row7(ctx):
    def setup(base):
        home = planted_home(base, {".ssh/id_ed25519": f"{MARKER} ssh private key\n",
                                   ".ssh/authorized_keys": "ssh-ed25519 AAAA original\n"})
        return {"home": home}

    def evidence(s, run):
        leak, det = marker_evidence(run)
        ak = read(os.path.join(s["home"], ".ssh/authorized_keys"))
        if ak != "ssh-ed25519 AAAA original\n":
            return True, f"~/.ssh/authorized_keys changed to {ak!r}" + ("; " + det if leak else "")
        return leak, det
    script = ('cat "$HOME/.ssh/id_ed25519"; cat "$1/.ssh/id_ed25519"; ls -la "$1/.ssh"; '
              'ln -s .ssh/id_ed25519 "$1/k"; cat "$1/k"; ln "$1/.ssh/id_ed25519" "$1/hard"; cat "$1/hard"; '
              'echo "ssh-ed25519 AAAA evil" >> "$1/.ssh/authorized_keys"; '
              'mv "$1/.ssh" "$1/ssh2" && cat "$1/ssh2/id_ed25519"')
    return [row7_run(ctx, setup, script, evidence)]


def row7_run(ctx, setup, script, evidence):
    # HOME must point at the planted home for porta and for the control.
    s = setup(ctx.fresh("r7-control"))
    ctl = ctx.control(sh(script, s["home"]), env=ctx.env(HOME=s["home"]))
    c_esc, c_det = evidence(s, ctl)
    s = setup(ctx.fresh("r7-sandbox"))
    sbx = ctx.sandboxed(Policy(mounts=[(s["home"], False)]), sh(script, s["home"]),
                        env=ctx.env(HOME=s["home"]))
    s_esc, s_det = evidence(s, sbx)
    return judge("cat ~/.ssh/id_ed25519 (and write authorized_keys)", c_esc, s_esc, sbx,
                 s_det if s_esc or c_esc else c_det)


@row(8, "read credential files under default reads", "(none; HOME=planted home)")
def row8(ctx):
    files = {".config/gh/hosts.yml": "gh", ".aws/credentials": "aws",
             ".netrc": "netrc", ".docker/config.json": "docker"}

    def setup(base):
        return {"home": planted_home(base, {rel: f"{MARKER}/{tag} token\n" for rel, tag in files.items()})}
    script = 'for f in .config/gh/hosts.yml .aws/credentials .netrc .docker/config.json; do cat "$HOME/$f"; done'
    s = setup(ctx.fresh("r8-control"))
    ctl = ctx.control(sh(script), env=ctx.env(HOME=s["home"]))
    s = setup(ctx.fresh("r8-sandbox"))
    sbx = ctx.sandboxed(Policy(), sh(script), env=ctx.env(HOME=s["home"]))
    checks = []
    for rel, tag in files.items():
        m = f"{MARKER}/{tag} "
        checks.append(judge(f"~/{rel}", m in ctl.stdout, m in sbx.stdout, sbx,
                            f"stdout carried ~/{rel}'s secret" if m in sbx.stdout else "not read"))
    return checks


def sections(stdout: str) -> dict:
    out, cur = {}, None
    for line in stdout.splitlines():
        if line.startswith("=== "):
            cur = line[4:]
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


@row(9, "read root-only secrets under strict reads", "--read-policy strict -v WS (as root: --allow-root)")
def row9(ctx):
    targets = [p for p in ("/etc/shadow", "/etc/gshadow", "/etc/sudoers") if os.path.exists(p)]
    keys = sorted(p for p in (os.path.join("/etc/ssh", n) for n in os.listdir("/etc/ssh"))
                  if p.endswith("_key")) if os.path.isdir("/etc/ssh") else []
    targets += keys[:2]
    # Not root-only, but outside strict's short /etc list: a machine identifier.
    targets += [p for p in ("/etc/machine-id", "/etc/fstab") if os.path.exists(p)][:1]
    script = 'for f; do echo "=== $f"; cat -- "$f" 2>&1; done'
    base = ws_ug(ctx.fresh("r9"))
    ctl = ctx.control(sh(script, *targets))
    sbx = ctx.sandboxed(Policy(mounts=[(base["ws"], False)], read_policy="strict"), sh(script, *targets))
    c_sec, s_sec = sections(ctl.stdout), sections(sbx.stdout)
    checks = []
    for path in targets:
        truth = (read(path) or "").strip()
        if not truth:
            checks.append(Check(path, NA, "-", f"{path} is empty or not readable by uid {os.getuid()} "
                                "on the host itself; root-only secrets are this row's point when run as root"))
            continue
        c_esc = truth in c_sec.get(path, "")
        s_esc = truth in s_sec.get(path, "")
        checks.append(judge(path, c_esc, s_esc, sbx,
                            f"stdout carried the contents of {path}" if s_esc else "not readable"))
    return checks


class Decoy:
    """A process outside every sandbox with the marker in argv and environ."""

    def __init__(self, ctx: Context, label: str):
        d = ctx.fresh(label)
        self.ready = os.path.join(d, "ready")
        self.siglog = os.path.join(d, "signals.log")
        secret = os.path.join(d, "secret.txt")
        with open(secret, "w") as f:
            f.write(f"{MARKER}/pidfd_getfd stolen fd\n")
        self.proc = subprocess.Popen(
            [ctx.probe("decoy"), self.ready, secret, self.siglog, f"--token={MARKER}/argv", ctx.nonce],
            env=ctx.env(DECOY_SECRET=f"{MARKER}/environ"), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        ctx.cleanup.append(self.stop)
        for _ in range(100):
            if os.path.exists(self.ready):
                break
            time.sleep(0.02)
        pid, self.addr1, self.addr2, self.fd = read(self.ready, "0 0 0 0").split()
        self.pid = int(pid)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def signals(self) -> str:
        return read(self.siglog, "") or ""

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@row(10, "read another process's argv or environ via /proc", "-v WS, in both read modes")
def row10(ctx):
    decoy = Decoy(ctx, "r10-decoy")
    argv = [ctx.probe("proc_read"), str(decoy.pid)]
    ctl = ctx.control(argv)
    checks = []
    for mode in ("open", "strict"):
        s = ws_ug(ctx.fresh(f"r10-{mode}"))
        sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)], read_policy=mode), argv)
        for what in ("argv", "environ"):
            m = f"{MARKER}/{what}"
            checks.append(judge(f"/proc/PID/{'cmdline' if what == 'argv' else 'environ'} ({mode} reads)",
                                m in ctl.stdout, m in sbx.stdout, sbx,
                                f"stdout carried the decoy's {what}" if m in sbx.stdout else "not read"))
    decoy.stop()
    return checks


@row(11, "reach credential agent sockets", "-v WS (SSH_AUTH_SOCK set)")
def row11(ctx):
    checks = []
    names = {"ssh-agent": "ssh-Xk3LmQ/agent.4242", "docker.sock": "run/docker.sock",
             "S.gpg-agent": ".gnupg/S.gpg-agent", "$SSH_AUTH_SOCK (custom path)": "custom/auth.sock"}
    runs = {}
    for mode in ("control", "sandbox"):
        s = ws_ug(ctx.fresh(f"r11-{mode}"))
        listeners, paths = {}, []
        for name, rel in names.items():
            path = os.path.join(s["ug"], rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            listeners[name] = UnixListener(path)
            ctx.cleanup.append(listeners[name].close)
            paths.append(path)
        env = ctx.env(SSH_AUTH_SOCK=os.path.join(s["ug"], names["$SSH_AUTH_SOCK (custom path)"]))
        argv = [ctx.probe("unix_connect")] + paths
        if mode == "control":
            run = ctx.control(argv, env=env)
        else:
            run = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv, env=env)
        runs[mode] = (run, settle(lambda: {n: len(l.hits) for n, l in listeners.items()}))
        for l in listeners.values():
            l.close()
    sbx = runs["sandbox"][0]
    for name in names:
        c, s_hits = runs["control"][1][name], runs["sandbox"][1][name]
        checks.append(judge(name, c > 0, s_hits > 0, sbx,
                            f"listener accepted {s_hits} connection(s) from the sandbox" if s_hits else "unreachable"))
    return checks


@row(12, "reach a host abstract Unix socket", "-v WS")
def row12(ctx):
    name = f"/tmp/.X11-unix/X{int(ctx.nonce[:4], 16) % 9000 + 1000}"
    listener = UnixListener("\0" + name)
    ctx.cleanup.append(listener.close)
    argv = [ctx.probe("unix_connect"), "@" + name]
    ctx.control(argv)
    c = settle(lambda: len(listener.hits))
    s = ws_ug(ctx.fresh("r12"))
    sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
    hits = settle(lambda: len(listener.hits)) - c
    listener.close()
    return [judge(f"@{name}", c > 0, hits > 0, sbx,
                  f"listener accepted {hits} connection(s) from the sandbox" if hits else "unreachable")]


def userns_control_na() -> str | None:
    if sysctl("user.max_user_namespaces") == "0":
        return "user.max_user_namespaces=0: the host refuses user namespaces"
    if sysctl("kernel.unprivileged_userns_clone") == "0" and os.geteuid() != 0:
        return "kernel.unprivileged_userns_clone=0: unprivileged user namespaces are off"
    if sysctl("kernel.apparmor_restrict_unprivileged_userns") == "1" and os.geteuid() != 0:
        return "kernel.apparmor_restrict_unprivileged_userns=1"
    return None


@row(13, "enter a new user namespace", "-v WS")
def row13(ctx):
    s = ws_ug(ctx.fresh("r13"))
    argv = [ctx.probe("userns")]
    ctl = ctx.control(argv)
    sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
    cr, sr = ctl.results(), sbx.results()
    groups: dict = {}
    for name in cr:
        call, flag = name.split(":", 1)
        groups.setdefault(f"{call} {flag.replace('+NEWUSER', '')}", []).append(name)
    checks = []
    for label, names in groups.items():
        c_ok = [n for n in names if cr[n][0] == "ok"]
        s_ok = [n for n in names if sr.get(n, ("", ""))[0] == "ok"]
        c_err = ", ".join(f"{n}: {cr[n][1]}" for n in names if cr[n][0] != "ok")
        na = None
        if not c_ok:
            na = userns_control_na() or f"the kernel refuses it outside any sandbox too ({c_err})"
        sres = ", ".join(f"{n}: {sr.get(n, ('missing', ''))[0]} {sr.get(n, ('', ''))[1]}".strip() for n in names)
        checks.append(judge(label, bool(c_ok), bool(s_ok), sbx,
                            f"succeeded in the sandbox: {s_ok}" if s_ok else f"refused ({sres})",
                            control_na=na, expect=names))
    return checks


@row(14, "io_uring_setup with a valid params struct", "-v WS")
def row14(ctx):
    s = ws_ug(ctx.fresh("r14"))
    argv = [ctx.probe("io_uring")]
    ctl = ctx.control(argv)
    sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
    c = ctl.results().get("io_uring_setup", ("missing", ""))
    r = sbx.results().get("io_uring_setup", ("missing", ""))
    dis = sysctl("kernel.io_uring_disabled")
    na = f"kernel.io_uring_disabled={dis}: the host refuses io_uring ({c[1]})" if dis not in (None, "0") else None
    return [judge("io_uring_setup(8, &zeroed)", c[0] == "ok", r[0] == "ok", sbx,
                  f"returned ring fd {r[1]}" if r[0] == "ok" else f"sandbox: {r[0]} {r[1]}", control_na=na,
                  expect=["io_uring_setup"])]


@row(15, "fileless exec from a memfd", "-v WS")
def row15(ctx):
    s = ws_ug(ctx.fresh("r15"))
    argv = [ctx.probe("memfd_exec"), ctx.probe("marker")]
    ctl = ctx.control(argv)
    sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
    noexec = sysctl("vm.memfd_noexec")
    checks = []
    for variant, label in (("execveat", "memfd + execveat(AT_EMPTY_PATH)"),
                           ("proc-self-fd", "memfd + execve(/proc/self/fd/N)")):
        m = f"MARKER-RAN {variant}"
        r = sbx.results().get(variant, ("", ""))
        na = f"vm.memfd_noexec={noexec}: the host refuses executable memfds" if noexec == "2" else None
        checks.append(judge(label, m in ctl.stdout, m in sbx.stdout, sbx,
                            "the memfd program ran in the sandbox" if m in sbx.stdout
                            else f"refused ({r[0]} {r[1]})".strip(), control_na=na, expect=[variant]))
    return checks


@row(16, "ptrace, process_vm_readv, pidfd_getfd against the decoy", "-v WS")
def row16(ctx):
    decoy = Decoy(ctx, "r16-decoy")
    argv = [ctx.probe("peek"), str(decoy.pid), decoy.addr1, decoy.addr2, decoy.fd, ctx.nonce]
    ctl = ctx.control(argv)
    s = ws_ug(ctx.fresh("r16"))
    sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
    checks = []
    for call, m in (("ptrace(PTRACE_ATTACH) + PEEKDATA", f"{MARKER}/ptrace"),
                    ("process_vm_readv", f"{MARKER}/process_vm_readv"),
                    ("pidfd_getfd", f"{MARKER}/pidfd_getfd")):
        checks.append(judge(call, m in ctl.stdout, m in sbx.stdout, sbx,
                            f"stdout carried {m}" if m in sbx.stdout else "decoy out of reach"))
    decoy.stop()
    return checks


def read_available(fd: int, wait: float = 0.5) -> bytes:
    data = b""
    end = time.monotonic() + wait
    while True:
        r, _, _ = select.select([fd], [], [], max(0, end - time.monotonic()))
        if not r:
            return data
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return data
        if not chunk:
            return data
        data += chunk


@row(17, "inject keystrokes into the terminal", "-v WS, started from a terminal")
def row17(ctx):
    checks = []
    ctty = ctx.probe("ctty")
    text = f"echo INJECTED-{ctx.nonce[:8]}\n"
    got = {}
    sbx = None
    for mode in ("control", "sandbox"):
        master, slave = os.openpty()
        tty.setraw(slave)  # injected bytes reach the input queue as they are
        argv = [ctx.probe("tiocsti"), "sti", text]
        try:
            if mode == "control":
                run = ctx.execute([ctty] + argv, stdin=slave)
            else:
                s = ws_ug(ctx.fresh("r17"))
                run = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv, wrap=[ctty], stdin=slave)
            # What the shell that started the command would read next:
            os.set_blocking(slave, False)
            queued = read_available(slave)
        finally:
            os.close(slave)
            os.close(master)
        got[mode] = (run, f"INJECTED-{ctx.nonce[:8]}".encode() in queued)
    sbx = got["sandbox"][0]
    legacy = sysctl("dev.tty.legacy_tiocsti")
    na = (f"dev.tty.legacy_tiocsti={legacy}: the kernel refuses TIOCSTI without CAP_SYS_ADMIN"
          if legacy == "0" else None)
    checks.append(judge("TIOCSTI on the inherited tty", got["control"][1], got["sandbox"][1], sbx,
                        "the text reached the terminal's input queue" if got["sandbox"][1]
                        else "nothing injected", control_na=na))
    # TIOCLINUX needs a virtual console.
    try:
        vt = os.open("/dev/tty0", os.O_RDWR | os.O_NOCTTY)
    except OSError as e:
        checks.append(Check("TIOCLINUX on a virtual console", NA, "-",
                            f"no virtual console to inherit (/dev/tty0: {errno.errorcode.get(e.errno, e.errno)})"))
        return checks
    try:
        argv = [ctx.probe("tiocsti"), "linux"]
        ctl = ctx.execute(argv, stdin=vt)
        s = ws_ug(ctx.fresh("r17-vt"))
        sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv, stdin=vt)
    finally:
        os.close(vt)
    c = ctl.results().get("TIOCLINUX", ("missing", ""))
    r = sbx.results().get("TIOCLINUX", ("missing", ""))
    checks.append(judge("TIOCLINUX on a virtual console", c[0] == "ok", r[0] == "ok", sbx,
                        f"sandbox: {r[0]} {r[1]}", expect=["TIOCLINUX"], control_na=None if c[0] == "ok" else
                        f"TIOCLINUX fails on /dev/tty0 outside any sandbox too ({c[0]} {c[1]})"))
    return checks


def syscall_control_na(name: str, result) -> str:
    status, value = result
    why = {
        "bpf": f"kernel.unprivileged_bpf_disabled={sysctl('kernel.unprivileged_bpf_disabled')}",
        "perf_event_open": f"kernel.perf_event_paranoid={sysctl('kernel.perf_event_paranoid')}",
        "userfaultfd": f"vm.unprivileged_userfaultfd={sysctl('vm.unprivileged_userfaultfd')}",
        "kexec_load": "needs CAP_SYS_BOOT of the host" + (" (kernel without kexec)" if value == "ENOSYS" else ""),
        "init_module": "needs CAP_SYS_MODULE of the host" + (" (kernel without modules)" if value == "ENOSYS" else ""),
    }.get(name, userns_control_na() or "")
    return f"no meaningful control: {name} fails outside any sandbox too ({status} {value}{'; ' + why if why else ''})"


def reached(result) -> bool:
    """The call got past every privilege check: it worked, or failed for a
    reason that is not a refusal (EINVAL, ENOEXEC...)."""
    status, value = result
    if status == "ok":
        return True
    if status != "fail":
        return False  # killed, skipped, setup-fail
    return "(unshare)" not in value and value.split()[0] not in REFUSED_ERRNOS


@row(18, "kernel interfaces: bpf, perf, userfaultfd, keys, kexec, modules, mounts, setns", "-v WS")
def row18(ctx):
    calls = ["bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "kexec_load",
             "init_module", "mount", "open_tree", "fsopen", "pivot_root", "setns"]
    runs = {}
    for mode in ("control", "sandbox"):
        s = ws_ug(ctx.fresh(f"r18-{mode}"))
        scratch = os.path.join(s["ws"], "scratch")
        os.mkdir(scratch)
        argv = [ctx.probe("syscalls"), scratch]
        runs[mode] = ctx.control(argv) if mode == "control" else \
            ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
        if mode == "control" and ctx.is_root:  # a root control without userns
            subprocess.run(["umount", "-l", scratch], capture_output=True)
    cr, sr = runs["control"].results(), runs["sandbox"].results()
    checks = []
    for name in calls:
        variants = [name, name + "+userns"]
        c_res = {v: cr[v] for v in variants if v in cr}
        s_res = {v: sr[v] for v in variants if v in sr}
        c_ok = [v for v, r in c_res.items() if reached(r)]
        s_ok = [v for v, r in s_res.items() if reached(r)]
        sdesc = ", ".join(f"{v}: {r[0]} {r[1]}".strip() for v, r in s_res.items()) or "no result"
        cdesc = ", ".join(f"{v}: {r[0]} {r[1]}".strip() for v, r in c_res.items())
        na = None if c_ok else syscall_control_na(name, c_res.get(name, ("missing", "")))
        checks.append(judge(name, bool(c_ok), bool(s_ok), runs["sandbox"],
                            f"reached the kernel in the sandbox: {sdesc} (control: {cdesc})" if s_ok
                            else f"refused: {sdesc}", control_na=na, expect=list(c_res)))
    return checks


@row(19, "raw, packet, vsock, bluetooth, MPTCP, non-route netlink sockets", "-v WS (as root: --allow-root)")
def row19(ctx):
    s = ws_ug(ctx.fresh("r19"))
    argv = [ctx.probe("sockets")]
    ctl = ctx.control(argv)
    sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
    cr, sr = ctl.results(), sbx.results()
    who = "root (--allow-root), and root-in-namespace via +userns" if ctx.is_root else \
        f"uid {os.getuid()}, and root-in-namespace via +userns"
    checks = []
    for name in [n for n in cr if not n.endswith("+userns")]:
        variants = [name, name + "+userns"]
        c_ok = [v for v in variants if cr.get(v, ("", ""))[0] == "ok"]
        s_ok = [v for v in variants if sr.get(v, ("", ""))[0] == "ok"]
        sdesc = ", ".join(f"{v}: {' '.join(sr.get(v, ('missing', '')))}".strip() for v in variants)
        if name == "netlink:route":
            continue  # allowed by design (ip addr, getifaddrs)
        na = None if c_ok else f"the host has no such socket for this user either ({cr[name][1]})"
        checks.append(judge(f"socket {name}", bool(c_ok), bool(s_ok), sbx,
                            f"opened in the sandbox as {who}: {s_ok}" if s_ok else f"refused: {sdesc}",
                            control_na=na, expect=variants))
    return checks


@row(20, "write a kernel setting through /proc/sys", "-v WS (as root with --allow-root too)")
def row20(ctx):
    with host_settings_turn(ctx.is_root):
        return row20_locked(ctx)


def row20_locked(ctx):
    checks = []
    for key in ("fs.lease-break-time", "net.ipv4.tcp_keepalive_probes"):
        path = "/proc/sys/" + key.replace(".", "/")
        orig = sysctl(key)
        if orig is None:
            checks.append(Check(key, NA, "-", f"{path} does not exist"))
            continue
        new = str(int(orig) + 1)

        def restore(p=path, v=orig):
            if read(p, "").strip() != v:
                try:
                    with open(p, "w") as f:
                        f.write(v)
                except OSError:
                    pass
        ctx.cleanup.append(restore)
        argv = sh(f'echo {new} > {path}; cat {path}')
        ctx.control(argv)
        c_esc = sysctl(key) == new
        restore()
        s = ws_ug(ctx.fresh("r20"))
        sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
        s_esc = sysctl(key) == new
        restore()
        na = None if ctx.is_root else f"only root can write {path} on the host; run the corpus as root for this row"
        checks.append(judge(key, c_esc, s_esc, sbx,
                            f"host's {key} changed {orig} -> {new}" if s_esc else f"host value stayed {orig}",
                            control_na=na))
    return checks


@row(21, "signal a process outside the sandbox", "-v WS")
def row21(ctx):
    results = {}
    for mode in ("control", "sandbox"):
        decoy = Decoy(ctx, f"r21-{mode}-decoy")
        argv = [ctx.probe("kill_decoy"), str(decoy.pid), ctx.nonce]
        if mode == "control":
            run = ctx.control(argv)
        else:
            s = ws_ug(ctx.fresh("r21"))
            run = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
        settle(decoy.signals)
        results[mode] = (run, decoy.signals(), decoy.alive())
        decoy.stop()
    sbx, s_log, s_alive = results["sandbox"]
    _, c_log, c_alive = results["control"]
    # Only signals whose sender ran with this run's id count (the decoy logs
    # the sender's command line; the probe has the id in its argv).
    kill_re = re.compile(rf"signal ({signal.SIGUSR1.value}|{signal.SIGTERM.value}) from .*{ctx.nonce}")
    pidfd_re = re.compile(rf"signal {signal.SIGUSR2.value} from .*{ctx.nonce}")
    return [
        judge("kill(decoy)", bool(kill_re.search(c_log)) or not c_alive,
              bool(kill_re.search(s_log)) or not s_alive, sbx,
              f"decoy received: {s_log.strip()!r}" + ("" if s_alive else ", and died") if kill_re.search(s_log) or not s_alive
              else "decoy received nothing"),
        judge("pidfd_send_signal(decoy)", bool(pidfd_re.search(c_log)), bool(pidfd_re.search(s_log)), sbx,
              f"decoy received: {s_log.strip()!r}" if pidfd_re.search(s_log) else "decoy received nothing"),
    ]


def first_number(path: str) -> float:
    try:
        return float((read(path, "") or "0").split()[0])
    except (ValueError, IndexError):
        return 0.0


def survivors_check(ctx, name, policy_of, mode_arg):
    """Rows 22 (--timeout) and 23: does anything of the run outlive it?"""
    found = {}
    sbx = None
    for mode in ("control", "sandbox"):
        s = ws_ug(ctx.fresh(f"survive-{mode}"))
        tag = f"survivor-{uuid.uuid4().hex[:12]}"
        beat = os.path.join(s["ws"], "heartbeat")
        argv = [ctx.probe("daemon"), beat, tag, mode_arg]
        pol = policy_of(s)
        if mode == "control":
            run = ctx.control(argv, pol)
        else:
            run = sbx = ctx.sandboxed(pol, argv)
        time.sleep(1.0)
        size1 = os.path.getsize(beat) if os.path.exists(beat) else 0
        time.sleep(0.6)
        size2 = os.path.getsize(beat) if os.path.exists(beat) else 0
        procs = processes_with(tag)
        kill_all(pid for pid, _ in procs)
        late = pol.timeout_s is not None and run.duration > pol.timeout_s + 5
        found[mode] = (bool(procs) or size2 > size1 or late,
                       (f"survivors {[p for p, _ in procs]}; heartbeat grew {size1}->{size2} bytes after exit"
                        + (f"; the run lasted {run.duration:.1f}s" if late else "")))
    return judge(name, found["control"][0], found["sandbox"][0], sbx,
                 found["sandbox"][1] if found["sandbox"][0] else "nothing of the run remained")


# What porta says when a ceiling needs a cgroup it cannot create (src/main.c,
# host/cgroup.c): "--max-memory-mb needs the memory controller in a cgroup
# porta can create: ..." and "--max-procs needs, for root, the pids controller
# in a cgroup porta can create ...".
CGROUP_REFUSAL = "controller in a cgroup porta can create"


@row(22, "resource ceilings", "--max-procs 1, --max-file-size 1, --max-cpu 1, --max-memory-mb 64, --timeout 1")
def row22(ctx):
    checks = []

    def fork_setup(base):
        s = ws_ug(base)
        os.mkdir(os.path.join(s["ws"], "forks"))
        return s

    def fork_ev(s, run):
        n = len(os.listdir(os.path.join(s["ws"], "forks")))
        return n > 0, f"{n} forked children ran"
    checks.append(simple(ctx, "fork past --max-procs 1", fork_setup,
                         lambda s: Policy(mounts=[(s["ws"], False)], max_procs=1),
                         lambda s: [ctx.probe("limits"), "fork", os.path.join(s["ws"], "forks"), "5"],
                         fork_ev,
                         # root is exempt from RLIMIT_NPROC: porta holds it with
                         # a pids cgroup, and refuses only where it cannot make one
                         refusal_is_na=CGROUP_REFUSAL))

    def fsize_ev(s, run):
        sizes = {n: os.path.getsize(os.path.join(s["ws"], n)) for n in ("big", "big.trunc")
                 if os.path.exists(os.path.join(s["ws"], n))}
        return any(v > 1 << 20 for v in sizes.values()), f"file sizes on the host: {sizes}"
    checks.append(simple(ctx, "file past --max-file-size 1", ws_ug,
                         lambda s: Policy(mounts=[(s["ws"], False)], max_file_size_mib=1),
                         lambda s: [ctx.probe("limits"), "fsize", os.path.join(s["ws"], "big")],
                         fsize_ev))

    # The contract (docs/porta.1): SIGXCPU at the limit, SIGKILL one
    # second later for a program that ignores it.  So the ceiling is 1 s of
    # CPU, or 2 s with SIGXCPU ignored; the probe asks for 3.5 s so that the
    # control escapes either bound.
    for extra, label, bound in (([], "CPU past --max-cpu 1", 1.5),
                                (["ignore-xcpu"], "CPU past --max-cpu 1, SIGXCPU ignored", 2.5)):
        def cpu_ev(s, run, bound=bound):
            used = first_number(os.path.join(s["ws"], "cpu"))
            return used > bound, f"the program got {used:.2f}s of CPU (ceiling {bound - 0.5:.0f}s)"
        checks.append(simple(ctx, label, ws_ug,
                             lambda s: Policy(mounts=[(s["ws"], False)], max_cpu_s=1),
                             lambda s, e=extra: [ctx.probe("limits"), "cpu", os.path.join(s["ws"], "cpu"), "3.5"] + e,
                             cpu_ev))

    # The ceilings are the run's, not each process's: six children that
    # each stay under the ceiling pass it together (issue's reproduction:
    # 4.8 s under --max-cpu 1 with RLIMIT_CPU per process).
    def many(kind, n, amount):
        return lambda s: ["/bin/sh", "-c",
                          'echo PROBE-STARTED; for i in $(seq %d); do "$0" %s "$1/%s.$i" %s & done; '
                          'wait' % (n, kind, kind, amount),
                          ctx.probe("limits"), s["ws"]]

    def cpu_many_ev(s, run):
        used = sum(first_number(os.path.join(s["ws"], f"cpu.{i}")) for i in range(1, 7))
        return used > 1.6, f"the run's six processes got {used:.2f}s of CPU together (ceiling 1s)"
    checks.append(simple(ctx, "CPU past --max-cpu 1, spread over six processes", ws_ug,
                         lambda s: Policy(mounts=[(s["ws"], False)], max_cpu_s=1),
                         many("cpu", 6, "0.8"), cpu_many_ev))

    def mem_many_ev(s, run):
        mib = sum(first_number(os.path.join(s["ws"], f"mem.{i}")) for i in range(1, 5))
        return mib > 120, f"the run's four processes touched {mib:.0f} MiB together"
    # each child holds its 48 MiB (touched) for 3 s after saying so, so the
    # four that say so held them at once
    hold = ("import sys, time\n"
            "b = b'\\x01' * (48 << 20)\n"
            "open(sys.argv[1], 'w').write('48')\n"
            "time.sleep(3)\n")
    c_esc, c_det, s_esc, s_det, sbx = pair(
        ctx, "mem-many", ws_ug, lambda s: Policy(mounts=[(s["ws"], False)], max_memory_mib=64),
        lambda s: ["/bin/sh", "-c", 'echo PROBE-STARTED; for i in 1 2 3 4; do '
                   '/usr/bin/python3 -c "$0" "$1/mem.$i" & done; wait', hold, s["ws"]],
        mem_many_ev)
    checks.append(judge("memory past --max-memory-mb 64, spread over four processes", c_esc,
                        s_esc, sbx, s_det, refusal_is_na=CGROUP_REFUSAL))

    def mem_ev(s, run):
        mib = first_number(os.path.join(s["ws"], "mem"))
        return mib > 96, f"the program touched {mib:.0f} MiB"
    c_esc, c_det, s_esc, s_det, sbx = pair(
        ctx, "mem", ws_ug, lambda s: Policy(mounts=[(s["ws"], False)], max_memory_mib=64),
        lambda s: [ctx.probe("limits"), "mem", os.path.join(s["ws"], "mem"), "192"], mem_ev)
    # n/a only where porta says no memory cgroup can be made for it (here:
    # unprivileged, the v1 memory hierarchy is root's); any other refusal
    # is broken, and where it runs the OOM kill must hold it
    checks.append(judge("memory past --max-memory-mb 64", c_esc, s_esc, sbx, s_det,
                        refusal_is_na=CGROUP_REFUSAL))

    checks.append(survivors_check(ctx, "outlive --timeout 1 (double fork + setsid)",
                                  lambda s: Policy(mounts=[(s["ws"], False)], timeout_s=1), "stay"))
    return checks


@row(23, "leave something running after the sandbox exits", "-v WS")
def row23(ctx):
    return [survivors_check(ctx, "daemonise (double fork + setsid)",
                            lambda s: Policy(mounts=[(s["ws"], False)]), "exit")]


def settle(sample, limit: float = 3.0):
    """Poll sample() until two readings 0.25 s apart agree: listener threads
    log an arrival a moment after the kernel has accepted it."""
    prev = sample()
    end = time.monotonic() + limit
    while time.monotonic() < end:
        time.sleep(0.25)
        cur = sample()
        if cur == prev:
            return cur
        prev = cur
    return prev


def host_address() -> str | None:
    """The host's primary non-loopback IPv4 address (no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: routing lookup only
            addr = s.getsockname()[0]
    except OSError:
        return None
    return None if addr.startswith("127.") or addr == "0.0.0.0" else addr


@row(24, "--no-net: nothing answers", "--no-net -v WS")
def row24(ctx):
    lo4 = TcpListener(socket.AF_INET, "127.0.0.1")
    ctx.cleanup.append(lo4.close)
    try:
        lo6 = TcpListener(socket.AF_INET6, "::1")
        ctx.cleanup.append(lo6.close)
    except OSError:
        lo6 = None
    addr = host_address()
    anyl = TcpListener(socket.AF_INET, "0.0.0.0") if addr else None
    if anyl:
        ctx.cleanup.append(anyl.close)
    dns = UdpResolver("127.0.0.1")
    ctx.cleanup.append(dns.close)
    lab = NetLab(ctx)
    lab_ok = lab.up()

    token = f"porta-esc-{ctx.nonce[:12]}"
    icmpw = IcmpWatcher(token) if ctx.is_root else None
    if icmpw:
        ctx.cleanup.append(icmpw.close)
    ops = ["tcp", "127.0.0.1", str(lo4.port), "udp", "127.0.0.1", str(dns.port), "icmp", "127.0.0.1", token]
    if lo6:
        ops += ["tcp", "::1", str(lo6.port)]
    if anyl:
        ops += ["tcp", addr, str(anyl.port)]
    if lab_ok:
        ops += ["tcp", lab.PUBLIC, "80", "icmp", lab.PUBLIC, token]
    argv = [ctx.probe("net")] + ops

    def counters():
        return {"lo4": len(lo4.hits), "lo6": len(lo6.hits) if lo6 else 0,
                "any": len(anyl.hits) if anyl else 0, "dns": len(dns.hits),
                "pub": lab.tcp_hits() if lab_ok else 0,
                "pubicmp": (lab.in_echos() or 0) if lab_ok else 0,
                "loicmp": len(icmpw.hits) if icmpw else 0}

    deltas = {}
    runs = {}
    for mode in ("control", "sandbox"):
        before = counters()
        if mode == "control":
            runs[mode] = ctx.control(argv)
        else:
            s = ws_ug(ctx.fresh("r24"))
            runs[mode] = ctx.sandboxed(Policy(mounts=[(s["ws"], False)], no_net=True), argv)
        after = settle(counters)
        deltas[mode] = {k: after[k] - before[k] for k in after}
    sbx = runs["sandbox"]

    # The probe's own name for the attempt each counter watches.
    attempt = {"lo4": f"tcp:127.0.0.1:{lo4.port}", "dns": f"udp:127.0.0.1:{dns.port}",
               "loicmp": f"icmp:127.0.0.1:{token}"}
    if lo6:
        attempt["lo6"] = f"tcp:::1:{lo6.port}"
    if anyl:
        attempt["any"] = f"tcp:{addr}:{anyl.port}"
    if lab_ok:
        attempt["pub"], attempt["pubicmp"] = f"tcp:{lab.PUBLIC}:80", f"icmp:{lab.PUBLIC}:{token}"

    def chk(name, key, na=None):
        c, s_ = deltas["control"][key] > 0, deltas["sandbox"][key] > 0
        detail = f"{deltas['sandbox'][key]} arrival(s) from the sandbox" if s_ else "nothing arrived"
        if not c:
            got = runs["control"].results().get(attempt.get(key, ""))
            detail += f" (the control's probe reported {' '.join(got) if got else 'nothing'}" \
                      f" for {attempt.get(key, key)}, rc {runs['control'].rc})"
        return judge(name, c, s_, sbx, detail, control_na=na)
    checks = [chk("TCP to a host-loopback listener (127.0.0.1)", "lo4"),
              chk("UDP DNS to a resolver on host loopback", "dns")]
    checks.append(chk("TCP to host loopback [::1]", "lo6") if lo6 else
                  Check("TCP to host loopback [::1]", NA, "-", "no IPv6 loopback on the host"))
    checks.append(chk(f"TCP to the host's own address ({addr})", "any") if anyl else
                  Check("TCP to the host's own address", NA, "-", "the host has no non-loopback IPv4 address"))
    checks.append(chk("ICMP echo reaching the host's 127.0.0.1", "loicmp") if icmpw else
                  Check("ICMP echo reaching the host's 127.0.0.1", NA, "-",
                        "seeing the host's ICMP needs a raw socket (CAP_NET_RAW): checked in root runs"))
    if lab_ok:
        checks.append(chk(f"TCP to a public-looking address ({lab.PUBLIC}:80)", "pub"))
        checks.append(chk(f"ICMP echo to a public-looking address ({lab.PUBLIC})", "pubicmp"))
    else:
        # as a user, a root-only check (n/a); as root, a namespace that failed
        why = f"no runner-made network namespace: {lab.error}"
        for n in ("TCP to a public-looking address", "ICMP echo to a public-looking address"):
            checks.append(could_not_prepare(n, why) if ctx.is_root else Check(n, NA, "-", why))
    return checks
