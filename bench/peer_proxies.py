"""bench/peer_proxies.py: the proxies users would otherwise use, set up in
tests/netlab's lab for bench/relay and bench/relay-idle.

tinyproxy (Debian's) runs in the lab's client namespace on 127.0.0.1 and
allows CONNECT to the one upstream port; srt (npm
@anthropic-ai/sandbox-runtime) is given a settings file that allows the one
name and port, as tests/escapes/adapters.py maps --allow-net.
"""

import json
import os
import subprocess
import time

TINYPROXY_PORT = 9888


def start_tinyproxy(lab, exe, base, upstream_port, env):
    """Writes BASE/tinyproxy.conf, starts tinyproxy in the foreground in the
    lab and waits until it accepts.  Returns the process; raises
    RuntimeError with tinyproxy's stderr when it does not start."""
    conf = os.path.join(base, "tinyproxy.conf")
    with open(conf, "w") as f:
        f.write(f"Port {TINYPROXY_PORT}\nListen 127.0.0.1\nTimeout 600\nMaxClients 4000\n"
                f"Allow 127.0.0.1\nConnectPort {upstream_port}\nLogLevel Critical\n"
                + ("User nobody\nGroup nogroup\n" if os.geteuid() == 0 else ""))
    os.chmod(conf, 0o644)
    proc = lab.popen([exe, "-d", "-c", conf], env=env, cwd=base,
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    probe = ["python3", "-c", "import socket; socket.create_connection("
             f"('127.0.0.1', {TINYPROXY_PORT}), 1).close()"]
    for _ in range(50):
        if lab.run(probe, env=env, cwd=base).rc == 0 or proc.poll() is not None:
            break
        time.sleep(0.1)
    if proc.poll() is not None:
        raise RuntimeError(f"tinyproxy did not start: {proc.stderr.read().strip()}")
    return proc


def srt_settings(base, name, port, writable):
    """BASE/srt-settings.json allowing NAME:PORT and writes beneath the
    writable paths; returns its path."""
    path = os.path.join(base, "srt-settings.json")
    with open(path, "w") as f:
        json.dump({"network": {"allowedDomains": [f"{name}:{port}"], "deniedDomains": []},
                   "filesystem": {"denyRead": [], "allowRead": [], "allowWrite": list(writable),
                                  "denyWrite": []}}, f)
    os.chmod(path, 0o644)
    return path
