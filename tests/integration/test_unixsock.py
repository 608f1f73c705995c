"""integration/unixsock: Unix sockets decided when the command connects
(supervisor/unixsock.h, policy/unixrule.h).

porta resolves every connect(2), sendto(2) with a destination, sendmsg(2)
and sendmmsg(2) on a Unix socket in the sandbox's root and makes the call
itself, so a socket a host program binds after porta started is decided
like one that was there: reachable on a writable mount of the sandbox or
where --allow-unix names it, refused elsewhere (EACCES, and one line on
porta's stderr).  What the command does with its own sockets keeps
working: descriptors passed in a datagram, a multiprocessing manager.

Every test runs under the default network (open: the host's network
namespace, where an abstract name is the host's too) and under --no-net.
Escape-corpus rows 105-108 are the hostile side of the same mechanism.
"""

import os
import socket
import time
import unittest

import harness
from harness import PY, SH, PortaTestCase, run

NETS = (("network open", []), ("--no-net", ["--no-net"]))

# The command tells the test it runs (READY), then waits for GO: whatever
# the test binds in between is bound after porta started the command.
LATER = ('touch "$1/ready"; i=0; while [ ! -e "$1/go" ] && [ $i -lt 400 ]; do sleep 0.05; '
         'i=$((i+1)); done; shift; exec "$@"')

# sendmsg(2) of a datagram carrying a descriptor (SCM_RIGHTS) to the
# command's own socket in the private /tmp, named in msg_name; the receiver
# reads the file through the descriptor it got.
SCM_RIGHTS = r"""
import array, os, socket, sys, tempfile
# the private /tmp; a degraded host's TMPDIR under the host's /tmp
path = os.path.join(tempfile.gettempdir(), "porta-it-scm.sock")
rx = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
rx.bind(path)
tx = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
fd = os.open(sys.argv[1], os.O_RDONLY)
n = tx.sendmsg([b"fd"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))], 0, path)
msg, anc, flags, addr = rx.recvmsg(16, socket.CMSG_SPACE(4))
got = array.array("i")
for level, typ, data in anc:
    if level == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
        got.frombytes(data[:4])
if not got:
    print("no descriptor arrived")
    sys.exit(1)
os.lseek(got[0], 0, 0)
print("sent", n, msg.decode(), os.read(got[0], 100).decode().strip())
"""

# A multiprocessing manager: its server is a process of the sandbox, its
# clients connect to it (a path in the private /tmp by default; an abstract
# name when given one).
MANAGER = r"""
import sys
from multiprocessing.managers import SyncManager
addr = sys.argv[1] if len(sys.argv) > 1 else None
kw = {"address": "\0" + addr} if addr else {}
m = SyncManager(authkey=b"porta-it", **kw)
m.start()
d = m.dict()
d["answer"] = 42
l = m.list(range(3))
print("manager", d["answer"], sum(l), "abstract" if addr else "default")
m.shutdown()
"""


class UnixSockets(PortaTestCase):

    def listen(self, path):
        lst = harness.UnixListener(path)
        self.addCleanup(lst.close)
        return lst

    def bound_later(self, args, bind, target, ws=None):
        """Runs UNIX_CONNECT target under porta ARGS, binding the socket
        (bind(), returning the listener) only once the command runs."""
        ws = ws or self.mkdtemp()
        proc = harness.spawn(["run", "-v", ws] + list(args) +
                             ["--", SH, "-c", LATER, "sh", ws, PY, "-c", harness.UNIX_CONNECT,
                              target])
        self.addCleanup(harness.reap, proc)
        deadline = time.monotonic() + 30
        while not os.path.exists(os.path.join(ws, "ready")) and time.monotonic() < deadline:
            if proc.poll() is not None:
                break
            time.sleep(0.02)
        if not os.path.exists(os.path.join(ws, "ready")):
            harness.reap(proc)
            self.fail("the command never started (exit %r)" % proc.returncode)
        lst = bind()
        with open(os.path.join(ws, "go"), "w"):
            pass
        out, err = proc.communicate(timeout=60)
        return proc.returncode, out, err, lst

    def test_the_watch_listener_never_reaches_the_command(self):
        # The listener that decides the command's calls passes through the
        # payload's (and, in full, init's) descriptor table on its way to
        # porta (sandbox/netinit.h): none of the command's descriptors may
        # be it, and init's (where it may stay) are not the command's to
        # open.  Holding it, the command could answer its own calls.
        probe = r"""
import os
found, init_open = [], []
for n in os.listdir("/proc/self/fd"):
    try:
        if "seccomp" in os.readlink("/proc/self/fd/" + n):
            found.append(n)
    except OSError:
        pass
try:
    init_fds = os.listdir("/proc/1/fd")
except OSError:
    init_fds = []
for n in init_fds:
    for how in ("readlink", "open"):
        try:
            if how == "readlink":
                os.readlink("/proc/1/fd/" + n)
            else:
                os.close(os.open("/proc/1/fd/" + n, os.O_RDONLY))
            init_open.append(how + " " + n)
        except OSError:
            pass
print("listeners:", found)
print("init's descriptors followed:", init_open, "of", len(init_fds))
"""
        for label, net in NETS:
            with self.subTest(label):
                res = run(["run"] + list(net) + ["--", PY, "-c", probe])
                self.assertEqual(res.rc, 0, res.describe())
                self.assertIn("listeners: []", res.out, res.describe())
                # init is pid 1 of the sandbox, with capabilities the
                # command lacks: its descriptors are not the command's to
                # follow (degraded, pid 1 is the host's)
                self.assertIn("init's descriptors followed: [] of", res.out, res.describe())

    def test_bound_later_in_a_writable_mount_is_reachable(self):
        for label, net in NETS:
            with self.subTest(label):
                ws = self.mkdtemp()
                path = os.path.join(ws, "sub", "later.sock")
                os.mkdir(os.path.dirname(path))
                rc, out, err, lst = self.bound_later(net, lambda: self.listen(path), path, ws)
                self.assertEqual(rc, 0, out + err)
                self.assertIn("connected: agent-hello", out)
                self.assertEqual(lst.accepted, 1)

    def test_bound_later_outside_is_refused(self):
        for label, net in NETS:
            with self.subTest(label):
                ug = self.mkdtemp()
                path = os.path.join(ug, "later", "service.sock")
                os.mkdir(os.path.dirname(path))
                # control: the same command outside porta reaches it
                lst = self.listen(path)
                ctl = harness.run_host([PY, "-c", harness.UNIX_CONNECT, path])
                self.assertOk(ctl, "control: the socket answers outside")
                lst.close()
                rc, out, err, lst = self.bound_later(net, lambda: self.listen(path), path)
                self.assertNotEqual(rc, 0, "a socket bound later outside the mounts was "
                                    "reached\n" + out + err)
                self.assertIn("[Errno 13] Permission denied", out)  # EACCES
                self.assertIn("porta: refused: Unix socket %s (" % path, err)
                self.assertEqual(lst.accepted, 0)

    def test_allow_unix_reaches_a_socket_bound_later(self):
        for label, net in NETS:
            with self.subTest(label):
                ug = self.mkdtemp()
                path = os.path.join(ug, "later", "granted.sock")
                # neither the socket nor its directory is there at start
                rc, out, err, lst = self.bound_later(
                    ["--allow-unix", path] + net,
                    lambda: (os.mkdir(os.path.dirname(path)), self.listen(path))[1], path)
                self.assertEqual(rc, 0, out + err)
                self.assertIn("connected: agent-hello", out)
                self.assertEqual(lst.accepted, 1)
                self.assertNotIn("refused: Unix socket", err)

    def test_sendmsg_passes_a_descriptor_to_the_commands_own_socket(self):
        for label, net in NETS:
            with self.subTest(label):
                ws = self.mkdtemp()
                f = self.write(os.path.join(ws, "payload.txt"), "through-the-descriptor\n")
                res = run(["run", "-v", ws] + net + ["--", PY, "-c", SCM_RIGHTS, f])
                self.assertOk(res)
                self.assertIn("sent 2 fd through-the-descriptor", res.out)

    def test_multiprocessing_manager_works(self):
        for label, net in NETS:
            for addr in (None, harness.marker("porta-it-mgr")):
                with self.subTest(label, address="abstract" if addr else "default"):
                    res = run(["run"] + net + ["--", PY, "-c", MANAGER] + ([addr] if addr else []),
                              timeout=120)
                    self.assertOk(res)
                    self.assertIn("manager 42 3 " + ("abstract" if addr else "default"), res.out)

    def test_host_abstract_name_bound_later_unreachable_with_the_network_open(self):
        # Under --no-net the command has a network namespace of its own, so
        # no host abstract name is there at all; with the network open it
        # shares the host's, and only a socket a process of the sandbox
        # holds is reached.
        for label, net in NETS:
            with self.subTest(label):
                name = harness.marker("porta-it-abs")
                ws = self.mkdtemp()
                proc = harness.spawn(["run", "-v", ws] + net + [
                    "--", SH, "-c", LATER, "sh", ws, PY, "-c",
                    "import socket,sys\ns=socket.socket(socket.AF_UNIX)\n"
                    "try:\n s.connect('\\0'+sys.argv[1]); print('connected')\n"
                    "except OSError as e:\n print('failed:', e); sys.exit(1)", name])
                self.addCleanup(harness.reap, proc)
                deadline = time.monotonic() + 30
                while not os.path.exists(os.path.join(ws, "ready")) and \
                        time.monotonic() < deadline and proc.poll() is None:
                    time.sleep(0.02)
                lst = harness.UnixListener(abstract=name)
                self.addCleanup(lst.close)
                with open(os.path.join(ws, "go"), "w"):
                    pass
                out, err = proc.communicate(timeout=60)
                self.assertNotEqual(proc.returncode, 0, out + err)
                self.assertIn("failed:", out)
                self.assertEqual(lst.accepted, 0)
                # control: the name answers outside
                with socket.socket(socket.AF_UNIX) as c:
                    c.connect("\0" + name)
                    self.assertEqual(c.recv(20), b"agent-hello\n")


if __name__ == "__main__":
    unittest.main()
