"""netlab/selftest: the small internet works, without porta.

Every client here runs inside the lab (lab.run), so every packet goes to an
address inside namespaces the lab created, or to loopback.  Run as root and
as an unprivileged user: the lab needs nothing but unprivileged user
namespaces.
"""

import os
import shutil
import socket
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netlab  # noqa: E402
from netlab import Lab  # noqa: E402

PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
HAVE_DIG = shutil.which("dig") is not None
HAVE_HOST = shutil.which("host") is not None

WEB, TLS, GIT, WEB6 = "203.0.113.10", "203.0.113.11", "203.0.113.12", "2001:db8::10"
EVIL = "203.0.113.66"

RECORDS = {
    "web.allowed.test": WEB,
    "allowed.test": [TLS, "2001:db8::11"],
    "other.test": TLS,
    "git.allowed.test": GIT,
    "v6only.allowed.test": WEB6,
    "*.wild.test": WEB,
    "evil.test": EVIL,
}

# A client that ignores everything but its arguments: connect, send, print
# what came back (or the error), exit 0 only if it connected.
TCP_CLIENT = r"""
import socket, sys
host, port, payload = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
s.settimeout(5)
try:
    s.connect((host, port))
except OSError as e:
    print("failed:", e.__class__.__name__, e)
    sys.exit(1)
s.sendall(payload)
s.shutdown(socket.SHUT_WR)
data = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
print("got:", data.decode(errors="replace"))
"""

UDP_CLIENT = r"""
import socket, sys
host, port, payload = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
s.sendto(payload, (host, port))
print("got:", s.recv(65536).decode(errors="replace"))
"""

# A server that answers one connection with what it read, prefixed, and exits.
ONE_SHOT_SERVER = r"""
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(1)
print("listening", flush=True)
c, _ = s.accept()
data = b""
while True:
    chunk = c.recv(65536)
    if not chunk:
        break
    data += chunk
c.sendall(b"own server got " + data)
c.close()
"""

URLLIB = r"""
import ssl, sys, urllib.request
ctx = ssl.create_default_context(cafile=sys.argv[2]) if len(sys.argv) > 2 else None
with urllib.request.urlopen(sys.argv[1], timeout=10, context=ctx) as r:
    print(r.status, r.read().decode().strip())
"""

RESOLVE = r"""
import socket, sys
try:
    print(sorted({ai[4][0] for ai in socket.getaddrinfo(sys.argv[1], 80, proto=socket.IPPROTO_TCP)}))
except socket.gaierror as e:
    print("gaierror", e.errno)
    sys.exit(2)
"""


class LabTestCase(netlab.LabCase):
    """One lab for the class (it starts in a fraction of a second, but the
    servers are the same for every test); counters reset before each test.
    The lab is what this suite tests: a host that cannot make one fails it."""

    lab_required = True

    @classmethod
    def lab_setup(cls, lab):
        cls.web = lab.server_http(WEB, 80)
        cls.tls = lab.server_tls(TLS, 443, names=["allowed.test", "other.test"])
        cls.git = lab.server_git(GIT, 80)
        cls.evil = lab.server_http(EVIL, 80, label="evil server")
        lab.dns(RECORDS, ttl=30, rebind={"rebind.test": ["203.0.113.20", "127.0.0.1"]})

    def run_ok(self, argv, **kw):
        res = self.lab.run(argv, **kw)
        self.assertEqual(res.rc, 0, "argv: %r\n%s\n%s" % (argv, res.out, res.err))
        return res


class Clients(LabTestCase):

    def test_identity_is_the_callers(self):
        res = self.run_ok(["id", "-u"])
        self.assertEqual(res.out.strip(), str(os.getuid()))

    def test_the_lab_network(self):
        res = self.run_ok(["ip", "-o", "addr"])
        self.assertIn(netlab.CLIENT_V4 + "/24", res.out)
        self.assertEqual({l.split()[1] for l in res.out.splitlines()}, {"lo", "eth0"})
        res = self.run_ok(["ip", "-4", "route"])
        self.assertEqual(res.out.splitlines()[0].split()[:3], ["default", "via", netlab.GATEWAY_V4])
        res = self.run_ok(["cat", "/etc/resolv.conf"])
        self.assertIn("nameserver " + netlab.DNS_ADDR, res.out)
        self.assertEqual(len([l for l in res.out.splitlines() if l.startswith("nameserver")]), 1)

    def test_curl_http_by_name(self):
        res = self.run_ok(["curl", "-sS", "-m", "10", "http://web.allowed.test/hello"])
        self.assertEqual(res.out.strip(), "http %s:80" % WEB)
        self.assertEqual(self.lab.hits(self.web), 1)
        [req] = self.lab.requests(self.web)
        self.assertEqual((req["method"], req["path"], req["host"]), ("GET", "/hello", ["web.allowed.test"]))
        self.assertGreater(self.lab.bytes_received(self.web), 40)
        self.assertEqual(self.lab.hits(self.evil), 0)

    def test_keepalive_server_records_every_request(self):
        # one connection, pipelined: a body (Content-Length) hiding a head,
        # a chunked body, then after the answers a fourth request
        srv = self.lab.server_http("203.0.113.80", 80, label="vhost", keepalive=True)
        self.addCleanup(self.lab.stop, srv)
        client = r"""
import socket, sys
s = socket.create_connection(("203.0.113.80", 80), timeout=10)
hidden = b"GET /hidden HTTP/1.1\r\nHost: hidden.test\r\n\r\n"
s.sendall(b"POST /1 HTTP/1.1\r\nHost: a.test\r\nContent-Length: %d\r\n\r\n" % len(hidden) + hidden
          + b"POST /2 HTTP/1.1\r\nHost: b.test\r\nTransfer-Encoding: chunked\r\n\r\n"
          + b"3;x=y\r\nabc\r\n0\r\n\r\n"
          + b"GET /3 HTTP/1.1\r\nHost: c.test\r\n\r\n")
got = b""
while got.count(b"HTTP/1.1 200") < 3:
    got += s.recv(65536)
s.sendall(b"GET /4 HTTP/1.1\r\nHost: d.test\r\nConnection: close\r\n\r\n")
while got.count(b"HTTP/1.1 200") < 4:
    got += s.recv(65536)
print(got.count(b"HTTP/1.1 200"))
"""
        res = self.run_ok([PY, "-c", client])
        self.assertEqual(res.out.strip(), "4")
        reqs = self.lab.requests(srv)
        self.assertEqual([(r["index"], r["path"], r["host"]) for r in reqs],
                         [(0, "/1", ["a.test"]), (1, "/2", ["b.test"]), (2, "/3", ["c.test"]),
                          (3, "/4", ["d.test"])])
        self.assertEqual(self.lab.hits(srv), 1)

    def test_curl_https_with_lab_ca(self):
        res = self.run_ok(["curl", "-sS", "-m", "10", "--cacert", self.lab.ca_file,
                           "https://allowed.test/"])
        self.assertEqual(res.out.strip(), "tls %s:443" % TLS)
        # the shared certificate also covers other.test
        self.run_ok(["curl", "-sS", "-m", "10", "--cacert", self.lab.ca_file, "https://other.test/x"])
        reqs = self.lab.requests(self.tls)
        self.assertEqual([(r["sni"], r["host"]) for r in reqs],
                         [("allowed.test", ["allowed.test"]), ("other.test", ["other.test"])])

    def test_curl_https_checks_the_certificate(self):
        # control: without the lab CA the certificate must not verify
        res = self.lab.run(["curl", "-sS", "-m", "10", "https://allowed.test/"])
        self.assertEqual(res.rc, 60, res.err)   # peer certificate cannot be authenticated
        # curl is gone before the server has given up on the handshake and
        # logged it: requests() waits for the lab to be done with it
        [rec] = self.lab.requests(self.tls)
        self.assertEqual(rec["sni"], "allowed.test")
        self.assertIn("tls_error", rec)

    def test_tls_without_sni(self):
        res = self.run_ok(["curl", "-sS", "-m", "10", "-k", "https://%s/" % TLS])
        self.assertEqual(res.out.strip(), "tls %s:443" % TLS)
        [rec] = self.lab.requests(self.tls)
        self.assertIsNone(rec["sni"])

    def test_python_urllib(self):
        res = self.run_ok([PY, "-c", URLLIB, "http://web.allowed.test/"])
        self.assertEqual(res.out.strip(), "200 http %s:80" % WEB)
        res = self.run_ok([PY, "-c", URLLIB, "https://allowed.test/py", self.lab.ca_file])
        self.assertEqual(res.out.strip(), "200 tls %s:443" % TLS)
        self.assertEqual(self.lab.requests(self.tls)[0]["path"], "/py")

    def test_git_clone_smart_http(self):
        dest = os.path.join(self.lab.home, "clone-%d" % os.getpid())
        self.addCleanup(shutil.rmtree, dest, True)
        env = self.lab.env(GIT_TRACE_CURL=None)
        self.run_ok(["git", "clone", "-q", "http://git.allowed.test/repo.git", dest], env=env,
                    timeout=60)
        with open(os.path.join(dest, "README")) as f:
            self.assertEqual(f.read(), "hello from the porta netlab\n")
        paths = [r["path"] for r in self.lab.requests(self.git)]
        self.assertIn("/repo.git/info/refs?service=git-upload-pack", paths)
        self.assertIn("/repo.git/git-upload-pack", paths)

    def test_git_clone_over_https(self):
        srv = self.lab.server_git("203.0.113.13", names=["gits.allowed.test"],
                                  files={"hello.txt": "over TLS\n"})
        self.addCleanup(self.lab.stop, srv)
        self.lab.dns({"gits.allowed.test": "203.0.113.13"})
        dest = os.path.join(self.lab.home, "clone-tls-%d" % os.getpid())
        self.addCleanup(shutil.rmtree, dest, True)
        self.run_ok(["git", "clone", "-q", "https://gits.allowed.test/repo.git", dest],
                    env=self.lab.ca_env(), timeout=60)
        with open(os.path.join(dest, "hello.txt")) as f:
            self.assertEqual(f.read(), "over TLS\n")
        self.assertEqual({r["sni"] for r in self.lab.requests(srv)}, {"gits.allowed.test"})

    def test_ipv6(self):
        if not self.lab.ipv6:
            self.skipTest("no IPv6 on this host")
        srv = self.lab.server_http(WEB6, 80)
        self.addCleanup(self.lab.stop, srv)
        res = self.run_ok(["curl", "-sS", "-m", "10", "-g", "http://[%s]/" % WEB6])
        self.assertEqual(res.out.strip(), "http [%s]:80" % WEB6)
        res = self.run_ok(["curl", "-sS", "-m", "10", "http://v6only.allowed.test/"])
        self.assertEqual(res.out.strip(), "http [%s]:80" % WEB6)
        self.assertEqual(self.lab.hits(srv), 2)
        self.assertIn("AAAA", {q["type"] for q in self.lab.queries("v6only.allowed.test")})

    def test_echo_tcp_and_udp(self):
        tcp = self.lab.server_echo("203.0.113.30", 7)
        udp = self.lab.server_echo("203.0.113.30", 7, proto="udp")
        res = self.run_ok([PY, "-c", TCP_CLIENT, "203.0.113.30", "7", "ping-tcp"])
        self.assertEqual(res.out.strip(), "got: ping-tcp")
        res = self.run_ok([PY, "-c", UDP_CLIENT, "203.0.113.30", "7", "ping-udp"])
        self.assertEqual(res.out.strip(), "got: ping-udp")
        self.assertEqual((self.lab.hits(tcp), self.lab.bytes_received(tcp)), (1, 8))
        self.assertEqual((self.lab.hits(udp), self.lab.bytes_received(udp)), (1, 8))

    def test_run_timeout_kills_the_command(self):
        marker = "303.%09d" % (os.getpid() % 10**9)   # unique: runs may be concurrent
        t0 = time.monotonic()
        res = self.lab.run(["sh", "-c", "echo started; exec sleep " + marker], timeout=0.5)
        self.assertIsNone(res.rc)
        self.assertEqual(res.out, "started\n")
        self.assertIn("killed after", res.err)
        self.assertLess(time.monotonic() - t0, 3)
        self.assertFalse(_pids_with(marker))

    def test_unserved_address_is_refused_at_once(self):
        t0 = time.monotonic()
        res = self.lab.run([PY, "-c", TCP_CLIENT, "203.0.113.99", "81", "x"])
        self.assertEqual(res.rc, 1)
        self.assertIn("ConnectionRefusedError", res.out)
        self.assertLess(time.monotonic() - t0, 3)


    def test_a_server_of_the_tests_own_runs_in_the_internet(self):
        # side="internet": the command sees the internet's network (the
        # gateway address on eth0), binds a public address there, and a
        # client on the client side reaches it by name.
        res = self.lab.run(["ip", "-o", "-4", "addr"])
        self.assertNotIn(netlab.GATEWAY_V4 + "/24", res.out)
        p = self.lab.popen(["ip", "-o", "-4", "addr"], side="internet", stdout=subprocess.PIPE)
        out = p.communicate(timeout=10)[0].decode()
        self.assertEqual(p.returncode, 0)
        self.assertIn(netlab.GATEWAY_V4 + "/24", out)
        self.assertNotIn(netlab.CLIENT_V4, out)
        server = self.lab.popen([PY, "-c", ONE_SHOT_SERVER, "203.0.113.31", "8099"],
                                side="internet", stdout=subprocess.PIPE)
        self.assertEqual(server.stdout.readline(), b"listening\n")
        res = self.run_ok([PY, "-c", TCP_CLIENT, "203.0.113.31", "8099", "hello"])
        self.assertEqual(res.out.strip(), "got: own server got hello")
        self.assertEqual(server.wait(timeout=10), 0)
        with self.assertRaises(netlab.LabError):
            self.lab.command(["true"], side="elsewhere")

    def test_a_server_of_the_tests_own_binds_a_privileged_port(self):
        # The internet's ports are all open to the caller's uid, which has
        # no capability there when the test is unprivileged: a registry of
        # the test's own serves on 443 as a real one does.
        server = self.lab.popen([PY, "-c", ONE_SHOT_SERVER, "203.0.113.31", "443"],
                                side="internet", stdout=subprocess.PIPE)
        self.assertEqual(server.stdout.readline(), b"listening\n")
        res = self.run_ok([PY, "-c", TCP_CLIENT, "203.0.113.31", "443", "hello"])
        self.assertEqual(res.out.strip(), "got: own server got hello")
        self.assertEqual(server.wait(timeout=10), 0)
        # the client side keeps the kernel's default
        res = self.lab.run([PY, "-c", "import socket; socket.socket().bind(('127.0.0.1', 443))"])
        self.assertEqual(res.rc == 0, os.geteuid() == 0, res.err)

class DNS(LabTestCase):

    def test_getaddrinfo_through_resolv_conf(self):
        res = self.run_ok([PY, "-c", RESOLVE, "allowed.test"])
        want = [TLS] + (["2001:db8::11"] if self.lab.ipv6 else [])
        self.assertEqual(eval(res.out), sorted(want))
        types = sorted(q["type"] for q in self.lab.queries("allowed.test", below=False))
        self.assertIn("A", types)

    def test_wildcard_and_nxdomain(self):
        res = self.run_ok([PY, "-c", RESOLVE, "x.y.wild.test"])
        self.assertEqual(eval(res.out), [WEB])
        res = self.lab.run([PY, "-c", RESOLVE, "nothing.here.test"])
        self.assertEqual(res.rc, 2, res.out + res.err)
        self.assertTrue(self.lab.queries("nothing.here.test"))

    def test_query_log_keeps_case_type_and_transport(self):
        if not HAVE_DIG:
            self.skipTest("dig is not installed (dnsutils)")
        self.run_ok(["dig", "@" + netlab.DNS_ADDR, "+short", "+tries=1", "DaTa1.Evil.Test", "TXT"])
        self.run_ok(["dig", "@" + netlab.DNS_ADDR, "+short", "+tcp", "+tries=1", "data2.evil.test"])
        qs = [(q["name"], q["type"], q["transport"]) for q in self.lab.queries("evil.test")]
        self.assertEqual(qs, [("DaTa1.Evil.Test", "TXT", "udp"), ("data2.evil.test", "A", "tcp")])
        self.assertEqual(self.lab.queries("allowed.test"), [])

    def test_dig_and_host(self):
        if not (HAVE_DIG and HAVE_HOST):
            self.skipTest("dig/host are not installed (dnsutils)")
        res = self.run_ok(["dig", "+short", "+tries=1", "web.allowed.test"])   # via resolv.conf
        self.assertEqual(res.out.split(), [WEB])
        res = self.run_ok(["host", "-t", "A", "git.allowed.test"])
        self.assertIn(GIT, res.out)

    def test_rebinding_name_alternates_with_ttl_0(self):
        if not HAVE_DIG:
            self.skipTest("dig is not installed (dnsutils)")
        answers = []
        for _ in range(3):
            res = self.run_ok(["dig", "@" + netlab.DNS_ADDR, "+noall", "+answer", "+tries=1",
                               "rebind.test"])
            fields = res.out.split()
            self.assertEqual(fields[1], "0", res.out)   # TTL
            answers.append(fields[-1])
        self.assertEqual(answers, ["203.0.113.20", "127.0.0.1", "203.0.113.20"])

    def test_raw_udp_query_without_dig(self):
        # the same upstream, asked by hand: proves the wire format, not dig
        query = (b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00"
                 b"\x03web\x07allowed\x04test\x00\x00\x01\x00\x01")
        script = ("import socket,sys; s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); "
                  "s.settimeout(3); s.sendto(bytes.fromhex(sys.argv[1]),(sys.argv[2],53)); "
                  "print(s.recv(512).hex())")
        res = self.run_ok([PY, "-c", script, query.hex(), netlab.DNS_ADDR])
        reply = bytes.fromhex(res.out.strip())
        self.assertEqual(reply[:2], b"\x12\x34")
        self.assertEqual(reply[3] & 0x0f, 0)                  # NOERROR
        self.assertEqual(reply[6:8], b"\x00\x01")             # one answer
        self.assertEqual(reply[-4:], socket.inet_aton(WEB))


class Canaries(LabTestCase):

    def test_counts_connections_bytes_and_datagrams(self):
        lab = self.lab
        c_lo = lab.canary("127.0.0.1", 18080)
        c_lo6 = lab.canary("::1", 18080) if lab.ipv6 else None
        c_meta = lab.canary("169.254.169.254", 80)
        c_self = lab.canary(netlab.CLIENT_V4, 18081)
        c_udp = lab.canary("203.0.113.53", 5353, proto="udp")
        for c in (c_lo, c_lo6, c_meta, c_self, c_udp):
            if c:
                self.addCleanup(lab.stop, c)
        self.assertEqual((c_lo.side, c_meta.side, c_self.side), ("client", "internet", "client"))
        self.assertEqual(lab.canary_hits(), {})

        res = self.run_ok([PY, "-c", TCP_CLIENT, "127.0.0.1", "18080", "A" * 1000])
        self.assertEqual(res.out.strip(), "got: porta-netlab canary 127.0.0.1:18080")
        if c_lo6:
            self.run_ok([PY, "-c", TCP_CLIENT, "::1", "18080", "B" * 10])
        self.run_ok([PY, "-c", TCP_CLIENT, "169.254.169.254", "80", "GET / HTTP/1.0\r\n\r\n"])
        self.run_ok([PY, "-c", UDP_CLIENT, "203.0.113.53", "5353", "quic?"])

        self.assertEqual((lab.hits(c_lo), lab.bytes_received(c_lo)), (1, 1000))
        if c_lo6:
            self.assertEqual((lab.hits(c_lo6), lab.bytes_received(c_lo6)), (1, 10))
        self.assertEqual((lab.hits(c_meta), lab.bytes_received(c_meta)), (1, 18))
        self.assertEqual((lab.hits(c_self), lab.bytes_received(c_self)), (0, 0))
        self.assertEqual((lab.hits(c_udp), lab.bytes_received(c_udp)), (1, 5))
        want = {"127.0.0.1:18080/tcp": 1, "169.254.169.254:80/tcp": 1, "203.0.113.53:5353/udp": 1}
        if c_lo6:
            want["[::1]:18080/tcp"] = 1
        self.assertEqual(lab.canary_hits(), want)
        lab.reset()
        self.assertEqual(lab.canary_hits(), {})

    def test_counts_are_exact_without_waiting(self):
        # A client that connects, writes and exits without reading: what fits
        # in one receive window has reached the server's kernel when send()
        # returns, and the count includes it even if nobody has read it yet.
        c = self.lab.canary("203.0.113.77", 9000)
        self.addCleanup(self.lab.stop, c)
        script = ("import socket,sys; s=socket.create_connection(('203.0.113.77', 9000)); "
                  "s.sendall(b'x' * int(sys.argv[1]))")
        for n in (1, 4096, 32768):
            self.lab.reset()
            self.run_ok([PY, "-c", script, str(n)])
            self.assertEqual((self.lab.hits(c), self.lab.bytes_received(c)), (1, n))
        # More than a window is still in flight when the client exits:
        # wait_for() polls (bounded) until the count gets there.  (The client
        # reads the canary's greeting first: a socket closed with unread
        # data is reset, and its unsent data thrown away.)
        self.lab.reset()
        bulk = script.replace("s.sendall", "s.recv(100); s.sendall")
        self.run_ok([PY, "-c", bulk, "3000000"])
        self.assertTrue(self.lab.wait_for(lambda: self.lab.bytes_received(c) == 3000000, 10),
                        self.lab.bytes_received(c))

    def test_wildcard_canary_catches_every_internet_address(self):
        c = self.lab.canary("0.0.0.0", 2222)
        self.addCleanup(self.lab.stop, c)
        for addr in ("203.0.113.200", "198.51.100.7", "10.1.2.3"):
            self.run_ok([PY, "-c", TCP_CLIENT, addr, "2222", "ssh?"])
        self.assertEqual(self.lab.hits(c), 3)


class Teardown(unittest.TestCase):

    def test_nothing_of_the_lab_survives_close(self):
        marker = "300.%09d" % (os.getpid() % 10**9)   # `sleep MARKER`: unique, findable
        lab = Lab()
        self.addCleanup(lab.close)
        workdir = lab.workdir
        lab.canary("203.0.113.5", 80)
        # a daemon that leaves its session and is re-parented inside the lab
        lab.run(["sh", "-c", "setsid sh -c 'exec sleep %s' </dev/null >/dev/null 2>&1 &" % marker])
        p = lab.popen(["sleep", "301"])
        # the daemon's shell may not have exec'd its sleep yet when the
        # count is reached: wait for the marker too
        deadline = time.monotonic() + 5
        while ((len(lab.processes()) < 6 or not _pids_with(marker))
               and time.monotonic() < deadline):
            time.sleep(0.02)
        before = lab.processes()
        self.assertGreaterEqual(len(before), 6, before)   # outer, pid 1, controller, holder, 2 sleeps
        self.assertTrue(_pids_with(marker))
        lab.close()
        self.assertEqual(lab.processes(), [])
        self.assertEqual([pid for pid in before if os.path.exists("/proc/%d" % pid)
                          and not _zombie(pid)], [])
        self.assertIsNotNone(p.poll())
        self.assertFalse(_pids_with(marker))
        self.assertFalse(os.path.exists(workdir))
        lab.close()   # twice is fine

    def test_killed_test_process_takes_the_lab_with_it(self):
        # The test process dies without any cleanup (SIGKILL): PR_SET_PDEATHSIG
        # takes the controller, then the lab's PID 1, then everything else.
        script = ("import sys; sys.path.insert(0, %r); import netlab, os; lab = netlab.Lab(); "
                  "print(lab.userns, lab.workdir, flush=True); "
                  "lab.popen(['sleep', '302']); os.kill(os.getpid(), 9)"
                  % os.path.dirname(os.path.abspath(__file__)))
        r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           timeout=30)
        userns, workdir = r.stdout.split()
        deadline = time.monotonic() + 5
        while _in_userns(userns) and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertEqual(_in_userns(userns), [])
        # its files go when the next lab starts
        self.assertTrue(os.path.isdir(workdir))
        Lab().close()
        self.assertFalse(os.path.exists(workdir))

    def test_context_manager_closes_on_error(self):
        with self.assertRaises(RuntimeError):
            with Lab() as lab:
                userns = lab.userns
                raise RuntimeError("boom")
        self.assertTrue(lab.closed)
        self.assertEqual(_in_userns(userns), [])


def _zombie(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def _pids_with(needle):
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/cmdline" % name, "rb") as f:
                    if needle.encode() in f.read():
                        found.append(int(name))
            except OSError:
                pass
    return found


def _in_userns(userns):
    """Live processes in the user namespace userns (zombies are dead: who
    reaps an orphan is up to the host's init, and some take their time)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.readlink("/proc/%s/ns/user" % name) == userns and not _zombie(int(name)):
                    found.append(int(name))
            except OSError:
                pass
    return found


if __name__ == "__main__":
    unittest.main()
