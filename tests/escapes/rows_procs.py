"""Rows 63-77 of the escape corpus: processes, privilege, IPC, environment
and porta's own supervisor.

Evidence is taken outside the sandbox wherever one exists: the exit status
of the run (porta killed is not the command's status), a decoy's signal log
and priorities, files in a root-owned directory, the host's IPC objects, the
line discipline of the runner's own pty, the host's namespace inodes. RESULT
lines of a probe are the evidence only where a call leaves no trace (a
syscall that succeeded and changed nothing, a capability set).
"""

import ctypes
import dataclasses
import os
import pwd
import re
import shutil
import signal
import struct
import subprocess
import tempfile
import termios
import time

from corpus import *  # noqa: F401,F403  (the runner's vocabulary)
from corpus import (MARKER, NA, REFUSED_ERRNOS, Check, NotOffered, Policy, could_not_prepare, judge,
                    not_offered, read, row, sh, sysctl, ws_ug)
from rows_host import Decoy, read_available, settle, userns_control_na

EXIT_OK = 42  # what proc_super exits with when nothing stopped it


def with_bin(ctx, policy: Policy) -> Policy:
    """The policy ctx.sandboxed() would use (the probes granted read-only)."""
    return dataclasses.replace(policy, mounts=[(ctx.bin, True)] + list(policy.mounts))


def is_none(ctx) -> bool:
    return getattr(ctx.adapter, "name", "") == "none"


def result(run, name):
    return run.results().get(name, ("missing", ""))


def reached_kernel(res) -> bool:
    """ok, or failed for a reason that is not a refusal or a missing target."""
    status, value = res
    if status == "ok":
        return True
    return status == "fail" and value.split()[0] not in REFUSED_ERRNOS | {"ESRCH"}


def desc(res) -> str:
    return f"{res[0]} {res[1]}".strip()


# --------------------------------------------------------------------------
# Row 63: porta's own supervisor

def supervisor_runs(ctx, op: str):
    """The probe with the supervisor's pid as its last argument. Control: a
    shell stands in for porta (it waits for the probe and exits with its
    status; $$ is its pid). Sandbox: the shell execs the sandbox, so $$ is
    porta's pid as the host sees it."""
    argv = [ctx.probe("proc_super"), op]
    ctl = ctx.control(["/bin/sh", "-c", '"$@" "$$"; exit $?', "sh"] + argv)
    s = ws_ug(ctx.fresh(f"r63-{op}"))
    policy = with_bin(ctx, Policy(mounts=[(s["ws"], False)]))
    if is_none(ctx):  # no supervisor: the shell plays it, as in the control
        sbx = ctx.execute(["/bin/sh", "-c", '"$@" "$$"; exit $?', "sh"] + argv)
    else:
        sbx = ctx.execute(["/bin/sh", "-c", 'exec "$@" "$$"', "sh"] + ctx.adapter.command(policy, argv))
    return ctl, sbx


def status_of(run) -> str:
    if run.rc is None:
        return "no status"
    return f"killed by signal {-run.rc}" if run.rc < 0 else f"exit {run.rc}"


@row(63, "attack porta's own supervisor from inside", "-v WS (porta's host pid passed in)")
def row63(ctx):
    checks = []
    for op, label in (("kill-pid", "kill(porta's pid, SIGKILL)"),
                      ("pidfd-kill", "pidfd_open(porta's pid) + pidfd_send_signal(SIGKILL)"),
                      ("kill-ppid", "kill(getppid(), SIGKILL)")):
        ctl, sbx = supervisor_runs(ctx, op)
        c_esc, s_esc = ctl.rc != EXIT_OK, sbx.rc != EXIT_OK and sbx.started
        checks.append(judge(label, c_esc, s_esc, sbx,
                            f"the run ended {status_of(sbx)}, not with the command's {EXIT_OK}" if s_esc
                            else f"porta outlived it and reported the command's exit {EXIT_OK}"))
    for op, name, label in (("ptrace", "ptrace-seize", "ptrace(PTRACE_SEIZE, porta's pid)"),
                            ("vm-write", "process_vm_writev", "process_vm_writev(porta's pid)")):
        ctl, sbx = supervisor_runs(ctx, op)
        c, r = result(ctl, name), result(sbx, name)
        checks.append(judge(label, reached_kernel(c), reached_kernel(r), sbx,
                            f"sandbox: {desc(r)} (control: {desc(c)})", expect=[name]))
    return checks


# --------------------------------------------------------------------------
# Row 64: porta's process group

def ioprio_class(pid: int) -> int | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        v = libc.syscall(252, 1, pid)  # ioprio_get(IOPRIO_WHO_PROCESS, pid), x86_64
    except OSError:
        return None
    return None if v < 0 else v >> 13


def nice_of(pid: int) -> int | None:
    stat = read(f"/proc/{pid}/stat")
    if not stat:
        return None
    return int(stat.rsplit(")", 1)[1].split()[16])


@row(64, "signal or renice porta's process group from inside", "-v WS (a decoy in porta's process group)")
def row64(ctx):
    state = {}
    for mode in ("control", "sandbox"):
        d = ctx.fresh(f"r64-{mode}")
        ready, log, secret = (os.path.join(d, n) for n in ("ready", "signals.log", "secret"))
        with open(secret, "w") as f:
            f.write("decoy\n")
        argv = [ctx.probe("proc_super"), "pgrp"]
        # The decoy is started by the same shell that then becomes porta (or
        # the probe): it shares the run's process group, as a pipeline's
        # other commands share porta's.
        script = '"$0" "$1" "$2" "$3" porta-esc-decoy & while [ ! -s "$1" ]; do sleep 0.05; done; shift 4; exec "$@"'
        pre = ["/bin/sh", "-c", script, ctx.probe("decoy"), ready, secret, log, "--"]
        if mode == "control" or is_none(ctx):
            run = ctx.execute(pre + argv)
        else:
            s = ws_ug(ctx.fresh("r64"))
            run = ctx.execute(pre + ctx.adapter.command(with_bin(ctx, Policy(mounts=[(s["ws"], False)])), argv))
        pid = int((read(ready, "0") or "0").split()[0])
        settle(lambda: read(log, ""))
        state[mode] = (run, read(log, "") or "", nice_of(pid) if pid else None,
                       ioprio_class(pid) if pid else None)
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    sbx = state["sandbox"][0]
    urg = f"signal {signal.SIGURG.value} from"
    checks = []
    c_log, s_log = state["control"][1], state["sandbox"][1]
    # The sender's pid is not always known to the receiver (si_pid is 0
    # across PID namespaces), so any SIGURG counts: nothing else sends it.
    c_hit, s_hit = urg in c_log, urg in s_log
    checks.append(judge("kill(0, SIGURG): the decoy in porta's process group", c_hit, s_hit, sbx,
                        f"decoy received: {s_log.strip()!r}" if s_hit else
                        f"decoy received nothing (probe: {desc(result(sbx, 'kill-0'))})", expect=["kill-0"]))
    c_n, s_n = state["control"][2], state["sandbox"][2]
    checks.append(judge("setpriority(PRIO_PGRP, 0, 7): the decoy's nice value", c_n == 7, s_n == 7, sbx,
                        f"decoy's nice became {s_n}" if s_n == 7 else
                        f"decoy's nice stayed {s_n} (probe: {desc(result(sbx, 'setpriority-pgrp'))})",
                        expect=["setpriority-pgrp"],
                        control_na=None if c_n == 7 else
                        f"the decoy's nice stayed {c_n} outside any sandbox too "
                        f"({desc(result(state['control'][0], 'setpriority-pgrp'))})"))
    c_io, s_io = state["control"][3], state["sandbox"][3]
    checks.append(judge("ioprio_set(IOPRIO_WHO_PGRP, 0, idle): the decoy's I/O class", c_io == 3, s_io == 3, sbx,
                        f"decoy's I/O class became idle" if s_io == 3 else
                        f"decoy's I/O class stayed {s_io} (probe: {desc(result(sbx, 'ioprio_set-pgrp'))})",
                        expect=["ioprio_set-pgrp"]))

    # kill(-1): every process the caller may signal; the decoy is elsewhere.
    runs = {}
    for mode in ("control", "sandbox"):
        decoy = Decoy(ctx, f"r64-all-{mode}")
        argv = [ctx.probe("proc_super"), "all"]
        if mode == "control":
            run = ctx.control(argv)
        else:
            s = ws_ug(ctx.fresh("r64-all"))
            run = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
        settle(decoy.signals)
        runs[mode] = (run, decoy.signals())
        decoy.stop()
    sbx = runs["sandbox"][0]
    hit = {m: urg in log for m, (_, log) in runs.items()}
    checks.append(judge("kill(-1, SIGURG): a decoy of the same user", hit["control"], hit["sandbox"], sbx,
                        f"decoy received: {runs['sandbox'][1].strip()!r}" if hit["sandbox"] else
                        "decoy received nothing", expect=["kill-all"]))
    return checks


# --------------------------------------------------------------------------
# Rows 65-67: environment, and porta's memory in init

SECRET_VARS = ["AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GITHUB_TOKEN", "GH_TOKEN",
               "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "NPM_TOKEN", "SSH_AUTH_SOCK",
               "GPG_AGENT_INFO", "KRB5CCNAME", "DBUS_SESSION_BUS_ADDRESS", "DATABASE_URL",
               "LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_ENV", "PYTHONSTARTUP"]


def secret_env(ctx, names=SECRET_VARS, **extra):
    env = ctx.env(**{n: f"{MARKER}/{n}" for n in names})
    env.update(extra)
    return env


def env_lines(run) -> list:
    return [l[4:] for l in run.stdout.splitlines() if l.startswith("ENV ")]


def leaked(run, name) -> bool:
    """NAME's planted value (exactly: GITHUB's is a prefix of GITHUB_TOKEN's)
    is in the environment, under any name."""
    pat = re.compile(re.escape(f"{MARKER}/{name}") + r"(?![A-Za-z0-9_])")
    return any(pat.search(l) for l in env_lines(run))


@row(65, "secrets in porta's environment reach the command", "-v WS (porta started with planted secrets)")
def row65(ctx):
    env = secret_env(ctx)
    argv = [ctx.probe("proc_env")]
    ctl = ctx.control(argv, env=env)
    s = ws_ug(ctx.fresh("r65"))
    sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv, env=env)
    checks = []
    for name in SECRET_VARS:
        lines = [l for l in env_lines(sbx) if f"{MARKER}/{name}" in l]
        checks.append(judge(f"${name}", leaked(ctl, name), leaked(sbx, name), sbx,
                            f"the command's environment has {lines[0][:100]!r}" if lines else "not passed"))
    return checks


def porta_with_options(ctx, policy: Policy, argv: list, options: list) -> list:
    """porta's command line with extra options after `run` (the corpus's
    Policy has no environment options). Under --sandbox none the command
    runs as it is (everything passes there)."""
    cmd = ctx.adapter.command(with_bin(ctx, policy), argv)
    if is_none(ctx):
        return cmd
    if not getattr(ctx.adapter, "name", "").startswith("porta"):
        raise NotOffered("the environment options are porta's")
    i = cmd.index("run") + 1
    return cmd[:i] + options + cmd[i:]


@row(66, "--env, --env-pass and --env-file pass only what they name",
     "--env-pass GITHUB_TOKEN,NOT_SET --env FOO=bar --env-file FILE (more secrets in porta's environment)")
def row66(ctx):
    extra = ["GITHUB_TOKEN_2", "GITHUB", "GITHUB_TOKENX", "FOO_SECRET", "FILE_SECRET"]
    names = SECRET_VARS + extra
    env = secret_env(ctx, names)
    s = ws_ug(ctx.fresh("r66"))
    env_file = os.path.join(s["base"], "env")
    with open(env_file, "w") as f:
        f.write("# a comment\nFROM_FILE=plain\n\nFILE_OTHER=plain too\n")
    argv = [ctx.probe("proc_env")]
    ctl = ctx.control(argv, env=env)
    opts = ["--env-pass", "GITHUB_TOKEN,NOT_SET", "--env", "FOO=bar", "--env-file", env_file]
    try:
        cmd = porta_with_options(ctx, Policy(mounts=[(s["ws"], False)]), argv, opts)
    except NotOffered as e:
        return [not_offered("environment options", str(e))]
    sbx = ctx.execute(cmd, env=env)
    got = {l.split("=", 1)[0] for l in env_lines(sbx)}
    checks = []
    unnamed = [n for n in names if n != "GITHUB_TOKEN"]
    leaks = [n for n in unnamed if leaked(sbx, n)]
    checks.append(judge("no variable beyond the ones named (prefixes, look-alikes, others)",
                        any(leaked(ctl, n) for n in unnamed), bool(leaks), sbx,
                        f"passed although not named: {leaks}" if leaks else "only the named ones passed"))
    # What they name must arrive (otherwise the check above proves nothing).
    want = {"GITHUB_TOKEN", "FOO", "FROM_FILE", "FILE_OTHER"}
    missing = sorted(want - got)
    if not is_none(ctx) and missing:
        checks.append(Check("the named variables arrive", "broken", "-",
                            f"missing in the command's environment: {missing}"))
    return checks


@row(67, "porta's memory in the sandbox's init: environ, stack, fds", "-v WS (porta started with planted secrets)")
def row67(ctx):
    env = secret_env(ctx)
    argv = [ctx.probe("proc_env")]
    # Control: a shell that holds the secrets in its environment is the
    # probe's parent, as init (a fork of porta) is the command's.
    ctl = ctx.control(["/bin/sh", "-c", '"$@"; exit $?', "sh"] + argv, env=env)
    s = ws_ug(ctx.fresh("r67"))
    sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv, env=env)

    def lines(run, tag):
        return [l for l in run.stdout.splitlines() if l.startswith(tag + " ") and MARKER in l]

    def fds(run):
        return [f"{k} -> {v[1]}" for k, v in run.results().items() if k.startswith("pidfd_getfd:") and v[0] == "ok"]
    checks = []
    for tag, label in (("PEER-ENVIRON", "/proc/PPID/environ of init (porta's environment)"),
                       ("PEER-MEM", "/proc/PPID/mem of init (porta's stack)")):
        found = lines(sbx, tag)
        checks.append(judge(label, bool(lines(ctl, tag)), bool(found), sbx,
                            f"read: {found[0][:120]!r}" if found else
                            f"refused ({desc(result(sbx, 'peer-environ' if tag == 'PEER-ENVIRON' else 'peer-mem'))})"))
    got = fds(sbx)
    checks.append(judge("pidfd_getfd on init (its control socket and fds)", bool(fds(ctl)), bool(got), sbx,
                        f"took {got}" if got else f"refused ({desc(result(sbx, 'pidfd_open'))})"))
    return checks


# --------------------------------------------------------------------------
# Rows 68-69: privilege

def unprivileged_user():
    for name in ("porta-ci", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    return None


def vfs_cap_v2(permitted: int) -> bytes:
    """security.capability, revision 2 with the effective bit (linux/capability.h)."""
    return struct.pack("<IIIII", 0x02000000 | 0x1, permitted & 0xffffffff, 0,
                       permitted >> 32, 0)


@row(68, "setuid-root and file-capability programs gain nothing", "(none; run as an unprivileged user)")
def row68(ctx):
    labels = ("setuid-root copy of the probe", "copy with file capability cap_dac_override+ep")
    user = unprivileged_user()
    if not ctx.is_root:
        why = ("needs root to plant a setuid-root or file-capability program and to switch to an "
               "unprivileged user; run the corpus as root for this row")
        return [Check(l, NA, "-", why) for l in labels]
    if user is None:
        return [could_not_prepare(l, "no unprivileged user (porta-ci or nobody) to run the programs as")
                for l in labels]
    # Everything the unprivileged user must reach lives outside root's home.
    base = tempfile.mkdtemp(prefix="porta-escapes-suid-", dir="/var/tmp")
    ctx.cleanup.append(lambda: shutil.rmtree(base, ignore_errors=True))
    os.chmod(base, 0o755)
    progs = {}
    for label, kind in zip(labels, ("suid", "fcap")):
        path = os.path.join(base, kind)
        shutil.copy2(ctx.probe("proc_suid"), path)
        os.chown(path, 0, 0)
        if kind == "suid":
            os.chmod(path, 0o4755)
        else:
            os.chmod(path, 0o755)
            os.setxattr(path, "security.capability", vfs_cap_v2(1 << 1))  # CAP_DAC_OVERRIDE
        progs[label] = path
    setpriv = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", "--"]
    env = ctx.env(HOME=base, USER=user.pw_name, LOGNAME=user.pw_name)
    checks = []
    for label, prog in progs.items():
        found = {}
        runs = {}
        for mode in ("control", "sandbox"):
            target = os.path.join(base, f"rootdir-{os.path.basename(prog)}-{mode}")
            os.mkdir(target, 0o755)  # root's: only euid 0 or CAP_DAC_OVERRIDE creates here
            # A shell starts first: the kernel may refuse to execute the
            # program at all (a capability-dumb binary whose capabilities
            # cannot all be granted is EPERM, capabilities(7)), which is held.
            argv = sh('"$1" "$2"', prog, target)
            cmd = argv if mode == "control" else ctx.adapter.command(Policy(), argv)
            runs[mode] = ctx.execute(setpriv + cmd, env=env, cwd=base)
            found[mode] = os.listdir(target)
        checks.append(judge(label, bool(found["control"]), bool(found["sandbox"]), runs["sandbox"],
                            f"created in a root-owned directory: {found['sandbox']}" if found["sandbox"]
                            else f"nothing created ({desc(result(runs['sandbox'], 'create-in-root-dir'))})"))
    return checks


@row(69, "regain privilege: capabilities after execve, ambient, setresuid, setgroups", "-v WS (as root: --allow-root)")
def row69(ctx):
    s = ws_ug(ctx.fresh("r69"))
    argv = [ctx.probe("proc_caps")]
    ctl = ctx.control(argv)
    sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
    checks = []
    for name, label in (("exec-capeff", "capabilities after execve (CapEff)"),
                        ("ambient", "PR_CAP_AMBIENT_RAISE CAP_NET_RAW"),
                        ("setresuid", "setresuid(65534)"), ("setgroups", "setgroups({0})")):
        c, r = result(ctl, name), result(sbx, name)
        na = None if c[0] == "ok" else (f"uid {os.getuid()} has no capability to use outside any sandbox "
                                        f"either ({desc(c)}); run the corpus as root for this check")
        checks.append(judge(label, c[0] == "ok", r[0] == "ok", sbx, f"sandbox: {desc(r)}",
                            control_na=na, expect=[name]))
    return checks


# --------------------------------------------------------------------------
# Row 70: the host's IPC objects

def mqueue_dir(ctx) -> tuple:
    """(directory of an mqueue file system of the host's IPC namespace, why not)."""
    for line in (read("/proc/self/mounts", "") or "").splitlines():
        parts = line.split()
        if len(parts) > 2 and parts[2] == "mqueue":
            return parts[1], None
    if not ctx.is_root:
        return None, ("the host has no mqueue file system mounted (systemd mounts one on /dev/mqueue) "
                      "and only root may mount one")
    path = os.path.join(ctx.root, "mqueue")
    os.mkdir(path)
    r = subprocess.run(["mount", "-t", "mqueue", "mqueue", path], capture_output=True, text=True)
    if r.returncode != 0:
        return None, f"mount -t mqueue failed: {r.stderr.strip()}"
    ctx.cleanup.insert(0, lambda: subprocess.run(["umount", "-l", path], capture_output=True))
    return path, None


@row(70, "the host's SysV IPC objects and POSIX message queues", "-v WS")
def row70(ctx):
    ipc = ctx.probe("proc_ipc")
    mqdir, mq_na = mqueue_dir(ctx)
    runs, states = {}, {}
    for i, mode in enumerate(("control", "sandbox")):
        key = str((int(ctx.nonce[:7], 16) << 1 | 1) + i)
        name = f"porta-esc-{ctx.nonce[:12]}-{i}"
        p = subprocess.run([ipc, "plant", key, name, MARKER], capture_output=True, text=True)
        ctx.cleanup.append(lambda k=key, n=name: subprocess.run([ipc, "remove", k, n], capture_output=True))
        if p.returncode != 0 or not p.stdout.startswith("PLANTED"):
            return [Check("plant SysV and POSIX IPC objects", "broken", "-", p.stderr.strip() or p.stdout)]
        shmid = p.stdout.split()[1]
        argv = [ipc, "attack", key, name, shmid] + ([mqdir] if mqdir else [])
        if mode == "control":
            runs[mode] = ctx.control(argv)
        else:
            s = ws_ug(ctx.fresh("r70"))
            runs[mode] = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
        out = subprocess.run([ipc, "inspect", key, name], capture_output=True, text=True).stdout.split()
        states[mode] = dict(kv.split("=", 1) for kv in out[1:]) if out[:1] == ["STATE"] else {}
        subprocess.run([ipc, "remove", key, name], capture_output=True)
    sbx = runs["sandbox"]

    def read_line(run, what):
        return [l for l in run.stdout.splitlines() if l.startswith(f"READ {what} ") and MARKER in l]

    def ev(mode, reads, key, planted):
        got = [l for w in reads for l in read_line(runs[mode], w)]
        changed = states[mode].get(key) != planted
        return bool(got) or changed, (f"read {got[0][5:90]!r}" if got else "") + \
            (f"; host object now {key}={states[mode].get(key)} (planted {planted})" if changed else "")
    checks = []
    for label, reads, key, planted, names in (
            ("SysV shared memory (by key and by the host's id)", ["shm-by-key", "shm-by-id"], "shm",
             f"{MARKER}/shm", ["shm-by-key", "shm-by-id"]),
            ("SysV message queue", ["msg-by-key"], "msgs", "1", ["msg-by-key"]),
            ("SysV semaphore", [], "sem", "7", ["sem-by-key"]),
            ("POSIX message queue (mq_open)", ["mq_open"], "mq", "1", ["mq_open"])):
        c_esc, _ = ev("control", reads, key, planted)
        s_esc, s_det = ev("sandbox", reads, key, planted)
        tried = ", ".join(f"{n}: {desc(result(sbx, n))}" for n in names)
        checks.append(judge(label, c_esc, s_esc, sbx, s_det if s_esc else f"out of reach ({tried})",
                            expect=names))
    if not mqdir:
        # as a user: the host has none to reach (n/a); as root: mounting one failed
        name = "POSIX message queue by path (a host mqueue mount)"
        checks.append(could_not_prepare(name, mq_na) if ctx.is_root else Check(name, NA, "-", mq_na))
    else:
        c_esc, _ = ev("control", ["mqueue-path"], "mqpath", "1")
        s_esc, s_det = ev("sandbox", ["mqueue-path"], "mqpath", "1")
        checks.append(judge(f"POSIX message queue by path ({mqdir}, the host's mqueue file system)", c_esc,
                            s_esc, sbx, s_det if s_esc else f"out of reach ({desc(result(sbx, 'mqueue-path'))})",
                            expect=["mqueue-path"]))
    return checks


# --------------------------------------------------------------------------
# Rows 71-72: host-wide kernel state

@row(71, "host name and system clock: sethostname, setdomainname, settimeofday, clock_settime, adjtimex",
     "-v WS (as root: --allow-root)")
def row71(ctx):
    s = ws_ug(ctx.fresh("r71"))
    argv = [ctx.probe("proc_clock")]
    ctl = ctx.control(argv)
    sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
    host_uts = os.readlink("/proc/self/ns/uts")

    def uts(run):
        return next((l.split()[1] for l in run.stdout.splitlines() if l.startswith("UTSNS ")), "")
    checks = []
    for name, cap in (("sethostname", "CAP_SYS_ADMIN"), ("setdomainname", "CAP_SYS_ADMIN"),
                      ("settimeofday", "CAP_SYS_TIME"), ("clock_settime", "CAP_SYS_TIME"),
                      ("adjtimex", "CAP_SYS_TIME")):
        c, r = result(ctl, name), result(sbx, name)
        # A host name set in a UTS namespace of the sandbox's own is its own
        # business; the clock has no namespace.
        host_ns = name not in ("sethostname", "setdomainname")
        c_esc = c[0] == "ok" and (host_ns or uts(ctl) == host_uts)
        s_esc = r[0] == "ok" and (host_ns or uts(sbx) == host_uts)
        na = None if c_esc else (f"needs {cap} of the host, which uid {os.getuid()} does not have "
                                 f"({desc(c)}); run the corpus as root (the control sets the value the host "
                                 "already has)")
        checks.append(judge(name, c_esc, s_esc, sbx,
                            f"reached the host's {'clock' if host_ns else 'UTS namespace'}: {desc(r)}" if s_esc
                            else f"sandbox: {desc(r)}" + ("" if host_ns else f" in {uts(sbx) or '?'}"),
                            control_na=na, expect=[name]))
    return checks


@row(72, "read the kernel log through syslog(2)", "-v WS (as root: --allow-root)")
def row72(ctx):
    s = ws_ug(ctx.fresh("r72"))
    argv = [ctx.probe("proc_klog")]
    ctl = ctx.control(argv)
    sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
    checks = []
    for name, label in (("syslog-read-all", "syslog(SYSLOG_ACTION_READ_ALL)"),
                        ("syslog-size", "syslog(SYSLOG_ACTION_SIZE_BUFFER)")):
        c, r = result(ctl, name), result(sbx, name)
        na = None if c[0] == "ok" else (f"kernel.dmesg_restrict={sysctl('kernel.dmesg_restrict')}: uid "
                                        f"{os.getuid()} may not read the log outside any sandbox either "
                                        f"({desc(c)})")
        checks.append(judge(label, c[0] == "ok", r[0] == "ok", sbx, f"sandbox: {desc(r)}",
                            control_na=na, expect=[name]))
    return checks


# --------------------------------------------------------------------------
# Row 73: terminals

TIOCGETD = 0x5424


def ldisc(fd: int) -> int | None:
    try:
        import fcntl
        return struct.unpack("i", fcntl.ioctl(fd, TIOCGETD, b"\0" * 4))[0]
    except OSError:
        return None


@row(73, "the inherited terminal and the user's other terminals: TIOCSETD, TIOCSCTTY, TIOCCONS, /dev/pts",
     "-v WS, started from a terminal")
def row73(ctx):
    checks = []

    def on_pty(mode, argv, wrap=()):
        master, slave = os.openpty()
        try:
            if mode == "control":
                run = ctx.execute(list(wrap) + argv, stdin=slave)
            else:
                s = ws_ug(ctx.fresh("r73"))
                run = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv, wrap=wrap, stdin=slave)
            return run, ldisc(slave)
        finally:
            os.close(slave)
            os.close(master)

    # TIOCSETD: the line discipline outlives the run.
    got = {m: on_pty(m, [ctx.probe("proc_tty"), "setd"]) for m in ("control", "sandbox")}
    sbx, s_disc = got["sandbox"]
    checks.append(judge("TIOCSETD N_NULL on the inherited tty", got["control"][1] not in (0, None),
                        s_disc not in (0, None), sbx,
                        f"the terminal's line discipline is now {s_disc}" if s_disc not in (0, None)
                        else f"line discipline stayed {s_disc} ({desc(result(sbx, 'TIOCSETD'))})",
                        expect=["TIOCSETD"]))

    ctty = [ctx.probe("ctty")]
    got = {m: on_pty(m, [ctx.probe("proc_tty"), "sctty"], wrap=ctty)[0] for m in ("control", "sandbox")}
    c, r = result(got["control"], "TIOCSCTTY-steal"), result(got["sandbox"], "TIOCSCTTY-steal")
    checks.append(judge("TIOCSCTTY(1): steal the terminal from porta's session", c[0] == "ok", r[0] == "ok",
                        got["sandbox"], f"sandbox: {desc(r)}", expect=["TIOCSCTTY-steal"],
                        control_na=None if c[0] == "ok" else
                        f"stealing a terminal needs CAP_SYS_ADMIN of the host ({desc(c)}); checked as root"))

    got = {m: on_pty(m, [ctx.probe("proc_tty"), "cons"])[0] for m in ("control", "sandbox")}
    c, r = result(got["control"], "TIOCCONS"), result(got["sandbox"], "TIOCCONS")
    checks.append(judge("TIOCCONS: the host's console output to this tty", c[0] == "ok", r[0] == "ok",
                        got["sandbox"], f"sandbox: {desc(r)}", expect=["TIOCCONS"],
                        control_na=None if c[0] == "ok" else
                        f"redirecting the console needs CAP_SYS_ADMIN of the host ({desc(c)}); checked as root"))

    # Another terminal of the user, by path.
    seen = {}
    for mode in ("control", "sandbox"):
        master, slave = os.openpty()
        path = os.ttyname(slave)
        text = f"INJECT-{ctx.nonce[:8]}-{mode}"
        argv = [ctx.probe("proc_tty"), "write", path, text]
        try:
            if mode == "control":
                run = ctx.control(argv)
            else:
                s = ws_ug(ctx.fresh("r73-pts"))
                run = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
            arrived = text.encode() in read_available(master)
        finally:
            os.close(slave)
            os.close(master)
        seen[mode] = (run, arrived, path)
    sbx = seen["sandbox"][0]
    checks.append(judge(f"write to another terminal ({seen['sandbox'][2]})", seen["control"][1], seen["sandbox"][1],
                        sbx, "the text reached the other terminal" if seen["sandbox"][1] else
                        f"nothing arrived ({desc(result(sbx, 'write-other-tty'))})", expect=["write-other-tty"]))
    return checks


# --------------------------------------------------------------------------
# Rows 74-75: the seccomp filter's blind spots, personality

@row(74, "seccomp filter bypasses: int $0x80, x32, upper bits of the syscall number and clone flags", "-v WS")
def row74(ctx):
    s = ws_ug(ctx.fresh("r74"))
    argv = [ctx.probe("proc_abi")]
    ctl = ctx.control(argv)
    sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
    checks = []
    for name, label, off in (
            ("int80-unshare", "unshare(CLONE_NEWUSER) through int $0x80 (i386 ABI)",
             "the kernel has no i386 entry for 64-bit processes (IA32 emulation off)"),
            ("x32-unshare", "unshare(CLONE_NEWUSER) as an x32 syscall",
             "the kernel runs no x32 syscalls (CONFIG_X86_X32_ABI off or disabled)"),
            ("highnr-unshare", "unshare(CLONE_NEWUSER) with the upper half of rax set", None),
            ("clone-highbits", "clone(CLONE_NEWUSER | 1 << 32)", None)):
        c, r = result(ctl, name), result(sbx, name)
        if c[0] == "ok":
            na = None
        elif c[1] == "ENOSYS" and off:
            na = f"{off}: {desc(c)}"
        else:
            na = userns_control_na() or f"fails outside any sandbox too ({desc(c)})"
        checks.append(judge(label, c[0] == "ok", r[0] == "ok", sbx, f"sandbox: {desc(r)}",
                            control_na=na, expect=[name]))
    return checks


@row(75, "personality(2): READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE", "-v WS")
def row75(ctx):
    s = ws_ug(ctx.fresh("r75"))
    argv = [ctx.probe("proc_abi")]
    ctl = ctx.control(argv)
    sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)
    checks = []
    for name, label in (("personality-rie", "READ_IMPLIES_EXEC: a PROT_READ mapping comes out executable"),
                        ("personality-aslr", "ADDR_NO_RANDOMIZE: the next image runs without ASLR")):
        c, r = result(ctl, name), result(sbx, name)
        checks.append(judge(label, c[0] == "ok", r[0] == "ok", sbx, f"sandbox: {desc(r)}", expect=[name]))
    return checks


# --------------------------------------------------------------------------
# Row 76: namespaces

@row(76, "reach the host's namespaces: /proc/self/ns, NS_GET_PARENT, NS_GET_USERNS", "-v WS")
def row76(ctx):
    s = ws_ug(ctx.fresh("r76"))
    argv = [ctx.probe("proc_ns")]
    ctl = ctx.control(argv)
    sbx = ctx.sandboxed(Policy(mounts=[(s["ws"], False)]), argv)

    def held(run):
        out = {}
        for l in run.stdout.splitlines():
            p = l.split()
            if len(p) == 4 and p[0] == "HELD":
                out.setdefault((p[1], int(p[2])), []).append(p[3])
        return out
    c_held, s_held = held(ctl), held(sbx)
    checks = []
    # The network, cgroup and time namespaces are the host's by design in
    # open network mode; these five porta makes its own.
    for t in ("user", "pid", "mnt", "uts", "ipc"):
        ino = os.stat(f"/proc/self/ns/{t}").st_ino
        c_how, s_how = c_held.get((t, ino), []), s_held.get((t, ino), [])
        checks.append(judge(f"an fd on the host's {t} namespace", bool(c_how), bool(s_how), sbx,
                            f"held it via {s_how}" if s_how else
                            f"never held it (sandbox held {sorted(i for k, i in s_held if k == t)})"))
    return checks


# --------------------------------------------------------------------------
# Row 77: --max-file-size by other roads

@row(77, "grow a file past --max-file-size 1 without write(2): fallocate, pwrite, copy_file_range, splice",
     "-v WS --max-file-size 1")
def row77(ctx):
    def setup(base):
        s = ws_ug(base)
        s["out"] = os.path.join(s["ws"], "out")
        os.mkdir(s["out"])
        s["src"] = os.path.join(s["ws"], "source")
        with open(s["src"], "wb") as f:
            f.write(b"x" * (2 << 20))
        return s
    runs, sizes = {}, {}
    for mode in ("control", "sandbox"):
        s = setup(ctx.fresh(f"r77-{mode}"))
        argv = [ctx.probe("proc_fsize"), s["out"], s["src"]]
        pol = Policy(mounts=[(s["ws"], False)], max_file_size_mib=1)
        runs[mode] = ctx.control(argv) if mode == "control" else ctx.sandboxed(pol, argv)
        sizes[mode] = {n: os.path.getsize(os.path.join(s["out"], n)) for n in os.listdir(s["out"])}
    sbx = runs["sandbox"]
    checks = []
    for name in ("fallocate", "pwrite", "copy", "splice"):
        c, sz = sizes["control"].get(name, 0), sizes["sandbox"].get(name, 0)
        checks.append(judge(name, c > 1 << 20, sz > 1 << 20, sbx,
                            f"the file on the host is {sz} bytes ({desc(result(sbx, name))})", expect=[name]))
    return checks
