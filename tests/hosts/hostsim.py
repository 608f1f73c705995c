#!/usr/bin/python3
"""tests/hosts/hostsim.py: run a command as it would run on another kind of host.

    hostsim.py MODE [--] COMMAND [ARGS...]

MODE is one of:

  ubuntu-userns  Ubuntu 23.10 and later with kernel.apparmor_restrict_unprivileged_userns=1:
                 a user namespace can be created, but every capability inside it is
                 refused (AppArmor moves its creator into the unprivileged_userns
                 profile, which denies all capabilities).  The calls porta's init makes
                 that need one fail with EPERM, as AppArmor reports a denied capability:
                 the mount family and sethostname/setdomainname.  (The filter refuses
                 them outside any namespace too, where the real restriction does not
                 apply: porta makes no such call there.)  What a seccomp filter cannot
                 refuse by path
                 (the write to /proc/self/uid_map, which the real restriction refuses
                 first) porta classifies the same way (unit test
                 tests/unit/sandbox/test_nsrefusal.c).
  docker         Docker's default seccomp profile, moby's profiles/seccomp/default.json
                 (data/moby-default.json), evaluated as runc does for a container with
                 Docker's default capabilities; run as root, the bounding set is cut to
                 those capabilities too.
  podman         Podman's default profile (data/podman-seccomp.json, from
                 containers-common 0.50.1 as Debian 12 ships it) with Podman's default
                 capabilities.

The filter is installed here, before COMMAND starts, so COMMAND (porta) and everything
it starts run under it, as they would in the container.  Needs Debian's python3-seccomp
(libseccomp's own bindings).  Exit 120 when the filter could not be installed.
"""

import ctypes
import json
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# runc's default capability set for Docker containers (moby oci/caps/defaults.go)
DOCKER_CAPS = ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD",
               "CAP_NET_RAW", "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP",
               "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE"]
# containers.conf default_capabilities (Podman 4)
PODMAN_CAPS = ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
               "CAP_NET_BIND_SERVICE", "CAP_SETFCAP", "CAP_SETGID", "CAP_SETPCAP",
               "CAP_SETUID", "CAP_SYS_CHROOT"]

# capability numbers (linux/capability.h)
CAP_NUMBERS = {
    "CAP_CHOWN": 0, "CAP_DAC_OVERRIDE": 1, "CAP_DAC_READ_SEARCH": 2, "CAP_FOWNER": 3,
    "CAP_FSETID": 4, "CAP_KILL": 5, "CAP_SETGID": 6, "CAP_SETUID": 7, "CAP_SETPCAP": 8,
    "CAP_LINUX_IMMUTABLE": 9, "CAP_NET_BIND_SERVICE": 10, "CAP_NET_BROADCAST": 11,
    "CAP_NET_ADMIN": 12, "CAP_NET_RAW": 13, "CAP_IPC_LOCK": 14, "CAP_IPC_OWNER": 15,
    "CAP_SYS_MODULE": 16, "CAP_SYS_RAWIO": 17, "CAP_SYS_CHROOT": 18, "CAP_SYS_PTRACE": 19,
    "CAP_SYS_PACCT": 20, "CAP_SYS_ADMIN": 21, "CAP_SYS_BOOT": 22, "CAP_SYS_NICE": 23,
    "CAP_SYS_RESOURCE": 24, "CAP_SYS_TIME": 25, "CAP_SYS_TTY_CONFIG": 26, "CAP_MKNOD": 27,
    "CAP_LEASE": 28, "CAP_AUDIT_WRITE": 29, "CAP_AUDIT_CONTROL": 30, "CAP_SETFCAP": 31,
    "CAP_MAC_OVERRIDE": 32, "CAP_MAC_ADMIN": 33, "CAP_SYSLOG": 34, "CAP_WAKE_ALARM": 35,
    "CAP_BLOCK_SUSPEND": 36, "CAP_AUDIT_READ": 37, "CAP_PERFMON": 38, "CAP_BPF": 39,
    "CAP_CHECKPOINT_RESTORE": 40,
}

PR_CAPBSET_READ = 23
PR_CAPBSET_DROP = 24
EPERM = 1

# Calls of porta's init that need a capability inside the new user namespace.
UBUNTU_REFUSED = ["mount", "umount2", "pivot_root", "mount_setattr", "move_mount", "open_tree",
                  "fsopen", "fsconfig", "fsmount", "fspick", "sethostname", "setdomainname"]


def die(msg):
    sys.stderr.write("hostsim: %s\n" % msg)
    sys.exit(120)


def kernel_version():
    parts = platform.release().split("-")[0].split(".")
    return tuple(int(p) for p in parts[:2] if p.isdigit())


def applies(rule, caps):
    """Whether a profile entry applies to this host, as runc decides
    (moby profiles/seccomp/seccomp_linux.go: includes need every cap and
    the arch; excludes drop the rule if any cap or the arch matches)."""
    inc, exc = rule.get("includes") or {}, rule.get("excludes") or {}
    if inc.get("caps") and not all(c in caps for c in inc["caps"]):
        return False
    if inc.get("arches") and "amd64" not in inc["arches"]:
        return False
    if inc.get("minKernel"):
        want = tuple(int(p) for p in inc["minKernel"].split(".")[:2])
        if kernel_version() < want:
            return False
    if exc.get("caps") and any(c in caps for c in exc["caps"]):
        return False
    if exc.get("arches") and "amd64" in exc["arches"]:
        return False
    return True


def action_of(seccomp, name, errno_ret):
    if name == "SCMP_ACT_ALLOW":
        return seccomp.ALLOW
    if name == "SCMP_ACT_ERRNO":
        return seccomp.ERRNO(errno_ret if errno_ret is not None else EPERM)
    if name == "SCMP_ACT_LOG":
        return seccomp.LOG
    if name in ("SCMP_ACT_KILL", "SCMP_ACT_KILL_THREAD"):
        return seccomp.KILL
    if name == "SCMP_ACT_KILL_PROCESS":
        return seccomp.KILL_PROCESS
    if name == "SCMP_ACT_TRAP":
        return seccomp.TRAP
    die("unknown action %s" % name)
    return None


def profile_filter(seccomp, path, caps):
    with open(path) as f:
        prof = json.load(f)
    default = action_of(seccomp, prof["defaultAction"], prof.get("defaultErrnoRet"))
    flt = seccomp.SyscallFilter(default)
    for entry in prof.get("archMap") or []:
        if entry["architecture"] == "SCMP_ARCH_X86_64":
            for sub in entry.get("subArchitectures") or []:
                arch = {"SCMP_ARCH_X86": seccomp.Arch.X86, "SCMP_ARCH_X32": seccomp.Arch.X32}.get(sub)
                if arch is not None:
                    flt.add_arch(arch)
    ops = {"SCMP_CMP_EQ": seccomp.EQ, "SCMP_CMP_NE": seccomp.NE, "SCMP_CMP_LT": seccomp.LT,
           "SCMP_CMP_LE": seccomp.LE, "SCMP_CMP_GT": seccomp.GT, "SCMP_CMP_GE": seccomp.GE,
           "SCMP_CMP_MASKED_EQ": seccomp.MASKED_EQ}
    for rule in prof["syscalls"]:
        if not applies(rule, caps):
            continue
        act = action_of(seccomp, rule["action"], rule.get("errnoRet"))
        conds = rule.get("args") or []
        args = [seccomp.Arg(a["index"], ops[a["op"]], a["value"], a.get("valueTwo", 0))
                for a in conds]
        # runc: conditions on distinct arguments are one rule (ANDed);
        # several on the same argument are separate rules (ORed).
        distinct = len({a["index"] for a in conds}) == len(conds)
        groups = [args] if distinct else [[a] for a in args]
        for name in rule["names"]:
            for grp in groups:
                try:
                    flt.add_rule(act, name, *grp)
                except (RuntimeError, ValueError):
                    # a name this libseccomp does not know: runc skips it too
                    pass
    return flt


def ubuntu_filter(seccomp):
    flt = seccomp.SyscallFilter(seccomp.ALLOW)
    for name in UBUNTU_REFUSED:
        try:
            flt.add_rule(seccomp.ERRNO(EPERM), name)
        except (RuntimeError, ValueError):
            pass
    return flt


def cut_bounding_set(keep):
    """As root, keep only the container's capabilities in the bounding set:
    the exec that follows then gives porta exactly those."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    keep_nums = {CAP_NUMBERS[c] for c in keep}
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0:
            break
        if cap not in keep_nums and libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0:
            die("prctl(PR_CAPBSET_DROP, %d): %s" % (cap, os.strerror(ctypes.get_errno())))


def main(argv):
    if len(argv) < 2:
        die(__doc__.strip().splitlines()[2].strip())
    mode, rest = argv[1], argv[2:]
    if rest and rest[0] == "--":
        rest = rest[1:]
    if not rest:
        die("no command")
    try:
        import seccomp  # Debian's python3-seccomp
    except ImportError:
        die("python3-seccomp is not installed")
    if mode == "ubuntu-userns":
        flt = ubuntu_filter(seccomp)
    elif mode == "docker":
        cut_bounding_set(DOCKER_CAPS)
        flt = profile_filter(seccomp, os.path.join(HERE, "data", "moby-default.json"), DOCKER_CAPS)
    elif mode == "podman":
        cut_bounding_set(PODMAN_CAPS)
        flt = profile_filter(seccomp, os.path.join(HERE, "data", "podman-seccomp.json"), PODMAN_CAPS)
    else:
        die("unknown mode %r (ubuntu-userns, docker, podman)" % mode)
    try:
        flt.load()
    except (RuntimeError, OSError) as e:
        die("loading the filter: %s" % e)
    try:
        os.execvp(rest[0], rest)
    except OSError as e:
        die("%s: %s" % (rest[0], e.strerror))


if __name__ == "__main__":
    main(sys.argv)
