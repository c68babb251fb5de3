#!/usr/bin/env python3
"""Throughput over TLS on loopback: a zmote pair (z_sub_thr listening on tls/, z_pub_thr connecting,
both of a build with -DZ_FEATURE_LINK_TLS=1) and a Rust pair (two eclipse-zenoh 1.10.2 peers, each
in a Python process: a subscriber counting in its callback, a publisher putting in a loop), 8 B and
1 KiB payloads; the median of the subscriber's 100 ms windows after 3 of warm-up, and the ratio.
The certificates (a CA, a server certificate for localhost and 127.0.0.1) are made with openssl.

usage: bench/tls_thr.py ZMOTE_EXAMPLES_DIR      env: SECS (default 6), PROTO=tcp for the same over TCP
"""
import json, os, socket, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = os.environ.get("ZM_PYTHON", os.path.join(ROOT, ".venv/bin/python"))
BIN = sys.argv[1]
SECS = float(os.environ.get("SECS", "6"))
proto = os.environ.get("PROTO", "tls")
D = tempfile.mkdtemp(prefix="zmote-tls-bench.") + "/"


def openssl(*args):
    subprocess.run(["openssl", *args], cwd=D, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=ca",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign")
openssl("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=server")
with open(D + "server.ext", "w") as f:
    f.write("basicConstraints=CA:FALSE\nsubjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
        "server.pem", "-days", "2", "-extfile", "server.ext")


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def zmote(size):
    port = free_port()
    env = dict(os.environ, ZMOTE_TLS_ROOT_CA_CERTIFICATE=D+"ca.pem", ZMOTE_TLS_LISTEN_CERTIFICATE=D+"server.pem",
               ZMOTE_TLS_LISTEN_PRIVATE_KEY=D+"server.key")
    sub = subprocess.Popen([BIN+"/z_sub_thr", "-m", "peer", "-l", f"{proto}/127.0.0.1:{port}"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    time.sleep(0.5)
    pub = subprocess.Popen([BIN+"/z_pub_thr", "-m", "peer", "-e", f"{proto}/localhost:{port}", "-s", str(size)], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return collect(sub, [pub])

def collect(sub, others):
    vals = []
    t_end = None
    os.set_blocking(sub.stdout.fileno(), True)
    start = time.monotonic()
    for line in sub.stdout:
        try:
            vals.append(float(line.split()[-1]))
        except ValueError:
            continue
        if t_end is None:
            t_end = time.monotonic() + SECS + 0.3
        if time.monotonic() > t_end or time.monotonic() - start > 60:
            break
    for p in others + [sub]:
        p.kill(); p.wait()
    vals = vals[3:]  # warm-up
    return statistics.median(vals) if vals else 0.0, len(vals)

RUST_SUB = r'''
import json, sys, time, zenoh, threading
conf = json.loads(sys.argv[1])
s = zenoh.open(zenoh.Config.from_json5(json.dumps(conf)))
n = [0]
def cb(x): n[0] += 1
sub = s.declare_subscriber("test/thr", cb)
last, t0 = 0, time.monotonic()
while True:
    time.sleep(0.1)
    t = time.monotonic(); c = n[0]
    if c > last:
        print((c - last) / (t - t0), flush=True)
    last, t0 = c, t
'''
RUST_PUB = r'''
import json, sys, zenoh
conf = json.loads(sys.argv[1]); size = int(sys.argv[2])
s = zenoh.open(zenoh.Config.from_json5(json.dumps(conf)))
p = s.declare_publisher("test/thr")
data = bytes(size)
while True:
    p.put(data)
'''
def rust(size):
    port = free_port()
    tls = {"root_ca_certificate": D+"ca.pem", "listen_private_key": D+"server.key", "listen_certificate": D+"server.pem"}
    base = {"mode": "peer", "scouting": {"multicast": {"enabled": False}, "gossip": {"enabled": False}},
            "transport": {"link": {"tls": tls}}}
    sc = dict(base, listen={"endpoints": [f"{proto}/127.0.0.1:{port}"]})
    pc = dict(base, connect={"endpoints": [f"{proto}/127.0.0.1:{port}"]})
    sub = subprocess.Popen([PY, "-c", RUST_SUB, json.dumps(sc)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    time.sleep(1.5)
    pub = subprocess.Popen([PY, "-c", RUST_PUB, json.dumps(pc), str(size)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return collect(sub, [pub])

for size in (8, 1024):
    z = zmote(size); r = rust(size)
    print(f"{proto} {size} B: zmote pair {z[0]:.0f} msg/s ({z[1]} windows), Rust(Python) pair {r[0]:.0f} msg/s ({r[1]} windows), ratio {z[0]/r[0] if r[0] else float('nan'):.2f}", flush=True)
