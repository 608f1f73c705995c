"""integration/netnone: --no-net leaves only lo and reaches nothing on the
host, not even its loopback.  Everything here stays on this machine."""

import errno
import json
import os
import shutil
import socket
import time
import unittest

import harness
import retryclient
from harness import PY, PortaTestCase, run

TCP_CONNECT = r"""
import socket, sys
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_STREAM)
s.settimeout(3)
try:
    s.connect((sys.argv[1], int(sys.argv[2])))
    print("connected:", s.recv(10))
except OSError as e:
    print("failed:", e)
    sys.exit(1)
"""

UDP_SEND = r"""
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.sendto(sys.argv[3].encode(), (sys.argv[1], int(sys.argv[2])))
    print("sent")
except OSError as e:
    print("failed:", e)
    sys.exit(1)
"""

ABSTRACT_CONNECT = r"""
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(3)
try:
    s.connect("\0" + sys.argv[1])
    print("connected:", s.recv(20))
except OSError as e:
    print("failed:", e)
    sys.exit(1)
"""


def has_ipv6_loopback():
    try:
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s.bind(("::1", 0))
        s.close()
        return True
    except OSError:
        return False


class NoNet(PortaTestCase):

    @harness.needs_userns('a network namespace with only lo')
    def test_only_lo(self):
        res = run(["run", "--no-net", "--", "cat", "/proc/net/dev"])
        self.assertOk(res)
        ifaces = sorted(l.split(":")[0].strip() for l in res.out.splitlines()[2:] if ":" in l)
        self.assertEqual(ifaces, ["lo"], res.describe())

    def test_open_mode_sees_host_interfaces(self):
        # control for the above: without --no-net porta shares the host's network
        with open("/proc/net/dev") as f:
            host = sorted(l.split(":")[0].strip() for l in f.read().splitlines()[2:] if ":" in l)
        res = run(["run", "--", "cat", "/proc/net/dev"])
        self.assertOk(res)
        inside = sorted(l.split(":")[0].strip() for l in res.out.splitlines()[2:] if ":" in l)
        self.assertEqual(inside, host)

    def tcp_case(self, host, family):
        lst = harness.TCPListener(host, family)
        self.addCleanup(lst.close)
        argv = [PY, "-c", TCP_CONNECT, host, str(lst.port)]
        ctl = harness.run_host(argv)
        self.assertOk(ctl, "control: the listener answers outside")
        self.assertEqual(lst.accepted, 1)
        ctl = run(["run", "--"] + argv)
        self.assertOk(ctl, "control: open mode reaches host loopback")
        self.assertEqual(lst.accepted, 2)
        res = run(["run", "--no-net", "--"] + argv)
        self.assertFailed(res)
        time.sleep(0.3)
        self.assertEqual(lst.accepted, 2, "the host listener got a connection from --no-net")

    def test_tcp_to_host_loopback_fails(self):
        self.tcp_case("127.0.0.1", socket.AF_INET)

    @unittest.skipUnless(has_ipv6_loopback(), "no IPv6 loopback on this host")
    def test_tcp6_to_host_loopback_fails(self):
        self.tcp_case("::1", socket.AF_INET6)

    def test_udp_to_host_loopback_gets_nothing(self):
        rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.addCleanup(rx.close)
        rx.bind(("127.0.0.1", 0))
        rx.settimeout(1.5)
        port = str(rx.getsockname()[1])
        ctl = harness.run_host([PY, "-c", UDP_SEND, "127.0.0.1", port, "control"])
        self.assertOk(ctl)
        self.assertEqual(rx.recvfrom(100)[0], b"control")
        run(["run", "--no-net", "--", PY, "-c", UDP_SEND, "127.0.0.1", port, "leaked"])
        rx.settimeout(1.0)
        try:
            data = rx.recvfrom(100)[0]
        except socket.timeout:
            data = None
        self.assertIsNone(data, "a datagram from --no-net reached the host")

    def test_abstract_unix_socket_unreachable(self):
        name = harness.marker("porta-it-abstract")
        lst = harness.UnixListener(abstract=name)
        self.addCleanup(lst.close)
        argv = [PY, "-c", ABSTRACT_CONNECT, name]
        ctl = harness.run_host(argv)
        self.assertOk(ctl, "control")
        self.assertEqual(lst.accepted, 1)
        res = run(["run", "--no-net", "--"] + argv)
        self.assertFailed(res)
        self.assertEqual(lst.accepted, 1)

    def test_no_dns(self):
        res = run(["run", "--no-net", "--", PY, "-c",
                   "import socket\n"
                   "try:\n"
                   "    print(socket.getaddrinfo('example.com', 443))\n"
                   "except OSError as e:\n"
                   "    print('failed', e); raise SystemExit(1)\n"])
        self.assertFailed(res)

    @harness.needs_userns('the DNS responder lives in the network namespace; on a degraded host '
                          '--no-net refuses the resolver like any address (a stated loss)')
    def test_a_retrying_client_gives_up_at_once_and_porta_names_the_host(self):
        # npm's policy: retry temporary failures, never "no such host".  A
        # client that retried would print a count above 1 (each retry waits
        # retryclient.RETRY_WAIT seconds); before the responder it printed
        # "gave-up 4 retries-exhausted" (EAI_AGAIN every time).
        res = run(["run", "--no-net", "--", PY, "-c", retryclient.SOURCE,
                   "registry.example", "443"])
        self.assertEqual(res.rc, 2, res.describe())
        self.assertEqual(res.out.split(), ["gave-up", "1", "EAI_NONAME"], res.describe())
        self.assertIn("porta: refused registry.example (no net); "
                      "allow with --allow-net registry.example", res.err)
        self.assertIn("porta:   registry.example (no net", res.err)
        # the end: the command failed after a refusal, and --why shows it
        self.assertIn("--why", res.err.splitlines()[-1], res.describe())

    @harness.needs_userns('the DNS responder lives in the network namespace')
    def test_every_lookup_is_recorded_and_nothing_answers(self):
        audit = os.path.join(self.mkdtemp(), "audit.jsonl")
        script = ("import socket\n"
                  "for h in ('a.registry.example', 'b.registry.example'):\n"
                  "    try: print(socket.getaddrinfo(h, 80))\n"
                  "    except socket.gaierror as e: print(h, e.errno)\n")
        res = run(["run", "--no-net", "--audit", audit, "-q", "--", PY, "-c", script])
        self.assertOk(res)
        self.assertEqual(res.out.split(), ["a.registry.example", str(socket.EAI_NONAME),
                                           "b.registry.example", str(socket.EAI_NONAME)],
                         res.describe())
        self.assertEqual(res.err, "", "-q: no refusal lines")
        with open(audit) as f:
            recs = [json.loads(l) for l in f]
        hosts = {r["host"] for r in recs}
        self.assertEqual(hosts, {"a.registry.example", "b.registry.example"}, recs)
        for r in recs:
            self.assertEqual((r["kind"], r["verdict"], r["reason"]), ("dns", "deny", "no-net"), r)
            self.assertEqual(r["hint"], "--allow-net " + r["host"], r)
            # who asked, as the command sees it (the python is init's child)
            self.assertEqual((r.get("pid"), r.get("comm")), (2, os.path.basename(PY)[:15]), r)

    @harness.needs_userns('the connect watch under --no-net needs the full sandbox')
    def test_connects_are_named_with_their_port(self):
        # TEST-NET-1: under --no-net nothing is sent anywhere; the refusal
        # is the network's ("unreachable"), named with the option
        script = ("import socket\n"
                  "try: socket.create_connection(('192.0.2.1', 8443), timeout=3)\n"
                  "except OSError as e: print(e.errno)\n"
                  "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                  "try: u.sendto(b'x', ('192.0.2.1', 9999))\n"
                  "except OSError as e: print(e.errno)\n"
                  "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)\n"
                  "socket.create_connection(s.getsockname(), timeout=3); print('lo ok')\n")
        res = run(["run", "--no-net", "--", PY, "-c", script])
        self.assertOk(res)
        self.assertEqual(res.out.split(), [str(errno.ENETUNREACH), str(errno.ENETUNREACH),
                                           "lo", "ok"], res.describe())
        self.assertIn("porta: refused 192.0.2.1:8443 (no net); allow with --allow-net "
                      "192.0.2.1:8443 in place of --no-net", res.err)
        # UDP is never forwarded: named, with no option
        self.assertIn("porta: refused 192.0.2.1:9999 (udp not forwarded)\n", res.err)
        self.assertNotIn("127.0.0.1", res.err, "the sandbox's own loopback is not refused")

    @unittest.skipUnless(shutil.which("node"), "node is not installed")
    @harness.needs_userns('the DNS responder lives in the network namespace')
    def test_node_sees_enotfound(self):
        res = run(["run", "--no-net", "--", shutil.which("node"), "-e",
                   "require('dns').lookup('registry.example', (e) => console.log(e && e.code))"])
        self.assertOk(res)
        self.assertEqual(res.out.strip(), "ENOTFOUND", res.describe())

    @harness.needs_userns('a private loopback: on a degraded host TCP and listening are refused, loopback included (a stated loss)')
    def test_loopback_inside_works(self):
        # lo exists inside: a server and client within the sandbox can talk.
        script = ("import socket\n"
                  "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)\n"
                  "c = socket.create_connection(s.getsockname(), timeout=3)\n"
                  "a, _ = s.accept(); a.sendall(b'ok'); print(c.recv(2).decode())\n")
        res = run(["run", "--no-net", "--", PY, "-c", script])
        self.assertOk(res)
        self.assertEqual(res.out, "ok\n")


if __name__ == "__main__":
    unittest.main()
