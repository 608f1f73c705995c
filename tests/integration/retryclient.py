"""A client that retries the way npm does (make-fetch-happen's policy):
again after a temporary failure (EAI_AGAIN, ECONNRESET, ETIMEDOUT), never
after "no such host" (EAI_NONAME, Node's ENOTFOUND) or "connection refused".

Tests pass SOURCE to python3 -c inside porta (so it does not depend on where
this tree lives):  python3 -c SOURCE HOST PORT
Each retry waits RETRY_WAIT seconds, so a client that gave up after its
first attempt gave up at once.  It prints one line,
  ok ATTEMPTS              the request went through
  gave-up ATTEMPTS WHY     WHY: EAI_NONAME, ECONNREFUSED, ... or retries-exhausted
and exits 0 or 2.
"""

RETRY_WAIT = 1.0
TRIES = 4

SOURCE = r"""
import errno, socket, sys, time
host, port = sys.argv[1], int(sys.argv[2])
WAIT, TRIES = %r, %r
TEMPORARY_GAI = {socket.EAI_AGAIN}
TEMPORARY_OS = {errno.ECONNRESET, errno.ETIMEDOUT, errno.EPIPE}
GAI_NAMES = {getattr(socket, n): n for n in ("EAI_NONAME", "EAI_AGAIN", "EAI_FAIL", "EAI_NODATA")
             if hasattr(socket, n)}

def fetch():
    info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    s = socket.socket(info[0][0], socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(info[0][4])
    s.sendall(b"GET / HTTP/1.1\r\nHost: " + host.encode() + b"\r\nConnection: close\r\n\r\n")
    if not s.recv(100):
        raise ConnectionResetError(errno.ECONNRESET, "closed before any byte")

for attempt in range(1, TRIES + 1):
    try:
        fetch()
        print("ok", attempt)
        sys.exit(0)
    except socket.gaierror as e:
        if e.errno not in TEMPORARY_GAI:
            print("gave-up", attempt, GAI_NAMES.get(e.errno, e.errno))
            sys.exit(2)
    except socket.timeout:
        pass
    except OSError as e:
        if e.errno not in TEMPORARY_OS:
            print("gave-up", attempt, errno.errorcode.get(e.errno, e.errno))
            sys.exit(2)
    if attempt < TRIES:
        time.sleep(WAIT)
print("gave-up", TRIES, "retries-exhausted")
sys.exit(2)
""" % (RETRY_WAIT, TRIES)
