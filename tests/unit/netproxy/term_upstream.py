"""tests/unit/netproxy/term_upstream.py CERT KEY LOG: the upstream server of
tests/unit/netproxy/test_terminate.c.  HTTPS on 127.0.0.1, a port of its
own (printed on stdout once listening); every request head it receives is
appended to LOG as one JSON line, and it answers 200 with each
Authorization value it received echoed in an X-Echo header and a body of
"ok".  Keep-alive: requests are answered until the client closes."""
import json
import socket
import ssl
import sys
import threading

cert, key, log = sys.argv[1:4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(16)
print(srv.getsockname()[1], flush=True)
lock = threading.Lock()


def serve(conn):
    try:
        s = ctx.wrap_socket(conn, server_side=True)
        f = s.makefile("rb")
        while True:
            line = f.readline()
            if not line:
                return
            head = [line.decode("latin-1").rstrip("\r\n")]
            length = 0
            while True:
                h = f.readline().decode("latin-1").rstrip("\r\n")
                if not h:
                    break
                head.append(h)
                if h.lower().startswith("content-length:"):
                    length = int(h.split(":", 1)[1])
            body = f.read(length) if length else b""
            with lock, open(log, "a") as out:
                out.write(json.dumps({"head": head, "body": body.decode("latin-1")}) + "\n")
            echo = [h.split(":", 1)[1].strip() for h in head[1:]
                    if h.lower().startswith("authorization:")]
            extra = "".join("X-Echo: %s\r\n" % v for v in echo)
            s.sendall(("HTTP/1.1 200 OK\r\n%sContent-Length: 2\r\n\r\nok" % extra).encode())
    except (OSError, ssl.SSLError, ValueError):
        pass


while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
