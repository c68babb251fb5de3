"""TLS links between zmote and Rust Zenoh 1.10.2: a zmote client through a Rust router listening
on tls/ (samples both ways, 1 MiB among them, a get), Rust peers into a zmote peer listening on
tls/, with mutual TLS (no certificate, or one from another CA, refused; the right one let in),
the refusals a client reports (a certificate for another name, an expired one, one from an
unknown CA, a handshake the router refuses), and a TLS listener that idle connections and half
handshakes do not keep a real peer from.

The certificates are made here with openssl: a CA, a server certificate for localhost and
127.0.0.1, a client certificate, one from another CA, an expired one, one for another name.
zmote's programs take their TLS settings from the environment (ZMOTE_TLS_*, examples/cli.h), and
must be built with Z_FEATURE_LINK_TLS=1 (scripts/test.sh and scripts/interop.sh build so).

Rust speaks mutual TLS in TLS 1.3 only, which Mbed TLS has from 3.x: with Mbed TLS 2.28 (Debian
12's), the tests of a Rust client or router that gets through mutual TLS are not defined, and
mutual TLS is tested between zmote's own nodes and by the refusals of Rust's."""
import json
import os
import socket
import ssl
import subprocess
import time

import pytest

import harness
from harness import free_port, pattern

KEY = "zm/tls/data"
SYNC = "zm/tls/sync"


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    for ca in ("ca", "otherca"):
        openssl("req", "-x509", *ec, "-keyout", f"{ca}.key", "-out", f"{ca}.pem", "-days", "30", "-subj", f"/CN={ca}",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                cwd=d)
    leaves = [("server", "ca", "DNS:localhost,IP:127.0.0.1", "serverAuth"),
              ("client", "ca", "DNS:client", "clientAuth"),
              ("otherclient", "otherca", "DNS:client", "clientAuth"),
              ("wrongname", "ca", "DNS:other.example", "serverAuth"),
              ("expired", "ca", "DNS:localhost,IP:127.0.0.1", "serverAuth")]
    (d / "ca.cnf").write_text("[ca]\ndefault_ca=d\n[d]\ndatabase=index.txt\nnew_certs_dir=.\nserial=serial\n"
                              "default_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n")
    (d / "index.txt").write_text("")
    (d / "serial").write_text("1000\n")
    for name, ca, san, eku in leaves:
        openssl("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}", cwd=d)
        (d / f"{name}.ext").write_text(f"basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                                       f"extendedKeyUsage={eku}\nsubjectAltName={san}\n")
        if name == "expired":  # valid in January 2020 only
            openssl("ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile", "ca.key", "-in", "expired.csr",
                    "-out", "expired.pem", "-startdate", "20200101000000Z", "-enddate", "20200201000000Z",
                    "-extfile", "expired.ext", "-notext", cwd=d)
        else:
            openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key", "-CAcreateserial",
                    "-out", f"{name}.pem", "-days", "30", "-extfile", f"{name}.ext", cwd=d)
    return d


def rust_tls(certs, server="server", client=None, mtls=False, ca="ca", verify_name=True):
    tls = {"root_ca_certificate": str(certs / f"{ca}.pem"), "enable_mtls": mtls,
           "verify_name_on_connect": verify_name,
           "listen_private_key": str(certs / f"{server}.key"), "listen_certificate": str(certs / f"{server}.pem")}
    if client is not None:
        tls["connect_private_key"] = str(certs / f"{client}.key")
        tls["connect_certificate"] = str(certs / f"{client}.pem")
    return tls


class Rust:
    """Rust sessions of this process over TLS, closed at teardown."""

    def __init__(self):
        self.sessions = []

    def open(self, mode, tls, connect=(), listen=()):
        conf = {"mode": mode, "scouting": {"multicast": {"enabled": False}, "gossip": {"enabled": False}},
                "transport": {"link": {"tls": tls}}}
        if connect:
            conf["connect"] = {"endpoints": list(connect)}
        if listen:
            conf["listen"] = {"endpoints": list(listen)}
        s = harness.zenoh.open(harness.zenoh.Config.from_json5(json.dumps(conf)))
        self.sessions.append(s)
        return s

    def close(self):
        for s in reversed(self.sessions):
            try:
                s.close()
            except Exception:
                pass


@pytest.fixture
def rust_tls_nodes():
    r = Rust()
    yield r
    r.close()


def zmote_env(certs, ca="ca", server=None, client=None, mtls=False, verify_name=None):
    env = [f"ZMOTE_TLS_ROOT_CA_CERTIFICATE={certs / f'{ca}.pem'}"]
    if server:
        env += [f"ZMOTE_TLS_LISTEN_CERTIFICATE={certs / f'{server}.pem'}",
                f"ZMOTE_TLS_LISTEN_PRIVATE_KEY={certs / f'{server}.key'}"]
    if client:
        env += [f"ZMOTE_TLS_CONNECT_CERTIFICATE={certs / f'{client}.pem'}",
                f"ZMOTE_TLS_CONNECT_PRIVATE_KEY={certs / f'{client}.key'}"]
    if mtls:
        env.append("ZMOTE_TLS_ENABLE_MTLS=true")
    if verify_name is not None:
        env.append(f"ZMOTE_TLS_VERIFY_NAME_ON_CONNECT={'true' if verify_name else 'false'}")
    return env


def zm_tls(children, env, name, *args):
    """A zmote program with TLS settings in its environment."""
    p = harness.Proc(["env", *env, harness.program(name), *args], name=name)
    children.all.append(p)
    return p


def tls_router(rust_tls_nodes, certs, **kw):
    port = free_port()
    s = rust_tls_nodes.open("router", rust_tls(certs, **kw), listen=[f"tls/127.0.0.1:{port}"])
    return s, port


# ---- a zmote client through a Rust router on TLS ------------------------------------------------


@pytest.mark.parametrize("size", [8, 1024 * 1024], ids=["8B", "1MiB"])
def test_client_pub_through_tls_router(size, certs, children, rust_tls_nodes):
    r, port = tls_router(rust_tls_nodes, certs)
    got = harness.Received()
    r.declare_subscriber(KEY, got)
    synced = harness.Received()
    r.declare_subscriber(SYNC, synced)
    p = zm_tls(children, zmote_env(certs), "zm_probe", "pub", "-m", "client", "-e", f"tls/localhost:{port}",
               "-k", KEY, "-n", "3", "-s", str(size), "-b", "-S", SYNC, "-W", "-t", "60000")
    synced.wait(1, timeout=30, others=[p])
    p.send("go")
    samples = got.wait(3, timeout=60, others=[p])
    for q, x in enumerate(samples):
        want = pattern(q, size)
        assert x["payload"] == want, f"sample {q}: {harness.first_difference(x['payload'], want)}"
    p.send("stop")
    assert p.wait_exit(20) == 0


@pytest.mark.parametrize("size", [8, 1024 * 1024], ids=["8B", "1MiB"])
def test_client_sub_through_tls_router(size, certs, children, rust_tls_nodes):
    r, port = tls_router(rust_tls_nodes, certs)
    p = zm_tls(children, zmote_env(certs), "zm_probe", "sub", "-m", "client", "-e", f"tls/localhost:{port}",
               "-k", KEY, "-n", "3", "-t", "60000")
    p.wait_line(r"^ready")
    pub = r.declare_publisher(KEY, congestion_control=harness.zenoh.CongestionControl.BLOCK)
    harness.wait_matching(pub, others=[p])
    for q in range(3):
        pub.put(pattern(q, size))
    for q, x in enumerate(harness.probe_samples(p, 3, timeout=60)):
        assert (x["n"], x["len"], x["check"]) == (str(q), str(size), "ok"), p.describe()
    assert p.wait_exit(20) == 0


def test_client_get_through_tls_router(certs, children, rust_tls_nodes):
    r, port = tls_router(rust_tls_nodes, certs)
    r.declare_queryable("zm/tls/q", lambda q: q.reply("zm/tls/q", b"over tls"))
    g = zm_tls(children, zmote_env(certs), "z_get", "-e", f"tls/localhost:{port}", "-k", "zm/tls/q")
    g.wait_line(r"Received PUT \('zm/tls/q': 'over tls'\)", timeout=20)
    assert g.wait_exit(20) == 0


# ---- Rust peers into a zmote peer listening on TLS ------------------------------------------------


def zmote_listener(children, certs, port, mtls=False):
    p = zm_tls(children, zmote_env(certs, server="server", mtls=mtls), "zm_probe", "sub", "-m", "peer",
               "-l", f"tls/127.0.0.1:{port}", "-k", KEY, "-n", "0", "-t", "120000")
    p.wait_line(r"^ready")
    harness.wait_listening(port, 10, p)
    return p


def rust_gets_in(rust_tls_nodes, certs, port, p, tag, mode="peer", **kw):
    """A Rust peer (or client) over TLS into the zmote peer; its put shows there."""
    s = rust_tls_nodes.open(mode, rust_tls(certs, **kw), connect=[f"tls/127.0.0.1:{port}"])
    pub = s.declare_publisher(KEY)
    harness.wait_matching(pub, others=[p])
    pub.put(tag)
    p.wait_line(rf"^sample .* key={KEY} .*head={tag.hex()} ", 20)


def rust_refused(rust_tls_nodes, certs, port, p, **kw):
    """A Rust client (whose open fails when its one connection does) refused by the zmote peer."""
    with pytest.raises(Exception):
        rust_tls_nodes.open("client", rust_tls(certs, **kw), connect=[f"tls/127.0.0.1:{port}"])


def test_rust_into_zmote_tls_listener(certs, children, rust_tls_nodes):
    port = free_port()
    p = zmote_listener(children, certs, port)
    rust_gets_in(rust_tls_nodes, certs, port, p, b"peer")
    rust_gets_in(rust_tls_nodes, certs, port, p, b"client", mode="client")


def test_unreadable_certificate_is_named(certs, children):
    g = zm_tls(children, [f"ZMOTE_TLS_ROOT_CA_CERTIFICATE={certs / 'nonexistent.pem'}"], "z_pub",
               "-e", f"tls/localhost:{free_port()}", "-k", KEY)
    g.wait_line(r"tls: root CA certificate: cannot read or parse it", timeout=20)
    g.wait_line(r"cannot open session: TLS: certificate, key or CA missing or unreadable", timeout=5)
    assert g.wait_exit(10) != 0


def mbedtls_has_tls13() -> bool:
    """Whether the programs' tree links Mbed TLS 3.x (its headers have build_info.h), whose TLS 1.3
    Rust's mutual TLS needs: the install its CMake cache names (ZM_MBEDTLS_PREFIX, the ASan tree
    of scripts/test.sh), else the headers it found (the system's)."""
    cache = {}
    try:
        with open(os.path.join(harness.bin_dir(), os.pardir, "CMakeCache.txt")) as f:
            for line in f:
                name, sep, value = line.rstrip("\n").partition("=")
                if sep and not line.startswith(("#", "//")):
                    cache[name.split(":")[0]] = value
    except OSError:
        pass
    include = (os.path.join(cache["ZM_MBEDTLS_PREFIX"], "include") if cache.get("ZM_MBEDTLS_PREFIX")
               else cache.get("ZM_MBEDTLS_INCLUDE_DIR") or "/usr/include")
    return os.path.exists(os.path.join(include, "mbedtls", "build_info.h"))


TLS13 = mbedtls_has_tls13()
# In TLS 1.2 a server refuses a client's certificate (or its lack) within the handshake; in TLS 1.3
# the client may have finished its side by then, and learn of the refusal as its link closing.
REFUSED = (r"cannot open session: (TLS: handshake refused by the peer|link closed)" if TLS13
           else r"cannot open session: TLS: handshake refused by the peer")


def test_mtls_listener(certs, children, rust_tls_nodes):
    """A zmote peer that requires client certificates: a Rust client without one is refused, so
    are zmote clients without one or with one from another CA; the right one gets in."""
    port = free_port()
    p = zmote_listener(children, certs, port, mtls=True)
    ep = f"tls/localhost:{port}"  # Mbed TLS 2.x checks names, not IP addresses
    rust_refused(rust_tls_nodes, certs, port, p)
    p.wait_line(r"tls: handshake failed: TLS: handshake failed", 10)  # no certificate
    for client in (None, "otherclient"):
        c = zm_tls(children, zmote_env(certs, client=client), "z_pub", "-e", ep, "-k", KEY)
        c.wait_line(REFUSED, timeout=20)
        assert c.wait_exit(10) != 0
    p.wait_line(r"tls: handshake failed: TLS: certificate not signed by a trusted CA", 10)
    c = zm_tls(children, zmote_env(certs, client="client"), "z_pub", "-e", ep, "-k", KEY)
    p.wait_line(rf"^sample .* key={KEY} ", 20, others=[c])




def test_client_name_check_by_ip_address(certs, children, rust_tls_nodes):
    """A client connecting to tls/127.0.0.1, names checked: Mbed TLS 3.x matches the address
    against the certificate's IP SAN and gets in; 2.x checks DNS names only, and refuses it."""
    r, port = tls_router(rust_tls_nodes, certs)
    got = harness.Received()
    r.declare_subscriber(KEY, got)
    p = zm_tls(children, zmote_env(certs, verify_name=True), "z_pub", "-e", f"tls/127.0.0.1:{port}", "-k", KEY)
    if TLS13:
        got.wait(1, timeout=20, others=[p])
    else:
        p.wait_line(r"cannot open session: TLS: certificate name mismatch", timeout=20)
        assert p.wait_exit(10) != 0


if TLS13:
    def test_mtls_rust_client_gets_in(certs, children, rust_tls_nodes):
        port = free_port()
        p = zmote_listener(children, certs, port, mtls=True)
        rust_refused(rust_tls_nodes, certs, port, p, client="otherclient", mtls=True)
        rust_gets_in(rust_tls_nodes, certs, port, p, b"mtls", client="client", mtls=True)

    def test_zmote_client_into_mtls_router(certs, children, rust_tls_nodes):
        r, port = tls_router(rust_tls_nodes, certs, mtls=True)
        got = harness.Received()
        r.declare_subscriber(KEY, got)
        p = zm_tls(children, zmote_env(certs, client="client"), "z_pub", "-e", f"tls/localhost:{port}", "-k", KEY)
        got.wait(1, timeout=20, others=[p])


def test_zmote_client_refused_by_mtls_router(certs, children, rust_tls_nodes):
    """A Rust router that requires client certificates refuses a zmote client without one, and
    the client says so (with Mbed TLS 2.28, whatever its certificate: Rust wants TLS 1.3)."""
    r, port = tls_router(rust_tls_nodes, certs, mtls=True)
    g = zm_tls(children, zmote_env(certs), "z_pub", "-e", f"tls/localhost:{port}", "-k", KEY)
    g.wait_line(r"^Unable to open session!", timeout=20)
    g.wait_line(REFUSED, timeout=5)
    assert g.wait_exit(10) != 0


# ---- what a refused client says -------------------------------------------------------------------


@pytest.mark.parametrize("server,ca,reason", [
    ("wrongname", "ca", "TLS: certificate name mismatch"),
    ("expired", "ca", "TLS: certificate expired or not yet valid"),
    ("server", "otherca", "TLS: certificate not signed by a trusted CA"),
], ids=["name", "expired", "unknown-ca"])
def test_client_refusal_reason(server, ca, reason, certs, children, rust_tls_nodes):
    r, port = tls_router(rust_tls_nodes, certs, server=server)
    g = zm_tls(children, zmote_env(certs, ca=ca), "z_pub", "-e", f"tls/localhost:{port}", "-k", KEY)
    g.wait_line(r"^Unable to open session!", timeout=20)
    g.wait_line(rf"cannot open session: {reason}", timeout=5)
    assert g.wait_exit(10) != 0


def test_client_name_check_off(certs, children, rust_tls_nodes):
    """verify_name_on_connect false: a certificate for another name, from the right CA, is taken."""
    r, port = tls_router(rust_tls_nodes, certs, server="wrongname")
    got = harness.Received()
    r.declare_subscriber(KEY, got)
    p = zm_tls(children, zmote_env(certs, verify_name=False), "z_pub", "-e", f"tls/localhost:{port}", "-k", KEY)
    got.wait(1, timeout=20, others=[p])


# ---- the TLS listener under idle connections and half handshakes ---------------------------------


def client_hello() -> bytes:
    """The first flight of a real TLS client, as it would go on the wire."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(inc, out, server_hostname="localhost")
    with pytest.raises(ssl.SSLWantReadError):
        obj.do_handshake()
    return out.read()


@pytest.mark.serial
def test_tls_accept_not_starved(certs, children, rust_tls_nodes):
    port = free_port()
    p = zmote_listener(children, certs, port)
    hello = client_hello()
    socks = []
    try:
        for i in range(20):  # idle: connected, silent
            socks.append(socket.create_connection(("127.0.0.1", port)))
        for i in range(5):  # half a ClientHello, then silence
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(hello[:len(hello) // 2])
            socks.append(s)
        for i in range(3):  # a whole ClientHello, never an answer to the server's
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(hello)
            socks.append(s)
        t0 = time.monotonic()
        rust_gets_in(rust_tls_nodes, certs, port, p, b"through")
        took = time.monotonic() - t0
        print(f"a Rust peer's first sample through 20 idle connections and 8 half handshakes: {took:.3f}s")
        assert took <= 1.0, f"the Rust peer's first sample took {took:.2f}s\n{p.describe()}"
    finally:
        for s in socks:
            s.close()
